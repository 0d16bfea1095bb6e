"""One signature per operation, in Python (issue 19, item 3).

Each public operation is a Python function whose parameters are PyTorch's (names, defaults,
keyword-only marks); an operation with several of PyTorch's overloads declares each as an
`@overload` stub. The checks are built from those declarations, once, at definition: there is
no table of signature strings, no parser of such strings, and nothing wraps the namespace after
import. A call with plainly right types pays a guard's few type tests, and no more.
"""

import inspect
import sys

import pytest

import tensorgrad as tg
from tensorgrad import arguments
from tensorgrad.ops import elementwise, reduction, shape

from test_core_reads_like_a_textbook import calls_in_tensorgrad


def parameter_names(function):
    return list(inspect.signature(function).parameters)


@pytest.mark.parametrize("function, names", [
    (tg.mul, ["input", "other", "out"]),
    (tg.add, ["input", "other", "alpha", "out"]),
    (tg.sum, ["input", "dim", "keepdim", "dtype"]),
    (tg.transpose, ["input", "dim0", "dim1"]),
    (tg.matmul, ["input", "other", "out"]),
    (tg.mm, ["input", "mat2", "out"]),
    (tg.dot, ["input", "tensor", "out"]),
    (tg.cat, ["tensors", "dim", "out"]),
    (tg.where, ["condition", "input", "other"]),
    (tg.ones, ["size", "dtype", "requires_grad", "device"]),
    (tg.zeros_like, ["input", "dtype", "requires_grad"]),
])
def test_a_public_function_has_pytorchs_parameter_names(function, names):
    assert parameter_names(function) == names


