"""Records and the comparison shared by the self-check and the grader (no kernel needed)."""

import json
import math

import numpy as np
import pytest

from tensorgrad_course import values
from tensorgrad_course.values import check_kind, compare, encode

tg = pytest.importorskip("tensorgrad")


def cmp(expected, actual, name="x", **kw):
    return compare(encode(expected), encode(actual), name=name, **kw)


def test_records_are_plain_json_for_every_kind():
    samples = [None, True, np.bool_(False), 3, np.int64(4), 2.5, np.float32(0.5), float("nan"), float("-inf"),
               1 + 2j, "leaf", np.arange(6.0).reshape(2, 3), tg.tensor([1.0, 2.0], requires_grad=True),
               [1, (2.0, "a")], {"a": 1, 2: [3]}, object()]
    for value in samples:
        record = encode(value)
        assert json.loads(json.dumps(record, allow_nan=False)) == record
        assert isinstance(record["repr"], str)


def test_tensor_record_keeps_what_tests_compare():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    record = encode(x * 2)
    assert record["type"] == "tensor" and record["shape"] == [2] and record["data"] == [2.0, 4.0]
    assert record["requires_grad"] is True and record["is_leaf"] is False
    assert record["grad_fn"] == "MulBackward0" and record["dtype"] == "tensorgrad.float32"
    assert record["repr"] == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert encode(tg.tensor(3.0))["shape"] == []


def test_non_finite_numbers_survive_as_strings():
    record = encode(np.array([1.0, np.nan, np.inf]))
    assert record["data"] == [1.0, "nan", "inf"]
    assert cmp(np.array([1.0, np.nan]), np.array([1.0, np.nan])) is None


def test_right_values_compare_equal_within_tolerance():
    assert cmp(5.0, 5.0 + 1e-9) is None
    assert cmp(3, 3) is None and cmp(3, 3.0) is None
    assert cmp(tg.tensor([2.0]), np.array([2.0])) is None  # a NumPy array for a tensor is fine
    assert cmp(tg.tensor(14.0), 14.0) is None  # a number for a 0-d tensor too
    assert cmp((1.0, [True, "a"]), [1.0, (True, "a ")]) is None  # strings compared stripped
    assert cmp({"a": 1.0}, {"a": 1.0 + 1e-9}) is None
    assert cmp(None, None) is None


def test_wrong_value_message_names_value_expected_and_difference():
    msg = cmp(tg.tensor([2.0]), tg.tensor([4.0]), name="gradient for w")
    assert msg == (
        "your gradient for w is tensor([4.]), expected shape (1,) but a different value: "
        "expected tensor([2.]) (largest difference 2 at index (0,))"
    )
    assert cmp(5.0, 4.0, name="dy_dw") == (
        "your dy_dw is 4.0, expected 5.0 (difference 1; tolerance atol=1e-06, rtol=1e-05)"
    )
    assert cmp(3, 4, name="count") == "your count is 4, expected 3"


def test_wrong_shape_and_kind():
    assert cmp(np.zeros(3), np.zeros((1, 3)), name="g") == (
        "your g is array([[0., 0., 0.]]), expected shape (3,) but it has shape (1, 3)"
    )
    assert cmp(tg.tensor([1.0, 2.0]), [1.0, 2.0], name="g") == (
        "your g is [1.0, 2.0] (a list), expected a tensor of shape (2,)"
    )
    assert cmp(True, "True", name="leaf") == "your leaf is 'True' (a str), expected True or False (a bool)"
    assert cmp(1.0, None, name="loss") == "your loss is None, expected 1.0 (did you forget to return it?)"
    assert cmp(1.0, None, name="w.grad") == "your w.grad is None, expected 1.0 (did you forget to call backward()?)"
    assert cmp(1.0, None, name="grad_by_hand(2.0)") == (
        "your grad_by_hand(2.0) is None, expected 1.0 (did you forget to return it?)")
    # backward() is suggested only for a gradient, and never for a forward-mode tangent
    assert cmp(1.0, None, name="grad_x") == (
        "your grad_x is None, expected 1.0 (did you forget to return it, or to call backward()?)"
    )
    assert cmp(1.0, None, name="the tangent for u = e_3").endswith(
        "(did you forget to return it, or read the tangent after the dual_level() block, where it is gone?)"
    )
    assert cmp(None, 0.0, name="grad") == "your grad is 0.0, expected None"
    assert cmp([1, 2], [1], name="xs") == "your xs is [1], expected a list of length 2 but it has length 1"
    assert cmp({"a": 1}, {"b": 1}, name="d") == "your d is {'b': 1}, which has no key 'a'"


