"""In-place operations: `add_`, `mul_`, `zero_`, `+=`, `t[i] = v`, ...

An in-place op is computed like its out-of-place twin, then the new values are written into
the tensor's existing memory, so every view and alias sees them. Three things follow:
  * the version counter goes up, so backward can tell that a saved value has changed
    (tests/spec/test_s5_modes_inplace_hooks.py);
  * the tensor's grad_fn becomes the new node, whose next_functions lead to the old one;
  * a leaf that requires grad may not be changed this way while grad mode is on, because its
    old value would be lost from the graph (tests/spec/test_s5_modes_inplace_hooks.py).
"""

import numpy as np
from numpy.lib.array_utils import byte_bounds

from ..arguments import Number, declared, overload
from ..autograd import messages
from ..core import instruments
from ..dtypes import from_numpy_dtype
from ..core.grad_mode import is_grad_enabled
from ..core.node import OUTPUT, SavedTensor
from ..derivatives import FillBackward2, FillBackward3, NormalBackward0, UniformBackward0, ZeroBackward0
from ..core.tensor import Tensor, _bracketed
from ..creation import check_value_fits
from ..core.record import record, save
from . import elementwise as ew
from ..derivatives import CopyBackwards
from .elementwise import broadcast_error, clone, requires_grad


def check_allowed(tensor, leaf_message=messages.LEAF_IN_PLACE):
    """Refuse in-place changes that would make the graph wrong, with PyTorch's messages."""
    if not is_grad_enabled():
        return
    if tensor._view_of_grad_fn is not None:
        tensor._check_view_is_current()
    if tensor._grad_fn is None and tensor._requires_grad:
        raise RuntimeError(leaf_message if tensor._base is None else messages.VIEW_OF_LEAF_IN_PLACE)
    base = tensor._base
    if base is not None:
        if base._grad_fn is None and base._requires_grad:
            raise RuntimeError(messages.VIEW_OF_LEAF_IN_PLACE)


def check_memory(tensor, inputs=(), written=None):
    """Refuse writes PyTorch refuses, with its messages: into memory where several elements are
    one (an expanded tensor), and from an input that partly overlaps the part written (it would
    read values the write has already changed). Read-only NumPy memory gets a clear error too.
    `written`: that part's array, when it is not the whole tensor (`t[0] = t[1]` writes t[0])."""
    data = tensor._data
    if data.size and 0 in data.strides and any(
            stride == 0 and size > 1 for stride, size in zip(data.strides, data.shape)):
        raise RuntimeError(messages.INTERNAL_OVERLAP)
    if not data.flags.writeable:
        raise RuntimeError(messages.READ_ONLY_MEMORY)
    for value in inputs:
        if isinstance(value, Tensor) and _partly_overlap(
                data if written is None else written, value._data):
            raise RuntimeError(messages.PARTIAL_OVERLAP)


def _own_memory(a, b):
    """Two different arrays that each own their memory cannot overlap (a quick common case:
    an optimizer step's p.sub_(lr * p.grad))."""
    return a is not b and a.base is None and b.base is None


def _partly_overlap(a, b):
    """PyTorch's test: both arrays dense, and their memory ranges overlap without being the same
    range with the same strides (x.add_(x) is fine, x[1:].add_(x[:-1]) is not). Arrays with
    gaps are not checked, as in PyTorch ("too hard")."""
    if _own_memory(a, b) or not np.may_share_memory(a, b):  # quick tests first
        return False
    if a.size == 0 or b.size == 0 or not (_dense(a) and _dense(b)):
        return False
    start_a, end_a = byte_bounds(a)
    start_b, end_b = byte_bounds(b)
    if (start_a, end_a) == (start_b, end_b):
        return not _same_strides(a, b)
    return start_a < end_b and start_b < end_a


def _same_strides(a, b):
    """PyTorch compares the strides of every dim. NumPy gives a new axis (x[None]) the stride 0
    where PyTorch computes one, so a 0 on a dim of size 1 matches any stride."""
    return a.ndim == b.ndim and all(
        stride_a == stride_b or (size == 1 and 0 in (stride_a, stride_b))
        for stride_a, stride_b, size in zip(a.strides, b.strides, a.shape)
    )


def _dense(array):
    """No gaps and no element used twice: the array fills its memory range exactly."""
    start, end = byte_bounds(array)
    return end - start == array.nbytes


