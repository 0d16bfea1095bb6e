"""Helpers shared by the tests that run the same code on tensorgrad and on PyTorch.

`lib` is a fixture that gives each test once as tensorgrad and once as torch (skipped when
torch is not installed). `show` is the text to compare: memory addresses masked and PyTorch's
own module name read as tensorgrad's. `raises` checks an exception's exact class and text.
`make_square` builds a custom Function that the Function and gradcheck tests both use.
"""

import re

import pytest

import tensorgrad as tg


@pytest.fixture(params=["tensorgrad", "torch"])
def lib(request):
    if request.param == "torch":
        return pytest.importorskip("torch")
    return tg


def show(value):
    text = value if isinstance(value, str) else repr(value)
    text = re.sub(r"0x[0-9a-fA-F]+", "0x…", text)
    text = re.sub(r"\b[Tt]orch( Tensor| not compiled)", r"tensorgrad\1", text)
    return re.sub(r"\btorch(\.|::)", r"tensorgrad\1", text)


def raises(exc_type, message, call):
    with pytest.raises(exc_type) as info:
        call()
    assert type(info.value) is exc_type
    assert show(str(info.value)) == message


def make_square(lib, *, once=False, detach=False):
    """A custom Function x -> x², with backward 2·x·g (optionally once_differentiable, or with
    x detached, which makes the second derivative wrong on purpose)."""
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * (x.detach() if detach else x) * g

    if once:
        backward = lib.autograd.function.once_differentiable(backward)

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

    Square.backward = staticmethod(backward)
    return Square
