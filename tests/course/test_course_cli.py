"""The command line: report files, re-run stability, exit codes and one-line errors."""

import csv
import json
import multiprocessing
import os

import pytest
from course_helpers import cell_by_id, read_json

from tensorgrad.course import generate, grade
from tensorgrad.course.cli import main
from tensorgrad.course.grade import Submission, grade_batch


@pytest.fixture
def graded_course(course):
    generate.build(course / "solutions", course / "exercises")
    release = read_json(course / "exercises" / "basics.ipynb")
    cell_by_id(release, "square")["source"] = "def square(x):\n    return x * x"
    subs = course / "subs"
    subs.mkdir()
    (subs / "ann.ipynb").write_text(json.dumps(release))
    (subs / "bo b.ipynb").write_text("not a notebook")
    return course


def grade_args(course, out):
    return ["grade", "--solutions", str(course / "solutions"), "--exercises", str(course / "exercises"),
            str(course / "subs"), "--out", str(out), "--timeout", "20", "--timeout-notebook", "60"]


def test_grade_writes_csv_gradescope_report_and_summary(graded_course, capsys):
    out = graded_course / "out"
    assert main(grade_args(graded_course, out)) == 0
    printed = capsys.readouterr().out
    assert "Graded 2 submission(s) of 2 student(s)" in printed
    assert "invalid_notebook" in printed and "Reports written to" in printed

    rows = list(csv.DictReader((out / "grades.csv").open()))
    assert list(rows[0]) == ["student", "notebook", "grade_id", "points", "max_points", "status", "reason"]
    ann = {r["grade_id"]: r for r in rows if r["student"] == "ann"}
    assert (ann["test_square"]["points"], ann["test_square"]["max_points"], ann["test_square"]["status"]) == ("2", "2", "passed")
    assert ann["test_mean"]["status"] == "not_attempted"

    gradescope = json.loads((out / "results" / "ann" / "results.json").read_text())
    assert gradescope["score"] == 2
    first = gradescope["tests"][0]
    assert set(first) == {"name", "score", "max_score", "status", "visibility", "output"}
    assert (first["name"], first["status"], first["visibility"]) == ("basics - test_square", "passed", "after_published")
    assert gradescope["tests"][1]["visibility"] == "visible"
    assert [d.name for d in (out / "results").iterdir()] != []
    assert any(d.name.startswith("bo_b-") for d in (out / "results").iterdir())  # safe folder name

    report = json.loads((out / "report.json").read_text())
    assert report["schema_version"] == 1 and report["grader_version"] == grade.GRADER_VERSION
    sub = {s["student"]: s for s in report["submissions"]}["ann"]
    assert sub["status"] == "graded" and len(sub["sha256"]) == 64 and sub["max_score"] == 4
    assert (out / "summary.txt").read_text().startswith("Graded 2 submission(s)")
    assert not list(out.rglob("*.tmp"))  # atomic writes leave nothing behind

    # Re-running over the same inputs gives the same grades, byte for byte.
    first_csv, first_gs = (out / "grades.csv").read_bytes(), (out / "results" / "ann" / "results.json").read_bytes()
    assert main(grade_args(graded_course, out) + ["--jobs", "2"]) == 0
    assert (out / "grades.csv").read_bytes() == first_csv
    assert (out / "results" / "ann" / "results.json").read_bytes() == first_gs


def test_usage_errors_are_one_line_exit_2(graded_course, capsys):
    assert main(["grade", "--solutions", str(graded_course / "nope"), str(graded_course / "subs")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: solutions folder not found") and len(err.splitlines()) == 1

    assert main(["grade", "--solutions", str(graded_course / "solutions"), str(graded_course / "ghost.ipynb")]) == 2
    assert capsys.readouterr().err.startswith("error: submission not found")

    with pytest.raises(SystemExit) as info:
        main(["grade", "--jobs", "0", str(graded_course / "subs")])
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        main(["frobnicate"])


def test_broken_solutions_stop_grading_before_any_kernel(graded_course, capsys):
    bad = graded_course / "solutions" / "basics.ipynb"
    bad.write_text(bad.read_text().replace("### END SOLUTION", "### END SOLUTIONS", 1))
    assert main(grade_args(graded_course, graded_course / "out")) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "looks like a marker" in err and "Traceback" not in err
    assert not (graded_course / "out").exists()


def test_a_grader_bug_is_reported_and_the_batch_goes_on(graded_course, monkeypatch):
    real = grade._grade

    def flaky(sub, sets, limits):
        if sub.student == "x":
            raise KeyError("oops")
        return real(sub, sets, limits)

    monkeypatch.setattr(grade, "_grade", flaky)
    subs = [Submission("x", str(graded_course / "subs" / "bug.ipynb")),
            Submission("y", str(graded_course / "subs" / "bo b.ipynb"))]
    results = grade_batch(subs, graded_course / "solutions", graded_course / "exercises")
    assert [(r.student, r.status) for r in results] == [("x", "grader_error"), ("y", "invalid_notebook")]
    assert results[0].reason == "KeyError: 'oops'"


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_crashing_worker_process_does_not_lose_the_batch(graded_course, monkeypatch):
    real = grade._grade

    def crash(sub, sets, limits):
        if sub.student == "crash":
            os._exit(9)  # the worker process itself dies
        return real(sub, sets, limits)

    monkeypatch.setattr(grade, "_grade", crash)  # inherited by forked workers
    subs = [Submission(name, str(graded_course / "subs" / f"{name}.ipynb")) for name in ("a", "crash", "c", "d")]
    results = grade_batch(subs, graded_course / "solutions", graded_course / "exercises", jobs=2)
    statuses = {r.student: r.status for r in results}
    assert statuses == {"a": "invalid_notebook", "crash": "grader_error", "c": "invalid_notebook", "d": "invalid_notebook"}
