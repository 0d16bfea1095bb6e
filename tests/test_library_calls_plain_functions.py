"""Checks at the door, inside the derivative table: the checked wrapper of a public name is made
once, where the name is exported (tensor_methods.py, tensorgrad/__init__.py), and the library's
own math calls the plain functions (issue 30, "Checks at the door").

For every rule of the table, its program from tests/test_derivative_table.py runs forward,
backward with create_graph=True and backward again, under a profiler that notes each checked
wrapper (arguments.py's check_then_call and without_arguments) entered from the library's own
code: the derivative table, the core, autograd, the operations and Tensor's methods. A call from
the program itself is a public call, and is not listed.

Then the rest of the library, public call by public call (creation, nn and nn.init, a Module's
own methods, optim, autograd.functional, gradcheck, forward_ad, func, Tensor's helpers): each
enters at most one checked wrapper, its own, and none from inside tensorgrad/; and a model built,
trained, saved and loaded inside the profiler enters none from inside tensorgrad/ either.
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
    # (the outside review s15, F2: every augmented assignment, and `in`)
    "x in t": lambda: 2. in tg.tensor([1., 2.]),
    "t in t": lambda: tg.tensor(2.) in tg.tensor([1., 2.]),
}


def _augmented(symbol, dtype):
    """`a <symbol>= b` on a fresh tensor of dtype (the operator module's in-place function)."""
    operation = getattr(operator, AUGMENTED[symbol])
    return lambda: operation(tg.tensor([6, 3], dtype=dtype), tg.tensor([2, 1], dtype=dtype))


AUGMENTED = {"+": "iadd", "-": "isub", "*": "imul", "/": "itruediv", "//": "ifloordiv",
             "%": "imod", "**": "ipow", "&": "iand", "|": "ior", "^": "ixor", "<<": "ilshift",
             ">>": "irshift"}
for _symbol in AUGMENTED:
    _dtype = tg.float32 if _symbol in ("+", "-", "*", "/", "//", "%", "**") else tg.int64
    LIBRARY_CALLS[f"a {_symbol}= b"] = _augmented(_symbol, _dtype)


@pytest.mark.parametrize("name", LIBRARY_CALLS)
def test_a_public_call_enters_no_checked_wrapper_from_the_library(name):
    """Each of these public calls is checked at its door only: what it runs inside tensorgrad/
    (the core included) calls the plain functions."""
    assert _checked_wrappers_entered_from_the_library(LIBRARY_CALLS[name]) == []


@pytest.mark.parametrize("name", ["exp_", "zero_", "detach_", "sigmoid_", "is_floating_point",
                                  "round_"])
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


# -- every public call of nn, nn.init, Module, optim, creation, autograd and Tensor's helpers -----
WRAPPERS = ("check_then_call", "without_arguments")  # arguments.py's checked wrappers


def _checks_entered(function, names=WRAPPERS):
    """(caller file, line, check) for every check among `names` (arguments.py's functions)
    that `function()` enters, from any caller: the test's own public call included."""
    import sys
    root = os.path.dirname(tg.__file__)
    arguments_file = os.path.join(root, "arguments.py")
    entered = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name in names \
                and frame.f_code.co_filename == arguments_file:
            caller = frame.f_back.f_code.co_filename
            if caller == arguments_file:
                return  # (a wrapper's own inner frames)
            entered.append((caller, frame.f_back.f_lineno, frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        function()
    finally:
        sys.setprofile(None)
    return entered


def _wrappers_entered(function):
    """'caller -> wrapper' for every checked wrapper `function()` enters, from any caller (the
    test's own public call included), and the part of them entered from inside tensorgrad/."""
    root = os.path.dirname(tg.__file__)
    entered = [(f"{os.path.relpath(caller, root)}:{line}", caller.startswith(root))
               for caller, line, _ in _checks_entered(function)]
    return [where for where, _ in entered], [where for where, inside in entered if inside]


def _model():
    return tg.nn.Sequential(tg.nn.Linear(4, 8), tg.nn.BatchNorm1d(8), tg.nn.ReLU(),
                            tg.nn.Dropout(0.2), tg.nn.Flatten(), tg.nn.Linear(8, 3))


def _train_steps(make_optimizer):
    def steps():
        model = _model()  # (built inside the profiler: construction and nn.init are watched)
        optimizer = make_optimizer(model.parameters())
        x, y = tg.randn(5, 4), tg.tensor([0, 2, 1, 1, 0])
        for set_to_none in (True, False, False):
            optimizer.zero_grad(set_to_none=set_to_none)
            model.zero_grad(set_to_none=set_to_none)
            tg.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.load_state_dict(model.state_dict())
        optimizer.load_state_dict(optimizer.state_dict())
        model.eval()
        model(x)
        model.requires_grad_(False)
        model.to(tg.float64)
    return steps


def _square(x):
    return x * x * 3.  # (operators only: no checked wrapper of the test's own)


def _total(x):
    return tg.ops.reduction.sum(x * x * x)  # (the plain sum: no checked wrapper of the test's)


def _forward_ad(primal, tangent):
    """make_dual and unpack_dual, of a leaf that requires grad (a view) and of a plain tensor."""
    import tensorgrad.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        for value in (primal, tangent):
            fwAD.unpack_dual(fwAD.make_dual(value, tangent) * 2.)


def _public_calls():
    """name -> a call that is one public call (or, for the scenarios, several of the test's)."""
    F, init = tg.nn.functional, tg.nn.init
    t, w, x = tg.ones(2, 3), tg.ones(3, 4), tg.randn(4, 3, requires_grad=True)
    x64 = tg.randn(3, dtype=tg.float64, requires_grad=True)
    probabilities, target = tg.ones(4, 3) / 3., tg.zeros(4, 3)
    running_mean, running_var, t2 = tg.zeros(3), tg.ones(3), tg.ones(4, 3)
    labels = tg.tensor([0, 2, 1, 1])
    bn = tg.nn.BatchNorm1d(3)
    net = tg.nn.Sequential(tg.nn.Linear(3, 2), tg.nn.Flatten())
    changed = tg.nn.Sequential(tg.nn.Linear(3, 2), tg.nn.BatchNorm1d(2))  # (to, requires_grad_)
    recorded = tg.nn.Linear(3, 2)
    tg.ops.reduction.sum(recorded(t) ** 2).backward(create_graph=True)  # (.grad with a grad_fn)
    calls = {
        "nn.Linear": lambda: tg.nn.Linear(4, 3), "nn.BatchNorm1d": lambda: tg.nn.BatchNorm1d(3),
        "nn.Flatten()(x)": lambda: net[1](t), "nn.Linear()(x)": lambda: net[0](t),
        "BatchNorm1d train": lambda: bn(x), "BatchNorm1d eval": lambda: bn.eval()(x),
        "nn.Dropout()(x)": lambda: tg.nn.Dropout()(x),
        "Module.zero_grad(set_to_none=False)": lambda: net.zero_grad(set_to_none=False),
        "Module.zero_grad of a recorded .grad": lambda: recorded.zero_grad(set_to_none=False),
        "Module.state_dict": lambda: net.state_dict(),
        "Module.load_state_dict": lambda: net.load_state_dict(net.state_dict()),
        "Module.to": lambda: changed.to(tg.float64), "Module.requires_grad_":
            lambda: changed.requires_grad_(False),
        "F.cross_entropy probabilities": lambda: F.cross_entropy(x, probabilities),
        "F.cross_entropy label_smoothing": lambda: F.cross_entropy(x, labels, label_smoothing=.1),
        "F.cross_entropy probabilities, smoothing": lambda: F.cross_entropy(
            x, probabilities, label_smoothing=.1, reduction="sum"),
        "F.softmax": lambda: F.softmax(x, 1), "F.log_softmax": lambda: F.log_softmax(x, 1),
        "F.mse_loss": lambda: F.mse_loss(x, target),
        "F.dropout": lambda: F.dropout(x, 0.5),
        "F.batch_norm": lambda: F.batch_norm(x, running_mean, running_var, training=True),
        "autograd.functional.jacobian": lambda: tg.autograd.functional.jacobian(_square, x64),
        "autograd.functional.hessian": lambda: tg.autograd.functional.hessian(_total, x64),
        "autograd.functional.vjp": lambda: tg.autograd.functional.vjp(_square, x64, x64),
        "autograd.functional.jvp": lambda: tg.autograd.functional.jvp(_square, x64, x64),
        "autograd.gradcheck": lambda: tg.autograd.gradcheck(_square, (x64,)),
        "forward_ad make_dual, unpack_dual": lambda: _forward_ad(x, t2),
        "func.grad": lambda: tg.func.grad(_total)(x64),
        "func.vmap": lambda: tg.func.vmap(_square)(x64),
        "iterating a tensor": lambda: list(x), "tensorgrad.unbind": lambda: tg.unbind(x),
        "Tensor.unbind": lambda: x.unbind(1),
        "t.new_zeros": lambda: t.new_zeros(2), "t.new_ones": lambda: t.new_ones(2, 2),
        "t.new_tensor": lambda: t.new_tensor([1., 2.]),
        "f'{t:.2f}'": lambda: f"{t[0, 0]:.2f}",
        "t == array": lambda: t == t._data.copy(),
        "expand_copy": lambda: tg.expand_copy(t, (3, 2, 3)), "numel": lambda: tg.numel(t),
        "detach": lambda: tg.detach(x),
    }
    for name in ("empty_like", "zeros_like", "ones_like", "rand_like", "randn_like"):
        calls[f"tensorgrad.{name}"] = lambda name=name: getattr(tg, name)(t)
    for name in ("empty", "zeros", "ones", "rand", "randn"):
        calls[f"tensorgrad.{name}"] = lambda name=name: getattr(tg, name)(2, 3)
    for name in ("uniform_", "normal_", "zeros_", "ones_", "xavier_uniform_", "xavier_normal_",
                 "kaiming_uniform_", "kaiming_normal_"):
        calls[f"nn.init.{name}"] = lambda name=name: getattr(init, name)(w)
    calls["nn.init.constant_"] = lambda: init.constant_(w, 2.)
    return calls


_CALLS = _public_calls()


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_each_public_call_enters_at_most_one_checked_wrapper(name):
    """One public call enters its own checked wrapper (or none: a module's call, a Python
    function of autograd), and the library calls plain functions under it: no checked wrapper
    is entered from inside tensorgrad/, so nothing is checked twice."""
    tg.manual_seed(0)
    entered, from_the_library = _wrappers_entered(_CALLS[name])
    assert from_the_library == []
    assert len(entered) <= 1, entered


@pytest.mark.parametrize("make_optimizer", [
    lambda params: tg.optim.SGD(params, lr=0.1, momentum=0.9),
    lambda params: tg.optim.Adam(params, lr=0.01, amsgrad=True),
], ids=["sgd", "adam"])
def test_building_and_training_a_model_enters_no_checked_wrapper_inside_the_library(
        make_optimizer):
    """A model built, trained (zero_grad with and without set_to_none), saved and loaded (the
    module's state and the optimizer's), put in eval mode and converted: every checked wrapper
    is entered from the test's own code, none from inside the library."""
    tg.manual_seed(0)
    _, from_the_library = _wrappers_entered(_train_steps(make_optimizer))
    assert from_the_library == []


# -- hand checks too: nn.init, a Module's conversions, load, the legacy constructors (review s14b F3)
HAND_CHECKS = ("check", "checked_values")  # arguments.py's checks by hand, outside a wrapper


def _checks_run(function):
    """'caller -> check' for every check `function()` runs: a checked wrapper entered, or a
    check by hand (arguments.check, arguments.checked_values), from any caller."""
    root = os.path.dirname(tg.__file__)
    return [f"{os.path.relpath(caller, root)} -> {name}"
            for caller, _, name in _checks_entered(function, WRAPPERS + HAND_CHECKS)]


def _plain_init_calls():
    w = tg.empty(3, 4)
    plain = tg.nn.init._plain
    return {
        "uniform_": lambda: plain.uniform_(w, -0.5, 0.5),
        "normal_": lambda: plain.normal_(w, 0.0, 0.1),
        "constant_": lambda: plain.constant_(w, 2.0),
        "ones_": lambda: plain.ones_(w), "zeros_": lambda: plain.zeros_(w),
        "kaiming_uniform_": lambda: plain.kaiming_uniform_(w, a=5 ** 0.5),
        "kaiming_normal_": lambda: plain.kaiming_normal_(w),
    }


@pytest.mark.parametrize("name", sorted(_plain_init_calls()))
def test_the_plain_init_functions_check_nothing(name):
    """What the library calls in nn.init (nn.Linear's reset_parameters) is plain: the numbers
    are the library's own, and nothing checks them again, by hand or through a wrapper."""
    assert _checks_run(_plain_init_calls()[name]) == []


def test_a_linear_layer_checks_its_arguments_once():
    """nn.Linear(4, 3) checks its sizes, dtype and device once, as PyTorch's torch.empty does
    inside it; its initialisation (Kaiming for the weight, uniform for the bias) checks nothing."""
    assert _checks_run(lambda: tg.nn.Linear(4, 3)) == ["nn/modules.py -> check"]
    layer = tg.nn.Linear(4, 3)
    assert _checks_run(layer.reset_parameters) == []


@pytest.mark.parametrize("call", [
    lambda w: tg.nn.init.uniform_(w, -1, 1), lambda w: tg.nn.init.normal_(w, 0, 2),
    lambda w: tg.nn.init.constant_(w, 3), lambda w: tg.nn.init.xavier_uniform_(w),
], ids=["uniform_", "normal_", "constant_", "xavier_uniform_"])
def test_a_public_init_call_checks_the_numbers_it_hands_on_at_its_door(call):
    """A public call is checked at its door: its declaration by the wrapper, then the numbers it
    hands on to the method (uniform_'s `from` and `to`) by hand, in the method's words, there
    and only there (nn/init.py's _as_the_method)."""
    door = os.path.relpath(__file__, os.path.dirname(tg.__file__)) + " -> check_then_call"
    weight = tg.empty(3, 4)
    assert _checks_run(lambda: call(weight)) == [door, "nn/init.py -> checked_values"]


def _saved_and_loaded():
    import io
    buffer = io.BytesIO()
    tg.save({"w": tg.ones(2, requires_grad=True), "p": tg.nn.Parameter(tg.ones(2))}, buffer)
    buffer.seek(0)
    tg.load(buffer)


WIDER_LIBRARY_CALLS = {
    "Module.cpu": lambda: tg.nn.Sequential(tg.nn.Linear(3, 2), tg.nn.BatchNorm1d(2)).cpu(),
    "tensorgrad.load": _saved_and_loaded,
    "FloatTensor": lambda: tg.FloatTensor([3, 4]),
    "DoubleTensor": lambda: tg.DoubleTensor([3, 4]),
    # checked once, at their own door, against new's declaration (review s16: Tensor(2, 3) made a
    # tensor and called the checked Tensor.new from inside; FloatTensor cast Tensor(...)'s result)
    "Tensor(2, 3)": lambda: tg.Tensor(2, 3),
    "Tensor(2, True)": lambda: tg.Tensor(2, True),
    "FloatTensor(2, 3)": lambda: tg.FloatTensor(2, 3, device="cpu"),
    "DoubleTensor(size=)": lambda: tg.DoubleTensor(size=(2,)),
}


@pytest.mark.parametrize("name", WIDER_LIBRARY_CALLS)
def test_conversions_and_load_enter_no_checked_wrapper_from_the_library(name):
    """Module.cpu, load and the legacy constructors call the plain conversions (review s14b F3:
    each entered the checked Tensor.cpu, requires_grad_, float or double from inside)."""
    assert _checked_wrappers_entered_from_the_library(WIDER_LIBRARY_CALLS[name]) == []
