"""PyTorch's behaviour where the last of an outside attacker's findings (session 15's set of
10,072 cases, issue 29) still differed after session 15: a function PyTorch writes in C that
takes no arguments, given some. Each runs on both libraries (PyTorch 2.13.0, measured).
"""

import pytest

from .conftest import raises_exactly


# -- a function that takes no arguments, given some ------------------------------------------------
@pytest.mark.parametrize("name", ["is_grad_enabled", "get_default_dtype"])
@pytest.mark.parametrize("args, kwargs, text", [
    ((True,), {}, "tensorgrad.{name}() takes no arguments (1 given)"),
    ((1, 2), {}, "tensorgrad.{name}() takes no arguments (2 given)"),
    ((), {"enabled": True}, "tensorgrad.{name}() takes no keyword arguments"),
    ((1,), {"mode": 2}, "tensorgrad.{name}() takes no keyword arguments"),
])
def test_a_function_without_parameters_given_arguments_says_so_in_pytorchs_words(
        tg, name, args, kwargs, text):
    with raises_exactly(tg, TypeError, text.format(name=name)):
        getattr(tg, name)(*args, **kwargs)


@pytest.mark.parametrize("name", ["is_grad_enabled", "get_default_dtype"])
def test_a_function_without_parameters_still_answers(tg, name):
    assert getattr(tg, name)() in (True, tg.float32)
