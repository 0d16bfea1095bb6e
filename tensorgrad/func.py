"""`tensorgrad.func`, as `torch.func`: derivatives as functions of functions.

    grad(f)(x)            ∇f(x) for a scalar f                 (reverse mode, one backward)
    vjp(f, x)             f(x) and a function v ↦ vᵀJ            (reverse mode)
    jvp(f, (x,), (t,))    f(x) and J·t                           (forward mode, one pass)
    jacrev(f)(x)          J, one row per backward pass           (good for few outputs)
    jacfwd(f)(x)          J, one column per forward pass         (good for few inputs)
    hessian(f)(x)         jacfwd(jacrev(f))(x)
    vmap(f)(xs)           f applied to each slice of xs, the results stacked
    functional_call(m, params, args)   a module run with other parameters

They compose: `jacfwd(jacrev(f))`, `vmap(grad(f))`, `grad(grad(f))`. Everything here is built on
the two engines of tensorgrad: reverse mode (`autograd.grad`, with create_graph=True so an outer
transform can differentiate again) and forward mode (`autograd.forward_ad`). The products vᵀJ
and J·t and the Jacobians' row-by-row and column-by-column loops are computed in
autograd/jacobians.py, which tensorgrad.autograd.functional (torch.autograd.functional) calls too;
this module is torch.func's surface around them. `vmap` is a loop over the batch: the same
results, shapes and errors as PyTorch's, without its speed.

A transform differentiates with respect to fresh tensors that stand for its inputs. When an input
is itself being differentiated by an outer transform (it requires grad, or carries a tangent),
the fresh tensor is an identity view of it, so the outer transform sees through; otherwise the
results are detached, as PyTorch's are.
"""

import functools

from . import creation
from .autograd import forward_ad
from .core.grad_mode import enable_grad
from .autograd.jacobians import jacobian_by_columns as _jacobian_by_columns
from .autograd.jacobians import jacobian_by_rows as _jacobian_by_rows
from .autograd.jacobians import jacobian_vector_product as _jacobian_vector_product
from .autograd.jacobians import one_hot as _one_hot, stand_in as _stand_in
from .autograd.jacobians import vector_jacobian_product as _vector_jacobian_product
from .nn.module import Module
from .ops.indexing import select as _select
from .ops.shape import detach as _detach, stack as _stack
from .core.tensor import Tensor

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call"]


# -- grad and grad_and_value ----------------------------------------------------------------------
def grad_and_value(func, argnums=0, has_aux=False):
    """A function that returns (∇func at the argument(s) `argnums`, func's value)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _check_callable(func)
        positions = _check_argnums(argnums, args)
        trees = [_flatten(args[i]) for i in positions]  # an argument may be a dict of tensors
        with enable_grad():
            inputs, outer = _fresh_inputs([leaf for leaves, _ in trees for leaf in leaves])
            call_args, start = list(args), 0
            for position, (leaves, rebuild) in zip(positions, trees):
                call_args[position] = rebuild(inputs[start:start + len(leaves)])
                start += len(leaves)
            output, aux = _split_aux(func(*call_args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            _check_scalar_output(output)
            grads = _gradients((output,), inputs, (None,))
        grads, start, per_argument = _finish(grads, outer), 0, []
        for leaves, rebuild in trees:
            per_argument.append(rebuild(grads[start:start + len(leaves)]))
            start += len(leaves)
        value = _finish((output,), outer)[0]
        result = per_argument[0] if isinstance(argnums, int) else tuple(per_argument)
        if has_aux:
            return result, (value, _finish_aux(aux, outer))
        return result, value

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function that returns ∇func at the argument(s) `argnums` (func must return a scalar)."""
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gradients, value = both(*args, **kwargs)
        if has_aux:
            return gradients, value[1]
        return gradients

    return wrapper


