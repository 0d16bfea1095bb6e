"""`tensorgrad.autograd.functional`, as `torch.autograd.functional`: derivatives of a whole
function at a point, with PyTorch's shapes, tuple structure, checks and messages.

Each takes a Python function `func` and the point `inputs` (a tensor or a tuple of tensors):

    vjp(func, x, v)   -> (func(x), vᵀ·J)        one backward pass
    jvp(func, x, v)   -> (func(x), J·v)         two backward passes (the "double-VJP trick")
    jacobian(func, x) -> J, of shape output.shape + input.shape, one backward per output element
                         (or, with strategy="forward-mode", one forward pass per input element)
    hessian(func, x)  -> the Jacobian of the gradient
    vhp(func, x, v)   -> (func(x), vᵀ·H)        two backward passes
    hvp(func, x, v)   -> (func(x), H·v)         three backward passes (the trick again)

The products and the Jacobians' row-by-row and column-by-column loops are computed in
autograd/jacobians.py, which tensorgrad.func (torch.func's transforms, ../func.py) calls too. This
module is PyTorch's surface around them: the inputs are never changed (each function
differentiates with respect to fresh tensors that share their values, `_prepare_inputs`),
results are detached unless `create_graph=True`, which keeps them in the graph so that they can
be differentiated again, and with `strict=True` an output that does not depend on an input is an
error instead of a block of zeros.
"""

from . import messages
from ..creation import _zeros  # (zeros_like without its check)
from ..core.grad_mode import enable_grad, is_grad_enabled as _is_grad_enabled, set_grad_enabled
from .jacobians import jacobian_by_columns as _jacobian_by_columns
from .jacobians import jacobian_by_rows as _jacobian_by_rows
from .jacobians import jacobian_vector_product as _jacobian_vector_product
from .jacobians import one_hot as _one_hot, stand_in as _stand_in, unit as _unit
from .jacobians import vector_jacobian_product as _vector_jacobian_product
from ..creation import zeros_like as _zeros_like
from ..ops import shape as _shape
from ..core.tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# -- vjp and jvp ----------------------------------------------------------------------------------
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), vᵀ·J): the vector-Jacobian product, which is exactly one backward pass
    with `v` as the output gradient. `v` may be left out when func returns a single element."""
    with enable_grad():
        is_inputs_tuple, inputs = _prepare_inputs(inputs, create_graph, "vjp")
        is_outputs_tuple, outputs = _call(func, inputs, strict, "vjp")
        v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp", _V_NONE_FOR_OUTPUT)

    result = _last_backward(outputs, inputs, v, inputs, strict, create_graph, "back")
    return _package(outputs, result, is_outputs_tuple, is_inputs_tuple, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J·v): the Jacobian-vector product, computed as PyTorch's
    autograd.functional computes it, by reverse mode only: the double-VJP trick.

    Let u be a dummy output gradient. The first backward computes g(u) = uᵀ·J, with
    create_graph=True, so g is itself a function of u in the graph. It is linear in u, and its
    Jacobian with respect to u is Jᵀ. A second backward of g with output gradient v then gives
    vᵀ·Jᵀ = (J·v)ᵀ. The value of u never matters (we use zeros); only the graph built from it
    does. (Forward mode gets J·v in one pass: `tensorgrad.func.jvp`, as `torch.func.jvp`.)
    """
    with enable_grad():
        is_inputs_tuple, inputs = _prepare_inputs(inputs, create_graph, "jvp")
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp", _V_NONE_FOR_INPUT)
        is_outputs_tuple, outputs = _call(func, inputs, strict, "jvp")
        dummy = tuple(_zeros_like(out, requires_grad=True) for out in outputs)  # u above
        grad_inputs = _vector_jacobian_product(outputs, inputs, dummy, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)

    result = _last_backward(grad_inputs, dummy, v, outputs, strict, create_graph, "back_trick")
    return _package(outputs, result, is_outputs_tuple, is_outputs_tuple, create_graph)


# -- jacobian and hessian ---------------------------------------------------------------------------
def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The full Jacobian: for each output and each input, a tensor of shape
    output.shape + input.shape. (A tuple per output and per input when those were tuples.)

    Reverse mode: row j of the flattened Jacobian is the vector-Jacobian product with the unit
    vector eⱼ, so one backward per output element, the rows stacked. Forward mode: column j is
    the Jacobian-vector product with eⱼ, one forward pass per input element, which is fewer
    passes when there are more outputs than inputs. (`vectorize=True` is PyTorch's batched
    speed-up; tensorgrad runs the same passes one by one and gives the same result.)
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(messages.JACOBIAN_STRATEGY)
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(messages.JACOBIAN_FORWARD_CREATE_GRAPH)
        if strict:
            raise RuntimeError(messages.JACOBIAN_FORWARD_STRICT)
        if not vectorize:
            raise NotImplementedError(messages.JACOBIAN_FORWARD_NEEDS_VECTORIZE)
        return _jacobian_by_forward_mode(func, inputs)
    with enable_grad():
        is_inputs_tuple, inputs = _prepare_inputs(inputs, create_graph, "jacobian")
        is_outputs_tuple, outputs = _call(func, inputs, strict, "jacobian")
        if vectorize and strict:
            raise RuntimeError(messages.JACOBIAN_VECTORIZE_STRICT)

        def row(i, j):  # d outputs[i][j] / d inputs, by one backward pass
            grads = _vector_jacobian_product((outputs[i],), inputs, (_unit(outputs[i], j),),
                                            retain_graph=True, create_graph=create_graph)
            return tuple(_row_entry(grad, inp, i, k, strict, create_graph)
                         for k, (grad, inp) in enumerate(zip(grads, inputs)))

        jacobians = _grad_postprocess(_jacobian_by_rows(row, outputs, inputs), create_graph)
        return _tuple_postprocess(jacobians, (is_outputs_tuple, is_inputs_tuple))


