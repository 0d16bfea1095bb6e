"""`tensorgrad.autograd.backward` and `tensorgrad.autograd.grad`: checking the arguments,
then handing the graph to the engine.

`backward` adds gradients into `.grad` of leaves; `grad` returns them and leaves `.grad` alone.
Both take the gradient of the outputs (`grad_tensors` / `grad_outputs`), which may be left out
only for outputs with a single element: then it is 1.
"""

import operator
import warnings

import numpy as np

from . import messages
from .. import numpy_errors
from ..arguments import type_name
from ..core import engine
from ..creation import zeros_like
from ..core.tensor import Tensor


def _as_tensor_list(values):
    if isinstance(values, Tensor):
        return [values]
    return list(values)


def check_arguments(name, outputs, inputs=None, flags=()):
    """The entry checks of backward() and grad(), before the graph is touched: tensors where
    tensors are wanted, flags that are flags. Returns the outputs and inputs as lists."""
    if type(outputs) is Tensor and inputs is None:  # the common case, y.backward()
        plain = True
        for flag, value in flags:  # (a loop: a generator would be one more step to step into)
            plain = plain and (type(value) is bool or value is None and flag == "retain_graph")
        if plain:
            return [outputs], None  # nothing to check
    try:  # PyTorch takes any iterable of tensors, a str too (and then fails on its letters)
        outputs = _as_tensor_list(outputs)
    except TypeError:
        raise TypeError(messages.OUTPUTS_TYPE.format(
            name=name, what="outputs", type_name=type(outputs).__name__)) from None
    for output in outputs:
        if not isinstance(output, Tensor):
            raise AssertionError(messages.OUTPUT_NOT_TENSOR)
    if inputs is not None:
        try:
            inputs = _as_tensor_list(inputs)
        except TypeError:
            raise TypeError(messages.OUTPUTS_TYPE.format(
                name=name, what="inputs", type_name=type(inputs).__name__)) from None
        if not inputs:
            raise RuntimeError(messages.EMPTY_INPUTS.format(name=name))
        for value in inputs:
            if not isinstance(value, Tensor):
                raise RuntimeError(messages.INPUT_NOT_TENSOR.format(type_name=type(value).__name__))
    for flag, value in flags:
        if value is not None or flag != "retain_graph":  # (retain_graph=None: as create_graph)
            check_flag(value)
    return outputs, inputs


_C_LONG = 2 ** 63


def check_flag(value):
    """A flag of backward() or grad() as PyTorch's engine takes it: anything Python can read as an
    integer (`__index__`: a bool, an int, a NumPy or one-element integer tensor, not a NumPy bool,
    a float or None), from 0 to 255 (a C unsigned byte), in the words of Python's own check."""
    try:
        number = operator.index(value)
    except TypeError as error:  # "'float' object cannot be interpreted as an integer"
        if hasattr(type(value), "__index__"):  # a tensor's or an array's own refusal, in its words
            raise TypeError(str(error)) from None
        raise TypeError(messages.NOT_A_NUMBER["an integer"].format(
            type_name=type_name(value))) from None
    if not -_C_LONG <= number < _C_LONG:
        raise OverflowError(messages.FLAG_TOO_LARGE)
    if not 0 <= number <= 255:
        raise OverflowError(messages.FLAG_OUTSIDE_BYTE[number < 0])


def make_root_grads(outputs, grads):
    """Check the gradients given for the outputs (None, a tensor, or a sequence with one per
    output); create the implicit 1 for scalar outputs."""
    if grads is None:
        grads = [None] * len(outputs)
    elif isinstance(grads, Tensor):
        grads = [grads]
    elif not hasattr(grads, "__iter__"):  # PyTorch's `tuple(grad_tensors)`, and its TypeError
        raise TypeError(f"'{type(grads).__name__}' object is not iterable")
    else:  # any iterable gives one per output
        grads = list(grads)
    result = []
    for index, (output, grad) in enumerate(zip(outputs, grads)):  # extra gradients are ignored
        if grad is None:
            if output.requires_grad:
                if output._data.size != 1:
                    raise RuntimeError(messages.NON_SCALAR_BACKWARD)
                grad = Tensor._make(_ones_like_data(output))
        elif isinstance(grad, Tensor):
            if grad._data.shape != output._data.shape:
                raise RuntimeError(messages.SHAPE_MISMATCH.format(
                    index=index, grad_shape=repr(grad.shape), output_shape=repr(output.shape)))
            if grad._data.dtype != output._data.dtype:
                grad = grad._cast(output._data.dtype)
        else:
            raise TypeError(messages.GRADIENT_TYPE.format(type_name=type(grad).__name__))
        result.append(grad)
    if len(grads) < len(outputs):  # checked after the given pairs, as PyTorch does
        raise RuntimeError(messages.COUNT_MISMATCH.format(outputs=len(outputs), grads=len(grads)))
    return result


