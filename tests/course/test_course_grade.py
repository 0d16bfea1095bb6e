"""The grader on a batch of synthetic submissions, run once (jobs=2) for the whole module.

Every submission starts from the released exercise (``exercises/basics.ipynb``)
and changes what a real student might: right or wrong answers, edited or
deleted test cells, duplicated or retyped cells, stderr noise, infinite loops,
a dying kernel, a huge allocation, monkeypatching... The batch must finish and
each submission must get the right scores, statuses and integrity findings.
"""

import copy
import hashlib
import json
import time

import pytest
from course_helpers import BASICS, cell_by_id, read_json

from tensorgrad.course import generate
from tensorgrad.course.grade import discover, grade_batch
from tensorgrad.course.kernel import Limits

CORRECT = {
    "square": "def square(x):\n    return x * x",
    "mean": "def mean(xs):\n    return sum(xs) / len(xs)",
    "predict": "leaf = True",
}
LIMITS = Limits(cell_timeout=4, notebook_timeout=45, interrupt_grace=2)

WEDGED_LOOP = """\
import time
while True:
    try:
        time.sleep(0.05)
    except KeyboardInterrupt:
        pass  # swallows the grader's interrupt
"""


def from_release(release, answers=None, edit=None):
    nb = copy.deepcopy(release)
    for gid, src in {**CORRECT, **(answers or {})}.items():
        cell_by_id(nb, gid)["source"] = src
    if edit:
        edit(nb)
    return nb


def delete(*gids):
    def edit(nb):
        nb["cells"] = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") not in gids]
    return edit


def duplicate_square_wrong_first(nb):
    cells = nb["cells"]
    right = cell_by_id(nb, "square")
    wrong = dict(copy.deepcopy(right), source="def square(x):\n    return 0")
    cells.insert(cells.index(right), wrong)


def unknown_kernel(nb):
    nb["metadata"]["kernelspec"] = {"name": "no-such-kernel", "display_name": "?", "language": "python"}


def retype_mean(nb):
    cell_by_id(nb, "mean")["cell_type"] = "markdown"
    cell_by_id(nb, "mean").pop("outputs", None)
    cell_by_id(nb, "mean").pop("execution_count", None)


def weaken_test(nb):
    cell_by_id(nb, "test_square")["source"] = "assert True  # much easier"


SCENARIOS = {
    "alice_correct": lambda r: from_release(r),
    "bob_unattempted": lambda r: copy.deepcopy(r),
    "carl_wrong": lambda r: from_release(r, {"square": "def square(x):\n    return x + x"}),
    "dana_hidden_wrong": lambda r: from_release(r, {"square": "def square(x):\n    return x * abs(x)"}),
    "erin_weakened_test": lambda r: from_release(r, {"square": "def square(x):\n    return x + x"}, weaken_test),
    "fred_deleted": lambda r: from_release(r, edit=delete("test_square", "mean")),
    "gina_duplicated": lambda r: from_release(r, edit=duplicate_square_wrong_first),
    "hank_retyped": lambda r: from_release(r, edit=retype_mean),
    "ivy_stderr": lambda r: from_release(r, {"square": (
        "import sys, warnings, logging\n"
        "print('debug: about to define square', file=sys.stderr)\n"
        "warnings.warn('this is only a warning')\n"
        "logging.getLogger('student').warning('a log line on stderr')\n"
        "def square(x):\n    return x * x"
    )}),
    "jack_infinite_loop": lambda r: from_release(r, {"mean": "while True:\n    pass"}),
    "kim_os_exit": lambda r: from_release(r, {"mean": "import os\nos._exit(1)"}),
    "leo_huge_allocation": lambda r: from_release(r, {"mean": (
        "import numpy as np\nbig = np.ones(10**11)\ndef mean(xs):\n    return sum(xs) / len(xs)"
    )}),
    "mia_hides_tracebacks": lambda r: from_release(r, {"square": (
        "ip = get_ipython()\n"
        "ip.showtraceback = lambda *a, **k: None\n"
        "ip._showtraceback = lambda *a, **k: None\n"
        "type(ip).showtraceback = lambda *a, **k: None\n"
        "def square(x):\n    return x + x"
    )}),
    "ned_patches_allclose": lambda r: from_release(r, {"mean": (
        "import numpy as np\nnp.allclose = lambda *a, **k: True\ndef mean(xs):\n    return 0.0"
    )}),
    "pam_ignores_interrupts": lambda r: from_release(r, {"mean": WEDGED_LOOP}),
    "rita_unknown_kernelspec": lambda r: from_release(r, edit=unknown_kernel),
    "quinn_floods_output": lambda r: from_release(r, {"square": (
        "print('x' * 50_000_000)\ndef square(x):\n    return x * x"
    )}),
}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading")
    (root / "solutions").mkdir()
    (root / "solutions" / "basics.ipynb").write_bytes(BASICS.read_bytes())
    generate.build(root / "solutions", root / "exercises")
    release = read_json(root / "exercises" / "basics.ipynb")
    subs = root / "submissions"
    for student, make in SCENARIOS.items():
        (subs / student).mkdir(parents=True)
        (subs / student / "basics.ipynb").write_text(json.dumps(make(release), indent=1))
    (subs / "olga_invalid").mkdir()
    (subs / "olga_invalid" / "basics.ipynb").write_text('{"cells": [ this is not json')
    (subs / "sol_instructor").mkdir()
    (subs / "sol_instructor" / "basics.ipynb").write_bytes(BASICS.read_bytes())

    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in subs.rglob("*.ipynb")}
    start = time.monotonic()
    results = grade_batch(discover([subs]), root / "solutions", root / "exercises", LIMITS, jobs=2)
    elapsed = time.monotonic() - start
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in subs.rglob("*.ipynb")}
    return {r.student: r for r in results}, elapsed, before, after


