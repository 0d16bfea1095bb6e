"""`nn.utils.clip_grad_norm_` and `clip_grad_value_` (issue 29, session 17): an outside
attacker's learner programs called clip_grad_norm_ in 60 training loops, and tensorgrad had
none. Each case runs on both libraries (PyTorch 2.13.0, measured): the returned total norm, the
gradients after clipping (to the last float32 bit, as lists of Python floats), the warnings, and
the class and text of each refusal, in PyTorch's order of checks.
"""

import types
import warnings

import numpy as np
import pytest

from .conftest import no_warnings, raises_exactly, show, warns_exactly

INF = float("inf")


def _parameters(tg):
    """Two parameters with gradients (norms 5 and 1: total 2-norm √26) and one without."""
    a = tg.zeros(2, 2, requires_grad=True)
    b = tg.zeros(1, requires_grad=True)
    c = tg.zeros(3, requires_grad=True)
    a.grad = tg.tensor([[3.0, 4.0], [0.0, 0.0]])
    b.grad = tg.tensor([-1.0])
    return a, b, c


def _grads(parameters):
    return [None if p.grad is None else p.grad.tolist() for p in parameters]


# -- clip_grad_norm_: the total norm, and the gradients scaled in place --------------------------
@pytest.mark.parametrize("args, kwargs, norm", [
    ((1.0,), {}, "tensor(5.0990)"),
    ((1,), {}, "tensor(5.0990)"),
    ((100.0,), {}, "tensor(5.0990)"),  # (below max_norm: the gradients stay as they are)
    ((1.0, 1), {}, "tensor(8.)"),
    ((1.0, INF), {}, "tensor(4.)"),
    ((1.0,), {"norm_type": "inf"}, "tensor(4.)"),  # float("inf"): PyTorch's Python code
    ((1.0, -INF), {}, "tensor(0.)"),
    ((1.0, 0), {}, "tensor(2.)"),  # the count of non-zero norms: both are not zero
    ((1.0, -1), {}, "tensor(0.)"),
    ((1.0, True), {}, "tensor(8.)"),
    ((1.0, np.float64(2)), {}, "tensor(5.0990)"),
    ((np.float32(1),), {}, "tensor(5.0990)"),
    ((-1.0,), {}, "tensor(5.0990)"),  # a negative max_norm flips the gradients
    ((0,), {}, "tensor(5.0990)"),
    ((INF,), {}, "tensor(5.0990)"),
    ((float("nan"),), {}, "tensor(5.0990)"),
    ((1.0, float("nan")), {}, "tensor(nan)"),
    ((1.0, 2.0, True), {}, "tensor(5.0990)"),
    ((1.0,), {"foreach": True}, "tensor(5.0990)"),
    ((1.0,), {"foreach": False, "error_if_nonfinite": 1}, "tensor(5.0990)"),
    ((), {"max_norm": 1.0, "norm_type": 2}, "tensor(5.0990)"),
])
def test_clip_grad_norm_returns_the_total_norm_and_scales_the_gradients(tg, args, kwargs, norm):
    parameters = _parameters(tg)
    total = tg.nn.utils.clip_grad_norm_(iter(parameters), *args, **kwargs)
    assert show(total) == norm
    assert not total.requires_grad and total.grad_fn is None


def _clipped(tg, call):
    parameters = _parameters(tg)
    result = call(tg, parameters)
    return show(result), _grads(parameters)


