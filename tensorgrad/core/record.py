"""How an operation records itself in the graph.

Every differentiable operation in tensorgrad has two halves:
  * a forward function that computes the result with NumPy and calls `record(...)`;
  * its node class, made from the operation's entry in the derivative table (derivatives.py),
    whose one verb, `apply(grads)`, runs the derivative rule.

`record` is the bridge. It wraps the NumPy result in a Tensor and, only when grad mode is on
and some input requires grad, creates the node: it links the node to the inputs' nodes
(`next_functions`), stores what backward will need (`saved`), and remembers each input's shape
and dtype so the engine can fit gradients to them.
"""


import numpy as np

from . import grad_mode, instruments
from .node import OUTPUT, SEQUENCE, AccumulateGrad, SavedTensor
from .tensor import Tensor

NO_EDGE = (None, 0)  # the edge of an input that needs no gradient (a constant)
NOTHING_SAVED = {}  # record's default `saved`: an operation whose rule saves nothing (never written to)


def record(node_class, data, inputs, saved=NOTHING_SAVED, *, any_dtype=False, **attributes):
    """Wrap `data` in a Tensor; if gradients are needed, attach a `node_class` grad_fn.

    inputs: the operation's inputs in argument order. Tensors become edges of the graph;
        anything else (a Python number) becomes the empty edge `(None, 0)`.
    saved: the values the derivative needs, by the names of the rule's `saves`
        ({"other": other, "self": input}): tensors, `OUTPUT`, or plain Python values. A value
        that no formula which will run reads is not kept (`a * b` with only `a` requiring grad
        keeps b, not a), as in PyTorch.
    any_dtype: record even an integer or bool result (PyTorch's fill_ with a tensor value
        does; every other operation records nothing for a result that has no gradient).
    attributes: non-tensor settings backward needs (a dim, an exponent), stored on the node.
    """
    result = object.__new__(Tensor)  # Tensor._make(data), spelled out: every operation comes here
    result._data = data if type(data) is np.ndarray else np.asarray(data)
    result._grad_fn = result._version_counter = None
    if instruments.on_operation:  # forward-mode AD, the profiler
        instruments.operation_ran(node_class, result, inputs, saved, attributes)
    if not grad_mode._grad_enabled:
        return result
    edges, shapes_and_dtypes, needs_grad = [], [], False
    for value in inputs:
        if not isinstance(value, Tensor):
            edges.append(NO_EDGE)
            shapes_and_dtypes.append(None)
            continue
        shapes_and_dtypes.append((value._data.shape, value._data.dtype))  # what its gradient must be
        if value._view_of_grad_fn is not None:  # a view: is its graph still its base's?
            value._check_view_is_current()
        if value._grad_fn is not None:  # made by an operation: its gradient goes to that node
            edges.append((value._grad_fn, value._output_nr))
            needs_grad = True
        elif value._requires_grad:  # a leaf: its gradient goes into its .grad
            edges.append((AccumulateGrad(value), 0))
            needs_grad = True
        else:
            edges.append(NO_EDGE)
    # nothing needs a gradient, or the result cannot have one (an int or bool result): no node
    if not needs_grad or not (any_dtype or result._data.dtype.kind in "fc"):
        return result
    node = node_class()
    node.next_functions = tuple(edges)
    node._input_meta = tuple(shapes_and_dtypes)
    node._sequence_nr = next(SEQUENCE)
    result._grad_fn = node  # before saving: a hook on saved tensors sees the result as it is
    names = node_class.saved_names
    if names:
        # Each value the rule saves, taken by its name. A value that no formula about to run
        # reads is not kept: `a * b` with only `a` requiring grad keeps b, not a (PyTorch does
        # the same). `read_by` names, for each saved value, the inputs whose formulas read it
        # (None: keep it, for every formula reads it, or none does).
        read_by = node_class.read_by or (None,) * len(names)
        kept = []
        try:
            for name, readers in zip(names, read_by):
                value = saved[name]
                needed = readers is None
                for i in readers or ():  # (a loop: a generator would be one more step to step into)
                    needed = needed or edges[i] is not NO_EDGE
                if not needed:
                    kept.append(None)
                elif type(value) is Tensor and not instruments.savers:
                    kept.append(SavedTensor(value))
                else:
                    kept.append(save(value, result, node_class, name))
        except KeyError:
            if all(name in saved for name in names):
                raise  # not a name: a saved-tensor hook's own KeyError
            raise TypeError(_names_differ(node_class, saved)) from None
        node._for_backward = tuple(kept)
    for name, value in attributes.items():
        setattr(node, name, value)
    if instruments.on_node:  # anomaly mode, the gradient-graph marker
        instruments.node_made(node)
    return result


def save(value, result=None, node_class=None, name=None):
    """How one value is kept for backward: a SavedTensor, or what the saver plugged into the
    instruments makes of it: the saved-tensor hooks (autograd/graph.py), or an in-place
    operation's saver (ops/inplace.py), which keeps its rule's `self` as it was before the
    write and for the rule's result returns the placeholder AFTER_THE_WRITE, replaced by the
    result saved once it is written. `name` is the rule's name for the value (None for a
    custom Function's ctx.save_for_backward)."""
    if isinstance(value, Tensor):
        is_output = False
    elif value is OUTPUT:
        value, is_output = result, True
    else:
        return value  # a plain Python value
    producer = node_class if is_output else None
    if instruments.savers:
        return instruments.savers[-1](value, is_output, producer, name)
    return SavedTensor(value, is_output, producer)


def _names_differ(node_class, saved):
    """A developer's error: the call of `record` and the rule's `saves` name different values.
    (`record` finds a name missing when it looks it up; tests/test_record_saved_by_name.py
    checks every call of `record` in the library against its rule's `saves`, once.)"""
    names = node_class.saved_names
    missing = [name for name in names if name not in saved]
    unknown = [name for name in saved if name not in names]
    return (f"record({node_class.__name__}, ...): the rule saves {names}, but saved= "
            + " and ".join(part for part in (
                f"lacks {missing}" if missing else "",
                f"names {unknown}, which the rule does not save" if unknown else "") if part))