def test_dtype_and_requires_grad_only_when_asked():
    a = tg.tensor([1.0], dtype=tg.float64)
    b = tg.tensor([1.0])
    assert cmp(a, b) is None
    assert "expected dtype tensorgrad.float64 but it has dtype tensorgrad.float32" in cmp(a, b, dtype=True)
    leaf = tg.tensor([1.0], requires_grad=True)
    assert cmp(leaf, b) is None
    assert cmp(leaf, b, name="w", requires_grad=True) == (
        "your w has requires_grad=False, expected requires_grad=True"
    )


def test_nan_is_pointed_out():
    assert "yours contains nan" in cmp(np.array([1.0]), np.array([np.nan]))


def test_hidden_comparisons_never_show_the_expected_value():
    for expected, actual in [(7.25, 3.0), (tg.tensor([7.25, 1.0]), tg.tensor([3.0, 1.0])), (True, False),
                             ("SumBackward0", "MulBackward0"), (1234, 4321), ([7.25], [3.0])]:
        msg = cmp(expected, actual, reveal=False)
        assert msg and "7.25" not in msg and "True" not in msg.replace("True or False", "")
        assert "SumBackward0" not in msg and "1234" not in msg and "difference" not in msg
        assert "3.0" not in msg and "4321" not in msg and "MulBackward0" not in msg  # nor the student's text
    assert cmp(tg.tensor([7.25]), 3.0, reveal=False) == "your x is a float, expected a tensor of shape (1,)"
    # Whether it is None is often the answer (does x.grad hold a tensor?): neither way is told.
    assert cmp(None, 3, reveal=False) == cmp(tg.tensor([1.0]), None, reveal=False) == "your x is not the expected value"
    assert cmp(tg.tensor([7.25]), tg.tensor([1.0, 2.0]), reveal=False) == (
        "your x is a tensor of shape (2,), expected a tensor of shape (1,)")


def test_too_large_values_are_reported_not_sent():
    big = np.zeros(values.MAX_ELEMENTS + 1)
    record = encode(big)
    assert record["type"] == "too_large" and "data" not in record
    assert "too large to grade" in compare(encode(np.zeros(3)), record, name="x")


def test_broken_objects_never_raise():
    class Weird:
        shape = property(lambda self: 1 / 0)

        def __repr__(self):
            raise RuntimeError("no repr")

    record = encode(Weird())
    assert record["type"] == "object"
    assert "repr() raised RuntimeError" in record["repr"]


def test_kinds():
    assert check_kind(encode(True), "bool", name="a") is None
    assert check_kind(encode(None), "str|none", name="n") is None
    assert check_kind(encode(3), "number", name="n") is None
    assert check_kind(encode(3.0), "int", name="n") == "your n is 3.0 (a float), expected an int"
    assert check_kind(encode(1), "str|none", name="n") == "your n is 1 (an int), expected a str or None"
    with pytest.raises(ValueError, match="kind must be one of"):
        check_kind(encode(1), "boolean", name="n")


def test_elements_round_trip_complex_and_bool():
    assert cmp(1 + 2j, 1 + 2j) is None
    assert cmp(np.array([1 + 1j]), np.array([1 + 2j])) is not None
    assert cmp(np.array([True, False]), np.array([True, False])) is None
    assert math.isclose(values._elements(encode(np.array([[1.5]])))[0, 0], 1.5)