CALLS = {
    "norm 2": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps, 1.0),
    "norm 2, a generator": lambda tg, ps: tg.nn.utils.clip_grad_norm_((p for p in ps), 1.0),
    "norm 2, one tensor": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps[0], 1.0),
    "norm 2, a set": lambda tg, ps: tg.nn.utils.clip_grad_norm_({ps[0]}, 0.5),
    "norm 1": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps, 1.0, 1),
    "norm inf": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps, 1.0, "inf"),
    "norm -inf": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps, 1.0, -INF),
    "norm 0": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps, 1.0, 0),
    "norm 3": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps, 2.0, 3),
    "max_norm a 0-d tensor": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps, tg.tensor(1.0)),
    "max_norm negative": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps, -1.0),
    "max_norm 0": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps, 0),
    "max_norm nan": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps, float("nan")),
    "max_norm inf": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps, INF),
    "norm_type nan": lambda tg, ps: tg.nn.utils.clip_grad_norm_(ps, 1.0, float("nan")),
    "old name": lambda tg, ps: tg.nn.utils.clip_grad_norm(ps, 1.0),
    "value 1": lambda tg, ps: tg.nn.utils.clip_grad_value_(ps, 1.0),
    "value 3.5, one tensor": lambda tg, ps: tg.nn.utils.clip_grad_value_(ps[0], 3.5),
    "value negative": lambda tg, ps: tg.nn.utils.clip_grad_value_(ps, -1.0),
    "value nan": lambda tg, ps: tg.nn.utils.clip_grad_value_(ps, float("nan")),
    "value, foreach": lambda tg, ps: tg.nn.utils.clip_grad_value_(ps, 2, foreach=True),
    "with a total norm": lambda tg, ps: tg.nn.utils.clip_grads_with_norm_(ps, 1.0, tg.tensor(10.0)),
    "total norm": lambda tg, ps: tg.nn.utils.get_total_norm([p.grad for p in ps[:2]], 1),
    "total norm, one tensor": lambda tg, ps: tg.nn.utils.get_total_norm(ps[0].grad, INF),
    "total norm, none": lambda tg, ps: tg.nn.utils.get_total_norm([]),
    "nothing to clip": lambda tg, ps: tg.nn.utils.clip_grad_norm_([ps[2]], 1.0),
}
# measured on PyTorch 2.13.0: the result, and every gradient after the call, bit for bit
CLIPPED = {
    "norm 2": ("tensor(5.0990)", [[[0.5883483290672302, 0.784464418888092], [0.0, 0.0]],
                                  [-0.196116104722023], None]),
    "norm 2, a generator": ("tensor(5.0990)", [[[0.5883483290672302, 0.784464418888092],
                                                [0.0, 0.0]], [-0.196116104722023], None]),
    "norm 2, one tensor": ("tensor(5.)", [[[0.5999999046325684, 0.7999998331069946], [0.0, 0.0]],
                                          [-1.0], None]),
    "norm 2, a set": ("tensor(5.)", [[[0.29999995231628418, 0.39999991655349731], [0.0, 0.0]],
                                     [-1.0], None]),
    "norm 1": ("tensor(8.)", [[[0.3749999403953552, 0.4999999403953552], [0.0, 0.0]],
                              [-0.1249999850988388], None]),
    "norm inf": ("tensor(4.)", [[[0.7499998211860657, 0.9999997615814209], [0.0, 0.0]],
                                [-0.24999994039535522], None]),
    "norm -inf": ("tensor(0.)", [[[3.0, 4.0], [0.0, 0.0]], [-1.0], None]),
    "norm 0": ("tensor(2.)", [[[1.4999992847442627, 1.9999990463256836], [0.0, 0.0]],
                              [-0.4999997615814209], None]),
    "norm 3": ("tensor(4.5144)", [[[1.3290925025939941, 1.7721233367919922], [0.0, 0.0]],
                                  [-0.44303083419799805], None]),
    "max_norm a 0-d tensor": ("tensor(5.0990)", [[[0.5883483290672302, 0.784464418888092],
                                                  [0.0, 0.0]], [-0.196116104722023], None]),
    "max_norm negative": ("tensor(5.0990)", [[[-0.5883483290672302, -0.784464418888092],
                                              [-0.0, -0.0]], [0.196116104722023], None]),
    "max_norm 0": ("tensor(5.0990)", [[[0.0, 0.0], [0.0, 0.0]], [-0.0], None]),
    "max_norm nan": ("tensor(5.0990)", [[[float("nan")] * 2] * 2, [float("nan")], None]),
    "max_norm inf": ("tensor(5.0990)", [[[3.0, 4.0], [0.0, 0.0]], [-1.0], None]),
    "norm_type nan": ("tensor(nan)", [[[float("nan")] * 2] * 2, [float("nan")], None]),
    "old name": ("tensor(5.0990)", [[[0.5883483290672302, 0.784464418888092], [0.0, 0.0]],
                                    [-0.196116104722023], None]),
    "value 1": ("None", [[[1.0, 1.0], [0.0, 0.0]], [-1.0], None]),
    "value 3.5, one tensor": ("None", [[[3.0, 3.5], [0.0, 0.0]], [-1.0], None]),
    "value negative": ("None", [[[-1.0, -1.0], [-1.0, -1.0]], [-1.0], None]),
    "value nan": ("None", [[[float("nan")] * 2] * 2, [float("nan")], None]),
    "value, foreach": ("None", [[[2.0, 2.0], [0.0, 0.0]], [-1.0], None]),
    "with a total norm": ("None", [[[0.29999998211860657, 0.3999999761581421], [0.0, 0.0]],
                                   [-0.09999999403953552], None]),
    "total norm": ("tensor(8.)", [[[3.0, 4.0], [0.0, 0.0]], [-1.0], None]),
    "total norm, one tensor": ("tensor(4.)", [[[3.0, 4.0], [0.0, 0.0]], [-1.0], None]),
    "total norm, none": ("tensor(0.)", [[[3.0, 4.0], [0.0, 0.0]], [-1.0], None]),
    "nothing to clip": ("tensor(0.)", [[[3.0, 4.0], [0.0, 0.0]], [-1.0], None]),
}


