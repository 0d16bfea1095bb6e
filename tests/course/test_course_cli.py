"""The command line: report files, formats, shards, progress, re-run stability, exit codes, one-line errors."""

import csv
import json
import multiprocessing
import os

import jsonschema
import pytest
from course_helpers import cell_by_id, read_json

from tensorgrad_course import generate, grade, reports
from tensorgrad_course.cli import _Progress, main, shard_of
from tensorgrad_course.grade import Submission, grade_batch


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


def test_grade_writes_json_csv_gradescope_and_summary(graded_course, capsys):
    out = graded_course / "out"
    assert main(grade_args(graded_course, out)) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("Graded 2 submissions in ")
    assert printed[0].endswith(": 1 graded, 1 invalid_notebook; mean score 25%; tampering findings: 0")
    assert printed[1].startswith("Reports written to") and len(printed) == 2  # a one-line summary

    # One JSON per submission, valid against the published schema.
    ann = json.loads((out / "json" / "ann" / "basics.json").read_text())
    jsonschema.validate(ann, reports.SUBMISSION_SCHEMA)
    assert (ann["schema"], ann["schema_version"]) == ("tensorgrad-course.submission", 1)
    assert ann["grader_version"] == grade.GRADER_VERSION and ann["environment"]["python"]
    assert ann["submission"]["path"].endswith("ann.ipynb") and len(ann["submission"]["sha256"]) == 64
    assert (ann["status"], ann["score"], ann["max_score"], ann["exercise_set"]) == ("graded", 2, 4, "basics")
    square = ann["tasks"][0]
    assert (square["grade_id"], square["status"], square["score"]) == ("test_square", "passed", 2)
    assert square["tests"][0]["name"] == "test_square" and "duration" in square["tests"][0]
    bob = json.loads((out / "json" / reports.safe_name("bo b") / "basics.json").read_text())  # a safe folder name
    jsonschema.validate(bob, reports.SUBMISSION_SCHEMA)
    assert bob["status"] == "invalid_notebook" and "invalid JSON" in bob["reason"]

    # CSV: one row per submission, a column per task.
    rows = list(csv.DictReader((out / "csv" / "basics.csv").open()))
    assert list(rows[0]) == ["student", "path", "sha256", "status", "score", "max_score",
                             "test_square", "test_mean", "test_predict", "reason"]
    assert [(r["student"], r["status"], r["score"], r["test_square"], r["test_mean"]) for r in rows] == [
        ("ann", "graded", "2", "2", "0"), ("bo b", "invalid_notebook", "0", "0", "0"),
    ]

    gradescope = json.loads((out / "gradescope" / "ann" / "results.json").read_text())
    assert gradescope["score"] == 2
    first = gradescope["tests"][0]
    assert set(first) == {"name", "score", "max_score", "status", "visibility", "output"}
    assert (first["name"], first["status"], first["visibility"]) == ("basics - test_square", "passed", "after_published")
    assert gradescope["tests"][1]["visibility"] == "visible"

    report = json.loads((out / "report.json").read_text())
    assert report["schema"] == "tensorgrad-course.batch" and report["counts"] == {"graded": 1, "invalid_notebook": 1}
    assert (out / "summary.txt").read_text().startswith("Graded 2 submissions: ")
    assert not list(out.rglob("*.tmp"))  # atomic writes leave nothing behind

    # Re-running over the same inputs gives the same grades, byte for byte.
    first_csv, first_gs = (out / "csv" / "basics.csv").read_bytes(), (out / "gradescope" / "ann" / "results.json").read_bytes()
    first_summary = (out / "summary.txt").read_bytes()
    assert main(grade_args(graded_course, out) + ["--jobs", "2"]) == 0
    assert (out / "csv" / "basics.csv").read_bytes() == first_csv
    assert (out / "gradescope" / "ann" / "results.json").read_bytes() == first_gs
    assert (out / "summary.txt").read_bytes() == first_summary


def test_format_selects_outputs(graded_course):
    out = graded_course / "csv-only"
    assert main(grade_args(graded_course, out) + ["--format", "csv"]) == 0
    assert (out / "csv" / "basics.csv").is_file() and (out / "summary.txt").is_file()
    assert not (out / "json").exists() and not (out / "gradescope").exists() and not (out / "report.json").exists()
    out = graded_course / "two"
    assert main(grade_args(graded_course, out) + ["--format", "json", "--format", "gradescope"]) == 0
    assert (out / "json").is_dir() and (out / "gradescope").is_dir() and not (out / "csv").exists()


