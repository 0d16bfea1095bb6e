"""Graph nodes: what `tensor.grad_fn` points to.

Every operation on a tensor that requires grad creates one `Node`. The node remembers
  * `next_functions`: where the gradient goes next, one `(node, input_nr)` pair per input
    (`(None, 0)` for an input that needs no gradient, such as a constant);
  * its saved values (`saved_tensors`): what the derivative formula needs, for example both
    factors of a product;
  * the shape and dtype of each input, so that the engine can fit a gradient to its input
    (summing away broadcast dimensions) in one place for all operations.

A node has one verb, `apply(grads)`: the gradients of its outputs in, one gradient per input out.
The engine calls it on every node, and nothing else. For a node made from the derivative table
(rule.py) it is the chain rule, written with Tensor operations, so when the engine runs it with
grad mode on (`create_graph=True`) the gradient computation is recorded too, and differentiating
it again gives second derivatives with no extra code.

A leaf tensor that requires grad gets an `AccumulateGrad` node, whose `apply` adds incoming
gradients into `leaf.grad`. The leaf holds that node only weakly, and the node holds the leaf, so
recording operations forms no reference cycle: when the last result goes away, the whole graph is
freed at once. One kind of graph does form a cycle: an in-place change of a tensor that a node
keeps as a saved value, itself or through a view (for example `h.copy_(h * b)`, `h[0] = h[1] * b`,
`h.mul_(h.view(2))`, `h.mul_(h)`): the tensor takes the in-place node as its grad_fn, and that
node's inputs lead back to the node that keeps the tensor. Without saved-tensor hooks backward
refuses such a graph (a saved tensor was modified; with hooks it runs, in PyTorch too), and
Python's garbage collector frees it later.
"""

import itertools
import sys
import types
import weakref

from . import grad_mode
from .version_counter import VersionCounter
from ..autograd import messages
from ..dtypes import from_numpy_dtype

OUTPUT = object()  # in an operation's saved values: "save my own result" (see core/record.py)
SEQUENCE = itertools.count()  # numbers the nodes in the order they are made (see record)

class Node:
    """Base class of every grad_fn. Subclasses define `apply(self, grads)`."""

    __slots__ = ("__dict__", "__weakref__")

    # What `record` (core/record.py) fills in for every node it makes. Node has no __init__: a new
    # node is these defaults until then, so making one, which every recorded operation does,
    # runs no Python code.
    next_functions = ()  # ((node, output_nr), ...): where each input's gradient goes next
    _for_backward = ()  # the saved values (SavedTensor, or a plain value)
    _input_meta = ()  # (shape, numpy dtype) of each input, None for a number
    _sequence_nr = 0  # the order of creation: the engine runs newer nodes first
    num_outputs = 1  # how many outputs the operation has (a custom Function may have more)

    # Rarely used, so their defaults live on the class too, and a node gets its own value only
    # when one is set (as Tensor does).
    _tensor_pre_hooks = None  # {output_nr: {handle_id: hook}}, from tensor.register_hook
    _retained_outputs = None  # {output_nr: weakref to tensor}, from tensor.retain_grad()
    _metadata = None
    # True for nodes recorded while the engine ran a backward pass with create_graph=True:
    # the gradient-of-gradient part of a graph. Only tensorgrad.viz reads it, to draw them apart.
    _built_by_backward = False

    saved_names = ()  # names of saved values, in order: gives `_saved_self`, `_saved_other`, ...
    read_by = None  # for each saved value, the inputs whose gradient needs it (None: all of them)
    forward_name = None  # "Mul" for MulBackward0; None means: derive it from the class name
    _full_name = None  # where PyTorch's name is not the class name: "torch::autograd::CopySlices"

    # -- what learners inspect -------------------------------------------------------------
    def name(self):
        """The node's name, as PyTorch's `grad_fn.name()`: `'MulBackward0'`."""
        return self._full_name or type(self).__name__

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"

    @property
    def saved_tensors(self):
        """The values saved in the forward pass, checked to be unchanged since then."""
        saved = self._for_backward
        if saved is FREED:
            raise RuntimeError(messages.SECOND_BACKWARD)
        return tuple([value.unpack(self) if isinstance(value, SavedTensor) else value for value in saved])

    def __dir__(self):
        return sorted(set(super().__dir__()) | {"_saved_" + n for n in type(self).saved_names})

    def __getattr__(self, attribute):
        # `grad_fn._saved_self` and friends, as in PyTorch; only called for unknown attributes.
        if attribute.startswith("_saved_") and attribute[7:] in type(self).saved_names:
            return self.saved_tensors[type(self).saved_names.index(attribute[7:])]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attribute}'")

    @property
    def needs_input_grad(self):
        """One flag per input: does a gradient need to flow there?"""
        return tuple([node is not None for node, _ in self.next_functions])

    # -- what the engine calls ---------------------------------------------------------------
    def apply(self, grads):
        """The one method the engine calls on every node: from the gradients of this node's
        outputs (a list, one per output), a tuple with one gradient per input (None where an
        input needs none). Rule.apply (rule.py) is the one of every node of the table."""
        raise NotImplementedError(f"{type(self).__name__} does not define apply()")

    def __call__(self, *grads):
        """`y.grad_fn(g)`: run this one derivative rule by hand, as PyTorch allows.

        Returns the gradient for each input (a single tensor when there is one input)."""
        input_grads = self.apply(list(grads))
        if isinstance(input_grads, tuple) and len(input_grads) == 1:
            return input_grads[0]
        return input_grads

    @classmethod
    def op_name(cls):
        """The forward operation's name, used in the version-counter message: Mul, Exp, ..."""
        if cls.forward_name is not None:
            return cls.forward_name
        name = cls.__name__
        cut = name.rfind("Backward")
        return name[:cut] if cut > 0 else name


