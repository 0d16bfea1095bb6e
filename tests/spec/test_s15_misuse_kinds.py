"""PyTorch's behaviour where an outside attacker's independent set of 10,072 cases still found,
after session 15's first round, tensorgrad silently succeeding or letting a NumPy or Python
error out (issue 29): an optimizer's settings as its step hands them to PyTorch's operations
as Scalars, a NumPy bool among the ints of a list, slice steps that are not ints, NumPy ints
in size messages, results beyond the machine's memory, an integer result of an input that
requires grad, a nan target in binary_cross_entropy, bool matrices in F.linear, and a NumPy
uint64 operand. Each runs on both libraries (PyTorch 2.13.0, measured).
"""

import numpy as np
import pytest

from .conftest import raises_exactly

NEGATION = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead.")
ALPHA_TENSOR = "add(): argument 'alpha' must be Number, not Tensor"
NUMPY_BOOL = "'numpy.bool' object cannot be interpreted as an integer"
SLICE = "slice indices must be integers or None or have an __index__ method"


def _stepped(tg, make_optimizer, edit=None, steps=2):
    """`steps` steps of the optimizer `make_optimizer(tg, [w])` makes (its first param_groups
    edited by `edit(tg, group)` first), on w = (1, 2, 3) with the gradient of sum(w²)."""
    w = tg.tensor([1., 2., 3.], requires_grad=True)
    optimizer = make_optimizer(tg, [w])
    if edit is not None:
        edit(tg, optimizer.param_groups[0])
    for _ in range(steps):
        optimizer.zero_grad()
        (w ** 2).sum().backward()
        optimizer.step()
    return w


def _set(key, make_value):
    def edit(tg, group):
        group[key] = make_value(tg)
    return edit


# -- an optimizer's settings, as its step hands them to an operation as a Scalar ------------------
@pytest.mark.parametrize("make, edit, error, text", [
    (lambda tg, p: tg.optim.SGD(p, lr=tg.tensor(True)), None, RuntimeError, NEGATION),  # -lr
    (lambda tg, p: tg.optim.SGD(p, lr=0.1), _set("lr", lambda tg: tg.tensor(True)),
     RuntimeError, NEGATION),
    (lambda tg, p: tg.optim.SGD(p, lr=np.uint64(2)), None, TypeError,
     "an integer is required"),  # -np.uint64(2) wraps around beyond int64
    (lambda tg, p: tg.optim.SGD(p, lr=0.1), _set("lr", lambda tg: np.uint64(2)), TypeError,
     "an integer is required"),
    (lambda tg, p: tg.optim.SGD(p, lr=0.1, weight_decay=tg.tensor([2.])), None, TypeError,
     ALPHA_TENSOR),  # grad.add(param, alpha=weight_decay): a 1-d tensor is no Scalar
    (lambda tg, p: tg.optim.SGD(p, lr=0.1), _set("weight_decay", lambda tg: tg.tensor([2])),
     TypeError, ALPHA_TENSOR),
    (lambda tg, p: tg.optim.Adam(p, lr=0.1, weight_decay=tg.tensor([2])), None, TypeError,
     ALPHA_TENSOR),
    (lambda tg, p: tg.optim.Adam(p, lr=0.1, weight_decay=tg.tensor(2., requires_grad=True)),
     None, TypeError, ALPHA_TENSOR),  # (nor is a tensor that requires grad)
    (lambda tg, p: tg.optim.Adam(p, lr=0.1),
     _set("betas", lambda tg: (np.uint64(2), 0.9)), TypeError, "an integer is required"),
])
def test_an_optimizer_step_refuses_a_setting_pytorchs_scalar_refuses(tg, make, edit, error, text):
    with raises_exactly(tg, error, text):
        _stepped(tg, make, edit)


@pytest.mark.parametrize("make", [
    lambda tg, p: tg.optim.SGD(p, lr=tg.tensor([0.1])),  # squeezed to 0-d, as PyTorch's step
    lambda tg, p: tg.optim.SGD(p, lr=0.1, weight_decay=tg.tensor(0.5)),  # 0-d: a Scalar
    lambda tg, p: tg.optim.SGD(p, lr=0.1, weight_decay=tg.tensor(0.5, requires_grad=True)),
    lambda tg, p: tg.optim.SGD(p, lr=np.int64(1), momentum=np.uint64(1)),
    lambda tg, p: tg.optim.Adam(p, lr=tg.tensor(True)),  # lr / bias_correction: a tensor
    lambda tg, p: tg.optim.Adam(p, lr=np.uint64(2), weight_decay=np.float32(0.5)),
])
def test_settings_pytorchs_step_takes_are_taken(tg, make):
    assert _stepped(tg, make).requires_grad


# -- a NumPy bool among ints: PyTorch reads each as a C integer ---------------------------------
@pytest.mark.parametrize("make", [
    lambda tg: tg.tensor([np.bool_(True), 1]),
    lambda tg: tg.tensor([[0], [np.bool_(True)]]),
    lambda tg: tg.ones(2, 3)[[np.bool_(True), 0]],
    lambda tg: tg.ones(2, 3)[[0, np.bool_(False)]],
    lambda tg: tg.nn.functional.nll_loss(tg.ones(2, 3), tg.tensor([np.bool_(True), 0])),
])
def test_a_numpy_bool_among_ints_is_refused(tg, make):
    with raises_exactly(tg, TypeError, NUMPY_BOOL):
        make(tg)


def test_numpy_bools_alone_make_a_bool_tensor(tg):
    assert tg.tensor([np.bool_(True), np.bool_(False)]).dtype is tg.bool