def tasks(result):
    return {t.grade_id: t for t in result.tasks}


def points(result):
    return {t.grade_id: t.points for t in result.tasks}


def statuses(result):
    return {t.grade_id: t.status for t in result.tasks}


def findings(result):
    return {(f["kind"], f["grade_id"]) for f in result.integrity}


def test_every_submission_is_graded_and_the_batch_finishes(batch):
    results, elapsed, _, _ = batch
    assert sorted(results) == sorted([*SCENARIOS, "olga_invalid", "sol_instructor"])
    # Each notebook stays within its deadline (plus kernel start and shutdown).
    assert all(r.duration < LIMITS.notebook_timeout + 15 for r in results.values())
    assert elapsed < len(results) * (LIMITS.notebook_timeout + 15) / 2


def test_submissions_are_never_modified(batch):
    _, _, before, after = batch
    assert before == after


def test_correct_answers_score_full(batch):
    r = batch[0]["alice_correct"]
    assert (r.status, r.score, r.max_score) == ("graded", 4, 4)
    assert set(statuses(r).values()) == {"passed"}
    assert r.integrity == []
    assert len(r.sha256) == 64


def test_instructor_solution_scores_full(batch):
    r = batch[0]["sol_instructor"]
    assert (r.status, r.score) == ("graded", 4)
    # The source has hidden tests the release does not: correctly reported as an edit.
    assert findings(r) == {("edited", "test_square")}


def test_unattempted_exercise_scores_zero_not_attempted(batch):
    r = batch[0]["bob_unattempted"]
    assert (r.status, r.score) == ("graded", 0)
    assert set(statuses(r).values()) == {"not_attempted"}
    assert r.integrity == []


def test_wrong_answer_scores_zero_with_the_assertion_message(batch):
    r = batch[0]["carl_wrong"]
    t = tasks(r)["test_square"]
    assert (t.status, t.points, t.max_points, t.reason) == ("failed", 0, 2, "square(3) should be 9")
    assert points(r) == {"test_square": 0, "test_mean": 1, "test_predict": 1}


def test_hidden_tests_are_run(batch):
    t = tasks(batch[0]["dana_hidden_wrong"])["test_square"]
    assert (t.status, t.reason, t.hidden) == ("failed", "square(-2) should be 4", True)


def test_weakened_test_cell_is_graded_by_the_instructor_test_and_reported(batch):
    r = batch[0]["erin_weakened_test"]
    assert statuses(r)["test_square"] == "failed" and r.score == 2
    (finding,) = r.integrity
    assert (finding["kind"], finding["grade_id"], finding["tampering"]) == ("edited", "test_square", True)