# -- vjp and jvp ------------------------------------------------------------------------------------
def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]): vjp_fn(v) returns vᵀJ, one gradient per primal."""
    with enable_grad():
        inputs, outer = _fresh_inputs(primals)
        _check_callable(func)  # (after the primals, in PyTorch's order)
        output, aux = _split_aux(func(*inputs), has_aux, "vjp(f, *primals)")
    outputs = output if isinstance(output, tuple) else (output,)
    for value in outputs:
        if not isinstance(value, Tensor):
            raise RuntimeError(f"vjp(f, *primals): Expected f(*primals) to return only tensors, "
                               f"got unsupported type {type(value).__name__}")

    def vjp_fn(cotangents):
        cotangents = cotangents if isinstance(cotangents, tuple) else (cotangents,)
        with enable_grad():
            grads = _gradients(outputs, inputs, cotangents, retain_graph=True)
        return tuple(_finish(grads, outer))

    finished = _finish(outputs, outer)
    result = (tuple(finished) if isinstance(output, tuple) else finished[0], vjp_fn)
    return result + (_finish_aux(aux, outer),) if has_aux else result


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), J·tangents[, aux]): one forward pass, carrying the tangents along."""
    for name, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, tuple):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected {name} to be a tuple. E.g. "
                               "it should be valid to call f(*primals).")
    if len(primals) != len(tangents):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the "
                           f"same python structure. For example, if primals is a tuple of 3 "
                           f"tensors, tangents also must be. Got primals with structure "
                           f"{len(primals)} tensors and tangents with {len(tangents)}")

    def call(*duals):
        _check_callable(func)
        output, aux = _split_aux(func(*duals), has_aux, "jvp(f, primals, tangents)")
        return (output if isinstance(output, tuple) else (output,)), (output, aux)

    values, derivatives, (output, aux) = _jacobian_vector_product(call, primals, tangents)
    outer = any(isinstance(v, Tensor) and v.requires_grad for v in primals + tangents)
    derivatives = [tangent if tangent is not None else creation.zeros_like(primal)
                   for primal, tangent in zip(values, derivatives)]
    values, derivatives = tuple(_finish(values, outer)), tuple(_finish(derivatives, outer))
    if not isinstance(output, tuple):
        values, derivatives = values[0], derivatives[0]
    return (values, derivatives, aux) if has_aux else (values, derivatives)


# -- whole Jacobians --------------------------------------------------------------------------------
def jacrev(func, argnums=0, *, has_aux=False):
    """The Jacobian by reverse mode: one vᵀJ per output element, v the unit vectors."""

    @functools.wraps(func)
    def wrapper(*args):
        _check_callable(func)
        positions = _check_argnums(argnums, args)

        def of_selected(*selected):
            call_args = list(args)
            for position, value in zip(positions, selected):
                call_args[position] = value
            return func(*call_args)

        found = vjp(of_selected, *[args[i] for i in positions], has_aux=has_aux)
        output, vjp_fn = found[0], found[1]
        outputs = output if isinstance(output, tuple) else (output,)

        def row(i, j):  # d outputs[i][j] / d the selected arguments, by one backward pass
            cotangents = _one_hot(outputs, i, j)
            return vjp_fn(cotangents if isinstance(output, tuple) else cotangents[0])

        blocks = _jacobian_by_rows(row, outputs, [args[p] for p in positions])
        result = _shape_like(blocks, argnums, output)
        return (result, found[2]) if has_aux else result

    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian by forward mode: one J·t per input element, t the unit vectors."""

    @functools.wraps(func)
    def wrapper(*args):
        _check_callable(func)
        positions = _check_argnums(argnums, args)
        selected = [args[i] for i in positions]

        def of_selected(*values):
            call_args = list(args)
            for position, value in zip(positions, values):
                call_args[position] = value
            return func(*call_args)

        last = {}  # what the last call returned: the output and the aux

        def column(k, j):  # d outputs / d selected[k][j], by one forward pass
            found = jvp(of_selected, tuple(selected), _one_hot(selected, k, j), has_aux=has_aux)
            last["output"], last["aux"] = found[0], (found[2] if has_aux else None)
            return found[1] if isinstance(found[0], tuple) else (found[1],)

        def output_shapes():
            if "output" not in last:  # no input has any element
                last["output"], last["aux"] = _split_aux(of_selected(*selected), has_aux,
                                                         "jacfwd(f)(*args)")
            output = last["output"]
            return [tuple(out.shape) for out in (output if isinstance(output, tuple) else (output,))]

        blocks = _jacobian_by_columns(column, selected, output_shapes)
        result = _shape_like(blocks, argnums, last["output"])
        return (result, last["aux"]) if has_aux else result

    return wrapper


def hessian(func, argnums=0):
    """The matrix of second derivatives: the forward-mode Jacobian of the reverse-mode gradient."""
    return jacfwd(jacrev(func, argnums), argnums)


# -- vmap -------------------------------------------------------------------------------------------
def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func applied to each slice along `in_dims` of its arguments, the results stacked along
    `out_dims`. (A loop over the batch.)"""
    name = getattr(func, "__name__", type(func).__name__)

    @functools.wraps(func)
    def wrapper(*args):
        _check_callable(func)
        dims = _vmap_in_dims(name, in_dims, args)
        size = _batch_size(name, in_dims, args, dims)
        results = []
        for i in range(size):
            sliced = [arg if dim is None else _select(arg, dim, i) for arg, dim in zip(args, dims)]
            results.append(func(*sliced))
        return _stack_results(name, results, out_dims)

    return wrapper