class AccumulateGrad(Node):
    """The end of every path: adds the gradient that reaches a leaf into `leaf.grad`.

    One per leaf, shared by all its uses: `AccumulateGrad(leaf)` is the leaf's own node, made
    the first time it is needed. The leaf holds it only weakly (see the module's docstring). (A
    non-leaf whose `.grad` is kept is served by the engine, in `run_tensor_pre_hooks`.)
    """

    __slots__ = ("variable",)
    _sequence_nr = sys.maxsize  # PyTorch runs these as soon as they are ready
    _full_name = "tensorgrad::autograd::AccumulateGrad"

    def __new__(cls, variable):
        node = None if variable._accumulator_ref is None else variable._accumulator_ref()
        if node is None:
            node = super().__new__(cls)
            node.variable = variable
            variable._accumulator_ref = weakref.ref(node)
        return node

    def apply(self, grads):
        """Add the gradient that reached the leaf into `leaf.grad`; nothing flows on.

        The first gradient becomes `.grad`, which must share memory with nothing else. A fresh
        array that nobody else holds (what a derivative formula just computed) is taken as it
        is, as PyTorch's AccumulateGrad "steals" it, and so is the fresh array under a view
        that is all of it, in its layout (the transpose of a transpose: nn.Linear's weight
        gradient, see derivatives.py's mat2_gradient; an array that is a view's `.base` owns
        its memory); any other (one a hook returned, one the user gave to backward, a view of
        an array others hold, one another tensor holds) is copied in. Later ones are added in
        place, so `g = x.grad` keeps seeing the total, except while a graph is being built
        (`create_graph=True`, grad mode on): then `.grad` must be a recorded operation, a copy
        or a sum, that can be differentiated again. A leaf that no longer requires grad
        (`requires_grad_(False)` after the forward pass) takes nothing, as in PyTorch: its
        `.grad` stays as it was. If an in-place op has since made it a non-leaf (`x.mul_(b)`,
        allowed once it no longer requires grad), PyTorch refuses, and so does this."""
        leaf, grad = self.variable, grads[0]
        if not leaf._requires_grad:  # (`_requires_grad`: a leaf's own flag, which stays False)
            if leaf._grad_fn is not None:  # an in-place op has moved it into the graph since
                raise RuntimeError(messages.LEAF_MOVED_INTO_GRAPH)
            return ()  # no longer requiring grad: it takes nothing
        if leaf._grad is None:
            if grad_mode._grad_enabled:
                leaf._grad = grad._copy_for_grad()  # (tensor_methods.py: a recorded copy)
            elif (sys.getrefcount(grad) <= UNSHARED_TENSOR and grad._data.base is None
                  and sys.getrefcount(grad._data) <= UNSHARED_DATA
                  and grad._data.flags.c_contiguous):
                leaf._grad = type(grad)._make(grad._data)  # nobody else holds it: taken
            elif (sys.getrefcount(grad) <= UNSHARED_TENSOR and (base := grad._base) is not None
                  and grad._data.base is base._data and grad._data.shape == base._data.shape
                  and grad._data.__array_interface__ == base._data.__array_interface__
                  and sys.getrefcount(grad._data) <= UNSHARED_DATA
                  and sys.getrefcount(base) <= UNSHARED_BASE
                  and sys.getrefcount(base._data) <= UNSHARED_BASE_DATA):
                leaf._grad = type(grad)._make(base._data)  # a view of all of it, as it lies: taken
            else:
                leaf._grad = type(grad)._make(grad._data.copy())
        elif grad_mode._grad_enabled:
            leaf._grad = leaf._grad + grad
        else:
            leaf._grad._data += grad._data
            leaf._grad._shared_version_counter().value += 1
        return ()


