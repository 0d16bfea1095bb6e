"""Finite-difference checks of every op's first and second derivative, in float64.

Each test draws inputs with hypothesis and calls `check_first_and_second` (tests/fd.py):
the gradient of <fn(x), v> is compared with central differences, and so is the
Hessian-vector product obtained with `create_graph=True`. Every check runs on `fn` and on
`sin(fn)`, so the backward of each op is also differentiated in the gradient it receives.

Inputs are kept away from points where an op is not differentiable: the kink of relu and
abs at 0, the bounds of clamp, ties of max/min/maximum, and 0 for log, sqrt and division.
Where the true second derivative is zero (relu, abs, linear ops), the check requires the
Hessian-vector product to be zero; an input reported unused or a first gradient that does
not require grad counts as zero, as in PyTorch.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fd import check_first, check_first_and_second, constant

import tensorgrad as tg

FAST = settings(max_examples=10, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=4, deadline=None, database=None,
               suppress_health_check=[HealthCheck.too_slow])


# -- strategies ---------------------------------------------------------------------------------
reals = st.floats(-2, 2, allow_nan=False, allow_infinity=False, allow_subnormal=False)
positive = st.floats(0.3, 3, allow_nan=False, allow_infinity=False)


def signed(magnitudes):
    return st.tuples(magnitudes, st.booleans()).map(lambda p: p[0] if p[1] else -p[0])


away_from_zero = signed(st.floats(0.2, 2))
# For rules that divide by x (prod's p / xᵢ): exact zeros, but no |x| ~ 1e-160, where x²
# underflows and the second derivative is lost (in PyTorch too, which uses the same formula).
no_tiny = reals.map(lambda v: 0.0 if abs(v) < 1e-3 else v)


def lattice(offset):
    """k/2 + offset + noise (|noise| ≤ 0.1): with offset 0.25, at least 0.15 from every k/2."""
    return st.builds(lambda k, e: k * 0.5 + offset + e, st.integers(-4, 4), st.floats(-0.1, 0.1))


off_grid = lattice(0.25)  # never within 0.15 of 0, ±0.5, ±1, ...
on_grid = lattice(0.0)  # within 0.1 of a multiple of 0.5: at least 0.05 from any off_grid value


def arrays(shape, elements=reals):
    return hnp.arrays(np.float64, shape, elements=elements)


@st.composite
def distinct(draw, shape, spread=0.3, signs=False):
    """Values whose pairwise gaps are ≥ spread/2 (magnitudes, if signs): no ties anywhere."""
    n = int(np.prod(shape, dtype=int))
    order = draw(st.permutations(range(n)))
    noise = draw(hnp.arrays(np.float64, n, elements=st.floats(0, spread / 2)))
    values = np.array(order, dtype=np.float64) * spread + noise
    if signs:
        flip = draw(hnp.arrays(np.bool_, n))
        values = np.where(flip, -(values + 0.2), values + 0.2)
    else:
        values = values - n * spread / 2
    return values.reshape(shape)


def draw_arrays(data, shapes, elements=reals):
    return [data.draw(arrays(shape, elements)) for shape in shapes]


BROADCAST_SHAPES = [
    ((3,), (3,)),
    ((3, 1), (1, 4)),
    ((2, 1, 3), (4, 1)),
    ((), (3,)),
    ((3,), ()),
    ((2, 3), (3,)),
    ((1,), (2, 2)),
]


# -- arithmetic, with broadcasting ----------------------------------------------------------
BINARY_OPS = {
    "add": (lambda a, b: a + b, reals, reals),
    "add_alpha": (lambda a, b: tg.add(a, b, alpha=-2.5), reals, reals),
    "sub": (lambda a, b: a - b, reals, reals),
    "sub_alpha": (lambda a, b: tg.sub(a, b, alpha=0.5), reals, reals),
    "mul": (lambda a, b: a * b, reals, reals),
    "div": (lambda a, b: a / b, reals, away_from_zero),
    "pow": (lambda a, b: a ** b, positive, reals),
    "maximum": (tg.maximum, off_grid, on_grid),
    "minimum": (tg.minimum, off_grid, on_grid),
    "max_of_two": (lambda a, b: tg.max(a, b), on_grid, off_grid),
    "where_mask": (lambda a, b: tg.where(a > b, a, b * b), off_grid, on_grid),
}


@pytest.mark.parametrize("shapes", BROADCAST_SHAPES, ids=str)
@pytest.mark.parametrize("op", list(BINARY_OPS))
@FEW
@given(data=st.data())
def test_binary_op_with_broadcasting(op, shapes, data):
    fn, first_elements, second_elements = BINARY_OPS[op]
    a = data.draw(arrays(shapes[0], first_elements))
    b = data.draw(arrays(shapes[1], second_elements))
    check_first_and_second(fn, a, b)


@pytest.mark.parametrize("shapes", BROADCAST_SHAPES[:4], ids=str)
@FEW
@given(data=st.data())
def test_same_tensor_on_both_sides(shapes, data):
    a, b = draw_arrays(data, shapes, away_from_zero)
    check_first_and_second(lambda x, y: x * x / y + y * x - x ** y.abs(), np.abs(a) + 0.1, b)


SCALAR_OPS = {
    "add_scalar": (lambda x: x + 2.5, reals),
    "radd_scalar": (lambda x: 2.5 + x, reals),
    "sub_scalar": (lambda x: x - 2.5, reals),
    "rsub_scalar": (lambda x: 2.5 - x, reals),
    "mul_scalar": (lambda x: x * -1.5, reals),
    "rmul_scalar": (lambda x: -1.5 * x, reals),
    "div_scalar": (lambda x: x / 3.0, reals),
    "rdiv_scalar": (lambda x: 3.0 / x, away_from_zero),
    "neg": (lambda x: -x, reals),
    "reciprocal": (tg.reciprocal, away_from_zero),
    "pow_int": (lambda x: x ** 3, reals),
    "pow_2": (lambda x: x ** 2, reals),
    "square": (tg.square, reals),
    "pow_negative": (lambda x: x ** -2, away_from_zero),
    "pow_fraction": (lambda x: x ** 2.5, positive),
    "pow_half": (lambda x: x ** 0.5, positive),
    "pow_zero": (lambda x: x ** 0, reals),
    "pow_one": (lambda x: x ** 1, reals),
    "rpow": (lambda x: 2.5 ** x, reals),
    "rpow_fraction": (lambda x: 0.5 ** x, reals),
    "pow_method_tensor": (lambda x: x.pow(constant([1.5, 2.0, 3.0])), positive),
    "exp": (tg.exp, reals),
    "log": (tg.log, positive),
    "sqrt": (tg.sqrt, positive),
    "sin": (tg.sin, reals),
    "cos": (tg.cos, reals),
    "tanh": (tg.tanh, reals),
    "sigmoid": (tg.sigmoid, st.floats(-6, 6)),
    "relu": (tg.relu, off_grid),
    "abs": (tg.abs, off_grid),
    "sign": (tg.sign, off_grid),
    "clamp_both": (lambda x: x.clamp(-0.5, 1.0), off_grid),
    "clamp_min": (lambda x: tg.clamp(x, min=0.5), off_grid),
    "clamp_max": (lambda x: x.clamp(max=-0.5), off_grid),
    "where_scalar": (lambda x: tg.where(x > 0, x, 0.0), off_grid),
    "where_scalar_first": (lambda x: tg.where(x > 0, -1.0, x * x), off_grid),
    "clone": (lambda x: x.clone(), reals),
    "to_float64": (lambda x: x.to(tg.float64) * x.double(), reals),
    "pos": (lambda x: +x, reals),
}


@pytest.mark.parametrize("op", list(SCALAR_OPS))
@FAST
@given(data=st.data())
def test_elementwise(op, data):
    fn, elements = SCALAR_OPS[op]
    shape = data.draw(st.sampled_from([(3,), (2, 3), ()])) if op != "pow_method_tensor" else (3,)
    check_first_and_second(fn, data.draw(arrays(shape, elements)))


@FEW
@given(x=arrays((2, 3), reals))
def test_cast_through_float32(x):
    """A round trip through float32: the gradient is cast back to float64 by the engine."""
    def fn(t):
        return (t.float() * 2).to(tg.float64).sin()

    check_first_and_second(fn, x, eps=1e-3, rtol=1e-3, atol=1e-3, compose=False)
    leaf = tg.tensor(x, dtype=tg.float64, requires_grad=True)
    leaf.float().sum().backward()
    assert leaf.grad.dtype is tg.float64


WHERE_SHAPES = [  # (condition, a, b)
    ((2, 3), (3,), (2, 3)),
    ((2, 1), (1, 3), (2, 3)),
    ((), (2,), ()),
    ((3,), (2, 1), (1,)),
]


@pytest.mark.parametrize("shapes", WHERE_SHAPES, ids=str)
@FEW
@given(data=st.data())
def test_where_with_broadcasting(shapes, data):
    a, b = draw_arrays(data, shapes[1:])
    condition = tg.tensor(data.draw(hnp.arrays(np.bool_, shapes[0])))
    check_first_and_second(lambda x, y: tg.where(condition, x * y, y.exp()), a, b)


# -- matmul -----------------------------------------------------------------------------------
MATMUL_SHAPES = [
    ((3,), (3,)),  # dot
    ((2, 3), (3, 4)),  # mm
    ((2, 3), (3,)),  # mv
    ((3,), (3, 4)),  # vector @ matrix
    ((2, 2, 3), (2, 3, 2)),  # bmm
    ((2, 2, 3), (3, 2)),  # batch @ matrix
    ((2, 3), (2, 3, 2)),  # matrix @ batch
    ((3,), (2, 3, 2)),  # vector @ batch
    ((2, 2, 3), (3,)),  # batch @ vector
    ((2, 1, 2, 3), (3, 3, 2)),  # broadcast batch dims
    ((1, 2, 3), (2, 1, 3, 1)),
]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
@FEW
@given(data=st.data())
def test_matmul(shapes, data):
    a, b = draw_arrays(data, shapes)
    check_first_and_second(lambda x, y: x @ y, a, b)
    check_first_and_second(lambda x, y: (x * y.sum()) @ (y * y), a, b, compose=False)


@FEW
@given(data=st.data())
def test_named_products(data):
    a, b, m = draw_arrays(data, [(3,), (3,), (2, 3)])
    check_first_and_second(tg.dot, a, b)
    check_first_and_second(tg.outer, a, b)
    check_first_and_second(lambda x, y: tg.mv(y, x), a, m)
    check_first_and_second(lambda y: tg.mm(y, y.t()), m)
    check_first_and_second(lambda x: x.matmul(x), a)


# -- reductions -------------------------------------------------------------------------------
REDUCTIONS = {
    "sum": (lambda x: x.sum(), reals),
    "sum_dim0": (lambda x: x.sum(0), reals),
    "sum_dim_neg": (lambda x: tg.sum(x, dim=-1), reals),
    "sum_dims_keepdim": (lambda x: x.sum(dim=(0, 2), keepdim=True), reals),
    "sum_keepdim": (lambda x: x.sum(1, keepdim=True), reals),
    "mean": (lambda x: x.mean(), reals),
    "mean_dim": (lambda x: x.mean(1), reals),
    "mean_dims_keepdim": (lambda x: tg.mean(x, (0, 1), keepdim=True), reals),
    "logsumexp": (lambda x: x.logsumexp(1), reals),
    "logsumexp_dims_keepdim": (lambda x: tg.logsumexp(x, (0, 2), keepdim=True), reals),
    "softmax": (lambda x: x.softmax(-1), reals),
    "softmax_dim0": (lambda x: tg.softmax(x, 0), reals),
    "log_softmax": (lambda x: x.log_softmax(1), reals),
    "log_softmax_dim0": (lambda x: tg.log_softmax(x, dim=0), reals),
    "prod": (lambda x: x.prod(), no_tiny),
    "prod_dim": (lambda x: x.prod(1), no_tiny),
    "prod_dim_keepdim": (lambda x: tg.prod(x, 2, keepdim=True), no_tiny),
    "norm": (lambda x: x.norm(), away_from_zero),
    "norm_dim": (lambda x: x.norm(dim=1), away_from_zero),
    "norm_1": (lambda x: x.norm(p=1), away_from_zero),
    "norm_1_dim": (lambda x: tg.norm(x, 1, dim=(0, 2)), away_from_zero),
    "norm_3": (lambda x: x.norm(p=3), away_from_zero),
    "norm_3_dim_keepdim": (lambda x: x.norm(p=3, dim=-1, keepdim=True), away_from_zero),
}


@pytest.mark.parametrize("op", list(REDUCTIONS))
@FAST
@given(data=st.data())
def test_reduction(op, data):
    fn, elements = REDUCTIONS[op]
    check_first_and_second(fn, data.draw(arrays((2, 3, 2), elements)))


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "norm", "logsumexp", "softmax",
                                "log_softmax", "var", "max"])
@FEW
@given(data=st.data())
def test_reduction_of_zero_dim_and_vector(op, data):
    fns = {
        "sum": lambda x: x.sum(0), "mean": lambda x: x.mean(0), "prod": lambda x: x.prod(0),
        "norm": lambda x: x.norm(dim=0), "logsumexp": lambda x: x.logsumexp(0),
        "softmax": lambda x: x.softmax(0), "log_softmax": lambda x: x.log_softmax(0),
        "var": lambda x: x.var(0) if x.numel() > 1 else x.sum(), "max": lambda x: x.max(0)[0],
    }
    for shape in [(), (4,)]:
        check_first_and_second(fns[op], data.draw(distinct(shape, signs=True)))


EXTREMA = {
    "max": lambda x: x.max(),
    "min": lambda x: tg.min(x),
    "max_dim": lambda x: x.max(dim=1)[0],
    "max_dim_keepdim": lambda x: x.max(1, keepdim=True).values,
    "min_dim": lambda x: x.min(dim=-1).values,
    "min_dim_keepdim": lambda x: tg.min(x, 0, keepdim=True)[0],
    "amax": lambda x: x.amax(),
    "amax_dim": lambda x: x.amax(1),
    "amax_dims_keepdim": lambda x: tg.amax(x, (0, 2), keepdim=True),
    "amin_dim": lambda x: x.amin(-1),
    "norm_inf": lambda x: x.norm(p=float("inf")),
    "norm_inf_dim": lambda x: x.norm(p=float("inf"), dim=1),
    "var": lambda x: x.var(),
    "var_dim": lambda x: x.var(1),
    "var_biased_dims_keepdim": lambda x: x.var((0, 2), unbiased=False, keepdim=True),
    "var_correction": lambda x: tg.var(x, 0, correction=0),
    "std": lambda x: x.std(),
    "std_dim": lambda x: tg.std(x, dim=2),
    "std_keepdim": lambda x: x.std(1, keepdim=True),
}


@pytest.mark.parametrize("op", list(EXTREMA))
@FAST
@given(data=st.data())
def test_extrema_and_spread(op, data):
    """Ops that need distinct values: max/min (no ties), and var/std (not all equal)."""
    check_first_and_second(EXTREMA[op], data.draw(distinct((2, 3, 2), signs=True)))


@FAST
@given(x=arrays((5,), no_tiny), zeros=st.sets(st.integers(0, 4), min_size=1, max_size=2))
def test_prod_with_zeros_first_derivative(x, zeros):
    x = x.copy()
    x[list(zeros)] = 0.0
    check_first(lambda t: t.prod(), x)
    check_first(lambda t: t.reshape(1, 5).prod(1), x)
    check_first(lambda t: t.reshape(5, 1).expand(5, 2).prod(0), x)


@FAST
@given(x=arrays((4,), no_tiny), zeros=st.sets(st.integers(0, 3), min_size=1, max_size=3))
def test_prod_with_zeros_second_derivative(x, zeros):
    """prod is a polynomial, so its Hessian exists at zeros too."""
    x = x.copy()
    x[list(zeros)] = 0.0
    check_first_and_second(lambda t: t.prod(), x, compose=False)
    check_first_and_second(lambda t: t.reshape(2, 2).prod(0), x, compose=False)


# -- shape ops ---------------------------------------------------------------------------------
SHAPE_OPS = {
    "reshape": lambda x: x.reshape(3, 4),
    "reshape_infer": lambda x: tg.reshape(x, (-1, 2)),
    "reshape_noncontiguous": lambda x: x.transpose(0, 2).reshape(-1),
    "view": lambda x: x.view(4, 3),
    "view_as": lambda x: x.view(12).view_as(tg.zeros(2, 6)),
    "reshape_as": lambda x: x.reshape_as(tg.zeros(6, 2)),
    "transpose": lambda x: x.transpose(0, 2),
    "transpose_neg": lambda x: tg.transpose(x, -1, -2),
    "t": lambda x: x[0].t(),
    "t_vector": lambda x: x[0, 0].t(),
    "T": lambda x: x[:, 1].T,
    "mT": lambda x: x.mT,
    "permute": lambda x: x.permute(2, 0, 1),
    "permute_tuple": lambda x: tg.permute(x, (1, 2, 0)),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "unsqueeze_neg": lambda x: tg.unsqueeze(x, -1),
    "squeeze": lambda x: x[:, :1].squeeze(),
    "squeeze_dim": lambda x: x[:, :1].squeeze(1),
    "squeeze_noop": lambda x: x.squeeze(0),
    "flatten": lambda x: x.flatten(),
    "flatten_range": lambda x: tg.flatten(x, 1, 2),
    "expand": lambda x: x[:, :1].expand(2, 3, 2),
    "expand_new_dims": lambda x: x.expand(3, 2, 3, 2),
    "expand_minus_one": lambda x: x[:1].expand(4, -1, -1),
    "expand_as": lambda x: x[0, 0].expand_as(tg.zeros(3, 2)),
    "broadcast_to": lambda x: tg.broadcast_to(x[1], (2, 3, 2)),
    "repeat": lambda x: x.repeat(2, 1, 3),
    "repeat_new_dims": lambda x: x.repeat(2, 1, 1, 2),
    "select": lambda x: x.select(1, 2),
    "tg_select": lambda x: tg.select(x, -1, 0),
    "unbind": lambda x: x.unbind(1)[2] * x.unbind(1)[0],
    "split": lambda x: x.split(2, dim=1)[1],
    "split_sizes": lambda x: tg.split(x, [1, 2], 1)[1],
    "chunk": lambda x: x.chunk(2, 2)[0],
}


@pytest.mark.parametrize("op", list(SHAPE_OPS))
@FEW
@given(x=arrays((2, 3, 2), reals))
def test_shape_op(op, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .T of a non-matrix warns, as in PyTorch
        check_first_and_second(SHAPE_OPS[op], x)


INDICES = {
    "int": 1,
    "negative_int": -1,
    "two_ints": (1, -2),
    "slice": slice(0, 1),
    "step_slice": (slice(None), slice(None, None, 2)),
    "negative_slice": (slice(None), slice(-2, None)),
    "int_and_slice": (0, slice(1, 3)),
    "int_array": [1, 0],
    "repeated_int_array": [1, 1, 0, 1],
    "int_tensor": "tensor([[0, 1], [1, 1]])",
    "array_pair": ([0, 1, 1], [2, 0, 2]),
    "array_and_slice": (slice(None), [2, 0, 2]),
    "bool_mask": "mask",
    "bool_row_mask": "row_mask",
    "none": None,
    "none_and_int": (None, 1, slice(None), None),
    "ellipsis": (Ellipsis, 1),
    "ellipsis_middle": (0, Ellipsis, 0),
    "ellipsis_none": (Ellipsis, None),
    "scalar_index_tensor": "tensor(2)",
}


def _index(name, x):
    index = INDICES[name]
    if index == "mask":
        return x.detach() > 0
    if index == "row_mask":
        return tg.tensor([True, False])
    if index == "tensor([[0, 1], [1, 1]])":
        return tg.tensor([[0, 1], [1, 1]])
    if index == "tensor(2)":
        return (slice(None), tg.tensor(2))
    return index


@pytest.mark.parametrize("name", list(INDICES))
@FEW
@given(x=arrays((2, 3, 2), off_grid))
def test_getitem(name, x):
    check_first_and_second(lambda t: t[_index(name, t)], x)


SETITEM_CASES = {
    # (index, shape of the value written)
    "int": (1, (3, 2)),
    "int_broadcast_value": (1, (2,)),
    "slice": ((slice(None), slice(1, 3)), (2, 2, 2)),
    "slice_broadcast_value": ((slice(None), slice(1, 3)), (1, 2, 1)),
    "scalar_value": ((0, 1), ()),
    "scalar_value_at_slice": ((slice(None), 0), ()),
    "int_array": ([1, 0], (2, 3, 2)),
    "int_array_broadcast": ((slice(None), [2, 0]), (2,)),
    "mask": ("mask", ()),
    "ellipsis": ((Ellipsis, 0), (2, 3)),
    "everything": (Ellipsis, (2, 3, 2)),
}


@pytest.mark.parametrize("name", list(SETITEM_CASES))
@FEW
@given(data=st.data())
def test_setitem(name, data):
    """CopySlices: the overwritten tensor keeps the gradient outside the index, the value gets
    the gradient at the index (summed when it was broadcast)."""
    index, value_shape = SETITEM_CASES[name]
    x = data.draw(arrays((2, 3, 2), off_grid))
    value = data.draw(arrays(value_shape, reals))

    def fn(t, v):
        y = t * t  # a non-leaf, so it may be written to
        y[t.detach() > 0 if index == "mask" else index] = v.sin()
        return y * t

    check_first_and_second(fn, x, value)


@FEW
@given(data=st.data())
def test_setitem_value_needs_no_grad(data):
    x = data.draw(arrays((2, 3), reals))

    def fn(t):
        y = t.exp()
        y = y * 1
        y[:, 1] = 5.0
        y[0, [0, 2]] = constant([1.0, 2.0])
        return y

    check_first_and_second(fn, x)


@pytest.mark.parametrize("dim", [0, 1, -1])
@FEW
@given(data=st.data())
def test_cat(dim, data):
    shapes = {0: [(1, 3), (2, 3), (2, 3)], 1: [(2, 1), (2, 2), (2, 3)],
              -1: [(2, 2), (2, 1), (2, 1)]}
    a, b, c = draw_arrays(data, shapes[dim])
    check_first_and_second(lambda x, y, z: tg.cat([x, y * y, z], dim=dim), a, b, c)
    check_first_and_second(lambda x: tg.cat((x, x, x.exp()), dim), a)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@FEW
@given(data=st.data())
def test_stack(dim, data):
    a, b = draw_arrays(data, [(2, 3), (2, 3)])
    check_first_and_second(lambda x, y: tg.stack([x, y * x, y], dim=dim), a, b)


@pytest.mark.parametrize("dim", [0, 1])
@FEW
@given(data=st.data())
def test_gather(dim, data):
    x = data.draw(arrays((3, 4), reals))
    shape = (5, 4) if dim == 0 else (3, 6)
    index = data.draw(hnp.arrays(np.int64, shape, elements=st.integers(0, 2 if dim == 0 else 3)))
    index = tg.tensor(index)
    check_first_and_second(lambda t: t.gather(dim, index), x)
    check_first_and_second(lambda t: tg.gather(t * t, dim, index[:2]), x)


# -- in-place ops --------------------------------------------------------------------------------
IN_PLACE = {
    "add_": lambda y, z: y.add_(z),
    "add_alpha": lambda y, z: y.add_(z, alpha=-3),
    "sub_": lambda y, z: y.sub_(z * z, alpha=0.5),
    "mul_": lambda y, z: y.mul_(z),
    "div_": lambda y, z: y.div_(z * z + 1),
    "iadd": lambda y, z: y.__iadd__(z),
    "isub": lambda y, z: y.__isub__(2.0),
    "imul": lambda y, z: y.__imul__(z),
    "itruediv": lambda y, z: y.__itruediv__(z * z + 1),
    "pow_": lambda y, z: y.pow_(3),
    "neg_": lambda y, z: y.neg_(),
    "exp_": lambda y, z: y.exp_(),
    "tanh_": lambda y, z: y.tanh_(),
    "sigmoid_": lambda y, z: y.sigmoid_(),
    "relu_": lambda y, z: y.relu_(),
    "clamp_": lambda y, z: y.clamp_(-0.5, 0.5),
    "zero_": lambda y, z: y.zero_(),
    "fill_": lambda y, z: y.fill_(2.0),
    "copy_": lambda y, z: y.copy_(z * 2),
}


@pytest.mark.parametrize("op", list(IN_PLACE))
@FEW
@given(data=st.data())
def test_in_place(op, data):
    """An in-place op on a non-leaf, then more ops: derivatives through the rewritten graph."""
    a, b = draw_arrays(data, [(2, 3), (3,)], off_grid)

    def fn(x, z):
        y = x * 1.5
        IN_PLACE[op](y, z)
        return y * x

    check_first_and_second(fn, a, b)


@FEW
@given(data=st.data())
def test_in_place_log_and_sqrt(data):
    a = data.draw(arrays((2, 3), positive))

    def fn(x):
        y = x * 2 + 2
        y.log_()  # saves a copy of its old self, so the next line does not invalidate it
        y.sqrt_()
        return y * x

    check_first_and_second(fn, a)

    # the other way round, sqrt_ saved its result, which log_ then overwrites: an error, as in
    # PyTorch
    x = tg.tensor(a, requires_grad=True)
    y = x * 2
    y.sqrt_()
    y.log_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# -- compositions -----------------------------------------------------------------------------
@FAST
@given(data=st.data())
def test_mlp_like_composition(data):
    x, w1, b1, w2 = draw_arrays(data, [(4, 3), (3, 5), (5,), (5, 2)])

    def fn(inp, a, b, c):
        hidden = (inp @ a + b).tanh()
        logits = hidden @ c
        return -logits.log_softmax(1)[tg.arange(4), tg.tensor([0, 1, 1, 0])].mean()

    check_first_and_second(fn, x, w1, b1, w2, compose=False)


@FAST
@given(data=st.data())
def test_unused_input_has_zero_derivatives(data):
    a, b = draw_arrays(data, [(3,), (2,)])
    check_first_and_second(lambda x, y: x.exp(), a, b)
    everywhere = tg.tensor([True, True, True])
    check_first_and_second(lambda x, y: tg.where(everywhere, x * x, y.sum()), a, b)


# -- where the derivative does not exist: PyTorch's conventions -------------------------------
try:
    import torch
except ImportError:  # the comparison below skips
    torch = None

INF = float("inf")
CONVENTIONS = {
    # name: (fn(lib, x), x, the gradient PyTorch gives for the cotangent 1)
    "max_ties_share": (lambda lib, x: x.max(), [1.0, 3.0, 3.0, 0.0], [0, 0.5, 0.5, 0]),
    "min_ties_share": (lambda lib, x: x.min(), [1.0, 0.0, 3.0, 0.0], [0, 0.5, 0, 0.5]),
    "max_dim_ties_first": (lambda lib, x: x.reshape(2, 2).max(1)[0], [3.0, 3.0, 1.0, 1.0],
                           [1, 0, 1, 0]),
    "amax_ties_share": (lambda lib, x: x.reshape(2, 2).amax(1), [3.0, 3.0, 1.0, 2.0],
                        [0.5, 0.5, 0, 1]),
    "maximum_tie_halves": (lambda lib, x: lib.maximum(x, x.detach() * 0 + 1), [1.0, 0.0, 3.0, 1.0],
                           [0.5, 0, 1, 0.5]),
    "minimum_tie_halves": (lambda lib, x: lib.minimum(x, x.detach() * 0 + 1), [1.0, 0.0, 3.0, 1.0],
                           [0.5, 1, 0, 0.5]),
    "relu_at_0": (lambda lib, x: x.relu(), [0.0, 1.0, -1.0, 0.0], [0, 1, 0, 0]),
    "abs_at_0": (lambda lib, x: x.abs(), [0.0, 1.0, -1.0, 0.0], [0, 1, -1, 0]),
    "clamp_at_bounds": (lambda lib, x: x.clamp(-1, 1), [-1.0, 1.0, 0.0, 2.0], [1, 1, 1, 0]),
    "norm_inf_ties": (lambda lib, x: x.norm(p=INF), [3.0, -3.0, 1.0, 0.0], [0.5, -0.5, 0, 0]),
    "norm_at_0": (lambda lib, x: x.norm(), [0.0, 0.0, 0.0, 0.0], [0, 0, 0, 0]),
    "norm_1_at_0": (lambda lib, x: x.norm(p=1), [0.0, 1.0, 0.0, -2.0], [0, 1, 0, -1]),
    "norm_3_at_0": (lambda lib, x: x.norm(p=3), [0.0, 0.0, 0.0, 0.0], [0, 0, 0, 0]),
    "std_of_equal_values": (lambda lib, x: x.std(), [1.0, 1.0, 1.0, 1.0], [0, 0, 0, 0]),
    "std_dim_of_equal_values": (lambda lib, x: x.reshape(2, 2).std(1), [1.0, 1.0, 2.0, 3.0],
                                [0, 0, -0.70710678, 0.70710678]),
    "sqrt_at_0": (lambda lib, x: x.sqrt(), [0.0, 1.0, 4.0, 9.0], [INF, 0.5, 0.25, 1 / 6]),
    "pow_half_at_0": (lambda lib, x: x ** 0.5, [0.0, 1.0, 4.0, 9.0], [INF, 0.5, 0.25, 1 / 6]),
    "pow_tensor_zero_to_zero": (lambda lib, x: x ** (x.detach() * 0 + lib.tensor([2.0, 0, 1, 3],
                                                                               dtype=x.dtype)),
                                [0.0, 0.0, 2.0, 3.0], [0, 0, 1, 27]),
    "pow_zero_base_exponent": (lambda lib, x: (x.detach() * 0 + lib.tensor([0.0, 0, 2, 3],
                                                                          dtype=x.dtype)) ** x,
                               [2.0, 0.0, 1.0, -1.0], [0, 0, 2 * np.log(2), np.log(3) / 3]),
    "zero_to_the_x": (lambda lib, x: 0.0 ** x, [2.0, 1.0, 0.0, 3.0], [0, 0, 0, 0]),
    "prod_two_zeros": (lambda lib, x: x.prod(), [0.0, 1.0, 0.0, 3.0], [0, 0, 0, 0]),
    "prod_one_zero": (lambda lib, x: x.prod(), [0.0, 1.0, 2.0, 3.0], [6, 0, 0, 0]),
    "log_at_0": (lambda lib, x: x.log(), [0.0, 1.0, 2.0, 4.0], [INF, 1, 0.5, 0.25]),
    "softmax_with_minus_inf": (lambda lib, x: x.softmax(0)[1:].sum() * 0 + x.logsumexp(0),
                               [-INF, 0.0, 0.0, 0.0], [0, 1 / 3, 1 / 3, 1 / 3]),
}


@pytest.mark.parametrize("case", list(CONVENTIONS))
def test_conventions_where_the_derivative_does_not_exist(case):
    fn, values, expected = CONVENTIONS[case]
    x = tg.tensor(values, dtype=tg.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's inf/nan RuntimeWarnings (tensorgrad hides them)
        out = fn(tg, x)
        (grad,) = tg.autograd.grad(out, x, tg.ones_like(out))
    np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-7, atol=1e-12)
    if torch is not None:
        t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        out = fn(torch, t)
        (theirs,) = torch.autograd.grad(out, t, torch.ones_like(out))
        np.testing.assert_allclose(grad.numpy(), theirs.numpy(), rtol=1e-12, atol=0)