def _vmap_in_dims(name, in_dims, args):
    if isinstance(in_dims, int):
        dims = [in_dims] * len(args)
    elif isinstance(in_dims, tuple):
        if len(in_dims) != len(args):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>): in_dims is not compatible "
                f"with the structure of `inputs`. in_dims has structure {_tree_spec(in_dims)} "
                f"but inputs has structure {_tree_spec(args)}.")
        dims = list(in_dims)
    else:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>): expected `in_dims` to be int or "
            f"a (potentially nested) tuple matching the structure of inputs, got: "
            f"{type(in_dims)}.")
    for index, (arg, dim) in enumerate(zip(args, dims)):
        if dim is None:
            continue
        if not isinstance(arg, Tensor):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>): Got in_dim={dim} for an "
                f"input but the input is of type {type(arg)}. We cannot vmap over non-Tensor "
                "arguments, please use None as the respective in_dim")
        if not -arg.ndim <= dim < arg.ndim or arg.ndim == 0:
            raise ValueError(
                f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>): Got in_dim={dim} for some "
                f"input, but that input is a Tensor of dimensionality {arg.ndim} so expected "
                f"in_dim to satisfy -{arg.ndim} <= in_dim < {arg.ndim}.")
        dims[index] = dim % arg.ndim
    return dims


def _tree_spec(values):
    """How PyTorch's pytree prints a flat tuple's structure (in its error messages)."""
    leaves = ",\n  ".join("*" for _ in values)
    return f"TreeSpec(tuple, None, [{leaves}])"


def _batch_size(name, in_dims, args, dims):
    sizes = [arg.shape[dim] for arg, dim in zip(args, dims) if dim is not None]
    if not sizes:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>): at least one input must be a "
            "Tensor to vmap over (an in_dim that is not None)")
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _stack_results(name, results, out_dims):
    first = results[0] if results else None
    outputs_are_tuple = isinstance(first, tuple)
    columns = list(zip(*results)) if outputs_are_tuple else [results]
    dims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(columns)
    stacked = []
    for column, dim in zip(columns, dims):
        for value in column:
            if not isinstance(value, Tensor):
                raise ValueError(
                    f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                    f"{type(value)}. Did you mean to set out_dims= to None for output?")
        stacked.append(_stack(list(column), dim=dim))
    return tuple(stacked) if outputs_are_tuple else stacked[0]