def _row_entry(grad, inp, i, k, strict, create_graph):
    """One input's part of a Jacobian row: zeros where output i does not depend on input k
    (an error with strict)."""
    if grad is None:
        if strict:
            raise RuntimeError(f"Output {i} of the user-provided function is independent of "
                               f"input {k}. This is not allowed in strict mode.")
        return _zeros_like(inp)
    if strict and create_graph and not grad.requires_grad:
        raise RuntimeError(f"The jacobian of the user-provided function is independent of input "
                           f"{i}. This is not allowed in strict mode when create_graph=True.")
    return grad


def _jacobian_by_forward_mode(func, inputs):
    """jacobian(strategy="forward-mode"): one forward pass per input element, each giving one
    column J·eⱼ as the tangent of the outputs."""
    is_inputs_tuple, inputs = _prepare_inputs(inputs, False, "jacobian")
    inputs = tuple(_shape.detach(inp) for inp in inputs)
    found = {}  # what the last call of func returned: whether a tuple, and the outputs

    def call(*duals):
        found["is_tuple"], outputs = _call(func, duals, False, "jacobian")
        return outputs, None

    def column(k, j):  # d outputs / d inputs[k][j], by one forward pass
        primals, tangents, _ = _jacobian_vector_product(call, inputs, _one_hot(inputs, k, j))
        found["outputs"] = primals
        return tuple(_zeros_like(primal) if tangent is None else _shape.detach(tangent)
                     for primal, tangent in zip(primals, tangents))

    def output_shapes():
        if "outputs" not in found:  # no input has any element: call once for the outputs' shapes
            found["is_tuple"], found["outputs"] = _call(func, inputs, False, "jacobian")
        return [tuple(out.shape) for out in found["outputs"]]

    jacobians = _jacobian_by_columns(column, inputs, output_shapes)
    return _tuple_postprocess(jacobians, (found["is_tuple"], is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a function with a single-element output: the Jacobian of its gradient,
    of shape input.shape + input.shape (a tuple of tuples for several inputs)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def scalar_function(*args):
        out = func(*args)
        is_out_tuple, tupled = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(tupled, "outputs", strict=strict)
        if is_out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out._data.size != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element")
        return _shape.squeeze(out)

    def gradient(*args):
        jac = jacobian(scalar_function, args, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(result, (is_inputs_tuple, is_inputs_tuple))


# -- Hessian-vector products ---------------------------------------------------------------------------
def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), vᵀ·H): backward once with a graph to get the gradient g(x), then backward
    through g with output gradient v."""
    with enable_grad():
        is_inputs_tuple, is_outputs_tuple, inputs, v, outputs, gradient = (
            _scalar_output_and_gradient(func, inputs, v, create_graph, strict, "vhp"))

    result = _last_backward(gradient, inputs, v, inputs, strict, create_graph, "double_back")
    return _package(outputs, result, is_outputs_tuple, is_inputs_tuple, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H·v), as PyTorch computes it: the double-VJP trick (see jvp) applied to the
    gradient, so three backward passes. For a twice continuously differentiable function H is
    symmetric and H·v = (vᵀ·H)ᵀ, so `vhp` gives the same numbers with one pass fewer."""
    with enable_grad():
        is_inputs_tuple, is_outputs_tuple, inputs, v, outputs, gradient = (
            _scalar_output_and_gradient(func, inputs, v, create_graph, strict, "hvp"))
        dummy = tuple(_zeros(inp.shape, inp.dtype, True) for inp in inputs)
        double_back = _vector_jacobian_product(gradient, inputs, dummy, create_graph=True)
        _check_requires_grad(gradient, "hessian", strict=strict)

    result = _last_backward(double_back, dummy, v, inputs, strict, create_graph,
                            "double_back_trick")
    return _package(outputs, result, is_outputs_tuple, is_inputs_tuple, create_graph)


def _scalar_output_and_gradient(func, inputs, v, create_graph, strict, fn_name):
    """Shared start of vhp and hvp: check v and the output, then the gradient with a graph."""
    is_inputs_tuple, inputs = _prepare_inputs(inputs, create_graph, fn_name)
    v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, fn_name, _V_NONE_FOR_INPUT)
    is_outputs_tuple, outputs = _call(func, inputs, strict, fn_name)
    if is_outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0]._data.size != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element")
    gradient = _vector_jacobian_product(outputs, inputs, create_graph=True)
    _check_requires_grad(gradient, "jacobian", strict=strict)
    return is_inputs_tuple, is_outputs_tuple, inputs, v, outputs, gradient