def _references_when_unshared():
    """The reference counts AccumulateGrad.apply sees for a gradient that nobody else holds, read
    the same way (the list's first item into a local, then its `_data`; its `_base` into a
    local, then its `_data`): the engine's list and the local hold the Tensor, that Tensor alone
    holds its array; for a view, the view alone holds its base tensor (and the local), the base
    tensor and the view's array hold the base's array. Each count adds its own argument, as this
    Python counts them (3.14 borrows some references where 3.11 counts them). Anything more (the
    user, a hook, a saved value, another tensor or a view sharing the array) makes apply copy."""
    array = object()  # (a list holds it, as a NumPy view holds the array under it)
    grads = [types.SimpleNamespace(_data=[array], _base=types.SimpleNamespace(_data=array))]
    del array
    grad = grads[0]
    base = grad._base
    return (sys.getrefcount(grad), sys.getrefcount(grad._data), sys.getrefcount(base),
            sys.getrefcount(base._data))


UNSHARED_TENSOR, UNSHARED_DATA, UNSHARED_BASE, UNSHARED_BASE_DATA = _references_when_unshared()


class _Freed:
    """Marks the saved values of a node after backward has released them."""

    __slots__ = ()

    def __repr__(self):
        return "<freed>"


FREED = _Freed()  # what `_for_backward` becomes when the engine frees it (retain_graph=False)


class SavedTensor:
    """A tensor kept for backward, with the version it had when it was saved.

    If the tensor is changed in place before backward runs, unpacking it raises PyTorch's
    "modified by an inplace operation" error instead of silently using the new values.

    A node that saves its own output (exp, tanh, sigmoid save their result) must not hold the
    output tensor itself: the output holds the node as its grad_fn, and that would be a reference
    cycle. So for outputs we keep the NumPy data and rebuild a tensor on the way out.
    """

    __slots__ = ("_tensor", "_data", "_tensor_type", "_version_counter", "_saved_version", "_producer",
                 "_output_nr", "_fw_tangent")

    def __init__(self, tensor, is_output=False, producer=None):
        counter = tensor._version_counter  # (tensor._shared_version_counter(), spelled out)
        if counter is None:
            counter = tensor._version_counter = VersionCounter()
        self._version_counter = counter
        self._saved_version = counter.value
        self._output_nr = tensor._output_nr
        if is_output:
            self._tensor = None
            self._data = tensor._data
            self._tensor_type = type(tensor)  # its class, to rebuild it with
            self._producer = producer  # the class of the node that made it
            self._fw_tangent = tensor._fw_tangent  # forward mode over reverse mode needs it too
        else:
            self._tensor = tensor
            self._data = None
            self._producer = None  # the message reads the tensor's grad_fn as it is then

    def unpack(self, owner):
        current = self._version_counter.value
        if current != self._saved_version:
            raise RuntimeError(self._version_message(current))
        if self._tensor is not None:
            return self._tensor
        output = self._tensor_type._make(self._data, grad_fn=owner, output_nr=self._output_nr,
                                         version_counter=self._version_counter)
        if self._fw_tangent is not None:
            output._fw_tangent = self._fw_tangent
        return output

    def _version_message(self, current):
        producer, output_nr = self._producer, self._output_nr
        name = None
        if self._tensor is not None:
            # As PyTorch: name what made the tensor now, which the in-place op may have changed
            tensor = self._tensor
            grad_fn = tensor._grad_fn
            producer = None if grad_fn is None else type(grad_fn)
            output_nr = tensor._output_nr
            if tensor._is_stale_view():
                name = "AsStrided"  # PyTorch has rebuilt this view's graph by now
        if producer is not None and name is None:
            name = _name_in_messages(producer)
        data = self._data if self._tensor is None else self._tensor._data
        dtype_name = from_numpy_dtype(data.dtype)._legacy_name
        origin = "" if name is None else f", which is output {output_nr} of {name},"
        return messages.VERSION_MISMATCH.format(
            # PyTorch's own quirk, measured: a bool tensor is named "CPUBoolType" here
            type_name="CPUBoolType" if data.dtype == bool else f"tensorgrad.{dtype_name}",
            shape=", ".join(str(s) for s in data.shape), origin=origin, current=current,
            expected=self._saved_version)


def _name_in_messages(node_class):
    """The producer's name as PyTorch writes it in the version-counter message: the forward
    op's name, with the node's number kept unless it is 0 (ExpBackward0 -> Exp, but
    PowBackward1 -> Pow1, MaxBackward1 -> Max1); a node PyTorch names in full, by that name."""
    if node_class._full_name is not None:  # (torch::autograd::CopySlices, ...CopyBackwards)
        return node_class._full_name
    number = node_class.__name__.rpartition("Backward")[2]
    if node_class.forward_name is not None or number == "0":
        return node_class.op_name()
    return node_class.op_name() + number
