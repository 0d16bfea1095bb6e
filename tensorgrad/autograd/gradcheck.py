"""gradcheck and gradgradcheck: prove a derivative right by comparing it with finite differences.

For a function f and inputs x, gradcheck builds the Jacobian twice:
  * numerically: perturb one input element at a time by ±eps and take the central difference
        J[i, :] = (f(x + eps·eᵢ) - f(x - eps·eᵢ)) / (2·eps);
  * analytically: run backward once per output element j with the unit vector eⱼ as the
    gradient; that vector-Jacobian product is column j.
If the two disagree beyond `atol + rtol·|numerical|`, the derivative rule is wrong, and the
error prints both matrices. The layout is PyTorch's: one row per input element, one column per
output element.

gradgradcheck applies the same test to the function x, v ↦ vᵀ·∂f/∂x, which is differentiable only
if every backward on the way was written with differentiable operations: it checks second
derivatives.

Finite differences lose about half of the digits, so inputs should be float64: with float32 the
check warns and will usually fail. tensorgrad implements PyTorch's backward-mode checks; the
options about batched, forward-mode and sparse gradients exist for compatibility and must stay off.
"""

import warnings

import numpy as np

from .backward_and_grad import grad as autograd_grad
from .. import dtypes
from ..creation import _zeros
from ..random import _uniform_array
from ..core.tensor import Tensor


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a check fails (a RuntimeError, as in PyTorch)."""


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
"""

FAST_FAIL_SLOW_OK_MSG = """Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument."""


def _tensor_class():
    return Tensor


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def _requiring_grad(values):
    Tensor = _tensor_class()
    return [v for v in values if isinstance(v, Tensor) and v.requires_grad]


