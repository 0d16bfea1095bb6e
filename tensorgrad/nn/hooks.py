"""Module hooks: functions called before and after a module's forward, and when the gradients
with respect to its inputs are known (`register_full_backward_hook`).

The backward hook works as PyTorch's does: the module's tensor inputs and its outputs each pass
through an identity operation, `BackwardHookFunction`, whose backward sees the gradients going
by. The one on the outputs notes grad_output; the one on the inputs then has grad_input, calls
the hooks, and sends on what they return. (So the outputs' grad_fn is
BackwardHookFunctionBackward, as in PyTorch.)
"""

from ..autograd.custom_function import Function
from ..core.tensor import Tensor


class BackwardHookFunction(Function):
    """The identity, with a backward that lets the module's backward hooks see the gradients."""

    @staticmethod
    def forward(ctx, *tensors):
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return ctx.on_backward(grads)


def call_with_hooks(module, args, kwargs):
    for hook in list((module._forward_pre_hooks or {}).values()):
        result = hook(module, args)
        if result is not None:
            args = result if isinstance(result, tuple) else (result,)
    state = None
    if module._backward_hooks:
        state = _BackwardState(module)
        args = state.wrap_inputs(args)
    output = module.forward(*args, **kwargs)
    for hook in list((module._forward_hooks or {}).values()):
        result = hook(module, args, output)
        if result is not None:
            output = result
    if state is not None:
        output = state.wrap_outputs(output)
    return output


class _BackwardState:
    """One forward call's grad_output, kept until its grad_input arrives."""

    def __init__(self, module):
        self.module = module
        self.grad_output = None
        self.input_count = 0
        self.positions = []  # where the inputs that need a gradient stand among the arguments

    def wrap_inputs(self, args):
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        self.input_count = sum(1 for a in args if isinstance(a, Tensor))
        if not positions:
            return args
        self.positions = positions
        wrapped = _apply(self, [args[i] for i in positions], self.on_grad_input)
        args = list(args)
        for position, tensor in zip(positions, wrapped):
            args[position] = tensor
        return tuple(args)

    def wrap_outputs(self, output):
        outputs = output if isinstance(output, tuple) else (output,)
        tensors = [o for o in outputs if isinstance(o, Tensor) and o.requires_grad]
        if not tensors:
            return output
        wrapped = iter(_apply(self, tensors, self.on_grad_output))
        result = tuple(next(wrapped) if isinstance(o, Tensor) and o.requires_grad else o
                       for o in outputs)
        return result if isinstance(output, tuple) else result[0]

    def on_grad_output(self, grads):
        self.grad_output = tuple(grads)
        if not self.positions:  # no input needs a gradient: call the hooks now
            self.call_hooks((None,) * self.input_count)
        return grads

    def on_grad_input(self, grads):
        grad_input = [None] * self.input_count
        for position, grad in zip(self.positions, grads):
            grad_input[position] = grad
        grad_input = self.call_hooks(tuple(grad_input))
        return tuple(grad_input[position] for position in self.positions)

    def call_hooks(self, grad_input):
        for hook in list(self.module._backward_hooks.values()):
            result = hook(self.module, grad_input, self.grad_output)
            if result is not None:
                grad_input = tuple(result)
        return grad_input


def _apply(state, tensors, on_backward):
    outputs = BackwardHookFunction.apply(*tensors)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    node = next((o.grad_fn for o in outputs if o.grad_fn is not None), None)
    if node is not None:
        node.on_backward = on_backward
    return outputs
