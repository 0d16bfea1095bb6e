"""Differentiable operations, grouped by kind.

Each forward function computes its result with NumPy and records a node whose class comes from
the derivative table (../derivatives.py), where every rule is written with tensor operations (so it
can itself be differentiated):

    elementwise.py   + - * / ** and exp, log, tanh, relu, ...: one value in, one value out
    reduction.py     sum, mean, max, prod, var, norm, softmax: many values in, fewer out
    shape.py         reshape, transpose, expand, cat, stack, ...: the same values, rearranged
    indexing.py      t[...] and t[...] = v
    linalg.py        matmul and its cases (dot, mv, mm, batched)
    inplace.py       add_, mul_, zero_, ...: how an in-place change rewires the graph
    fused.py         derivative rules computed as one operation (tanh_backward, ...), as PyTorch
                     (record, how an operation adds its node to the graph, is ../core/record.py)
"""

import warnings

# PyTorch computes 0 * inf = nan, 1 / 0 = inf and exp(1000) = inf silently. NumPy would warn
# each time (RuntimeWarning: invalid value encountered in multiply, ...). The public entries (a
# checked operation, an operator, backward) turn NumPy's warnings off for their call
# (../numpy_errors.py), which holds under a learner's `warnings.simplefilter("always")` too. This
# filter, which such a call puts behind its own, catches the same warnings from tensorgrad's code
# on the paths that enter no operation (an optimizer's step) under Python's default filters.
NUMPY_WARNINGS = r"(divide by zero|invalid value|overflow|underflow) encountered"
TENSORGRAD_MODULES = r"tensorgrad(\.|$)"

warnings.filterwarnings("ignore", message=NUMPY_WARNINGS, category=RuntimeWarning,
                        module=TENSORGRAD_MODULES)
