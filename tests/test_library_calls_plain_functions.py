"""Checks at the door, inside the derivative table: the checked wrapper of a public name is made
once, where the name is exported (tensor_methods.py, tensorgrad/__init__.py), and the library's
own math calls the plain functions (issue 30, "Checks at the door").

For every rule of the table, its program from tests/test_derivative_table.py runs forward,
backward with create_graph=True and backward again, under a profiler that notes each checked
wrapper (arguments.py's check_then_call and without_arguments) entered from the library's own
code: the derivative table, the core, autograd, the operations and Tensor's methods. (nn and
optim are watched by tests/test_signatures.py.) A call from the program itself is a public call,
and is not listed.
"""

import operator
import os

import pytest

import tensorgrad as tg
from test_derivative_table import PROGRAMS
from test_signatures import _checked_wrappers_entered_from_the_library

WATCHED = ("derivatives.py", "core" + os.sep, "autograd" + os.sep, "ops" + os.sep,
           "tensor_methods.py")


def checked_calls_from_the_library(function):
    """'file:line -> wrapper' of each checked wrapper that `function()` enters from the watched
    files (test_signatures.py's profiler, which lists every caller inside tensorgrad/)."""
    return [call for call in _checked_wrappers_entered_from_the_library(function)
            if call.startswith(WATCHED)]


def forward_backward_and_again(function, inputs):
    outputs = function(*inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    grads = tg.autograd.grad([o.sum() for o in outputs if o.requires_grad], inputs,
                             create_graph=True, allow_unused=True)
    again = [(g * g).sum() for g in grads if g is not None and g.requires_grad]
    if again:
        sum(again).backward()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_rules_formulas_call_the_plain_functions(name):
    function, make_inputs, *_ = PROGRAMS[name]
    inputs = make_inputs()
    assert checked_calls_from_the_library(
        lambda: forward_backward_and_again(function, inputs)) == []


def _dual(values, dtype=None):
    from tensorgrad.autograd import forward_ad
    return forward_ad.make_dual(tg.tensor(values, dtype=dtype), tg.ones(len(values), dtype=dtype))


def _in_forward_mode(call):
    from tensorgrad.autograd import forward_ad
    with forward_ad.dual_level():
        call()


def _autograd_grad_with_a_gradient_that_requires_grad():
    a = tg.tensor([1., 2.], requires_grad=True)
    y = a * 2
    tg.autograd.grad(y, y, grad_outputs=tg.ones(2, requires_grad=True))


def _backward_with_inputs():
    a = tg.tensor([1., 2.], requires_grad=True)
    h = a * 2
    (h * h).sum().backward(inputs=[h])


def _cube(x):
    return (x ** 3).sum()


def _cubes(x):
    return x ** 3


# Calls the outside review s14 (F3) found entering a checked wrapper from inside the library:
# the core, forward-mode formulas of the table, autograd's own helpers, nn.
LIBRARY_CALLS = {
    "float(t)": lambda: float(tg.tensor([2.])),
    "int(t)": lambda: int(tg.tensor([2.])),
    "list index": lambda: [1, 2][tg.tensor(1)],
    "backward(inputs=[h])": _backward_with_inputs,
    "forward-mode sort": lambda: _in_forward_mode(lambda: _dual([3., 1., 2.]).sort()),
    "forward-mode index_select": lambda: _in_forward_mode(
        lambda: _dual([3., 1., 2.]).index_select(0, tg.tensor([2, 0]))),
    "forward-mode dtype promotion": lambda: _in_forward_mode(
        lambda: _dual([3., 1.]) + tg.ones(2, dtype=tg.float64)),
    "autograd.grad, grad_outputs requiring grad": _autograd_grad_with_a_gradient_that_requires_grad,
    "Variable": lambda: tg.autograd.Variable(tg.ones(2), requires_grad=True),
    "gradgradcheck": lambda: tg.autograd.gradgradcheck(
        _cubes, (tg.tensor([1., 2.], dtype=tg.float64, requires_grad=True),)),
    "gradcheck fast_mode": lambda: tg.autograd.gradcheck(
        _cubes, (tg.tensor([1., 2.], dtype=tg.float64, requires_grad=True),), fast_mode=True),
    "hvp": lambda: tg.autograd.functional.hvp(_cube, tg.ones(2), tg.ones(2)),
    "vhp": lambda: tg.autograd.functional.vhp(_cube, tg.ones(2), tg.ones(2)),
    "jacobian forward-mode": lambda: tg.autograd.functional.jacobian(
        _cubes, tg.ones(2), vectorize=True, strategy="forward-mode"),
    "func.jacfwd": lambda: tg.func.jacfwd(_cubes)(tg.ones(2)),
    "func.hessian": lambda: tg.func.hessian(_cube)(tg.ones(2)),
    "F.relu inplace": lambda: tg.nn.functional.relu(tg.ones(2), inplace=True),
    "nn.ReLU inplace": lambda: tg.nn.ReLU(inplace=True)(tg.ones(2)),
    "nn.Unflatten": lambda: tg.nn.Unflatten(1, (2, 2))(tg.ones(3, 4)),
}


@pytest.mark.parametrize("name", LIBRARY_CALLS)
def test_a_public_call_enters_no_checked_wrapper_from_the_library(name):
    """Each of these public calls is checked at its door only: what it runs inside tensorgrad/
    (the core included) calls the plain functions."""
    assert _checked_wrappers_entered_from_the_library(LIBRARY_CALLS[name]) == []


@pytest.mark.parametrize("name", ["exp_", "zero_", "sigmoid_", "is_floating_point", "round_",
                                  pytest.param("detach_", marks=pytest.mark.xfail(strict=True, reason=(
                                      "Tensor.detach_ has no plain form on this branch yet")))])
def test_a_function_form_is_checked_once(name):
    """`tensorgrad.exp_(x)` is checked where it is exported, and runs the plain method: one
    checked wrapper for the call, not the function's and then the method's."""
    tensor = tg.ones(2)
    found = _checked_wrappers_entered_from_the_library(lambda: getattr(tg, name)(tensor))
    assert found == []


@pytest.mark.parametrize("call", [
    lambda t: t.float(), lambda t: t.double(), lambda t: t.long(), lambda t: t.bool(),
    lambda t: t.type("tensorgrad.DoubleTensor"), lambda t: t.normal_(), lambda t: t.uniform_(),
    lambda t: operator.iadd(t, 1), lambda t: operator.isub(t, t), lambda t: operator.imul(t, 2.),
    lambda t: operator.itruediv(t, 2),
], ids=["float", "double", "long", "bool", "type", "normal_", "uniform_", "+=", "-=", "*=", "/="])
def test_a_public_method_is_checked_once(call):
    """A method that hands its work to another (float() is to(float32), normal_ copies samples
    in) calls the plain function: its own check was the one check of the call."""
    tensor = tg.ones(2)
    assert checked_calls_from_the_library(lambda: call(tensor)) == []