def _same(a, b):
    """Equal, nan equal to nan, -0.0 apart from 0.0 (PyTorch's in-place product keeps the sign)."""
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) and isinstance(b, float):
        return (a != a and b != b) or (a == b and str(a) == str(b))
    return a == b


@pytest.mark.parametrize("name", CALLS)
def test_clipping_gives_pytorchs_values_to_the_last_bit(tg, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result, grads = _clipped(tg, CALLS[name])
    expected_result, expected_grads = CLIPPED[name]
    assert result == expected_result
    assert _same(grads, expected_grads), grads


def test_a_gradient_in_float64_beside_one_in_float32_takes_the_wider_total(tg):
    a = tg.zeros(2, requires_grad=True)
    b = tg.zeros(2, dtype=tg.float64, requires_grad=True)
    a.grad, b.grad = tg.tensor([1.0, 0.0]), tg.tensor([3.0, 4.0], dtype=tg.float64)
    total = tg.nn.utils.clip_grad_norm_([a, b], 1.0)
    assert show(total) == "tensor(5.0990, dtype=tensorgrad.float64)"
    assert (a.grad.dtype, b.grad.dtype) == (tg.float32, tg.float64)
    assert a.grad.tolist() == [0.19611608982086182, 0.0]
    assert b.grad.tolist() == [0.5883482900299594, 0.7844643867066124]


@pytest.mark.filterwarnings("ignore:Using backward() with create_graph")
def test_a_gradient_with_a_graph_is_scaled_without_recording(tg):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward(create_graph=True)
    total = tg.nn.utils.clip_grad_norm_(x, 1.0)
    assert show(total) == "tensor(4.4721)"
    assert x.grad.tolist() == [0.4472135007381439, 0.8944270014762878]
    assert x.grad.grad_fn.name().rsplit("::")[-1] == "CopyBackwards"  # (the graph stays as it was)


def test_the_default_dtype_makes_the_total_of_no_gradients(tg):
    before = tg.get_default_dtype()
    tg.set_default_dtype(tg.float64)
    try:
        assert show(tg.nn.utils.clip_grad_norm_([], 1.0)) == "tensor(0.)"
        assert tg.nn.utils.clip_grad_norm_([], 1.0).dtype == tg.float64
    finally:
        tg.set_default_dtype(before)


# -- warnings ------------------------------------------------------------------------------------
def test_an_empty_generator_warns_that_nothing_is_clipped(tg):
    with warns_exactly(tg, UserWarning, "`parameters` is an empty generator, no gradient "
                                        "clipping will occur."):
        assert show(tg.nn.utils.clip_grad_norm_((p for p in []), 1.0)) == "tensor(0.)"
    with no_warnings(tg):
        tg.nn.utils.clip_grad_norm_(iter([]), 1.0)  # (an iterator that is not a generator)


def test_the_old_name_warns_that_it_is_deprecated(tg):
    a, b, c = _parameters(tg)
    with warns_exactly(tg, FutureWarning, "`tensorgrad.nn.utils.clip_grad_norm` is now deprecated "
                                          "in favor of `tensorgrad.nn.utils.clip_grad_norm_`."):
        tg.nn.utils.clip_grad_norm([a, b, c], 1.0)


# -- refusals, in PyTorch's order -----------------------------------------------------------------
NONFINITE = ("The total norm of order {} for gradients from `parameters` is non-finite, so it "
             "cannot be clipped. To disable this error and scale the gradients by the non-finite "
             "norm anyway, set `error_if_nonfinite=False`")
FOREACH_EMPTY = ("Expected !nested_tensorlist[0].empty() to be true, but got false.  (Could this "
                 "error message be improved?  If so, please report an enhancement request to "
                 "PyTorch.)")
AMBIGUOUS = ("The truth value of an array with more than one element is ambiguous. Use a.any() "
             "or a.all()")
CLAMP_OF_A_FLOAT = (
    "clamp() received an invalid combination of arguments - got (float, max=float), but expected "
    "one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * "
    "(Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")


@pytest.mark.parametrize("call, error, text", [
    ("clip_grad_norm_(ps, 'a')", ValueError, "could not convert string to float: 'a'"),
    ("clip_grad_norm_(ps, None)", TypeError,
     "float() argument must be a string or a real number, not 'NoneType'"),
    ("clip_grad_norm_(ps, 1 + 1j)", TypeError,
     "float() argument must be a string or a real number, not 'complex'"),
    ("clip_grad_norm_(ps, 2 ** 1100)", OverflowError, "int too large to convert to float"),
    ("clip_grad_norm_(ps, tg.tensor([1.0, 2.0]))", ValueError,
     "only one element tensors can be converted to Python scalars"),
    ("clip_grad_norm_(ps, np.array([1.0, 2.0]))", TypeError,
     "only 0-dimensional arrays can be converted to Python scalars"),
    ("clip_grad_norm_(ps, 1.0, 'fro')", ValueError, "could not convert string to float: 'fro'"),
    ("clip_grad_norm_(ps, 1.0, None)", TypeError,
     "float() argument must be a string or a real number, not 'NoneType'"),
    # norm_type is read first, max_norm after the norm; with no gradients, both still are
    ("clip_grad_norm_(ps, 'a', 'b')", ValueError, "could not convert string to float: 'b'"),
    ("clip_grad_norm_([], 'a', 'b')", ValueError, "could not convert string to float: 'b'"),
    ("clip_grad_norm_([], 'a')", ValueError, "could not convert string to float: 'a'"),
    ("clip_grad_norm_(ps, 1.0, 2, True)", None, None),
    ("clip_grad_norm_(nan_ps, 1.0, error_if_nonfinite=True)", RuntimeError, NONFINITE.format("2.0")),
    ("clip_grad_norm_(ps, 1.0, 'nan', True)", RuntimeError, NONFINITE.format("nan")),
    ("clip_grad_norm_(ps, 1.0, error_if_nonfinite=np.array([1, 2]))", ValueError,
     "The truth value of an array with more than one element is ambiguous. Use a.any() or "
     "a.all()"),
    ("clip_grad_norm_(1.0, 1.0)", TypeError, "'float' object is not iterable"),
    ("clip_grad_norm_(None, 1.0)", TypeError, "'NoneType' object is not iterable"),
    ("clip_grad_norm_(ps)", TypeError,
     "clip_grad_norm_() missing 1 required positional argument: 'max_norm'"),
    ("clip_grad_norm_(ps, 1.0, 2.0, False, None, 1)", TypeError,
     "clip_grad_norm_() takes from 2 to 5 positional arguments but 6 were given"),
    ("clip_grad_norm_(ps, 1.0, max=2)", TypeError,
     "clip_grad_norm_() got an unexpected keyword argument 'max'"),
    # clip_grad_value_ reads clip_value before it reads the parameters
    ("clip_grad_value_(ps, 'a')", ValueError, "could not convert string to float: 'a'"),
    ("clip_grad_value_(1.0, 'a')", ValueError, "could not convert string to float: 'a'"),
    ("clip_grad_value_(1.0, 1.0)", TypeError, "'float' object is not iterable"),
    ("clip_grad_value_([], 1.0)", RuntimeError, FOREACH_EMPTY),
    ("clip_grad_value_([ps[2]], 1.0)", RuntimeError, FOREACH_EMPTY),
    ("clip_grad_value_((p for p in []), 1.0)", RuntimeError, FOREACH_EMPTY),
    ("clip_grads_with_norm_(ps, 1.0, 10.0)", TypeError, CLAMP_OF_A_FLOAT),
    ("clip_grads_with_norm_(ps, 1.0, 'a')", TypeError, 'can only concatenate str (not "float") to str'),
    ("clip_grads_with_norm_(ps, 1.0, tg.tensor([2.0, 3.0]))", RuntimeError,
     "scalar tensor expected to be 0 dim but it has 1 dimensions and 2 elements."),
    ("clip_grads_with_norm_([], 'a', 1)", ValueError, "could not convert string to float: 'a'"),
    ("get_total_norm([], 'a')", ValueError, "could not convert string to float: 'a'"),
    # foreach picks PyTorch's kernel: only tested for truth, once there are tensors
    ("get_total_norm([ps[0]], foreach=np.ones(2))", ValueError, AMBIGUOUS),
    ("clip_grad_norm_(ps, 1.0, foreach=np.ones(2))", ValueError, AMBIGUOUS),
    ("clip_grad_value_(ps, 1.0, foreach=np.ones(2))", ValueError, AMBIGUOUS),
    ("clip_grads_with_norm_(ps, 1.0, tg.tensor(2.0), foreach=np.ones(2))", ValueError, AMBIGUOUS),
])
def test_clipping_refuses_what_pytorch_refuses_in_its_words(tg, call, error, text):
    ps = list(_parameters(tg))
    nan_ps = [tg.zeros(2, requires_grad=True)]
    nan_ps[0].grad = tg.tensor([INF, 1.0])
    env = {"tg": tg, "np": np, "ps": ps, "nan_ps": nan_ps, **vars(tg.nn.utils)}
    if error is None:
        assert show(eval(call, env)) == "tensor(5.0990)"  # noqa: S307  (the cases above)
        return
    with raises_exactly(tg, error, text):
        eval(call, env)  # noqa: S307


@pytest.mark.parametrize("call", ["clip_grad_norm_([1.0], 1.0)", "clip_grad_norm_({'a': ps[0]}, 1.0)",
                                  "clip_grad_value_([1.0], 1.0)", "clip_grad_norm_([1.0], 'a')"])
def test_something_that_is_not_a_tensor_among_the_parameters_is_refused(tg, call):
    """PyTorch fails on its missing `.grad` (an AttributeError of its own code); tensorgrad says
    what is wrong instead (docs/fidelity.md)."""
    ps = list(_parameters(tg))
    env = {"ps": ps, **vars(tg.nn.utils)}
    with pytest.raises((AttributeError, TypeError)) as caught:
        eval(call, env)  # noqa: S307
    if tg.__name__ == "tensorgrad":
        assert caught.type is TypeError
        assert "parameters must be a Tensor or an iterable of Tensors, but one of them is" in str(
            caught.value)


def test_clip_grad_norm_is_where_pytorch_has_it(tg):
    assert isinstance(tg.nn.utils, types.ModuleType)
    assert tg.nn.utils.clip_grad.clip_grad_norm_ is tg.nn.utils.clip_grad_norm_


def test_the_norm_of_order_minus_inf_is_the_smallest_magnitude(tg):
    """(The order clip_grad_norm_ passes on: the power form gave 1 for -inf.)"""
    x = tg.tensor([3.0, -1.0, -4.0], requires_grad=True)
    n = tg.norm(x, -INF)
    n.backward()
    assert show(n) == "tensor(1., grad_fn=<LinalgVectorNormBackward0>)"
    assert x.grad.tolist() == [0.0, -1.0, -0.0]
