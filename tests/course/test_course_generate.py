"""The generator: student versions, clearing, determinism, --check, and every error."""

import json

import nbformat
import pytest
from course_helpers import answer, cell_by_id, graded, make_notebook, nbg, read_json, source

from tensorgrad_course import generate, markers
from tensorgrad_course.cli import main
from tensorgrad_course.errors import BuildError, LeakError, UsageError


def build(course):
    return generate.build(course / "solutions", course / "exercises")


# ------------------------------------------------------------------ content


def test_answers_are_stubbed_with_indentation(course):
    build(course)
    nb = read_json(course / "exercises" / "basics.ipynb")
    assert source(cell_by_id(nb, "square")) == (
        "def square(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()"
    )
    assert source(cell_by_id(nb, "predict")) == "# YOUR CODE HERE\nraise NotImplementedError()"
    assert source(cell_by_id(nb, "why")) == "**Question.** Why?\n\nYOUR ANSWER HERE"


def test_hidden_tests_are_removed_and_public_tests_kept(course):
    build(course)
    nb = read_json(course / "exercises" / "basics.ipynb")
    assert source(cell_by_id(nb, "test_square")) == 'assert square(3) == 9, "square(3) should be 9"'
    text = (course / "exercises" / "basics.ipynb").read_text()
    for secret in ("square(-2)", "return x * x", "np.sum(xs)", "leaf = True", "nothing created it", "BEGIN", "END"):
        assert secret not in text


def test_nbgrader_metadata_is_kept_and_tests_locked(course):
    src = read_json(course / "solutions" / "basics.ipynb")
    cell_by_id(src, "test_mean")["metadata"]["nbgrader"]["locked"] = False  # the generator locks it
    (course / "solutions" / "basics.ipynb").write_text(json.dumps(src))
    build(course)
    nb = read_json(course / "exercises" / "basics.ipynb")
    assert cell_by_id(nb, "test_square")["metadata"]["nbgrader"] == {
        "schema_version": 3, "grade_id": "test_square", "grade": True, "solution": False,
        "locked": True, "points": 2, "task": False,
    }
    assert cell_by_id(nb, "test_mean")["metadata"]["nbgrader"]["locked"] is True
    assert cell_by_id(nb, "square")["metadata"]["nbgrader"] == {
        "schema_version": 3, "grade_id": "square", "grade": False, "solution": True,
        "locked": False, "task": False,
    }
    assert len(nb["cells"]) == len(src["cells"])
    assert nbformat.validate(nbformat.from_dict(nb)) is None


