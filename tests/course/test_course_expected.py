"""Expected values from the instructor's solution, their cache, and which records count."""

import json
import shutil

import nbformat
import pytest
from course_helpers import NAMED, answer, graded, make_notebook

from tensorgrad_course import assemble as asm
from tensorgrad_course import expected as exp
from tensorgrad_course import generate
from tensorgrad_course.cli import main
from tensorgrad_course.exercise_set import load_exercise_sets
from tensorgrad_course.kernel import Limits, RunResult

LIMITS = Limits(cell_timeout=60, notebook_timeout=120)


@pytest.fixture
def named_set(tmp_path):
    (tmp_path / "solutions").mkdir()
    shutil.copy(NAMED, tmp_path / "solutions" / "named.ipynb")
    generate.build(tmp_path / "solutions", tmp_path / "exercises")
    return tmp_path, load_exercise_sets(tmp_path / "solutions", tmp_path / "exercises")["named"]


def record(test, nonce="n", **kw):
    return {"v": 1, "nonce": nonce, "check": "named.scale", "test": test, "weight": 1, "line": 1,
            "outcome": "passed", "message": "", "failed_value": None, "duration": 0.0, "values": [], **kw}


# ----------------------------------------------------------------- collect


def test_only_well_formed_records_from_instructor_test_cells_count(named_set):
    _, exset = named_set
    assembly = asm.assemble(exset, asm.submitted_cells(exset.notebook), nonce="n")
    (answer_index,) = assembly.indexes(asm.ANSWER_CELL, "scale")
    (test_index,) = assembly.indexes(asm.TEST_CELL, "test_scale")
    run = RunResult(records={
        answer_index: [record("scale([1, 2], 3)")],
        test_index: [record("a"), record("b", nonce="guess"), {"not": "a record"}, record("b"), record("a"),
                     record("c", outcome="great")],
    }, records_dropped=2)
    collected = exp.collect(assembly, run, "n")
    assert collected.order == {"test_scale": ["a", "b"]}
    assert collected.duplicated == {"test_scale": {"a"}}
    details = [(f.kind, f.grade_id, f.tampering, f.detail) for f in collected.findings]
    assert details[0] == ("forged", "scale", True, "your answer cell 'scale' sent 1 grader record(s) of its own; ignored")
    assert details[1][:3] == ("forged", "test_scale", True) and "3 record(s) that the tests did not send" in details[1][3]
    assert "without this run's nonce" in details[1][3]
    assert details[2] == ("forged", "test_scale", True, "test 'a' was reported more than once; it scores 0")
    assert details[3][0] == "flood" and "2 grader record(s)" in details[3][3]


def test_saved_outputs_with_records_are_reported():
    data = {"cells": [{"cell_type": "code", "source": "", "outputs": [
        {"output_type": "display_data", "data": {"application/vnd.tensorgrad.grade+json": {}}}]}]}
    finding = asm.saved_records_finding(data)
    assert finding.kind == "forged" and finding.tampering and "saved outputs contain 1" in finding.detail
    assert asm.saved_records_finding({"cells": []}) is None


# ------------------------------------------------------------ the solution


def test_solution_run_gives_values_weights_and_hidden_flags_and_is_cached(named_set, monkeypatch):
    root, exset = named_set
    wanted = exp.load_or_compute(exset, LIMITS, root / "cache")
    scale = wanted.tasks["test_scale"]
    assert scale.check == "named.scale"
    assert [(t.name, t.weight, t.hidden) for t in scale.tests] == [
        ("scale([1, 2], 3)", 1.0, False), ("the shape is kept", 1.0, False), ("a negative factor", 1.0, True),
    ]
    assert scale.tests[2].values[0]["value"]["data"] == [-0.5, 1.0]
    assert scale.tests[0].values[0]["options"]["atol"] == 1e-6
    assert wanted.tasks["test_double"].tests == []  # assert-style
    (cached,) = (root / "cache").iterdir()
    assert cached.name.startswith("named-") and json.loads(cached.read_text())["key"] == exp.cache_key(exset)

    def no_run(*args):
        raise AssertionError("the cache should have been used")

    monkeypatch.setattr(exp, "compute", no_run)
    assert exp.load_or_compute(exset, LIMITS, root / "cache").to_dict() == wanted.to_dict()