def test_deleted_cells(batch):
    r = batch[0]["fred_deleted"]
    assert statuses(r) == {"test_square": "passed", "test_mean": "missing", "test_predict": "passed"}
    assert "answer cell 'mean' is missing from your notebook" in tasks(r)["test_mean"].reason
    assert findings(r) == {("deleted", "test_square"), ("deleted", "mean")}
    tampering = {f["grade_id"] for f in r.integrity if f["tampering"]}
    assert tampering == {"test_square"}  # a deleted answer is an accident, not tampering


def test_duplicated_cell_runs_all_copies_in_order(batch):
    r = batch[0]["gina_duplicated"]
    assert r.score == 4
    assert findings(r) == {("duplicated", "square")}


def test_retyped_cell_is_run_as_code_and_reported(batch):
    r = batch[0]["hank_retyped"]
    assert r.score == 4
    assert findings(r) == {("retyped", "mean")}


def test_stderr_and_warnings_never_zero_a_task(batch):
    r = batch[0]["ivy_stderr"]
    assert (r.status, r.score) == ("graded", 4)


def test_infinite_loop_times_out_that_task_only(batch):
    r = batch[0]["jack_infinite_loop"]
    assert r.status == "graded"
    assert statuses(r) == {"test_square": "passed", "test_mean": "timeout", "test_predict": "passed"}
    assert "your answer cell 'mean' timed out" in tasks(r)["test_mean"].reason
    assert r.score == 3


def test_dead_kernel_scores_the_rest_zero_with_a_reason(batch):
    r = batch[0]["kim_os_exit"]
    assert r.status == "kernel_died"
    assert "exited with code 1" in r.reason and "answer cell 'mean'" in r.reason
    assert statuses(r) == {"test_square": "passed", "test_mean": "error", "test_predict": "error"}
    assert tasks(r)["test_predict"].reason.startswith("not run: the kernel exited with code 1")
    assert r.score == 2


def test_huge_allocation_fails_that_task_and_the_kernel_survives(batch):
    r = batch[0]["leo_huge_allocation"]
    assert r.status == "graded"
    assert statuses(r) == {"test_square": "passed", "test_mean": "error", "test_predict": "passed"}
    assert "your answer cell 'mean' raised MemoryError" in tasks(r)["test_mean"].reason


def test_hiding_tracebacks_does_not_turn_a_failure_into_a_pass(batch):
    r = batch[0]["mia_hides_tracebacks"]
    t = tasks(r)["test_square"]
    assert (t.status, t.points, t.reason) == ("failed", 0, "square(3) should be 9")
    patched = [f for f in r.integrity if f["kind"] == "patched"]
    assert patched and patched[0]["tampering"]
    assert "showtraceback" in patched[0]["detail"]


def test_monkeypatched_allclose_is_restored_before_the_test(batch):
    r = batch[0]["ned_patches_allclose"]
    assert statuses(r)["test_mean"] == "failed"
    assert "mean([1, 2, 3]) is 0.0, expected 2.0" in tasks(r)["test_mean"].reason
    (patched,) = [f for f in r.integrity if f["kind"] == "patched"]
    assert "numpy.allclose" in patched["detail"] and patched["grade_id"] == "test_mean"


def test_kernel_ignoring_interrupts_stops_the_notebook_as_timeout(batch):
    r = batch[0]["pam_ignores_interrupts"]
    assert r.status == "timeout"
    assert statuses(r) == {"test_square": "passed", "test_mean": "timeout", "test_predict": "timeout"}
    assert tasks(r)["test_predict"].reason.startswith("not run: ")
    assert r.score == 2


def test_output_flood_is_capped_and_graded(batch):
    r = batch[0]["quinn_floods_output"]
    assert (r.status, r.score) == ("graded", 4)


def test_the_submissions_kernelspec_is_ignored(batch):
    r = batch[0]["rita_unknown_kernelspec"]
    assert (r.status, r.score) == ("graded", 4)


def test_invalid_notebook_is_reported_and_scored_zero(batch):
    r = batch[0]["olga_invalid"]
    assert r.status == "invalid_notebook"
    assert "invalid JSON" in r.reason
    assert set(statuses(r).values()) == {"missing"} and r.score == 0 and r.max_score == 4