def test_keyword_only_marks_and_defaults_are_pytorchs():
    parameters = inspect.signature(tg.add).parameters
    assert parameters["alpha"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["alpha"].default == 1
    assert inspect.signature(tg.isclose).parameters["rtol"].default == 1e-05


def test_checks_at_the_door():
    """An operation is declared where it is defined (ops/), its declaration collected then, and
    the function stays plain: the library calls it as it is. Its checked form is made once,
    where its public name is exported: tg.mul checks a call, tg.ops.elementwise.mul does not."""
    for public, plain in ((tg.mul, elementwise.mul), (tg.sum, reduction.sum),
                          (tg.reshape, shape.reshape)):
        assert public is not plain and public.signatures is plain.signatures
        assert inspect.unwrap(public) is plain
    assert tg.mul.signatures is arguments.FUNCTIONS["mul"]
    a = tg.tensor([1., 2.])
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        tg.mul(a, [1.])
    with pytest.raises(TypeError, match="unsupported operand"):  # not PyTorch's words: unchecked
        elementwise.mul(a, [1.])
    assert tg.Tensor.sum.signatures is arguments.METHODS["sum"]


def test_no_string_signature_table_and_no_wrapping_after_import():
    for name in ("SIGNATURES", "METHOD_SIGNATURES", "check_functions", "check_methods",
                 "method_form", "_split", "_displayed_parts", "_as_the_function_takes"):
        assert not hasattr(arguments, name), name


@pytest.mark.parametrize("name, method, displays", [
    ("sum", False, ["(Tensor input, *, tensorgrad.dtype dtype = None)",
                    "(Tensor input, tuple of ints dim, bool keepdim = False, *, "
                    "tensorgrad.dtype dtype = None, Tensor out = None)"]),
    ("ones", False, ["(tuple of ints size, *, Tensor out = None, tensorgrad.dtype dtype = None, "
                     "tensorgrad.layout layout = None, tensorgrad.device device = None, "
                     "bool pin_memory = False, bool requires_grad = False)"]),
    ("max", True, ["()", "(Tensor other)", "(int dim, bool keepdim = False)"]),
    ("pow", True, ["(Tensor exponent)", "(Number exponent)"]),
    ("uniform_", True, ["(float from = 0, float to = 1, *, tensorgrad.Generator generator = None)"]),
])
def test_the_declarations_print_as_pytorch_prints_them(name, method, displays):
    assert [o.display for o in arguments.signatures(name, method).overloads] == displays


def test_markers_say_what_each_parameter_takes():
    dim = arguments.signatures("sum").overloads[1].params[1]
    assert (dim.type, dim.single_int, dim.default_is_none) == ("tuple of ints", True, True)
    size = arguments.signatures("ones").overloads[0].params[0]
    assert size.varargs and not size.has_default
    pin_memory = next(p for p in arguments.signatures("ones").overloads[0].params
                      if p.name == "pin_memory")
    assert pin_memory.default_is_none and pin_memory.has_default  # `bool? pin_memory = False`


def test_a_plainly_right_call_pays_only_the_check_and_its_guard():
    a = tg.tensor([1., 2.], requires_grad=True)
    b = tg.tensor([3., 4.], requires_grad=True)
    by_operator = calls_in_tensorgrad(lambda: a * b)
    by_name = calls_in_tensorgrad(lambda: tg.mul(a, b))
    checking = [call for call in by_name if call.startswith("arguments.py:")]
    assert by_name[len(checking):] == by_operator[1:]  # (the operator's own __mul__ aside)
    assert len(checking) <= 4, checking  # check_then_call, guard, and its per-argument tests


def test_pytorchs_keywords_reach_the_function():
    t = tg.ones(2, 3)
    assert tg.add(input=t, other=t, alpha=2).tolist() == [[3.] * 3] * 2
    assert tg.ones(size=(2,)).shape == (2,) and tg.arange(end=3).tolist() == [0, 1, 2]
    assert tg.transpose(t, dim0=0, dim1=1).shape == (3, 2)
    with pytest.raises(TypeError, match="does not support the out= argument"):
        tg.exp(t, out=t)


def test_functions_pytorch_writes_in_python_declare_their_tensors():
    """nn.functional, nn.init, torch.norm, the modules' forward and the optimizers' constructors
    are Python functions in PyTorch too, which fail inside on a non-tensor (an AttributeError):
    tensorgrad's declare their tensors (and the settings PyTorch compares) as typed parameters,
    and the message comes from the declaration, not from hand-written checks."""
    F, init = tg.nn.functional, tg.nn.init
    t, w = tg.ones(2, 3), tg.ones(2, requires_grad=True)
    for name in ("require_tensors", "require_numbers"):
        assert not hasattr(arguments, name), name
    declared = arguments.PYTHON_FUNCTIONS
    assert F.mse_loss.signatures is declared["tensorgrad.nn.functional.mse_loss"]
    assert "mse_loss" not in arguments.FUNCTIONS  # (its name is no operation of tensorgrad)
    assert F.mse_loss.signatures.overloads[0].display == (
        "(Tensor input, Tensor target, object size_average = None, object reduce = None, "
        "object reduction = 'mean', Tensor weight = None)")
    for call, message in [
            (lambda: F.softmax("a", 0), "softmax(): argument 'input' (position 1) must be "
                                        "Tensor, not str"),
            (lambda: F.binary_cross_entropy_with_logits(t, t, pos_weight="a"),
             "binary_cross_entropy_with_logits(): argument 'pos_weight' (position 4) must be "
             "Tensor, not str"),  # (PyTorch's C function beneath, called by position)
            (lambda: init.ones_(3), "ones_(): argument 'tensor' (position 1) must be Tensor, not int"),
            (lambda: tg.norm([1.]), "norm(): argument 'input' (position 1) must be Tensor, not list"),
            (lambda: tg.nn.Flatten()("a"), "Flatten(): argument 'input' (position 1) must be "
                                           "Tensor, not str"),
            (lambda: tg.exp_([1.]), "exp_(): argument 'input' (position 1) must be Tensor, not list"),
            (lambda: F.dropout(t, "a"), "dropout(): argument 'p' (position 2) must be a number, "
                                        "not str"),
            (lambda: tg.optim.SGD([w], lr="a"), "SGD(): argument 'lr' must be a number, not str"),
            (lambda: tg.optim.Adam([w], betas=(0.9, None)),
             "Adam(): argument 'beta2' must be a number, not NoneType"),
            # a call that does not fit the Python function: Python's own words, as in PyTorch
            (lambda: F.sigmoid(t, 1), "sigmoid() takes 1 positional argument but 2 were given"),
            (lambda: tg.nn.Flatten()(), "Flatten.forward() missing 1 required positional "
                                        "argument: 'input'"),
    ]:
        with pytest.raises(TypeError) as error:
            call()
        assert str(error.value) == message


def test_a_right_call_with_loosely_taken_arguments_runs_no_parser():
    """`object` parameters (what PyTorch's Python code takes as it comes) pass the guard."""
    a, b = tg.ones(3), tg.zeros(3)
    for call in (lambda: tg.nn.functional.mse_loss(a, b, reduction="sum"),
                 lambda: tg.tensor([1., 2.]), lambda: tg.nn.functional.softmax(a, 0)):
        checking = [c for c in calls_in_tensorgrad(call) if c.startswith("arguments.py:")]
        assert "arguments.py:parse" not in checking, checking


def test_the_elements_of_a_tensor_list_are_checked_by_the_declaration():
    with pytest.raises(TypeError, match=r"^expected Tensor as element 1 in argument 0, but got str$"):
        tg.cat([tg.ones(1), "a"])
    assert tg.stack([tg.ones(1), tg.ones(1)]).shape == (2, 1)


def test_an_operation_with_hidden_overloads_answers_a_call_that_fits_none_as_pytorch():
    """PyTorch keeps deprecated overloads of add and sub (add(Tensor input, Number alpha, Tensor
    other)) without showing them: a call that fits no shown overload by its number of arguments
    is "an invalid combination", listing the one shown, instead of one argument's error."""
    with pytest.raises(TypeError) as error:
        tg.add("a")
    assert str(error.value) == (
        "add() received an invalid combination of arguments - got (str), but expected "
        "(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)")
    with pytest.raises(TypeError, match=r"^add\(\): argument 'other' \(position 2\) must be "):
        tg.add(tg.ones(1), "a")  # (as many arguments as the shown overload: its own error)


def test_a_declaration_without_a_type_is_refused_at_definition():
    with pytest.raises(TypeError, match="no PyTorch type declared"):
        @arguments.checked
        def untyped(input):  # noqa: A002
            return input
    assert "untyped" not in arguments.FUNCTIONS


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))


