"""Helpers shared by the tests that run the same code on tensorgrad and on PyTorch.

`lib` is a fixture that gives each test once as tensorgrad and once as torch (skipped when
torch is not installed). `show` is the text to compare: memory addresses masked and PyTorch's
own module name read as tensorgrad's (outside links). `raises` checks an exception's exact class and text.
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


URL = re.compile(r"https?://[^\s)]+")


def tensorgrad_names(text):
    """PyTorch's own module name read as tensorgrad's (`torch.float64`, `torch::autograd`,
    "torch Tensor"), everywhere but in links: a link to PyTorch's documentation names torch
    (`.../autograd.html#torch.autograd.Function`) in tensorgrad's messages too, as a link that
    named tensorgrad there would lead nowhere."""
    pieces = URL.split(text)
    for i, piece in enumerate(pieces):
        piece = re.sub(r"\b[Tt]orch( Tensor| not compiled)", r"tensorgrad\1", piece)
        pieces[i] = re.sub(r"\btorch(\.|::)", r"tensorgrad\1", piece)
    return pieces[0] + "".join(url + piece for url, piece in zip(URL.findall(text), pieces[1:]))


def show(value):
    text = value if isinstance(value, str) else repr(value)
    text = _CPP_BACKTRACE.sub("", text)
    return tensorgrad_names(re.sub(r"0x[0-9a-fA-F]+", "0x…", text))


# The C++ backtrace some of PyTorch's parser messages carry inside their quoted error ("Overflow
# when unpacking long long\nException raised from THPUtils_unpackLong at ...\nframe #0: ..."):
# the build's frames and this machine's library paths, not words of the message
_CPP_BACKTRACE = re.compile(r"\nException raised from .*\n(?=\"$)", re.S)


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
