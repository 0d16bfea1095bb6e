"""The core of tensorgrad: what runs when you write `y = a * b` and `y.backward()`.

Read this folder in this order; each file imports only the files before it (and, from below
the core, dtypes, sizes, PyTorch's message texts, the one device `cpu` and the handle a hook
returns), never the operations or the PyTorch API around it:

    version_counter.py  how many times some memory was changed in place
    grad_mode.py        no_grad and friends: the one switch that turns recording off
    tensor.py           a Tensor: NumPy data plus requires_grad, grad_fn, is_leaf, grad
    node.py             a graph node (grad_fn): its one verb `apply`, AccumulateGrad, SavedTensor
    rule.py             how an entry of the derivative table (../derivatives.py) becomes a node
    instruments.py      where the profiler, anomaly mode, forward mode and tg.viz plug in
    record.py           "an operation ran": make its result and attach its node
    engine.py           backward: dependency order, buffers, fitting a gradient to its input

Around it: the table of derivative rules (../derivatives.py), the operations (../ops/), and the
PyTorch surface (argument checks, Tensor's methods in ../tensor_methods.py, ../autograd/).
"""