# -- modules as functions ---------------------------------------------------------------------------
def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Run `module(*args, **kwargs)` with the given tensors in place of its parameters and
    buffers (by their names in `named_parameters()`), then put the module's own back."""
    dicts = (parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, (list, tuple))
             else [parameter_and_buffer_dicts])
    if not all(isinstance(mapping, dict) for mapping in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    if not isinstance(module, Module):
        raise TypeError(f"functional_call(): argument 'module' must be a tensorgrad.nn.Module, "
                        f"not {type(module).__name__}")
    replacements = {}
    for mapping in dicts:
        replacements.update(mapping)
    args = () if args is None else (args if isinstance(args, tuple) else (args,))
    registered = {name for name, _ in module.named_parameters()} | {
        name for name, _ in module.named_buffers()}
    if strict:
        unexpected = sorted(set(replacements) - registered)
        missing = sorted(registered - set(replacements))
        if unexpected or missing:
            lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
            if unexpected:
                lines.append("\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
            if missing:
                lines.append("\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError("\n".join(lines))
    saved = []
    try:
        for name, value in replacements.items():
            owner, attribute = _owner_of(module, name)
            for registry in ("_parameters", "_buffers"):
                entries = owner.__dict__[registry]
                if attribute in entries:
                    saved.append((entries, attribute, entries[attribute]))
                    entries[attribute] = value
                    break
        return module(*args, **(kwargs or {}))
    finally:
        for entries, attribute, original in reversed(saved):
            entries[attribute] = original


def _owner_of(module, dotted_name):
    *path, attribute = dotted_name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, attribute


# -- shared steps -----------------------------------------------------------------------------------
def _check_callable(func):
    """PyTorch lets a non-function fail where it is called ("'str' object is not callable");
    tensorgrad says what was wrong (at the same moment, so that grad("f") still succeeds)."""
    if not callable(func):
        raise TypeError(f"expected a function to transform, but got {type(func).__name__}: pass "
                        "the function itself, e.g. grad(f), not grad(f(x))")


def _check_argnums(argnums, args):
    """argnums as torch.func checks it: an int, or a non-empty tuple of distinct ints."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    positions = (argnums,) if isinstance(argnums, int) else argnums
    if not positions:
        raise RuntimeError("argnums must be non-empty")
    for argnum in positions:
        if not isinstance(argnum, int):
            raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if len(set(positions)) < len(positions):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    for argnum in positions:
        if not -len(args) <= argnum < len(args):
            raise RuntimeError(f"Got argnum={argnum}, but only {len(args)} positional inputs")
    return tuple(p % len(args) for p in positions)


def _fresh_inputs(values):
    """Tensors to differentiate with respect to, one per value, and whether an outer transform
    is differentiating the values too (then the results stay connected to them)."""
    fresh, outer = [], False
    for value in values:
        if not isinstance(value, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(value)}")
        if not value.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        tangent = forward_ad._tangent_of(value)
        if value.requires_grad:
            outer = True
            fresh.append(_stand_in(value, connected=True))  # the outer transform sees through
        elif tangent is not None:
            outer = True  # an outer jvp: keep its tangent on the fresh leaf
            fresh.append(forward_ad.make_dual(_stand_in(value, connected=False), tangent))
        else:
            fresh.append(_stand_in(value, connected=False))
    return fresh, outer


def _flatten(value):
    """The tensors in `value` (a tensor, or a tuple, list or dict of them, nested), and a function
    that builds the same structure from other leaves: PyTorch's pytrees, in small."""
    if isinstance(value, Tensor):
        return [value], lambda leaves: leaves[0]
    if isinstance(value, (tuple, list, dict)):
        keys = list(value) if isinstance(value, dict) else range(len(value))
        parts = [_flatten(value[key]) for key in keys]
        counts = [len(leaves) for leaves, _ in parts]

        def rebuild(leaves):
            built, start = [], 0
            for (_, rebuild_part), count in zip(parts, counts):
                built.append(rebuild_part(leaves[start:start + count]))
                start += count
            if isinstance(value, dict):
                return dict(zip(keys, built))
            return type(value)(built)

        return [leaf for leaves, _ in parts for leaf in leaves], rebuild
    return [value], lambda leaves: leaves[0]  # not a tensor: _fresh_inputs says so


def _split_aux(output, has_aux, where):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{where}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    return output


def _check_scalar_output(output):
    if not isinstance(output, Tensor):
        raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                           f"{type(output)}")
    if output.ndim != 0:
        raise RuntimeError(
            "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
            f"with {output.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")


def _gradients(outputs, inputs, cotangents, retain_graph=None):
    """vᵀJ with a graph (an outer transform may differentiate it again), and zeros for inputs
    the outputs do not depend on (as torch.func)."""
    grads = _vector_jacobian_product(outputs, inputs, cotangents, create_graph=True,
                                    retain_graph=retain_graph)
    return [creation.zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


def _finish(values, outer):
    """Detach the results unless an outer transform differentiates through them."""
    return list(values) if outer else [_detach(v) if isinstance(v, Tensor) else v for v in values]


def _finish_aux(aux, outer):
    if isinstance(aux, Tensor):
        return _finish((aux,), outer)[0]
    if isinstance(aux, (tuple, list)):
        return type(aux)(_finish_aux(a, outer) for a in aux)
    if isinstance(aux, dict):
        return {k: _finish_aux(v, outer) for k, v in aux.items()}
    raise RuntimeError(f"Expected tensors, got unsupported type {type(aux)}")


def _shape_like(per_output, argnums, output):
    """One Jacobian per (output, selected input), nested as PyTorch returns them."""
    per_output = [blocks[0] if isinstance(argnums, int) else blocks for blocks in per_output]
    return tuple(per_output) if isinstance(output, tuple) else per_output[0]
