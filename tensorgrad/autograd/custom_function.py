"""User-defined operations: teach autograd a new operation and its derivative.

    class Exp(tensorgrad.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    y = Exp.apply(x)        # y.grad_fn is an ExpBackward node

How it fits the rest of tensorgrad: a built-in operation is a forward function plus a `Node`
subclass (see core/record.py). A Function is the same pair written by the user. For each Function
subclass we make one node class, `<Name>Backward`, and `apply` creates one instance of it per
call. That instance is the `ctx` that forward and backward receive: the context *is* the graph
node, exactly as in PyTorch. So what forward stores on ctx is what backward finds there, and the
engine runs backward by calling the node's `apply`, like for any other node.

What `apply` does, in order:
  1. creates the node (`ctx`) and links it to the inputs' nodes (`next_functions`);
  2. runs forward with grad mode off, so forward's own operations are not recorded;
  3. makes each returned tensor an output of the node (`grad_fn`, `output_nr`), following the
     ctx flags: `mark_dirty` (changed in place), `mark_non_differentiable`;
  4. stores what `save_for_backward` named, with version checks (node.py: SavedTensor).
In backward, the node checks what the user's backward returned (count, types, shapes) with
PyTorch's messages, because a wrong gradient count or shape is the usual first mistake.
"""

import functools
import inspect
import warnings

import numpy as np

from . import forward_ad, messages
from ..core import instruments
from ..core.engine import gradient_edge
from ..core.grad_mode import is_grad_enabled, no_grad
from ..core.node import FREED, OUTPUT, SEQUENCE, Node
from ..creation import zeros_like
from ..core.record import record, save
from ..ops.shape import as_view
from ..core.tensor import Tensor


# -- the context: what forward, setup_context and backward see as `ctx` -----------------------

# The name this module goes by, as PyTorch's does: tensorgrad.autograd.function (the file is
# custom_function.py, so that it is not confused with functional.py and backward_and_grad.py).
MODULE_NAME = "tensorgrad.autograd.function"


