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
# each time (RuntimeWarning: invalid value encountered in multiply, ...). Those warnings are
# silenced here only when they come from tensorgrad's own code, so a learner's NumPy code still
# warns as usual. A filter costs nothing until a warning fires, unlike np.errstate per operation
# (about 2 us each time, more than the arithmetic on a small tensor).
NUMPY_WARNINGS = r"(divide by zero|invalid value|overflow|underflow) encountered"
TENSORGRAD_MODULES = r"tensorgrad(\.|$)"

warnings.filterwarnings("ignore", message=NUMPY_WARNINGS, category=RuntimeWarning,
                        module=TENSORGRAD_MODULES)
