"""CheckFailure, the failure a self-check raises: an AssertionError shown as one line in Jupyter.

The messages themselves (right answer, wrong value, wrong shape, unattempted...) are
checks.check's and values.compare's: tests/course/test_course_checks.py and
test_course_selfcheck_zh.py test them.
"""

from tensorgrad_course import selfcheck
from tensorgrad_course.selfcheck import CheckFailure


def test_failure_is_an_assertion_error_rendered_as_one_line_in_jupyter():
    err = CheckFailure("task 3: your x is 1, expected 2\nhint: look again")
    assert isinstance(err, AssertionError)
    assert err._render_traceback_() == ["\N{BALLOT X} task 3: your x is 1, expected 2", "  hint: look again"]


def test_selfcheck_does_not_import_tensorgrad_tensor():
    text = open(selfcheck.__file__).read()
    assert "import tensorgrad" not in text and "from tensorgrad" not in text