def apply(tensor, compute, inputs=(), written=None):
    """Run `compute()` (the out-of-place version) and make its result this tensor's new state.
    `inputs`: the other tensors the operation reads, checked for overlap with the part written
    (`written`, an array; the whole tensor when None)."""
    check_allowed(tensor)
    check_memory(tensor, inputs, written)
    return _write(tensor, compute)


def _write(tensor, compute):
    """apply, once the tensor has passed check_allowed and check_memory."""
    after_the_write = []  # what the saver leaves until the write is done: f(node)
    if is_grad_enabled():
        plugged = instruments.plug_in(savers=_saving_for_in_place(tensor, after_the_write))
        try:
            result = compute()
        finally:
            instruments.unplug(plugged)
    else:
        result = compute()
    if tensor._base is not None and result.requires_grad:
        raise RuntimeError(messages.IN_PLACE_ON_VIEW)
    if result._data.shape != tensor._data.shape:
        raise _cannot_grow(tensor, result.shape)
    check_castable(result._data.dtype, tensor._data.dtype)
    node = result._grad_fn
    tensor._data[...] = result._data
    tensor._shared_version_counter().value += 1
    if result._fw_tangent is not None:
        tensor._fw_tangent = result._fw_tangent  # forward mode: the new value's tangent
    if node is not None:
        tensor._set_grad_fn(node, result._output_nr)  # (a retained gradient moves with it)
        for finish in after_the_write:
            finish(node)
    return tensor


def _cannot_grow(tensor, shape):
    """An in-place result of another shape than the tensor's (`a += b` would broadcast a)."""
    return RuntimeError(f"output with shape {_bracketed(tensor.shape)} doesn't match the "
                        f"broadcast shape {_bracketed(shape)}")


def apply_arithmetic(tensor, ufunc, other, alpha, compute):
    """`add_`, `sub_`, `mul_`: like `apply`, but straight into the tensor's memory when no graph
    is recorded (an optimizer step under no_grad, for instance).

    Then the in-place op is NumPy's `ufunc(data, other, out=data)`: no new array and no copy
    back. Anything else (recording, a dtype change, a shape the tensor would have to grow to)
    is written the general way, with PyTorch's messages; the checks come first, for both. The
    optimizer's case is decided by one test first (_nothing_to_refuse), which only ever says
    yes where every check would pass; any other call goes through them all.
    """
    data = tensor._data
    if _nothing_to_refuse(tensor, other, alpha):
        values = other._data if type(other) is Tensor else other
    else:
        _check_arithmetic(tensor, ufunc, other, alpha)
        if (is_grad_enabled() and (requires_grad(tensor) or requires_grad(other))
                or instruments.on_operation):  # forward mode, the profiler: they watch `record`
            return _write(tensor, compute)
        values = _operand_as_it_is(data, other, alpha)
        if values is None:
            return _write(tensor, compute)
    if alpha != 1:
        values = np.multiply(values, alpha, dtype=data.dtype)
    try:
        ufunc(data, values, out=data)
    except ValueError:  # the shapes do not fit: let the general path say so in PyTorch's words
        return _write(tensor, compute)
    tensor._shared_version_counter().value += 1
    return tensor


def _check_arithmetic(tensor, ufunc, other, alpha):
    """The refusals of `add_`, `sub_`, `mul_`, in PyTorch's order: alpha, the leaf rule, bools,
    memory."""
    if type(alpha) is not int:  # (a bool or a float alpha: its checks)
        ew.check_bool_alpha(tensor, other, alpha)
    check_allowed(tensor)
    if ufunc is np.subtract:
        ew.refuse_bool_subtraction(tensor, other)
    check_memory(tensor, (other,))