def test_a_changed_cache_file_is_detected_and_recomputed(named_set, monkeypatch, capsys):
    root, exset = named_set
    wanted = exp.load_or_compute(exset, LIMITS, root / "cache")
    (cached,) = (root / "cache").iterdir()
    data = json.loads(cached.read_text())
    data["tasks"]["test_scale"]["tests"][0]["values"][0]["value"]["data"] = [0.0, 0.0]
    cached.write_text(json.dumps(data))  # a poisoned value, with the old checksum
    runs = []
    monkeypatch.setattr(exp, "compute", lambda *a: runs.append(1) or wanted)
    assert exp.load_or_compute(exset, LIMITS, root / "cache").to_dict() == wanted.to_dict() and runs == [1]
    assert "was changed after it was written" in capsys.readouterr().err
    assert exp.load_or_compute(exset, LIMITS, root / "cache") and runs == [1]  # rewritten, intact again


def test_cache_key_follows_the_solution_and_the_library(named_set, monkeypatch):
    _, exset = named_set
    key = exp.cache_key(exset)
    exset.source_sha256 = "0" * 64
    assert exp.cache_key(exset) != key
    monkeypatch.setattr(exp, "library_hash", lambda: "other")
    assert exp.cache_key(exset) not in (key,)


def test_assert_style_sets_need_no_solution_run(course, monkeypatch):
    generate.build(course / "solutions", course / "exercises")
    exset = load_exercise_sets(course / "solutions", course / "exercises")["basics"]
    monkeypatch.setattr(exp, "run_notebook", lambda *a: pytest.fail("no kernel needed"))
    wanted = exp.compute(exset, LIMITS)
    assert all(t.tests == [] for t in wanted.tasks.values())


def test_a_solution_failing_its_own_tests_stops_grading_before_any_student(tmp_path, capsys):
    test_source = (
        "from tensorgrad_course import check\n"
        "t = check('broken.task1')\n"
        "with t.test('the answer'):\n"
        "    t.submit('answer', answer, expected=42)\n"
        "t.done()"
    )
    make_notebook([answer("a", "### BEGIN SOLUTION\nanswer = 41\n### END SOLUTION"), graded("t", test_source)],
                  tmp_path / "solutions" / "broken.ipynb")
    generate.build(tmp_path / "solutions", tmp_path / "exercises")
    (tmp_path / "subs").mkdir()
    shutil.copy(tmp_path / "exercises" / "broken.ipynb", tmp_path / "subs" / "ann.ipynb")
    code = main(["grade", str(tmp_path / "subs"), "--solutions", str(tmp_path / "solutions"),
                 "--exercises", str(tmp_path / "exercises"), "--out", str(tmp_path / "out"),
                 "--timeout-cell", "60"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert "the solution does not pass its own tests" in err
    assert "test 't' / 'the answer': failed: your answer is 41, expected 42" in err
    assert not (tmp_path / "out" / "json").exists()


def test_a_test_cell_with_check_but_no_test_is_an_authoring_error(tmp_path):
    make_notebook([answer("a", "x = 1"), graded("t", "from tensorgrad_course import check\nt = check('s.t')\nt.done()")],
                  tmp_path / "solutions" / "empty.ipynb")
    exset = load_exercise_sets(tmp_path / "solutions", None)["empty"]
    with pytest.raises(exp.SolutionError, match="calls check\\('s.t'\\) but ran no test"):
        exp.compute(exset, LIMITS)


def test_raises_exception_cells_may_fail_in_the_solution(tmp_path):
    demo = nbformat.v4.new_code_cell("1 / 0", metadata={"tags": ["raises-exception"]})
    test_source = ("from tensorgrad_course import check\nt = check('s.t')\n"
                   "with t.test('x'):\n    t.submit('x', x)\nt.done()")
    make_notebook([demo, answer("a", "x = 1"), graded("t", test_source)], tmp_path / "solutions" / "demo.ipynb")
    exset = load_exercise_sets(tmp_path / "solutions", None)["demo"]
    assert [t.name for t in exp.compute(exset, LIMITS).tasks["t"].tests] == ["x"]
