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