def test_shards_then_report(graded_course, capsys):
    subs = graded_course / "subs"
    for name in ("cy", "di", "ed"):
        (subs / f"{name}.ipynb").write_bytes((subs / "ann.ipynb").read_bytes())
    out = graded_course / "sharded"
    args = grade_args(graded_course, out)
    assert main(args + ["--shard", "1/2"]) == 0
    first = capsys.readouterr().out
    assert first.startswith("shard 1/2: Graded 3 submissions") and "tensorgrad-course report" in first
    assert main(["report", str(out)]) == 1  # shard 2 is missing
    assert "shard(s) 2/2 have not written their results yet" in capsys.readouterr().err
    assert main(args + ["--shard", "2/2"]) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    assert capsys.readouterr().out.startswith("Graded 5 submissions: 4 graded, 1 invalid_notebook")
    rows = list(csv.DictReader((out / "csv" / "basics.csv").open()))
    assert sorted(r["student"] for r in rows) == ["ann", "bo b", "cy", "di", "ed"]
    assert json.loads((out / "gradescope" / "cy" / "results.json").read_text())["score"] == 2
    # The merged files equal those of one unsharded run.
    whole = graded_course / "whole"
    assert main(args[:-2] + ["--out", str(whole)]) == 0
    assert (whole / "csv" / "basics.csv").read_bytes() == (out / "csv" / "basics.csv").read_bytes()


def test_students_are_dealt_to_shards_whole():
    subs = [Submission(s, f"{s}/{n}.ipynb") for s in "abcde" for n in ("x", "y")]
    shards = [shard_of(subs, (k, 3)) for k in (1, 2, 3)]
    assert sorted(s.path for part in shards for s in part) == sorted(s.path for s in subs)
    assert [sorted({s.student for s in part}) for part in shards] == [["a", "d"], ["b", "e"], ["c"]]


def test_progress_bar_on_a_terminal(capsys):
    progress = _Progress(True)
    result = grade.SubmissionResult("ann", "a.ipynb", "basics", "", "graded", score=3, max_score=4)
    progress(result, 1, 2)
    progress(result, 2, 2)
    err = capsys.readouterr().err
    assert "[############------------] 1/2" in err and "ann basics: 3/4" in err and err.endswith("\n")
    _Progress(False)(result, 1, 2)
    assert capsys.readouterr().err == ""