class FunctionCtx:
    """The methods a Function's forward uses to tell autograd what backward will need."""

    __slots__ = ()  # a mixin: the node class below holds the attributes

    def save_for_backward(self, *tensors):
        """Keep these tensors (or None) for backward; read them back with `ctx.saved_tensors`.

        Saving through this method, rather than `ctx.x = x`, lets autograd check that they were
        not changed in place before backward runs, and free them after backward.
        """
        for index, value in enumerate(tensors):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"save_for_backward can only save variables, but argument {index} is of "
                    f"type {type(value).__name__}"
                )
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Keep these tensors for `jvp` (forward mode), which reads them as `ctx.saved_tensors`."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors):
        """Say that forward changed these input tensors in place (and returns them)."""
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        """Say that these outputs have no gradient (indices, masks): they will not require grad."""
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        """With False, backward gets None (not zeros) for outputs that received no gradient."""
        self.materialize_grads = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """Base of every `<Name>Backward` node class made for a Function subclass.

    (PyTorch's name for it. An instance is both the graph node and the `ctx`.)
    """

    _forward_cls = None  # the Function subclass; set on each generated class

    def __init__(self):
        self._sequence_nr = next(SEQUENCE)  # what record does for a built-in operation's node
        if instruments.on_node:
            instruments.node_made(self)
        self.to_save = None
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self._needs_input_grad = ()
        self._is_tensor_input = ()  # one flag per forward argument
        self._output_meta = ()  # (shape, numpy dtype) per output, None for a non-tensor output

    def __repr__(self):
        # Unlike built-in nodes, PyTorch prints these with their module, like a Python class.
        return f"<{MODULE_NAME}.{type(self).__name__} object at {id(self):#x}>"

    @property
    def num_outputs(self):
        return len(self._output_meta)

    @property
    def needs_input_grad(self):
        """One flag per forward argument (tensors or not): does it need a gradient?"""
        return self._needs_input_grad

    @property
    def saved_tensors(self):
        """In backward, what save_for_backward kept; in jvp, what save_for_forward kept."""
        if self.__dict__.get("_in_jvp"):
            return tuple(self.saved_for_forward)
        if self._forward_cls.clear_saved_tensors_on_access:
            if self.__dict__.get("_saved_accessed"):
                raise RuntimeError(messages.SAVED_TENSORS_ACCESSED_TWICE)
            saved = Node.saved_tensors.fget(self)
            self._saved_accessed = True
            if self._for_backward:  # one access: the values go with it
                self._for_backward = FREED
            return saved
        return Node.saved_tensors.fget(self)

    # -- what the engine calls -------------------------------------------------------------
    def apply(self, grads):
        """Run the user's backward on the gradients of this node's outputs."""
        grads = list(grads) + [None] * (len(self._output_meta) - len(grads))
        if self.materialize_grads:
            for index, meta in enumerate(self._output_meta):
                if grads[index] is None and meta is not None:
                    shape, numpy_dtype = meta
                    grads[index] = Tensor._make(np.zeros(shape, dtype=numpy_dtype))
        backward = self._user_backward()
        if self._forward_cls.boxed_grads_call:  # one mutable list, which backward may empty
            results = backward(self, grads)
        else:
            results = backward(self, *grads)
        return self._check_input_grads(results)

    def _user_backward(self):
        function = self._forward_cls
        has_backward = function.backward is not Function.backward
        has_vjp = function.vjp is not Function.vjp
        if has_backward and has_vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                "You should only implement one of them."
            )
        return function.vjp if has_vjp else function.backward

    def _check_input_grads(self, results):
        """Check backward's result against forward's arguments; keep the tensor inputs' grads."""
        name = type(self).__name__
        if not isinstance(results, tuple):
            results = (results,)
        expected = len(self._is_tensor_input)
        if len(results) > expected and all(extra is None for extra in results[expected:]):
            results = results[:expected]  # extra trailing Nones are accepted, as in PyTorch
        if len(results) != expected:
            raise RuntimeError(
                f"function {name} returned an incorrect number of gradients "
                f"(expected {expected}, got {len(results)})"
            )
        tensor_grads = []
        for position, (grad, is_tensor) in enumerate(zip(results, self._is_tensor_input)):
            if not is_tensor:
                if grad is not None:
                    raise RuntimeError(
                        f"function {name} returned a gradient different than None at position "
                        f"{position + 1}, but the corresponding forward input was not a Variable"
                    )
                continue
            if grad is not None and not isinstance(grad, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
            tensor_grads.append(grad)
        for index, (grad, (shape, _)) in enumerate(zip(tensor_grads, self._input_meta)):
            if grad is None or grad._data.shape == shape:
                continue
            if not _expandable(shape, grad._data.shape):
                raise RuntimeError(
                    f"Function {name} returned an invalid gradient at index {index} - got "
                    f"{list(grad._data.shape)} but expected shape compatible with {list(shape)}"
                )
        # A gradient with extra broadcast dimensions is fine: the engine sums it to the shape.
        return tuple(tensor_grads)


def _expandable(shape, target):
    """Can a tensor of `shape` be broadcast to `target`? Then a `target`-shaped grad sums back."""
    if len(shape) > len(target):
        return False
    for size, target_size in zip(reversed(shape), reversed(target)):
        if size != target_size and size != 1:
            return False
    return True


# -- Function ---------------------------------------------------------------------------------
class Function:
    """Base class of user-defined operations. Subclass it, write static `forward` and
    `backward`, and call `MyFunction.apply(...)`; never instantiate it.

    forward(ctx, *args) computes the result (grad mode is off inside, so nothing it does is
    recorded); backward(ctx, *grad_outputs) returns one gradient per forward argument (None for
    arguments that are not tensors or need no gradient). Alternatively write
    forward(*args) without ctx plus setup_context(ctx, inputs, output).
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # The node class for this Function: `Exp` gets `ExpBackward` (no digit, as in PyTorch).
        cls._backward_cls = type(
            f"{cls.__name__}Backward",
            (BackwardCFunction,),
            {"_forward_cls": cls, "forward_name": cls.__name__, "__module__": MODULE_NAME},
        )

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward  # PyTorch's other name for backward: define one or the other

    # Set to True on a subclass, as in PyTorch: backward(ctx, grads) then gets the output
    # gradients as one list, so it can drop each (`grads.pop(0)`) as soon as it is used.
    boxed_grads_call = False
    # Set to True: `ctx.saved_tensors` may be read once, and frees the saved values as it does.
    clear_saved_tensors_on_access = False

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the operation on `args` and record it in the graph."""
        uses_setup_context = cls.setup_context is not Function.setup_context
        if uses_setup_context:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs

        ctx = cls._backward_cls()
        ctx._is_tensor_input = tuple(isinstance(arg, Tensor) for arg in args)
        ctx._needs_input_grad = tuple(isinstance(arg, Tensor) and arg.requires_grad for arg in args)
        tensor_inputs = [arg for arg in args if isinstance(arg, Tensor)]
        recording = is_grad_enabled() and any(ctx._needs_input_grad)
        if recording:
            # Only tensor arguments become edges, as in PyTorch: `apply(x, 3.)` has one.
            ctx.next_functions = tuple(gradient_edge(t) or (None, 0) for t in tensor_inputs)
            ctx._input_meta = tuple((t._data.shape, t._data.dtype) for t in tensor_inputs)

        tangents = _input_tangents(args)
        with no_grad(), forward_ad._paused():  # forward sees plain values; its steps not recorded
            if uses_setup_context:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
            if tangents is not None:  # forward mode: the user's jvp gives the outputs' tangents
                output_tangents = _call_jvp(cls, ctx, tangents)
        outputs = _wrap_outputs(ctx, output, args, recording)
        if tangents is not None:
            _set_output_tangents(outputs, output_tangents)
        return outputs


def _input_tangents(args):
    """In forward mode, one tangent per argument for `jvp` (zeros for a tensor without one, None
    for anything else); None when no argument carries a tangent."""
    if forward_ad._level is None:
        return None
    tangents = [forward_ad._tangent_of(arg) if isinstance(arg, Tensor) else None for arg in args]
    if all(tangent is None for tangent in tangents):
        return None
    return [zeros_like(arg) if tangent is None and isinstance(arg, Tensor) else tangent
            for arg, tangent in zip(args, tangents)]


def _call_jvp(cls, ctx, tangents):
    """cls.jvp(ctx, *tangents), with `ctx.saved_tensors` giving what save_for_forward kept."""
    ctx._in_jvp = True
    try:
        return cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
        ctx.saved_for_forward = ()  # (as for backward's saved tensors: no reference cycles)


def _set_output_tangents(outputs, tangents):
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    tangents = tangents if isinstance(tangents, tuple) else (tangents,)
    for out, tangent in zip(outputs, tangents):
        if isinstance(out, Tensor) and tangent is not None:
            forward_ad._set_tangent(out, tangent)


def _wrap_outputs(ctx, output, args, recording):
    """Make forward's tensors the outputs of `ctx`, then store the saved tensors."""
    is_tuple = isinstance(output, tuple)
    outputs = list(output) if is_tuple else [output]

    for dirty in ctx.dirty_tensors:
        if not any(dirty is out for out in outputs):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the Function."
            )
        dirty._shared_version_counter().value += 1  # PyTorch counts mark_dirty as one more change

    for output_nr, out in enumerate(outputs):
        if isinstance(out, Tensor):
            outputs[output_nr] = _wrap_one(ctx, out, output_nr, args, recording)
    ctx._output_meta = tuple(
        (out._data.shape, out._data.dtype) if isinstance(out, Tensor) else None for out in outputs
    )
    if recording and ctx.to_save:
        ctx._for_backward = tuple(_save(ctx, value) for value in ctx.to_save)
    # Drop the references to forward's tensors: an output holds ctx as its grad_fn, so ctx
    # holding the output would be a reference cycle (the saved copies above avoid that).
    ctx.to_save = None
    ctx.dirty_tensors = ()
    ctx.non_differentiable = ()
    return tuple(outputs) if is_tuple else outputs[0]