# -- slices --------------------------------------------------------------------------------------
@pytest.mark.parametrize("step", [1j, 2 + 0j, "2", [2], 1.0])
def test_a_slice_step_that_is_not_an_int_is_refused_in_pythons_words(tg, step):
    with raises_exactly(tg, TypeError, SLICE):
        tg.ones(2, 3)[::step]


# -- sizes and memory ----------------------------------------------------------------------------
@pytest.mark.parametrize("make, sizes", [
    (lambda tg: tg.nn.Linear(np.int8(-1), 2), "[2, -1]"),
    (lambda tg: tg.nn.Linear(3, np.int8(-1)), "[-1, 3]"),
    (lambda tg: tg.nn.BatchNorm1d(np.int8(-1)), "[-1]"),
])
def test_a_modules_numpy_int_size_is_named_as_an_int(tg, make, sizes):
    with raises_exactly(tg, RuntimeError,
                        f"Trying to create tensor with negative dimension -1: {sizes}"):
        make(tg)


ALLOCATE = ("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
            "memory: you tried to allocate {} bytes. Error code 12 (Cannot allocate memory)")


@pytest.mark.parametrize("make, nbytes", [
    (lambda tg: tg.arange(2 ** 42), 2 ** 42 * 8),
    (lambda tg: tg.arange(0., 2 ** 42), 2 ** 42 * 4),
    (lambda tg: tg.linspace(0, 1, 2 ** 42), 2 ** 42 * 4),
    (lambda tg: tg.ones(2, 3).repeat(2 ** 40, 1), 2 ** 41 * 3 * 4),
])
def test_a_result_beyond_the_machines_memory_is_refused_in_pytorchs_words(tg, make, nbytes):
    with raises_exactly(tg, RuntimeError, ALLOCATE.format(nbytes)):
        make(tg)


# -- an integer result of an input that requires grad ---------------------------------------------
@pytest.mark.parametrize("make, name", [
    (lambda tg, w: w.sum(dtype=tg.int64), "Long"),
    (lambda tg, w: tg.sum(w, 0, dtype=tg.int64), "Long"),
    (lambda tg, w: w.sum(dtype=tg.bool), "Bool"),
    (lambda tg, w: w.prod(dtype=tg.int64), "Long"),
    (lambda tg, w: w.cumsum(0, dtype=tg.int64), "Long"),
])
def test_an_integer_result_of_an_input_that_requires_grad_is_refused(tg, make, name):
    w = tg.tensor([1., 2., 3.], requires_grad=True)
    with raises_exactly(tg, RuntimeError, f"Autograd not support dtype: {name}"):
        make(tg, w)


def test_an_integer_result_is_given_where_nothing_records(tg):
    w = tg.tensor([1., 2., 3.], requires_grad=True)
    with tg.no_grad():
        total = w.sum(dtype=tg.int64)
    assert (total.item(), total.requires_grad, total.grad_fn) == (6, False, None)
    assert w.sum(dtype=tg.float64).requires_grad


# -- losses, linear, operators ---------------------------------------------------------------------
def test_binary_cross_entropy_refuses_a_nan_target(tg):
    x = tg.tensor([[0.5, 0.2], [0.3, 0.9]])
    with raises_exactly(tg, RuntimeError, "all elements of target should be between 0 and 1"):
        tg.nn.functional.binary_cross_entropy(x, tg.full((2, 2), float("nan")))


@pytest.mark.parametrize("bias", [False, True])
def test_linear_refuses_bool_matrices(tg, bias):
    a = tg.tensor([[True, False], [True, True]])
    with raises_exactly(tg, NotImplementedError, "\"addmm_impl_cpu_\" not implemented for 'Bool'"):
        tg.nn.functional.linear(a, a, a[0] if bias else None)


def test_a_numpy_uint64_operand_of_an_integer_tensor_is_an_int(tg):
    xi = tg.tensor([[0, 1, 2], [4, 5, 6]])
    assert (xi & np.uint64(2)).tolist() == [[0, 0, 2], [0, 0, 2]]


@pytest.mark.parametrize("target, name", [
    ([[0, 1, 0], [1, 0, 0]], "Long"),
    ([[True, False, False], [True, True, False]], "Bool"),
])
def test_cross_entropy_reads_an_integer_target_of_the_inputs_shape_as_probabilities(tg, target,
                                                                                     name):
    with raises_exactly(tg, RuntimeError, "Expected floating point type for target with class "
                                          f"probabilities, got {name}"):
        tg.nn.functional.cross_entropy(tg.ones(2, 3), tg.tensor(target))


def test_the_base_optimizer_has_no_step(tg):
    w = tg.tensor([1., 2.], requires_grad=True)
    with raises_exactly(tg, NotImplementedError, ""):
        tg.optim.Optimizer([w], {}).step()


@pytest.mark.parametrize("make, sizes, strides", [
    (lambda tg: tg.ones(2, 3)[::2 ** 63], "[-1, 3]", "[9223372036854775805, 1]"),
    (lambda tg: tg.ones(2, 3)[::10 ** 20], "[-1, 3]", "[9223372036854775805, 1]"),
    (lambda tg: tg.ones(2, 3)[::np.uint64(2 ** 63)], "[-1, 3]", "[9223372036854775805, 1]"),
    (lambda tg: tg.ones(3)[::2 ** 64], "[-1]", "[9223372036854775807]"),
])
def test_a_slice_step_beyond_int64_overflows_the_size_as_in_pytorch(tg, make, sizes, strides):
    with raises_exactly(tg, RuntimeError, "Storage size calculation overflowed with "
                                          f"sizes={sizes} and strides={strides}"):
        make(tg)


def test_a_slice_step_beyond_int64_of_one_element_is_that_element(tg):
    assert tg.ones(2, 3)[:1:2 ** 63].shape == (1, 3)
    assert tg.ones(0, 3)[::2 ** 63].shape == (0, 3)