# -- the steps every function above takes (PyTorch's helpers, with its messages) ---------------------
def _prepare_inputs(inputs, create_graph, fn_name):
    """(was it a tuple, the inputs as a tuple of tensors that require grad)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    return is_inputs_tuple, _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)


def _prepare_v(v, against, is_against_tuple, create_graph, fn_name, none_message):
    """`v` checked against the tensors it multiplies (outputs for vjp, inputs for jvp/hvp)."""
    if v is None:
        if len(against) != 1 or against[0]._data.size != 1:
            raise RuntimeError(none_message)
        return v
    _, v = _as_tuple(v, "v", fn_name)
    v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
    _validate_v(v, against, is_against_tuple)
    return v


_V_NONE_FOR_OUTPUT = ("The vector v can only be None if the user-provided function returns a "
                      "single Tensor with a single element.")
_V_NONE_FOR_INPUT = ("The vector v can only be None if the input to the user-provided function "
                     "is a single Tensor with a single element.")


def _call(func, inputs, strict, fn_name):
    """(was it a tuple, func's outputs as a tuple), checked to depend on the inputs."""
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                          fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    return is_outputs_tuple, outputs


def _last_backward(roots, wrt, v, refs, strict, create_graph, stage):
    """The final backward pass of a product: recorded only when create_graph asks for it.
    Inputs that got no gradient get zeros shaped like `refs` (or an error, with strict)."""
    with set_grad_enabled(True if create_graph else _is_grad_enabled()):
        grads = _vector_jacobian_product(roots, wrt, v, create_graph=create_graph)
        return _fill_in_zeros(grads, refs, strict, create_graph, stage)


def _package(outputs, result, is_outputs_tuple, is_result_tuple, create_graph):
    """(func's output, the product), detached unless create_graph, as tuples or single tensors
    to match how the caller passed them in."""
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(result, is_result_tuple))


def _as_tuple(value, arg_name, fn_name):
    """(was it a tuple?, the value as a tuple of tensors), checking that each is a tensor."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for index, element in enumerate(values):
        if not isinstance(element, Tensor):
            if is_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                    f"Tensors but the value at index {index} has type {type(element)}.")
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                f"but the given {arg_name} has type {type(element)}.")
    return is_tuple, values


def _tuple_postprocess(result, to_unpack):
    """Undo `_as_tuple`: give back a bare tensor where the user passed a bare tensor."""
    if isinstance(to_unpack, tuple):
        outer_was_tuple, inner_was_tuple = to_unpack
        if not inner_was_tuple:
            result = tuple(element[0] for element in result)
        if not outer_was_tuple:
            result = result[0]
    elif not to_unpack:
        result = result[0]
    return result


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh tensors to differentiate with respect to (jacobians.stand_in). With create_graph,
    they stay connected to the originals, so the final result can be differentiated with
    respect to the user's tensors."""
    return tuple(_stand_in(tensor, connected=create_graph and tensor.requires_grad,
                          requires_grad=need_graph)
                 for tensor in inputs)


def _grad_postprocess(values, create_graph):
    """Detach the results unless the user asked for a graph (nested tuples for jacobian)."""
    if isinstance(values[0], Tensor):
        if create_graph:
            return values
        return tuple(_shape.detach(value) for value in values)
    return tuple(_grad_postprocess(value, create_graph) for value in values)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (element_v, element_other) in enumerate(zip(v, other)):
        if element_v.shape != element_other.shape:
            prefix = f"Entry {index} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prefix}v has invalid size: should be {element_other.shape} but got "
                f"{element_v.shape}.")


def _check_requires_grad(values, input_type, strict):
    """In strict mode, refuse values that do not depend on the inputs."""
    if not strict:
        return
    for i, value in enumerate(values):
        if value is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode.")
        if value.requires_grad:
            continue
        if input_type == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs.")
        if input_type == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).")
        if input_type == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(
            f"Output {i} of the user-provided function does not require gradients. The outputs "
            "must be computed in a differentiable manner from the input when running in strict "
            "mode.")


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Replace None (no dependence) by zeros, or refuse it in strict mode."""
    result = []
    for i, grad in enumerate(grads):
        if grad is None:
            if strict:
                raise RuntimeError(_STRICT_NONE_MESSAGES[stage].format(i=i))
            grad = _zeros_like(refs[i])
        elif strict and create_graph and not grad.requires_grad:
            if "double" not in stage:
                raise RuntimeError(
                    f"The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode when create_graph=True.")
            raise RuntimeError(
                f"The hessian of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode when create_graph=True.")
        result.append(grad)
    return tuple(result)


_STRICT_NONE_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This "
                   "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
                         "in the grad_jacobian. This is not allowed in strict mode as it prevents "
                         "from using the double backward trick to replace forward mode AD.",
}