# -- the public functions ----------------------------------------------------------------------
def gradcheck(func, inputs, *, eps=1e-06, atol=1e-05, rtol=0.001, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """Check the gradients of `func` at `inputs` against finite differences.

    Returns True, or raises GradcheckError (returns False with raise_exception=False).
    `check_undefined_grad` is accepted for compatibility: tensorgrad never passes "undefined"
    gradients to a backward, so there is nothing to check.
    """
    _refuse_unsupported(check_batched_grad=check_batched_grad,
                        check_batched_forward_grad=check_batched_forward_grad,
                        check_forward_ad=check_forward_ad)
    try:
        return _gradcheck(func, inputs, eps=eps, atol=atol, rtol=rtol, nondet_tol=nondet_tol,
                          check_grad_dtypes=check_grad_dtypes,
                          check_backward_ad=check_backward_ad, fast_mode=fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-06, atol=1e-05, rtol=0.001,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: gradcheck on (inputs, v) ↦ the gradient vᵀ·∂func/∂inputs.

    Without `grad_outputs`, v is drawn uniformly from [-1, 1) with tensorgrad's random generator
    (so `manual_seed` makes it repeatable).
    """
    _refuse_unsupported(check_batched_grad=check_batched_grad,
                        check_fwd_over_rev=check_fwd_over_rev)
    Tensor = _tensor_class()
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _requiring_grad(_as_tuple(func(*tupled_inputs)))
        tupled_grad_outputs = tuple(
            Tensor._make(_uniform_array(out.shape, 0.0, 1.0, out._data.dtype) * 2 - 1)._requires_grad_()
            for out in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_inputs = len(tupled_inputs)
    diff_input_indices = {i for i, x in enumerate(tupled_inputs)
                          if isinstance(x, Tensor) and x.requires_grad}
    diff_grad_output_indices = {i for i, v in enumerate(tupled_grad_outputs) if v.requires_grad}

    def first_derivative(*args):
        # gradcheck detaches nothing, but keep the requires_grad flags as they were given.
        input_args = tuple(x._requires_grad_() if i in diff_input_indices else x
                           for i, x in enumerate(args[:num_inputs]))
        grad_outs = tuple(v._requires_grad_() if i in diff_grad_output_indices else v
                          for i, v in enumerate(args[num_inputs:]))
        outputs = _requiring_grad(_as_tuple(func(*input_args)))
        diff_inputs = [x for i, x in enumerate(input_args) if i in diff_input_indices]
        grads = autograd_grad(outputs, diff_inputs, list(grad_outs), create_graph=True,
                              allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode)


def _refuse_unsupported(**flags):
    for name, value in flags.items():
        if value:
            raise NotImplementedError(
                f"tensorgrad's gradcheck does not implement {name}=True: tensorgrad has no "
                "batched (vmap) gradients and no forward-mode AD.")


# -- the checks, in the order they run ----------------------------------------------------------
def _gradcheck(func, inputs, *, eps, atol, rtol, nondet_tol, check_grad_dtypes,
               check_backward_ad, fast_mode):
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_out = _as_tuple(func(*tupled_inputs))
    outputs = _requiring_grad(func_out)
    if not check_backward_ad:
        return True
    if fast_mode:
        _fast_check(func, tupled_inputs, func_out, outputs, eps, rtol, atol, nondet_tol,
                    check_grad_dtypes)
    else:
        _slow_check(func, tupled_inputs, func_out, outputs, eps, rtol, atol, nondet_tol,
                    check_grad_dtypes)
    _check_backward_uses_grad_output(outputs, tupled_inputs)
    return True


def _check_inputs(tupled_inputs):
    """Warn about inputs that are not float64; refuse when nothing requires grad."""
    Tensor = _tensor_class()
    any_input_requiring_grad = False
    for index, value in enumerate(tupled_inputs):
        if isinstance(value, Tensor) and value.requires_grad:
            if value.dtype is not dtypes.float64:
                warnings.warn(
                    f"Input #{index} requires gradient and is not a double precision floating "
                    "point or complex. This check will likely fail if all the inputs are not of "
                    "double precision floating point or complex. ",
                    stacklevel=4,
                )
            any_input_requiring_grad = True
    if not any_input_requiring_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )


def _slow_check(func, inputs, func_out, outputs, eps, rtol, atol, nondet_tol, check_grad_dtypes):
    """Compare the full numerical and analytical Jacobians, one (output, input) pair at a time."""
    numerical = numerical_jacobian(func, inputs, eps)  # [output][input], all tensor outputs
    if not outputs:
        for per_output in numerical:
            for jacobian in per_output:
                if np.any(jacobian != 0):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    numerical = [per_output for out, per_output in zip(_tensor_outputs(func_out), numerical)
                 if out.requires_grad]
    for i, output in enumerate(outputs):
        analytical = _analytical_jacobian_checked(inputs, output, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch_message(a, n, i, j))


def _mismatch_message(analytical, numerical, output_index, input_index):
    Tensor = _tensor_class()
    return (
        f"Jacobian mismatch for output {output_index:d} with respect to input {input_index:d},\n"
        f"numerical:{Tensor._make(numerical)}\nanalytical:{Tensor._make(analytical)}\n"
    )


def _allclose(a, b, rtol, atol):
    dtype = np.promote_types(a.dtype, b.dtype)
    return bool(np.allclose(a.astype(dtype), b.astype(dtype), rtol=rtol, atol=atol))


def _tensor_outputs(func_out):
    Tensor = _tensor_class()
    return [out for out in func_out if isinstance(out, Tensor)]


# -- the numerical Jacobian: central differences ------------------------------------------------
def numerical_jacobian(func, inputs, eps):
    """For each tensor output, for each input requiring grad: a (input.numel(), output.numel())
    array. Each input element is moved in place by -eps and +eps, then put back exactly."""
    diff_inputs = _requiring_grad(inputs)
    reference = [out._data for out in _tensor_outputs(_as_tuple(func(*inputs)))]
    jacobians = [[np.zeros((x._data.size, ref.size), dtype=ref.dtype) for x in diff_inputs]
                 for ref in reference]
    for input_index, x in enumerate(diff_inputs):
        for row, position in enumerate(np.ndindex(x._data.shape)):
            original = x._data[position].copy()
            x._data[position] = original - eps
            minus = _evaluate(func, inputs)
            x._data[position] = original + eps
            plus = _evaluate(func, inputs)
            x._data[position] = original
            for output_index, (a, b) in enumerate(zip(minus, plus)):
                jacobians[output_index][input_index][row] = (b - a).reshape(-1) / (2 * eps)
    return jacobians


def _evaluate(func, inputs):
    """The values of func's tensor outputs, copied (an output may share memory with an input)."""
    return [out._data.copy() for out in _tensor_outputs(_as_tuple(func(*inputs)))]


# -- the analytical Jacobian: one vector-Jacobian product per output element ----------------------
def analytical_jacobian(inputs, output):
    """For each input requiring grad, a (input.numel(), output.numel()) array built from backward:
    column j is the gradient that the unit vector eⱼ at the output sends to the input."""
    Tensor = _tensor_class()
    diff_inputs = _requiring_grad(inputs)
    jacobians = [np.zeros((x._data.size, output._data.size), dtype=x._data.dtype)
                 for x in diff_inputs]
    dtypes_ok = True
    for column in range(output._data.size):
        unit = np.zeros(output._data.size, dtype=output._data.dtype)
        unit[column] = 1
        grads = autograd_grad(output, diff_inputs, Tensor._make(unit.reshape(output._data.shape)),
                              retain_graph=True, allow_unused=True)
        for jacobian, x, g in zip(jacobians, diff_inputs, grads):
            if g is not None:
                dtypes_ok = dtypes_ok and g.dtype is x.dtype
                jacobian[:, column] = g._data.reshape(-1)
    return jacobians, dtypes_ok


def _analytical_jacobian_checked(inputs, output, nondet_tol, check_grad_dtypes):
    """Run backward twice: a backward that gives different answers each time is reported."""
    first, dtypes_ok = analytical_jacobian(inputs, output)
    second, _ = analytical_jacobian(inputs, output)
    if not dtypes_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    for a, b in zip(first, second):
        if not np.allclose(a, b, rtol=0, atol=nondet_tol):
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical gradient "
                f"matches numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
                + FAILED_NONDET_MSG
            )
    return first


def _check_backward_uses_grad_output(outputs, inputs):
    """With zero incoming gradients, every input gradient must be zero.

    A backward that forgets to multiply by grad_output fails here, even when the derivative
    itself is right (the Jacobian check uses unit vectors, which can hide this mistake).
    """
    diff_inputs = _requiring_grad(inputs)
    if not outputs:
        return
    grads = autograd_grad(outputs, diff_inputs, [_zeros(out.shape, out.dtype, False) for out in outputs],
                          allow_unused=True)
    for g, x in zip(grads, diff_inputs):
        if g is None:
            continue
        if np.any(g._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype is not x.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != x.shape:
            raise GradcheckError("grad is incorrect size")


# -- fast mode: compare vᵀ·J·u for random u and v instead of every element ------------------------
def _fast_check(func, inputs, func_out, outputs, eps, rtol, atol, nondet_tol, check_grad_dtypes):
    """One number per (output, input) pair: vᵀJu, numerically (a directional finite difference
    along u) and analytically (backward with v, then a dot product with u)."""
    generator = np.random.default_rng(0)  # its own generator: the user's random stream is untouched
    diff_inputs = _requiring_grad(inputs)
    all_u = [_unit_random(x, generator) for x in diff_inputs]
    all_v = [_unit_random(out, generator) for out in outputs]

    if not outputs:
        for x, u in zip(diff_inputs, all_u):
            for jvp in _numerical_jvp(func, inputs, x, u, eps):
                if jvp.size and np.abs(jvp).max() > nondet_tol:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return

    tensor_outputs = _tensor_outputs(func_out)
    differentiable = [out.requires_grad for out in tensor_outputs]
    for i, (x, u) in enumerate(zip(diff_inputs, all_u)):
        jvps = [jvp for jvp, keep in zip(_numerical_jvp(func, inputs, x, u, eps), differentiable)
                if keep]
        for j, (output, v) in enumerate(zip(outputs, all_v)):
            numerical = np.dot(v, jvps[j].reshape(-1))
            analytical = _analytical_vju(inputs, output, v, all_u, i, nondet_tol)
            scaled_atol = atol * u.sum() * v.sum()
            if not _allclose(np.asarray(analytical), np.asarray(numerical), rtol, scaled_atol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {j:d} with respect to input {i:d},\n"
                    f"numerical:{float(numerical)}\nanalytical:{float(analytical)}\n"
                    + _slow_mode_details(func, inputs, output, i, j, rtol, atol, eps))


def _unit_random(tensor, generator):
    vector = generator.random(tensor._data.size).astype(tensor._data.dtype)
    return vector / np.linalg.norm(vector)


def _numerical_jvp(func, inputs, x, u, eps):
    """(f(x + eps·u) - f(x - eps·u)) / (2·eps) for each tensor output: J·u by finite differences."""
    original = x._data.copy()
    step = (eps * u).reshape(x._data.shape).astype(x._data.dtype)
    x._data[...] = original - step
    minus = _evaluate(func, inputs)
    x._data[...] = original + step
    plus = _evaluate(func, inputs)
    x._data[...] = original
    return [(b - a) / (2 * eps) for a, b in zip(minus, plus)]


def _analytical_vju(inputs, output, v, all_u, input_index, nondet_tol):
    Tensor = _tensor_class()
    diff_inputs = _requiring_grad(inputs)
    results = []
    for _ in range(2):  # twice, to catch a backward that is not repeatable
        grads = autograd_grad(output, diff_inputs, Tensor._make(v.reshape(output._data.shape)),
                              retain_graph=True, allow_unused=True)
        g = grads[input_index]
        results.append(0.0 if g is None else float(np.dot(g._data.reshape(-1), all_u[input_index])))
    if abs(results[0] - results[1]) > nondet_tol:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            + FAILED_NONDET_MSG)
    return np.asarray(results[0], dtype=output._data.dtype)


def _slow_mode_details(func, inputs, output, input_index, output_index, rtol, atol, eps):
    """After a fast-mode failure, the full Jacobians of the failing pair, to show what is wrong."""
    Tensor = _tensor_class()
    numerical = numerical_jacobian(func, inputs, eps)
    all_outputs = _tensor_outputs(_as_tuple(func(*inputs)))
    keep = [k for k, out in enumerate(all_outputs) if out.requires_grad]
    slow_numerical = numerical[keep[output_index]][input_index]
    slow_analytical = analytical_jacobian(inputs, output)[0][input_index]
    max_diff = np.abs(slow_numerical - slow_analytical).max()
    message = (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
        "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
        f"Numerical:\n {Tensor._make(slow_numerical)}\n"
        f"Analytical:\n{Tensor._make(slow_analytical)}\n\n"
        f"The max per-element difference (slow mode) is: {float(max_diff)}.\n"
    )
    if _allclose(slow_analytical, slow_numerical, rtol, atol):
        message += FAST_FAIL_SLOW_OK_MSG
    return message


__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]