def _nothing_to_refuse(tensor, other, alpha):
    """The optimizer's step (`p.sub_(lr * p.grad)` under no_grad), where _check_arithmetic
    cannot refuse and NumPy can write straight into the tensor, told by one cheap test: no graph
    recorded and no instrument watching (so no leaf rule); a float tensor, with a float
    tensor of its dtype or a Python float, and an int alpha or a float one the tensor's dtype
    holds (so no bool and no alpha rule); memory the tensor owns, dense and writeable, and
    another tensor that owns its own (so no overlap of any kind)."""
    if is_grad_enabled() or instruments.on_operation:
        return False
    data = tensor._data
    if type(other) is Tensor:
        values = other._data
        if values.dtype != data.dtype or values.base is not None or values is data:
            return False
    elif type(other) is not float:
        return False
    flags = data.flags
    return (data.dtype.kind == "f" and data.base is None and flags.c_contiguous
            and flags.writeable and (type(alpha) is int or type(alpha) is float
                                     and -_LARGEST.get(data.dtype, -1.0) <= alpha
                                     <= _LARGEST.get(data.dtype, -1.0)))


_LARGEST = {np.dtype(t): float(np.finfo(t).max) for t in (np.float32, np.float64)}
# (a float alpha beyond these, inf or nan: alpha's own check decides, check_bool_alpha)


def _operand_as_it_is(data, other, alpha):
    """What NumPy can write into `data` without changing its dtype: `other`'s array or number,
    or None where the general path must compute (another dtype, an integer tensor with a float
    alpha, an int beyond int64)."""
    if data.dtype.kind not in "fi" or (alpha != 1 and data.dtype.kind != "f"):
        return None
    if isinstance(other, Tensor):
        return other._data if other._data.dtype == data.dtype else None
    if type(other) in (float, int) and (data.dtype.kind == "f" or type(other) is int) and (
            type(other) is float or -2 ** 63 <= other < 2 ** 63):  # (2 ** 63: the general path)
        return other
    return None


# The in-place arithmetic as the library calls it (an optimizer's step): the Tensor methods
# `add_`, `sub_`, `mul_` and `div_` (tensor_methods.py) check their arguments, then call these.
def add_(tensor, other, alpha=1):
    """tensor ← tensor + alpha·other."""
    return apply_arithmetic(tensor, np.add, other, alpha,
                            lambda: ew.add(tensor, other, alpha=alpha))


def sub_(tensor, other, alpha=1):
    """tensor ← tensor - alpha·other."""
    return apply_arithmetic(tensor, np.subtract, other, alpha,
                            lambda: ew.sub(tensor, other, alpha=alpha))


def mul_(tensor, other):
    """tensor ← tensor·other."""
    return apply_arithmetic(tensor, np.multiply, other, 1, lambda: ew.mul(tensor, other))


def div_(tensor, other, rounding_mode=None):
    """tensor ← tensor / other (rounded, with rounding_mode "floor" or "trunc")."""
    return apply(tensor, lambda: ew.div(tensor, other, rounding_mode=rounding_mode), (other,))


AFTER_THE_WRITE = object()  # in a node's saved values, for a moment: "the result, saved later"


def _saving_for_in_place(tensor, after_the_write):
    """How the op about to overwrite `tensor` saves values for backward (plugged into the
    instruments while it computes): as usual, the saved-tensor hooks in force included, except
    for the values that are `tensor`, as PyTorch does:
      * where its rule saves `tensor` as `self`, a copy of the old values (x.mul_(b) needs the
        old x for the gradient of b; its `_saved_self` is a clone). The copy goes through the
        hooks like any saved value: pack sees it, once;
      * where it saves its result (exp_, tanh_, sqrt_), nothing yet: the result is `tensor`
        once it has been written, and it is saved then, through `save` like any other value
        (_save_the_written_result). A pack hook sees `tensor` itself at its new version, and
        backward reads it as it is when backward runs (tests/spec/test_s15_inplace_saves_its_result.py);
      * where it saves `tensor` under another name (x.mul_(x)'s `other`), `tensor` itself:
        backward finds it overwritten and, without hooks, says so, naming what made it then
        ("output 0 of Sub" after a later `sub_`), as PyTorch does. `tensor` will hold this node
        and the node `tensor`: one of the reference cycles core/node.py names.
    What must wait for the node to be `tensor`'s goes into `after_the_write`, as f(node)."""
    usual = instruments.savers[-1] if instruments.savers else None  # (the hooks', if in force)

    def saver(value, is_output, producer, name):
        if is_output:
            after_the_write.append(lambda node: _save_the_written_result(node, tensor))
            return AFTER_THE_WRITE
        if name == "self" and value is tensor:
            value = clone(tensor)  # (before the write: the old values)
        if usual is not None:
            return usual(value, is_output, producer, name)
        return SavedTensor(value, is_output, producer)
    return saver


