"""Self-check messages: right answer, wrong value, wrong shape, unattempted, and the rest."""

import numpy as np
import pytest

from tensorgrad_course import selfcheck
from tensorgrad_course.selfcheck import CheckFailure, check_close, check_equal, check_raises, check_tensor


class FakeTensor:
    """Duck-typed stand-in for a tensor: shape, tolist, dtype, requires_grad, a torch-like repr."""

    def __init__(self, values, requires_grad=False, dtype="float32"):
        self._a = np.array(values, dtype=np.float64)
        self.requires_grad = requires_grad
        self.dtype = dtype

    @property
    def shape(self):
        return self._a.shape

    def tolist(self):
        return self._a.tolist()

    def numpy(self):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad")

    def __repr__(self):
        return "tensor(" + np.array2string(self._a, separator=", ") + ")"


def failure(fn, *args, **kwargs):
    with pytest.raises(CheckFailure) as info:
        fn(*args, **kwargs)
    return str(info.value)


def test_right_answer_prints_one_check_line(capsys):
    check_tensor("gradient for w", FakeTensor([2.0]), np.array([2.0]), task="task 3")
    assert capsys.readouterr().out == "\N{CHECK MARK} task 3: your gradient for w is right\n"
    check_tensor("gradient for w", FakeTensor([2.0]), np.array([2.0]), quiet=True)
    assert capsys.readouterr().out == ""


def test_wrong_value_names_task_value_and_shape():
    msg = failure(check_tensor, "gradient for w", FakeTensor([4.0]), FakeTensor([2.0]), task="task 3")
    assert msg.startswith("task 3: your gradient for w is tensor([4.]), expected shape (1,) but a different value")
    assert "expected tensor([2.])" in msg and "largest difference 2 at index (0,)" in msg


def test_wrong_value_without_revealing_the_expected_value():
    msg = failure(check_tensor, "output", FakeTensor([1.0, 5.0]), np.array([1.0, 2.0]), show_expected=False)
    assert "largest difference 3 at index (1,)" in msg
    assert "expected array" not in msg and "2." not in msg


def test_wrong_shape():
    msg = failure(check_tensor, "gradient for w", FakeTensor([[4.0, 1.0]]), np.array([2.0]), task="task 3")
    assert msg == "task 3: your gradient for w is tensor([[4., 1.]]), expected shape (1,) but it has shape (1, 2)"


def test_unattempted_none_and_hint():
    msg = failure(check_tensor, "gradient for w", None, np.zeros(3), task="task 3", hint="call loss.backward() first")
    assert msg == (
        "task 3: your gradient for w is None, expected a tensor of shape (3,) "
        "(did you forget to return it, or to call backward()?)\nhint: call loss.backward() first"
    )


def test_dtype_requires_grad_and_nan():
    msg = failure(check_tensor, "x", FakeTensor([1.0], dtype="float32"), FakeTensor([1.0], dtype="float64"),
                  check_dtype=True)
    assert "expected dtype float64 but it has dtype float32" in msg
    msg = failure(check_tensor, "loss", FakeTensor([1.0]), np.array([1.0]), requires_grad=True)
    assert msg == "your loss has requires_grad=False, expected requires_grad=True"
    msg = failure(check_tensor, "y", FakeTensor([np.nan]), np.array([1.0]))
    assert "yours contains nan" in msg


def test_check_close_for_numbers_and_arrays():
    check_close("loss", 0.5 + 1e-9, 0.5, quiet=True)
    assert failure(check_close, "loss", 0.52, 0.5, task="task 1") == (
        "task 1: your loss is 0.52, expected 0.5 (tolerance atol=1e-06, rtol=1e-05)"
    )
    assert "expected a number" in failure(check_close, "loss", "0.5", 0.5)
    assert "expected shape (2,) but a different value" in failure(check_close, "g", np.array([1.0, 3.0]), np.array([1.0, 2.0]))


def test_check_equal():
    check_equal("shape", (2, 3), (2, 3), quiet=True)
    check_equal("mask", np.array([True, False]), np.array([True, False]), quiet=True)
    assert failure(check_equal, "is_leaf for c", True, False, task="task 1") == (
        "task 1: your is_leaf for c is True, expected False"
    )
    assert "(yours is a str, expected a bool)" in failure(check_equal, "answer", "True", True)


def test_check_raises():
    def boom():
        raise RuntimeError("Trying to backward through the graph a second time")

    exc = check_raises(RuntimeError, boom, match="second time", quiet=True)
    assert isinstance(exc, RuntimeError)
    assert failure(check_raises, RuntimeError, lambda: 3, task="task 4", name="calling backward twice") == (
        "task 4: calling backward twice returned 3, expected it to raise RuntimeError"
    )
    assert "raised ZeroDivisionError('division by zero'), expected RuntimeError" in failure(
        check_raises, RuntimeError, lambda: 1 / 0
    )
    assert "does not match 'graph'" in failure(check_raises, ZeroDivisionError, lambda: 1 / 0, match="graph")


def test_failure_is_an_assertion_error_rendered_as_one_line_in_jupyter():
    err = CheckFailure("task 3: your x is 1, expected 2\nhint: look again")
    assert isinstance(err, AssertionError)
    assert err._render_traceback_() == ["\N{BALLOT X} task 3: your x is 1, expected 2", "  hint: look again"]


def test_long_reprs_are_shortened():
    msg = failure(check_tensor, "x", np.arange(10_000.0), np.zeros(10_000))
    assert len(msg) < 1000 and "..." in msg


def test_selfcheck_does_not_import_tensorgrad_tensor():
    text = open(selfcheck.__file__).read()
    assert "import tensorgrad" not in text and "from tensorgrad" not in text