def test_usage_errors_are_one_line_exit_2(graded_course, capsys):
    assert main(["grade", "--solutions", str(graded_course / "nope"), str(graded_course / "subs")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: solutions folder not found") and len(err.splitlines()) == 1

    assert main(["grade", "--solutions", str(graded_course / "solutions"), str(graded_course / "ghost.ipynb")]) == 2
    assert capsys.readouterr().err.startswith("error: submission not found")

    for bad in (["--jobs", "0"], ["--format", "xml"], ["--shard", "3/2"], ["--shard", "a/b"]):
        with pytest.raises(SystemExit) as info:
            main(["grade", *bad, str(graded_course / "subs")])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and "error:" in err
    with pytest.raises(SystemExit):
        main(["frobnicate"])
    assert main(["report", str(graded_course / "nowhere")]) == 2
    assert main(["report", str(graded_course)]) == 2
    assert "no shard manifests" in capsys.readouterr().err


def test_broken_solutions_stop_grading_before_any_kernel(graded_course, capsys):
    bad = graded_course / "solutions" / "basics.ipynb"
    bad.write_text(bad.read_text().replace("### END SOLUTION", "### END SOLUTIONS", 1))
    assert main(grade_args(graded_course, graded_course / "out")) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "looks like a marker" in err and "Traceback" not in err
    assert not (graded_course / "out").exists()


def test_a_grader_bug_is_reported_and_the_batch_goes_on(graded_course, monkeypatch):
    real = grade._grade

    def flaky(sub, *arguments):
        if sub.student == "x":
            raise KeyError("oops")
        return real(sub, *arguments)

    monkeypatch.setattr(grade, "_grade", flaky)
    subs = [Submission("x", str(graded_course / "subs" / "bug.ipynb")),
            Submission("y", str(graded_course / "subs" / "bo b.ipynb"))]
    results = grade_batch(subs, graded_course / "solutions", graded_course / "exercises")
    assert [(r.student, r.status) for r in results] == [("x", "grader_error"), ("y", "invalid_notebook")]
    assert results[0].reason == "KeyError: 'oops'"


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_crashing_worker_process_does_not_lose_the_batch(graded_course, monkeypatch):
    real = grade._grade

    def crash(sub, *arguments):
        if sub.student == "crash":
            os._exit(9)  # the worker process itself dies
        return real(sub, *arguments)

    monkeypatch.setattr(grade, "_grade", crash)  # inherited by forked workers
    subs = [Submission(name, str(graded_course / "subs" / f"{name}.ipynb")) for name in ("a", "crash", "c", "d")]
    results = grade_batch(subs, graded_course / "solutions", graded_course / "exercises", jobs=2)
    statuses = {r.student: r.status for r in results}
    assert statuses == {"a": "invalid_notebook", "crash": "grader_error", "c": "invalid_notebook", "d": "invalid_notebook"}


def test_without_bubblewrap_grade_refuses_unless_told_no_sandbox(graded_course, monkeypatch, capsys):
    from tensorgrad_course import sandbox

    monkeypatch.setattr(sandbox, "bwrap", lambda: (None, "bubblewrap (bwrap) is not installed"))
    out = graded_course / "out"
    assert main(grade_args(graded_course, out)) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: bubblewrap (bwrap) is not installed: refusing to run")
    assert "apt-get install -y bubblewrap" in err[0] and "--no-sandbox" in err[0]
    assert not out.exists()  # nothing ran
    assert main(grade_args(graded_course, out) + ["--no-sandbox"]) == 0
    assert "warning: no sandbox" in capsys.readouterr().err
    assert "WARNING: graded without a sandbox" in (out / "summary.txt").read_text()
    assert json.loads((out / "report.json").read_text())["limits"]["sandbox"] is False


# ------------------------------------------------------------ per-kernel limits as flags

LIMIT_FLAGS = {"--memory": "memory_mb", "--processes": "processes", "--disk": "disk_mb",
               "--disk-files": "disk_files", "--file-size": "file_mb",
               "--timeout-cell": "cell_timeout", "--timeout-notebook": "notebook_timeout"}


def _limits_of(graded_course, monkeypatch, *flags):
    seen = {}

    def fake_batch(submissions, solutions, exercises, limits, **kwargs):
        seen["limits"] = limits
        return []

    monkeypatch.setattr(grade, "grade_batch", fake_batch)
    assert main([*grade_args(graded_course, graded_course / "out"), *flags]) == 0
    return seen["limits"]


def test_every_per_kernel_limit_is_a_flag_with_the_grader_s_default(graded_course, monkeypatch, capsys):
    from tensorgrad_course.kernel import Limits

    base = grade_args(graded_course, graded_course / "out")
    limits = _limits_of(graded_course, monkeypatch)  # grade_args sets only the two timeouts
    for field in ("memory_mb", "processes", "disk_mb", "disk_files", "file_mb"):
        assert getattr(limits, field) == getattr(Limits(), field), field
    limits = _limits_of(graded_course, monkeypatch, "--memory", "512", "--processes", "8", "--disk", "50",
                        "--disk-files", "300", "--file-size", "5")
    assert (limits.memory_mb, limits.processes, limits.disk_mb, limits.disk_files, limits.file_mb) == (512, 8, 50, 300, 5)
    assert _limits_of(graded_course, monkeypatch, "--processes", "0", "--disk", "0").processes == 0  # 0: no limit
    with pytest.raises(SystemExit) as info:
        main(["grade", "--help"])
    assert info.value.code == 0
    usage = " ".join(capsys.readouterr().out.split())
    for flag in LIMIT_FLAGS:
        assert flag in usage, flag
    assert "(default 64; 0: no limit)" in usage and "(default 200; 0: no limit)" in usage
    for bad in (["--processes", "-1"], ["--disk", "lots"], ["--memory", "0"]):
        with pytest.raises(SystemExit) as info:
            main([*base, *bad])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and "error:" in err


FORKS_TEN = """import os, time
forked = 0
for _ in range(10):
    if os.fork() == 0:
        time.sleep(20)
        os._exit(0)
    forked += 1
time.sleep(1)  # (the monitor looks every 0.2 s)
def square(x):
    return x * x"""


def test_a_process_limit_from_the_command_line_stops_a_kernel(graded_course):
    release = read_json(graded_course / "exercises" / "basics.ipynb")
    cell_by_id(release, "square")["source"] = FORKS_TEN
    (graded_course / "subs" / "ann.ipynb").write_text(json.dumps(release))
    (graded_course / "subs" / "bo b.ipynb").unlink()
    rows = {}
    for processes in ("64", "6"):
        out = graded_course / f"out{processes}"
        assert main([*grade_args(graded_course, out), "--processes", processes]) == 0
        rows[processes] = json.loads((out / "json" / "ann" / "basics.json").read_text())
        assert rows[processes]["limits"]["processes"] == int(processes)
    assert rows["64"]["tasks"][0]["status"] == "passed"  # ten processes are under the default
    assert rows["6"]["tasks"][0]["status"] != "passed"
    assert "more than 6 processes and threads at once (the process limit)" in json.dumps(rows["6"])