def _ones_like_data(tensor):
    return np.ones(tensor._data.shape, dtype=tensor._data.dtype)


def _refuse_missing_edges(edges):
    """The error for an output that requires no grad: it has no edge into the graph."""
    raise RuntimeError(messages.NO_GRAD_FN.format(index=edges.index(None)))


_warned_create_graph = False


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Add d(tensors)/d(leaf) · grad_tensors into `.grad` of every leaf (or of `inputs` only)."""
    global _warned_create_graph
    if grad_variables is not None:
        grad_tensors = grad_variables
    outputs, inputs = check_arguments("backward", tensors, inputs, (
        ("retain_graph", retain_graph), ("create_graph", create_graph)))
    create_graph = bool(create_graph)
    grads = make_root_grads(outputs, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph and not _warned_create_graph:
        _warned_create_graph = True
        warnings.warn(messages.CREATE_GRAPH_CYCLE, UserWarning, stacklevel=3)
    edges = [engine.gradient_edge(output) for output in outputs]  # where backward starts
    if None in edges:
        _refuse_missing_edges(edges)
    if inputs is not None:
        _refuse_inputs_without_edges(inputs)
    token = numpy_errors.state.set(numpy_errors.QUIET)  # the derivative of exp at 1000 is inf,
    try:  # silently, as in PyTorch (../numpy_errors.py)
        engine.execute(edges, grads[:len(edges)], keep_graph=retain_graph,
                       create_graph=create_graph, capture=inputs)  # (what accumulates: there)
    finally:
        numpy_errors.state.reset(token)


def _refuse_inputs_without_edges(inputs):
    """An input that requires no grad has no edge for its gradient to arrive at."""
    if any(engine.gradient_edge(tensor) is None for tensor in inputs):
        raise RuntimeError(messages.INPUT_NOT_REQUIRING_GRAD)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) · grad_outputs as a tuple, one entry per input.

    Unlike backward(), nothing is written into `.grad`. With a dict of inputs, a dict comes back.
    """
    if materialize_grads and allow_unused is False:
        raise ValueError(messages.MATERIALIZE_WITHOUT_ALLOW_UNUSED)
    if allow_unused is None:
        allow_unused = materialize_grads
    if not only_inputs:
        warnings.warn(messages.ONLY_INPUTS_DEPRECATED, FutureWarning, stacklevel=2)
    if is_grads_batched:
        raise NotImplementedError(
            "tensorgrad does not implement is_grads_batched=True; call grad() once per row of "
            "grad_outputs instead (see the vector-Jacobian lesson)."
        )
    names = None
    if isinstance(inputs, dict):
        names = list(inputs)
        inputs = list(inputs.values())
    output_list, input_list = check_arguments("grad", outputs, inputs, (
        ("retain_graph", retain_graph), ("create_graph", create_graph),
        ("allow_unused", allow_unused)))
    create_graph = bool(create_graph)
    grads = make_root_grads(output_list, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    edges = [engine.gradient_edge(output) for output in output_list]
    if None in edges:
        _refuse_missing_edges(edges)
    _refuse_inputs_without_edges(input_list)
    token = numpy_errors.state.set(numpy_errors.QUIET)  # (as in backward)
    try:
        captured = engine.execute(edges, grads[:len(edges)], keep_graph=retain_graph,
                                  create_graph=create_graph, capture=input_list, accumulate=False)
    finally:
        numpy_errors.state.reset(token)
    results = []
    for index, (tensor, value) in enumerate(zip(input_list, captured)):
        if value is None:
            if not allow_unused:
                raise RuntimeError(messages.UNUSED_INPUT.format(index=index))
            if materialize_grads:
                value = zeros_like(tensor)
        elif not create_graph and value.requires_grad:
            value = value._detach()
        results.append(value)
    if names is not None:
        return dict(zip(names, results))
    return tuple(results)
