"""How an operation records itself in the graph.

Every differentiable operation in tensorgrad has two halves:
  * a forward function that computes the result with NumPy and calls `record(...)`;
  * its node class, made from the operation's entry in the derivative table (derivatives.py),
    whose `backward(grad)` is the derivative rule.

`record` is the bridge. It wraps the NumPy result in a Tensor and, only when grad mode is on
and some input requires grad, creates the node: it links the node to the inputs' nodes
(`next_functions`), stores what backward will need (`saved`), and remembers each input's shape
and dtype so the engine can fit gradients to them.
"""


from ..autograd import forward_ad, grad_mode, profiler
from ..autograd import graph
from ..autograd.node import SavedTensor
from ..tensor import Tensor

OUTPUT = object()  # put this in `saved` to save the operation's own result


def record(node_class, data, inputs, saved=(), **attributes):
    """Wrap `data` in a Tensor; if gradients are needed, attach a `node_class` grad_fn.

    inputs: the operation's inputs in argument order. Tensors become edges of the graph;
        anything else (a Python number) becomes the empty edge `(None, 0)`.
    saved: values the derivative needs: tensors, `OUTPUT`, or plain Python values.
    attributes: non-tensor settings backward needs (a dim, an exponent), stored on the node.
    """
    result = Tensor._make(data)
    if profiler._active is not None:  # autograd.profiler.profile(): note the operation
        profiler.operation_recorded(node_class)
    if forward_ad._level is not None:  # forward mode: give the result its tangent
        values = [result if value is OUTPUT else value for value in saved]
        forward_ad._propagate(node_class, result, inputs, values, attributes)
    if not grad_mode._grad_enabled:
        return result
    edges, meta, any_requires_grad = [], [], False
    for value in inputs:
        if isinstance(value, Tensor):
            if value._view_of_grad_fn is not None:
                value._check_view_is_current()
            if value._grad_fn is not None:
                edges.append((value._grad_fn, value._output_nr))
                any_requires_grad = True
            elif value._requires_grad:
                edges.append((value._grad_accumulator(), 0))
                any_requires_grad = True
            else:
                edges.append(NO_EDGE)
            meta.append((value._data.shape, value._data.dtype))
        else:
            edges.append(NO_EDGE)
            meta.append(None)
    if not any_requires_grad:
        return result
    node = node_class()
    node.next_functions = tuple(edges)
    node._input_meta = tuple(meta)
    result._grad_fn = node  # before saving: a hook on saved tensors sees the result as it is
    if saved:
        node._for_backward = tuple([_save(value, result, node_class) for value in saved])
    for name, value in attributes.items():
        setattr(node, name, value)
    return result


NO_EDGE = (None, 0)  # the edge of an input that needs no gradient (a constant)


def _save(value, result, node_class):
    saved_tensor = graph.HookedSavedTensor if graph._hooks else SavedTensor  # (hooks: graph.py)
    if isinstance(value, Tensor):
        return saved_tensor(value)
    if value is OUTPUT:
        return saved_tensor(result, is_output=True, producer=node_class)
    return value