def _save_the_written_result(node, tensor):
    """The node's result is now `tensor`: save it where the rule saves its result."""
    node._for_backward = tuple([
        save(OUTPUT, tensor, type(node), name) if value is AFTER_THE_WRITE else value
        for value, name in zip(node._for_backward, type(node).saved_names)])


def check_castable(result_dtype, output_dtype):
    """PyTorch's rule for writing a result into an existing tensor (any in-place operation, and
    the ones PyTorch's own kernels compose, such as binary_cross_entropy_with_logits'
    `(1 - target).mul_(input)`): the result's kind may not rise above the output's (no float
    into an integer or bool tensor, no integer into a bool one). NumPy dtypes."""
    order = {"b": 0, "i": 1, "u": 1, "f": 2}
    if order[result_dtype.kind] > order[output_dtype.kind]:
        raise RuntimeError(messages.CANNOT_CAST.format(result=_scalar_name(result_dtype),
                                                       output=_scalar_name(output_dtype)))


def _scalar_name(np_dtype):
    return from_numpy_dtype(np_dtype).scalar_name


def check_scalar_fits(tensor, value):
    """A Python number written into a tensor (`fill_`, `t[i] = v`) must fit its dtype: PyTorch
    refuses an int beyond int64 (its parser reads a long long) and, for an integer tensor, nan,
    inf and what overflows int64, where NumPy would store a wrapped or arbitrary value."""
    if type(value) is int and not -2**63 <= value < 2**63:
        raise ValueError(messages.INT_OVERFLOW)
    check_value_fits(value, tensor._data.dtype)  # nan into int64, 1e308 into float32


RANDOM_FILLS = {"normal": NormalBackward0, "uniform": UniformBackward0}


def random_fill_(tensor, kind, data):
    """`normal_`, `uniform_` (`kind`): new values that do not depend on the old ones. Recorded
    all the same (a node whose gradient is zero), as PyTorch does: a non-leaf must not keep its
    old node, or backward would run as if the fill had not happened. Under no_grad nothing is
    recorded."""
    return apply(tensor, lambda: record(RANDOM_FILLS[kind], data, (tensor,)))


def zero_(tensor):
    return apply(tensor, lambda: record(ZeroBackward0, np.zeros_like(tensor._data), (tensor,)))


@overload
def fill_(input: Tensor, value: Tensor): ...
@overload
def fill_(input: Tensor, value: Number): ...
@declared
def fill_(input, value):
    """Every element becomes `value`. A 0-d tensor value is an input of the graph
    (FillBackward3: its gradient is the sum of the output's), a number is not (FillBackward2)."""
    node_class = FillBackward2
    inputs = (input,)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        node_class = FillBackward3
        inputs = (input, value)
        value = value._data.item()  # (0-d)
    if type(value) is int and 2 ** 63 <= value < 2 ** 64:  # (fill_'s Scalar holds a uint64:
        check_value_fits(value, input._data.dtype)       # a float or bool tensor takes it)
        value = bool(value) if input._data.dtype == np.bool_ else float(value)
    check_scalar_fits(input, value)
    return apply(input, lambda: record(node_class, np.full_like(input._data, value), inputs,
                                       any_dtype=True))  # (an int tensor too, as PyTorch)


@overload
def clamp_(input: Tensor, min: Tensor = None, max: Tensor = None): ...
@overload
def clamp_(input: Tensor, min: Number = None, max: Number = None): ...
@declared
def clamp_(input, min=None, max=None):
    return apply(input, lambda: ew.clamp(input, min, max))


def copy_(tensor, source):
    """Write `source`'s values into `tensor` (broadcasting), recorded as CopyBackwards."""
    try:
        shape = np.broadcast_shapes(source._data.shape, tensor._data.shape)
    except ValueError:
        raise RuntimeError(broadcast_error(tensor._data.shape, source._data.shape)) from None
    if shape != tensor._data.shape:  # the source may grow to the tensor, not the tensor to it
        raise _cannot_grow(tensor, shape)

    def compute():
        data = np.broadcast_to(source._data, tensor._data.shape).astype(tensor._data.dtype)
        return record(CopyBackwards, data.copy(), (tensor, source))

    return apply(tensor, compute, (source,))
