"""Finite-difference checks of first and second derivatives, in float64.

    check_first_and_second(fn, x_array, y_array)

`fn` takes tensorgrad tensors (one per array, float64, requires_grad=True) and returns one
tensor. With a random cotangent v (the shape of the output) and φ(x) = <fn(x), v>:

  * first derivative: the gradient `tg.autograd.grad(fn(x), x, v)` is compared, element by
    element, with the central difference (φ(x + εe) − φ(x − εe)) / 2ε;
  * second derivative: with g(x) = that gradient computed with `create_graph=True` and a
    random w (one array per input), ψ(x) = <g(x), w> is differentiated by autograd, giving
    the Hessian-vector product Hw of φ (H is symmetric). It is compared, element by element,
    with the central difference (g(x + εw) − g(x − εw)) / 2ε of first-order gradients.

A gradient that is None (an input that `allow_unused=True` reports as unused), and a
first gradient that does not require grad (so its derivative was never recorded, as PyTorch
does for linear ops), both count as zero; the finite differences then have to be zero too.

By default the check is also run on `sin(fn(x))`: then the gradient flowing into fn's
backward depends on x, which tests that every derivative rule is itself differentiable in
the gradient it receives, not only in the values it saved.
"""

import sys
import zlib
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import tensorgrad as tg  # noqa: E402

EPS = 1e-6


def leaf(array):
    return tg.tensor(np.array(array, dtype=np.float64), dtype=tg.float64, requires_grad=True)


def constant(array):
    return tg.tensor(np.array(array, dtype=np.float64), dtype=tg.float64)


def _rng_for(arrays):
    digest = 0
    for a in arrays:
        digest = zlib.crc32(np.ascontiguousarray(a).tobytes(), digest)
        digest = zlib.crc32(repr(a.shape).encode(), digest)
    return np.random.default_rng(digest)


def _zeros_for_none(grads, arrays):
    return [np.zeros(a.shape) if g is None else g.detach().numpy() for g, a in zip(grads, arrays)]


def _first_grads(fn, arrays, v, create_graph=False):
    xs = [leaf(a) for a in arrays]
    out = fn(*xs)
    assert out.dtype is tg.float64, f"float64 inputs gave a {out.dtype} result"
    grads = tg.autograd.grad(out, xs, grad_outputs=constant(v), create_graph=create_graph,
                             allow_unused=True)
    return xs, out, grads


def _value(fn, arrays, v):
    with tg.no_grad():
        out = fn(*[constant(a) for a in arrays])
    return float(np.sum(out.numpy() * v))


def _central_differences(scalar_fn, arrays, eps):
    """d scalar_fn / d arrays[i][j] for every input i and element j, by central differences."""
    result = []
    for i, a in enumerate(arrays):
        derivative = np.zeros(a.shape)
        for j in np.ndindex(a.shape):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[i][j] += eps
            minus[i][j] -= eps
            derivative[j] = (scalar_fn(plus) - scalar_fn(minus)) / (2 * eps)
        result.append(derivative)
    return result


def _assert_close(actual, expected, rtol, atol, what):
    for i, (a, e) in enumerate(zip(actual, expected)):
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol,
                                   err_msg=f"{what}, input {i}")


def check_first(fn, *arrays, eps=EPS, rtol=1e-5, atol=1e-6):
    """The first derivative only (for points where the second does not exist)."""
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    rng = _rng_for(arrays)
    with tg.no_grad():
        out_shape = fn(*[constant(a) for a in arrays]).shape
    v = rng.standard_normal(tuple(out_shape))
    _, _, grads = _first_grads(fn, arrays, v)
    for g, a in zip(grads, arrays):
        if g is not None:
            assert g.shape == a.shape and g.dtype is tg.float64
            assert g.grad_fn is None and not g.requires_grad
    analytic = _zeros_for_none(grads, arrays)
    numeric = _central_differences(lambda xs: _value(fn, xs, v), arrays, eps)
    _assert_close(analytic, numeric, rtol, atol, "first derivative")
    return analytic


def check_second(fn, *arrays, eps=EPS, rtol=1e-5, atol=1e-6):
    """Hessian-vector products of φ(x) = <fn(x), v>: autograd against central differences."""
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    rng = _rng_for(arrays)
    with tg.no_grad():
        out_shape = fn(*[constant(a) for a in arrays]).shape
    v = rng.standard_normal(tuple(out_shape))
    ws = [rng.standard_normal(a.shape) for a in arrays]

    xs, _, grads = _first_grads(fn, arrays, v, create_graph=True)
    _, _, plain = _first_grads(fn, arrays, v)
    # create_graph must not change the values of the first derivative
    _assert_close(_zeros_for_none(grads, arrays), _zeros_for_none(plain, arrays), 1e-12, 1e-12,
                  "first derivative with create_graph=True")
    terms = [(g * constant(w)).sum() for g, w in zip(grads, ws)
             if g is not None and g.requires_grad]
    if terms:
        psi = terms[0]
        for term in terms[1:]:
            psi = psi + term
        hvp = _zeros_for_none(tg.autograd.grad(psi, xs, allow_unused=True), arrays)
    else:
        hvp = [np.zeros(a.shape) for a in arrays]

    # g is the gradient of the scalar φ = <fn(x), v>, so its Jacobian H is φ's Hessian, which
    # is symmetric: autograd's Hᵀw must equal Hw, the derivative of g along w, which central
    # differences of first-order gradients give for all elements at once.
    def gradient_at(step):
        points = [a + step * w for a, w in zip(arrays, ws)]
        return _zeros_for_none(_first_grads(fn, points, v)[2], points)

    numeric = [(plus - minus) / (2 * eps)
               for plus, minus in zip(gradient_at(eps), gradient_at(-eps))]
    _assert_close(hvp, numeric, rtol, atol, "Hessian-vector product")
    return hvp


def check_first_and_second(fn, *arrays, compose=True, second=True, eps=EPS, rtol=1e-5,
                           atol=1e-6):
    """First and second derivatives of fn, and (compose=True) of sin(fn) as well."""
    check_first(fn, *arrays, eps=eps, rtol=rtol, atol=atol)
    if second:
        check_second(fn, *arrays, eps=eps, rtol=rtol, atol=atol)
    if compose:
        def composed(*xs):
            return tg.sin(fn(*xs))

        check_first(composed, *arrays, eps=eps, rtol=rtol, atol=atol)
        if second:
            check_second(composed, *arrays, eps=eps, rtol=rtol, atol=atol)
