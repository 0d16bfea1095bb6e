"""vᵀJ, J·v and whole Jacobians: the mathematics behind both functional surfaces.

This is not a PyTorch namespace. Two public modules mirror two of PyTorch's, and call this one:

    autograd/functional.py   torch.autograd.functional: vjp, jvp, jacobian, hessian, hvp, vhp
    ../func.py               torch.func: grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, ...

They differ in how they are called (a function and a point, or a transform that returns a new
function), in their argument checks and messages, and in how they package and detach results,
each as its PyTorch namespace does. The derivatives themselves are computed here, once:

    vector_jacobian_product(outputs, inputs, v)        vᵀJ: one backward pass, v the outputs' gradient
    jacobian_vector_product(call, primals, t)          J·t: one forward pass on dual tensors
    jacobian_by_rows(vjp_of_unit, outputs, inputs)     J row by row:   row j is eⱼᵀJ (reverse mode)
    jacobian_by_columns(jvp_of_unit, inputs, shapes)   J column by column: column j is J·eⱼ (forward)
    unit, one_hot                                      the unit vectors eⱼ those loops feed in
    stand_in                                           the fresh tensor a transform differentiates
                                                       with respect to

A Hessian is the Jacobian of the gradient: each surface builds it from its own Jacobians
(`jacobian` of `jacobian` in autograd.functional, `jacfwd(jacrev(f))` in func), as PyTorch does.
"""

import numpy as np

from . import forward_ad, messages
from .backward_and_grad import grad as autograd_grad
from ..creation import from_numpy, zeros, zeros_like
from ..ops.shape import detach, stack, view

__all__ = ["vector_jacobian_product", "jacobian_vector_product", "jacobian_by_rows",
           "jacobian_by_columns", "unit", "one_hot", "stand_in"]


# -- the two products -----------------------------------------------------------------------------
def vector_jacobian_product(outputs, inputs, cotangents=None, *, create_graph, retain_graph=None):
    """vᵀJ, one gradient per input: one backward pass from `outputs`, with `cotangents` (v) as
    their gradients (None: 1 for a single-element output, as in autograd.grad).

    Outputs that do not require grad take no part. An input that no output depends on gets None:
    each surface decides what that means (zeros, or an error in strict mode).
    """
    if cotangents is None:
        cotangents = (None,) * len(outputs)
    kept = [(output, cotangent) for output, cotangent in zip(outputs, cotangents)
            if output is not None and output.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return autograd_grad([output for output, _ in kept], list(inputs),
                         [cotangent for _, cotangent in kept], allow_unused=True,
                         create_graph=create_graph, retain_graph=retain_graph)


def jacobian_vector_product(call, primals, tangents):
    """J·t in one forward pass: each primal carries its tangent as a dual tensor through the
    function, and the outputs come out carrying J·t (forward mode, autograd/forward_ad.py).

    `call(*duals)` runs the function and returns (a tuple of its output tensors, anything else
    to pass on). Returns (the outputs' values, their tangents, that anything else); the tangent
    is None for an output that does not depend on the primals.
    """
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(primal, tangent) for primal, tangent in zip(primals, tangents)]
        outputs, extra = call(*duals)
        unpacked = [forward_ad.unpack_dual(output) for output in outputs]
    return [u.primal for u in unpacked], [u.tangent for u in unpacked], extra


# -- whole Jacobians, from the products with unit vectors ------------------------------------------
def jacobian_by_rows(vjp_of_unit, outputs, inputs):
    """Each output's Jacobian with respect to each input, by reverse mode: row j of output i's
    Jacobian is eⱼᵀJ, the vector-Jacobian product with the unit vector eⱼ, so one backward pass
    per output element. `vjp_of_unit(i, j)` computes that row: one gradient per input.

    Returns blocks[i][k], of shape outputs[i].shape + inputs[k].shape.
    """
    blocks = []
    for i, output in enumerate(outputs):
        rows = [vjp_of_unit(i, j) for j in range(output._data.size)]
        blocks.append(tuple(_stack([row[k] for row in rows], output.shape, inp, dim=0)
                            for k, inp in enumerate(inputs)))
    return tuple(blocks)


def jacobian_by_columns(jvp_of_unit, inputs, output_shapes):
    """Each output's Jacobian with respect to each input, by forward mode: the column for
    element j of input k is J·eⱼ, the Jacobian-vector product with that unit vector, so one
    forward pass per input element. `jvp_of_unit(k, j)` computes that column: one tangent per
    output. `output_shapes()`, asked once the columns are in, gives the outputs' shapes.

    Returns blocks[i][k], of shape output_shapes()[i] + inputs[k].shape.
    """
    columns = [[jvp_of_unit(k, j) for j in range(inp._data.size)] for k, inp in enumerate(inputs)]
    return tuple(tuple(_stack([column[i] for column in columns[k]], shape, inp, dim=-1)
                       for k, inp in enumerate(inputs))
                 for i, shape in enumerate(output_shapes()))


def _stack(pieces, output_shape, inp, dim):
    """Rows (dim 0, each of the input's shape) or columns (dim -1, each of the output's shape)
    stacked into one block of shape output_shape + input.shape; zeros when there are none
    (an output or input with no elements)."""
    shape = tuple(output_shape) + tuple(inp.shape)
    if not pieces:
        return zeros(*shape, dtype=inp.dtype)
    return view(stack(pieces, dim=dim), shape)


def unit(like, index):
    """eᵢ: a tensor of like's shape and dtype, 1 at flat position `index` and 0 elsewhere."""
    vector = np.zeros(like._data.size, dtype=like.dtype.numpy)
    vector[index] = 1
    return from_numpy(vector.reshape(tuple(like.shape)))


def one_hot(likes, position, index):
    """A unit vector of several tensors taken together: one tensor like each of `likes`, eᵢ in
    `position` and zeros in all the others."""
    return tuple(unit(like, index) if k == position else zeros_like(like)
                 for k, like in enumerate(likes))


# -- what to differentiate with respect to -------------------------------------------------------------
def stand_in(value, *, connected, requires_grad=True):
    """A fresh tensor with value's data, to differentiate with respect to: gradients then reach
    exactly it, and not `value` reached by the function some other way.

    connected: an identity view of `value`, which an outer differentiation sees through (the
    result can be differentiated again with respect to `value`); otherwise a detached leaf.
    """
    if connected:
        return view(value, value.shape)
    fresh = detach(value)
    fresh._set_requires_grad(requires_grad, messages.INT_REQUIRES_GRAD_METHOD)
    return fresh
