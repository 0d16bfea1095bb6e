"""Differentiable operations, grouped by kind.

Each module pairs every forward function with its node class, whose `backward` method is the
derivative rule, written with tensor operations (so it can itself be differentiated):

    elementwise.py   + - * / ** and exp, log, tanh, relu, ...: one value in, one value out
    reduction.py     sum, mean, max, prod, var, norm, softmax: many values in, fewer out
    shape.py         reshape, transpose, expand, cat, stack, ...: the same values, rearranged
    indexing.py      t[...] and t[...] = v
    linalg.py        matmul and its cases (dot, mv, mm, batched)
    inplace.py       add_, mul_, zero_, ...: how an in-place change rewires the graph
"""