def _wrap_one(ctx, out, output_nr, args, recording):
    """One output tensor, as PyTorch treats it (custom_function.cpp, `set_history`)."""
    is_input = any(out is arg for arg in args)
    is_dirty = any(out is t for t in ctx.dirty_tensors)
    differentiable = (recording and out.dtype.is_floating_point
                      and not any(out is t for t in ctx.non_differentiable))
    if not differentiable:
        if not out.requires_grad:
            if is_input and not is_dirty:
                return as_view(Tensor._make(out._data), out)  # a new tensor object, same memory
            return out
        if is_input:
            return out.detach()
        out._grad_fn = None  # a fresh output that must not require grad (detach_ without checks)
        out._requires_grad = False
        return out
    if is_dirty:
        # Changed in place: the same tensor object now comes out of this node.
        if out._grad_fn is None and out._requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation.")
        out._set_grad_fn(ctx, output_nr)  # (a retained gradient moves with it)
        return out
    if is_input:
        # Returned unchanged: PyTorch returns a new tensor (a view) so the input keeps its history.
        alias = Tensor._make(out._data, grad_fn=ctx, output_nr=output_nr)
        return as_view(alias, out)
    out._grad_fn = ctx
    out._output_nr = output_nr
    return out


def _save(ctx, value):
    """A saved value: None, this node's own output (kept without a reference cycle), or a tensor;
    saved as an operation's values are (core/record.py's `save`), through what is plugged into
    the instruments (the saved-tensor hooks, if any are in force)."""
    if value is None:
        return None
    if value._grad_fn is ctx:
        return save(OUTPUT, value, type(ctx))
    return save(value)


# -- once_differentiable ----------------------------------------------------------------------
class Error(Node):
    """Stands in for a backward that cannot be differentiated again (`@once_differentiable`).

    Its inputs are fresh leaves, not the real graph, so asking for a second derivative either
    finds no path ("appears to not have been used in the graph") or, if it reaches this node,
    raises the message below.
    """

    __slots__ = ()

    def apply(self, grads):
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable")


def once_differentiable(fn):
    """Decorate a Function's backward that is written with non-differentiable code (NumPy).

    The backward runs with grad mode off. If a graph was requested (create_graph=True) and the
    incoming gradients require grad, its results are marked with an `Error` grad_fn, so a
    second differentiation fails loudly instead of silently giving zero.
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not is_grad_enabled():
            return outputs
        if not any(isinstance(arg, Tensor) and arg.requires_grad for arg in args):
            return outputs
        is_tuple = isinstance(outputs, tuple)
        marked = []
        for out in (outputs if is_tuple else (outputs,)):
            if isinstance(out, Tensor):
                fake_leaf = out.detach()
                fake_leaf._requires_grad = True
                out = record(Error, out._data, (fake_leaf,))
            marked.append(out)
        return tuple(marked) if is_tuple else marked[0]

    return wrapper


__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]