def _checked_wrappers_entered_from_the_library(function):
    """The checked wrappers (arguments.py's check_then_call and without_arguments) that
    `function()` enters from code inside tensorgrad/, as 'caller file:line -> wrapper'. A call
    from the test itself is a public call, and is not listed."""
    import os
    import sys
    root = os.path.dirname(tg.__file__)
    entries = {"check_then_call", "without_arguments"}
    arguments = os.path.join(root, "arguments.py")
    found = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name in entries and \
                frame.f_code.co_filename == arguments:
            caller = frame.f_back.f_code.co_filename
            if caller.startswith(root) and caller != arguments:
                found.append(f"{os.path.relpath(caller, root)}:{frame.f_back.f_lineno} -> "
                             f"{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        function()
    finally:
        sys.setprofile(None)
    return found


def test_a_product_forward_and_backward_calls_no_checked_wrapper_inside_the_library():
    """The checked wrapper is made once, where a public name is exported; the library calls the
    plain functions. Here on `a * b` and its backward: broadcast, with a dtype to cast back to
    (the engine fits each gradient to its input), with a gradient of another dtype, and with
    backward's implicit gradient. (Derivative formulas that call Tensor methods, nn and optim
    are not checked here.)"""
    a = tg.tensor([[1., 2.]], dtype=tg.float32, requires_grad=True)
    b = tg.tensor([[3.], [4.]], dtype=tg.float64, requires_grad=True)
    found = _checked_wrappers_entered_from_the_library(lambda: a * b)
    c = a * b
    found += _checked_wrappers_entered_from_the_library(lambda: c.backward(tg.ones(2, 2)))
    x = tg.tensor(2., dtype=tg.float32, requires_grad=True)
    y = x * tg.tensor(3., dtype=tg.float64)
    found += _checked_wrappers_entered_from_the_library(lambda: y.backward())
    assert found == []
    assert a.grad.tolist() == [[7., 7.]] and a.grad.dtype == tg.float32
    assert b.grad.tolist() == [[3.], [3.]] and x.grad.item() == 3. and x.grad.dtype == tg.float32


@pytest.mark.parametrize("make_optimizer", [
    lambda params: tg.optim.SGD(params, lr=0.1),
    lambda params: tg.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True),
    lambda params: tg.optim.SGD(params, lr=0.1, momentum=0.9, dampening=0.5, maximize=True),
    lambda params: tg.optim.Adam(params, lr=0.01),
    lambda params: tg.optim.Adam(params, lr=0.01, weight_decay=0.01, amsgrad=True),
    lambda params: tg.optim.Adam(params, lr=0.01, weight_decay=0.01, decoupled_weight_decay=True,
                                 maximize=True),
], ids=["sgd", "sgd-nesterov", "sgd-momentum-maximize", "adam", "adam-amsgrad",
        "adamw-maximize"])
def test_an_mlp_training_step_calls_no_checked_wrapper_inside_the_library(make_optimizer):
    """One training step as a learner writes it (Linear-ReLU-Linear, F.cross_entropy, backward,
    an optimizer's step), the first step and a later one: the checked wrapper of each public
    name is entered only from the learner's own code, never from inside nn or optim, so each
    public call is checked once. (Module.__call__ hands the call to the module's forward: that
    is the public entry of a module, not a call from inside the library.)"""
    tg.manual_seed(0)
    model = tg.nn.Sequential(tg.nn.Linear(4, 8), tg.nn.ReLU(), tg.nn.Linear(8, 3))
    optimizer = make_optimizer(model.parameters())
    x, y = tg.randn(5, 4), tg.tensor([0, 2, 1, 1, 0])

    def step():
        optimizer.zero_grad()
        loss = tg.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    found = _checked_wrappers_entered_from_the_library(step)  # the first step: state is made
    found += _checked_wrappers_entered_from_the_library(step)
    assert found == []
    assert step().item() < 1.2  # (it trains)


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_a_plainly_valid_loss_call_is_checked_once(loss):
    """F.cross_entropy and F.nll_loss check their arguments against the C function beneath them
    (arguments.checked_values): a call of plain values passes one guard, and nothing walks its
    arguments again (no parser, no conversion: there is nothing to convert)."""
    z = tg.randn(4, 3, requires_grad=True)
    y = tg.tensor([0, 2, 1, 1])
    function = getattr(tg.nn.functional, loss)
    calls = [call for call in calls_in_tensorgrad(lambda: function(z, y))
             if call.startswith("arguments.py:") and call != "arguments.py:fits"]
    assert calls == ["arguments.py:checked_values", "arguments.py:signatures",
                     "arguments.py:guarded", "arguments.py:guard"], calls  # (fits: per argument)
    assert function(z, y, ignore_index=tg.tensor(2)).item() == pytest.approx(
        function(z, y, ignore_index=2).item())  # a 0-d tensor: converted, as PyTorch's parser does
