"""An operation names what it saves for backward, and `record` matches the names with the rule's
`saves` (issue 30): not by position, so the order of the call's dict does not matter, and a name
missing or one the rule does not save stops the library's developer with a clear error."""

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad.core.record import record
from tensorgrad.derivatives import MulBackward0  # saves=("other", "self")


def product(a, b, saved):
    """`a * b` recorded by hand, saving what `saved` names (tensorgrad's own `mul`, spelled out)."""
    return record(MulBackward0, a._data * b._data, (a, b), saved=saved)


def leaves():
    return (tg.tensor([1., 2.], requires_grad=True), tg.tensor([3., 5.], requires_grad=True))


@pytest.mark.parametrize("order", ["as saves", "reversed"])
def test_values_are_matched_by_name_not_by_position(order):
    a, b = leaves()
    saved = {"other": b, "self": a} if order == "as saves" else {"self": a, "other": b}
    c = product(a, b, saved)
    assert c.grad_fn._saved_self is a and c.grad_fn._saved_other is b
    c.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3., 5.])
    np.testing.assert_array_equal(b.grad.numpy(), [1., 2.])


def test_a_missing_name_is_refused_with_the_names():
    a, b = leaves()
    with pytest.raises(TypeError) as error:
        product(a, b, {"self": a})
    assert str(error.value) == ("record(MulBackward0, ...): the rule saves ('other', 'self'), "
                                "but saved= lacks ['other']")


def test_an_unknown_name_is_refused_with_the_names():
    a, b = leaves()
    with pytest.raises(TypeError) as error:
        product(a, b, {"self": a, "other": b, "input": a})
    assert str(error.value) == ("record(MulBackward0, ...): the rule saves ('other', 'self'), "
                                "but saved= names ['input'], which the rule does not save")


def test_a_misspelt_name_is_both_missing_and_unknown():
    a, b = leaves()
    with pytest.raises(TypeError, match=r"lacks \['other'\] and names \['othre'\]"):
        product(a, b, {"self": a, "othre": b})


def test_saving_nothing_for_a_rule_that_saves_is_refused():
    a, b = leaves()
    with pytest.raises(TypeError, match=r"lacks \['other', 'self'\]"):
        record(MulBackward0, a._data * b._data, (a, b))


def test_forward_mode_reads_the_saved_values_by_name():
    import tensorgrad.autograd.forward_ad as fwAD
    a, b = tg.tensor([1., 2.]), tg.tensor([3., 5.])
    with fwAD.dual_level():
        dual = fwAD.make_dual(a, tg.tensor([1., 0.]))
        c = product(dual, b, {"other": b, "self": dual})
        np.testing.assert_array_equal(fwAD.unpack_dual(c).tangent.numpy(), [3., 0.])
