"""Marker parsing: whole lines only, indentation kept, every malformed case an error."""

import pytest

from tensorgrad_course import markers
from tensorgrad_course.errors import MarkerError

WHERE = markers.Where("solutions/set.ipynb", 4, "grad_w")


def stub(source, cell_type="code"):
    return markers.render_student(markers.parse(source), cell_type)


def test_solution_region_is_stubbed_at_the_marker_indentation():
    src = (
        "def f(x):\n"
        "    y = 2\n"
        "    ### BEGIN SOLUTION\n"
        "    return x * y\n"
        "    ### END SOLUTION\n"
        "\n"
        "print(f(1))"
    )
    assert stub(src) == (
        "def f(x):\n"
        "    y = 2\n"
        "    # YOUR CODE HERE\n"
        "    raise NotImplementedError()\n"
        "\n"
        "print(f(1))"
    )


def test_nested_function_indentation_and_tabs_are_kept():
    src = "class A:\n\tdef f(self):\n\t\t### BEGIN SOLUTION\n\t\treturn 1\n\t\t### END SOLUTION"
    assert stub(src) == "class A:\n\tdef f(self):\n\t\t# YOUR CODE HERE\n\t\traise NotImplementedError()"


def test_top_level_region_and_several_regions():
    src = "### BEGIN SOLUTION\na = 1\n### END SOLUTION\nx = 0\n  ### BEGIN SOLUTION\n  b = 2\n  ### END SOLUTION\n"
    assert stub(src) == (
        "# YOUR CODE HERE\nraise NotImplementedError()\nx = 0\n"
        "  # YOUR CODE HERE\n  raise NotImplementedError()\n"
    )


def test_markdown_region_becomes_your_answer_here():
    src = "Your prediction:\n\n### BEGIN SOLUTION\nTrue, because...\n### END SOLUTION"
    assert stub(src, "markdown") == "Your prediction:\n\nYOUR ANSWER HERE"


def test_hidden_tests_are_removed_and_nothing_else_changes():
    src = "assert f(1) == 2\n### BEGIN HIDDEN TESTS\nassert f(2) == 4\n### END HIDDEN TESTS\nprint('ok')"
    assert stub(src) == "assert f(1) == 2\nprint('ok')"
    src = "assert f(1) == 2\n### BEGIN HIDDEN TESTS\nassert f(2) == 4\n### END HIDDEN TESTS"
    assert stub(src) == "assert f(1) == 2"


def test_trailing_blanks_on_a_marker_line_are_allowed():
    src = "### BEGIN SOLUTION   \nx = 1\n### END SOLUTION\t"
    assert stub(src) == "# YOUR CODE HERE\nraise NotImplementedError()"


def test_text_without_markers_is_unchanged():
    src = "x = 1\n# mentions SOLUTION and BEGIN but is no marker\n"
    assert stub(src) == src


@pytest.mark.parametrize(
    "src, line, message",
    [
        ("x = 1\n### BEGIN SOLUTION\ny = 2", 2, "'### BEGIN SOLUTION' is never closed"),
        ("### END SOLUTION", 1, "'### END SOLUTION' without a matching '### BEGIN SOLUTION'"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n### END SOLUTION", 2, "nested marker"),
        ("### BEGIN HIDDEN TESTS\n### BEGIN SOLUTION\n### END SOLUTION\n### END HIDDEN TESTS", 2,
         "nested marker: '### BEGIN SOLUTION' inside the '### BEGIN HIDDEN TESTS' block opened at line 1"),
        ("### BEGIN SOLUTION\n### END HIDDEN TESTS", 2, "cannot close the '### BEGIN SOLUTION' block"),
        ("x = 1  ### BEGIN SOLUTION\ny\n### END SOLUTION", 1, "looks like a marker but is not one"),
        ("### begin solution\ny\n### END SOLUTION", 1, "looks like a marker but is not one"),
        ("##BEGIN SOLUTION", 1, "looks like a marker"),
        ("### BEGIN HIDDEN TEST\nassert x\n### END HIDDEN TESTS", 1, "looks like a marker"),
        ("### BEGIN SOLUTIONS\nx = 1\n### END SOLUTIONS", 1, "looks like a marker"),
        ("# BEGIN_SOLUTION", 1, "looks like a marker"),
    ],
)
def test_malformed_markers_are_errors_with_location(src, line, message):
    with pytest.raises(MarkerError) as info:
        markers.parse(src, WHERE)
    err = info.value
    assert message in str(err)
    assert (err.path, err.cell_index, err.grade_id, err.line) == ("solutions/set.ipynb", 4, "grad_w", line)
    assert str(err).startswith(f"solutions/set.ipynb, cell 4 (grade_id 'grad_w'), line {line}: ")


def test_placement_solution_markers_only_in_answer_cells():
    parsed = markers.parse("### BEGIN SOLUTION\nx\n### END SOLUTION")
    markers.check_placement(parsed, is_solution_cell=True, is_test_cell=False)
    with pytest.raises(MarkerError, match="outside an answer cell"):
        markers.check_placement(parsed, is_solution_cell=False, is_test_cell=True, where=WHERE)


def test_placement_hidden_tests_only_in_test_cells():
    parsed = markers.parse("### BEGIN HIDDEN TESTS\nassert x\n### END HIDDEN TESTS")
    markers.check_placement(parsed, is_solution_cell=False, is_test_cell=True)
    with pytest.raises(MarkerError, match="outside an autograded test cell") as info:
        markers.check_placement(parsed, is_solution_cell=True, is_test_cell=False, where=WHERE)
    assert info.value.line == 1


def test_is_marker_like():
    assert markers.is_marker_like("    ### END SOLUTION")
    assert markers.is_marker_like("foo # BEGIN SOLUTION")
    assert not markers.is_marker_like("# the solution begins here")
