"""Helpers shared by the tests that run the same code on tensorgrad and on PyTorch.

`lib` is a fixture that gives each test once as tensorgrad and once as torch (skipped when
torch is not installed). `show` is the text to compare: memory addresses masked and PyTorch's
own module name read as tensorgrad's. `raises` checks an exception's exact class and text.
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
    return re.sub(r"\btorch(\.|::)", r"tensorgrad\1", text)


def raises(exc_type, message, call):
    with pytest.raises(exc_type) as info:
        call()
    assert type(info.value) is exc_type
    assert show(str(info.value)) == message