def test_outputs_counts_timings_and_widget_state_are_cleared(tmp_path):
    cell = answer("a", "### BEGIN SOLUTION\nx = 1\n### END SOLUTION")
    cell.execution_count = 7
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    cell.metadata["execution"] = {"iopub.status.busy": "2024-01-01T00:00:00Z"}
    plain = nbformat.v4.new_code_cell("print(2)", execution_count=3,
                                      outputs=[nbformat.v4.new_output("stream", name="stdout", text="2\n")])
    path = make_notebook([plain, cell], tmp_path / "solutions" / "w.ipynb")
    data = read_json(path)
    data["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {"m": {}}}}
    path.write_text(json.dumps(data))
    generate.build(tmp_path / "solutions", tmp_path / "exercises")
    out = read_json(tmp_path / "exercises" / "w.ipynb")
    assert "widgets" not in out["metadata"]
    for c in out["cells"]:
        assert c["outputs"] == [] and c["execution_count"] is None
        assert "execution" not in c["metadata"]


def test_answer_cell_without_markers_is_replaced_whole(tmp_path):
    make_notebook([answer("a", "x = 42\ny = x + 1"), answer("b", "It is 42.", "markdown")],
                  tmp_path / "solutions" / "w.ipynb")
    generate.build(tmp_path / "solutions", tmp_path / "exercises")
    out = read_json(tmp_path / "exercises" / "w.ipynb")
    assert source(out["cells"][0]) == "# YOUR CODE HERE\nraise NotImplementedError()"
    assert source(out["cells"][1]) == "YOUR ANSWER HERE"


# ------------------------------------------------------------- determinism


def test_byte_stable_across_runs_and_folders(course):
    first = build(course)
    assert [p.name for p in first.written] == ["basics.ipynb"]
    data = (course / "exercises" / "basics.ipynb").read_bytes()
    second = build(course)
    assert second.written == [] and [p.name for p in second.unchanged] == ["basics.ipynb"]
    assert (course / "exercises" / "basics.ipynb").read_bytes() == data
    generate.build(course / "solutions", course / "elsewhere")
    assert (course / "elsewhere" / "basics.ipynb").read_bytes() == data
    assert data.endswith(b"}\n")


def test_cells_without_ids_get_deterministic_ids(tmp_path):
    make_notebook([answer("a", "x = 1"), nbformat.v4.new_markdown_cell("hi")],
                  tmp_path / "solutions" / "w.ipynb", ids=False)
    data = read_json(tmp_path / "solutions" / "w.ipynb")
    data["nbformat_minor"] = 5
    (tmp_path / "solutions" / "w.ipynb").write_text(json.dumps(data))
    generate.build(tmp_path / "solutions", tmp_path / "ex1")
    generate.build(tmp_path / "solutions", tmp_path / "ex2")
    one, two = (tmp_path / "ex1" / "w.ipynb").read_bytes(), (tmp_path / "ex2" / "w.ipynb").read_bytes()
    assert one == two
    ids = [c["id"] for c in json.loads(one)["cells"]]
    assert len(set(ids)) == 2 and all(i.startswith("cell-") for i in ids)


# ------------------------------------------------------------------ --check


def test_check_passes_when_up_to_date_and_detects_drift(course, capsys):
    build(course)
    args = ["build", "--solutions", str(course / "solutions"), "--exercises", str(course / "exercises")]
    assert main(args + ["--check"]) == 0

    target = course / "exercises" / "basics.ipynb"
    target.write_text(target.read_text().replace("square(3) should be 9", "square(3) should be 10"))
    capsys.readouterr()
    assert main(args + ["--check"]) == 1
    err = capsys.readouterr().err
    assert "basics.ipynb is stale" in err
    assert '-    "assert square(3) == 9, \\"square(3) should be 10\\""' in err  # the diff
    assert "Traceback" not in err

    target.unlink()
    (course / "exercises" / "old.ipynb").write_text("{}")
    report = generate.check(course / "solutions", course / "exercises")
    assert not report.ok
    assert any("basics.ipynb is missing" in p for p in report.problems)
    assert any("old.ipynb has no source" in p for p in report.problems)

    assert main(args) == 0  # build repairs everything, including removing the orphan
    assert not (course / "exercises" / "old.ipynb").exists()
    assert main(args + ["--check"]) == 0


def test_check_writes_nothing(course):
    report = generate.check(course / "solutions", course / "exercises")
    assert not report.ok
    assert not (course / "exercises").exists()


# ------------------------------------------------------------------- errors

BAD_SOURCES = {
    "unclosed": (
        [answer("a", "def f():\n    ### BEGIN SOLUTION\n    return 1")],
        "w.ipynb, cell 0 (grade_id 'a'), line 2: '### BEGIN SOLUTION' is never closed",
    ),
    "end without begin": (
        [answer("a", "x = 1\n### END SOLUTION")],
        "cell 0 (grade_id 'a'), line 2: '### END SOLUTION' without a matching",
    ),
    "nested": (
        [answer("a", "### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n### END SOLUTION")],
        "line 2: nested marker",
    ),
    "no points": (
        [answer("a", "x = 1"), nbformat.v4.new_code_cell("assert x", metadata=nbg("t", grade=True, locked=True))],
        "cell 1 (grade_id 't'): graded cell without points",
    ),
    "bad points": (
        [answer("a", "x = 1"), graded("t", "assert x", points="two")],
        "graded cell without points (got 'two')",
    ),
    "duplicate grade_id": (
        [answer("a", "x = 1"), graded("t", "assert x"), graded("t", "assert x")],
        "cell 2 (grade_id 't'): duplicate grade_id 't' (also used by cell 1)",
    ),
    "markers without metadata": (
        [nbformat.v4.new_code_cell("### BEGIN SOLUTION\nx = 1\n### END SOLUTION")],
        "cell 0, line 1: cell contains markers but has no nbgrader metadata",
    ),
    "solution markers in a test cell": (
        [graded("t", "### BEGIN SOLUTION\nassert x\n### END SOLUTION")],
        "'### BEGIN SOLUTION' outside an answer cell",
    ),
    "hidden tests in an answer cell": (
        [answer("a", "### BEGIN HIDDEN TESTS\nx = 1\n### END HIDDEN TESTS")],
        "'### BEGIN HIDDEN TESTS' outside an autograded test cell",
    ),
    "hidden tests in a locked cell": (
        [nbformat.v4.new_code_cell("### BEGIN HIDDEN TESTS\nx\n### END HIDDEN TESTS", metadata=nbg("l", locked=True))],
        "outside an autograded test cell",
    ),
    "no grade_id": (
        [nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": {"schema_version": 3, "solution": True}})],
        "cell 0: nbgrader cell without a grade_id",
    ),
    "old schema": (
        [nbformat.v4.new_code_cell("x", metadata=nbg("a", solution=True, schema_version=1))],
        "unsupported nbgrader schema_version 1",
    ),
    "near-miss marker": (
        [answer("a", "x = 1 ### BEGIN SOLUTION\ny = 2\n### END SOLUTION")],
        "looks like a marker but is not one",
    ),
    "check() without done()": (
        [graded("t", "t = check('s.task1')\nwith t.test('a'):\n    pass")],
        "cell 0 (grade_id 't'): the test cell calls check('s.task1') but never .done()",
    ),
    "done() only in the hidden tests": (
        [graded("t", "t = check('s.task1')\n### BEGIN HIDDEN TESTS\nt.done()\n### END HIDDEN TESTS")],
        "never .done() outside the hidden tests",
    ),
    "check() only in the hidden tests": (
        [graded("t", "### BEGIN HIDDEN TESTS\nt = check('s.task1')\n### END HIDDEN TESTS\nt.done()")],
        "check('s.task1') is inside the hidden tests",
    ),
    "two check() in one test cell": (
        [graded("t", "a = check('s.a')\nb = check('s.b')\na.done()")],
        "a test cell may call check() once (found 's.a', 's.b')",
    ),
    "one check name for two tasks": (
        [graded("t", "t = check('s.a')\nt.done()"), graded("u", "t = check('s.a')\nt.done()")],
        "cell 1 (grade_id 'u'): check('s.a') is also used by cell 0",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_SOURCES))
def test_bad_sources_fail_with_a_clear_message_and_write_nothing(tmp_path, case, capsys):
    cells, message = BAD_SOURCES[case]
    make_notebook(cells, tmp_path / "solutions" / "w.ipynb")
    make_notebook([answer("ok", "x = 1")], tmp_path / "solutions" / "good.ipynb")
    with pytest.raises(BuildError) as info:
        generate.build(tmp_path / "solutions", tmp_path / "exercises")
    assert message in str(info.value)
    assert not (tmp_path / "exercises").exists()  # not even the good notebook

    code = main(["build", "--solutions", str(tmp_path / "solutions"), "--exercises", str(tmp_path / "exercises")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_every_bad_notebook_is_reported_at_once(tmp_path):
    make_notebook([answer("a", "### END SOLUTION")], tmp_path / "solutions" / "one.ipynb")
    make_notebook([graded("t", "x")], tmp_path / "solutions" / "two.ipynb")  # fine
    (tmp_path / "solutions" / "three.ipynb").write_text("{ not json")
    with pytest.raises(BuildError) as info:
        generate.build(tmp_path / "solutions", tmp_path / "exercises")
    messages = [str(e) for e in info.value.errors]
    assert len(messages) == 2
    assert any("one.ipynb" in m and "without a matching" in m for m in messages)
    assert any("three.ipynb" in m and "invalid JSON" in m for m in messages)


def test_missing_solutions_and_overlapping_folders_are_usage_errors(tmp_path, capsys):
    with pytest.raises(UsageError, match="solutions folder not found"):
        generate.build(tmp_path / "nope", tmp_path / "exercises")
    (tmp_path / "solutions").mkdir()
    with pytest.raises(UsageError, match="must not be the solutions folder"):
        generate.build(tmp_path / "solutions", tmp_path / "solutions")
    with pytest.raises(UsageError):
        generate.build(tmp_path / "solutions", tmp_path / "solutions" / "ex")
    assert main(["build", "--solutions", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.startswith("error: solutions folder not found")


# ------------------------------------------------------------- leak check


def test_leak_check_catches_solution_text_that_survives(course, monkeypatch):
    # Simulate a generator bug: the marker lines go, the solution stays.
    def buggy(parsed, cell_type):
        return "".join(line for line in parsed.lines if "###" not in line)

    monkeypatch.setattr(markers, "render_student", buggy)
    with pytest.raises(BuildError) as info:
        build(course)
    message = str(info.value)
    assert "solution text survived into the student notebook: 'return x * x'" in message
    assert "cell 3 (grade_id 'square'), line 2" in message
    assert not (course / "exercises").exists()


def test_leak_check_catches_hidden_tests_and_markers():
    src = make_generated(
        [answer("a", "x = 1"), graded("t", "assert x\n### BEGIN HIDDEN TESTS\nassert x == 1\n### END HIDDEN TESTS")]
    )
    nb = json.loads(generate.dumps(src.notebook))
    nb["cells"][1]["source"] = "assert x\nassert x == 1"
    with pytest.raises(LeakError, match="hidden-test text survived.*'assert x == 1'"):
        generate.verify_no_leaks(json.dumps(nb), src, shown_path="w.ipynb")
    nb["cells"][1]["source"] = "assert x\n### END HIDDEN TESTS"
    with pytest.raises(LeakError, match="a marker line survived"):
        generate.verify_no_leaks(json.dumps(nb), src, shown_path="w.ipynb")
    nb["cells"][1]["source"] = "assert x"
    nb["cells"][1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "1"}]
    with pytest.raises(LeakError, match="outputs survived"):
        generate.verify_no_leaks(json.dumps(nb), src, shown_path="w.ipynb")


def test_lines_also_in_public_text_are_not_leaks(tmp_path):
    # "return out" and "import numpy as np" are in the solution *and* in public cells.
    cells = [
        nbformat.v4.new_code_cell("import numpy as np\ndef helper(out):\n    return out"),
        answer("a", "def f(x):\n    ### BEGIN SOLUTION\n    import numpy as np\n    out = np.tanh(x)\n    return out\n    ### END SOLUTION"),
    ]
    make_notebook(cells, tmp_path / "solutions" / "w.ipynb")
    generate.build(tmp_path / "solutions", tmp_path / "exercises")
    gen = make_generated(cells)
    assert set(gen.secret_lines) == {"out = np.tanh(x)"}


def make_generated(cells):
    nb = nbformat.v4.new_notebook(cells=cells)
    return generate.generate_notebook(nb, path="w.ipynb")


def test_answer_and_locked_cells_carry_nbgraders_editable_and_deletable_flags(course):
    generate.build(course / "solutions", course / "exercises")
    nb = read_json(course / "exercises" / "basics.ipynb")
    flags = {c["metadata"]["nbgrader"]["grade_id"]: (c["metadata"].get("editable", True), c["metadata"].get("deletable", True))
             for c in nb["cells"] if "nbgrader" in c["metadata"]}
    assert flags["square"] == (True, False)  # the student edits an answer, but cannot delete it
    assert flags["test_square"] == (False, False) and flags["setup"] == (False, False)
    assert flags["why"] == (True, False)  # a markdown answer
    plain = [c for c in nb["cells"] if "nbgrader" not in c["metadata"]]
    assert plain and all("editable" not in c["metadata"] and "deletable" not in c["metadata"] for c in plain)
    assert "raises-exception" in cell_by_id(nb, "square")["metadata"]["tags"]
    assert "raises-exception" in cell_by_id(nb, "test_square")["metadata"]["tags"]
