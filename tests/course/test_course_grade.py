"""The grader on a batch of synthetic submissions, run once (jobs=2) for the whole module.

Two exercise sets: ``basics`` (assert-style test cells, decided by the kernel's
execute_reply) and ``named`` (named tests with ``check()``, values compared in
the grader's process). Every submission starts from a released exercise and
changes what a real student might: right or wrong answers, edited or deleted
test cells, duplicated or retyped cells, stderr noise, infinite loops, a dying
kernel, a huge allocation, monkeypatching, forged grader records... The batch
must finish and each submission must get the right scores, statuses and
integrity findings.
"""

import copy
import hashlib
import json
import time

import pytest
from course_helpers import BASICS, cell_by_id, two_set_course

from tensorgrad_course import reports
from tensorgrad_course.grade import discover, grade_batch
from tensorgrad_course.kernel import Limits

CORRECT = {
    "square": "def square(x):\n    return x * x",
    "mean": "def mean(xs):\n    return sum(xs) / len(xs)",
    "predict": "leaf = True",
}
# Generous for a loaded machine (an import can take seconds); the loops below cost one cell timeout each.
LIMITS = Limits(cell_timeout=10, notebook_timeout=90, interrupt_grace=3)

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


def add_square_below(nb):
    """A new cell (no metadata) with the answer, as a student who inserts a cell writes it."""
    cells = nb["cells"]
    cells.insert(cells.index(cell_by_id(nb, "square")) + 1,
                 {"cell_type": "code", "metadata": {}, "source": "def square(x):\n    return x * x",
                  "outputs": [], "execution_count": None, "id": "added-by-tom"})


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
    "tom_answers_in_a_new_cell": lambda r: from_release(r, {"square": "def square(x):\n    raise NotImplementedError()"},
                                                        add_square_below),
    # The kernel's folder holds a copy of the submission and nothing else.
    "sam_looks_around": lambda r: from_release(r, {"mean": (
        "import os\nfiles = sorted(os.listdir('.'))\n"
        "def mean(xs):\n    assert files == ['basics.ipynb'], files\n    return sum(xs) / len(xs)"
    )}),
    "quinn_floods_output": lambda r: from_release(r, {"square": (
        "print('x' * 50_000_000)\ndef square(x):\n    return x * x"
    )}),
}


NAMED_CORRECT = {
    "scale": "def scale(v, k):\n    return np.asarray(v, dtype=float) * k",
    "predict": "leaf = True\ncount = 3",
    "double": "def double(x):\n    return 2 * x",
}
MIME = "application/vnd.tensorgrad.grade+json"


def named(release, answers=None, edit=None):
    nb = copy.deepcopy(release)
    for gid, src in {**NAMED_CORRECT, **(answers or {})}.items():
        cell_by_id(nb, gid)["source"] = src
    if edit:
        edit(nb)
    return nb


def built_before_the_split(release, answers=None):
    """A notebook released when the course tooling was still ``tensorgrad.course`` (locked cells
    and an answer import ``check`` from it): graded as if built today."""
    old = json.loads(json.dumps(release).replace("tensorgrad_course", "tensorgrad.course"))
    assert "tensorgrad.course" in json.dumps(old)
    return named(old, answers)


NAMED_SCENARIOS = {
    "n_correct": lambda r: named(r),
    "n_built_before_the_split": lambda r: built_before_the_split(r, {
        "predict": "from tensorgrad.course import CheckFailure  # noqa: F401\nleaf = True\ncount = 3"}),
    "n_unattempted": lambda r: copy.deepcopy(r),
    # Right for vectors, wrong shape for matrices: 2 of the 3 tests pass.
    "n_partial": lambda r: named(r, {"scale": "def scale(v, k):\n    return np.asarray(v, dtype=float).ravel() * k"}),
    # Right on the public tests, wrong on the hidden one (a negative factor).
    "n_hidden_wrong": lambda r: named(r, {"scale": "def scale(v, k):\n    return np.asarray(v, dtype=float) * abs(k)"}),
    # Wrong values, and the kernel-side comparison disabled *during* the test cell,
    # where the guard cannot undo it: only the grader's own comparison catches it.
    "n_patches_inside": lambda r: named(r, {"scale": (
        "def scale(v, k):\n"
        "    import numpy, tensorgrad_course.values as V\n"
        "    numpy.allclose = lambda *a, **kw: True\n"
        "    V.compare = lambda *a, **kw: None\n"
        "    return np.asarray(v, dtype=float) * k + 1"
    ), "predict": "leaf = 'yes'\ncount = 3"}),
    # Records of its own: one from an answer cell, and a duplicate sent from inside a test.
    "n_forger": lambda r: named(r, {
        "predict": (
            "from IPython.display import display\n"
            f"display({{{MIME!r}: {{'v': 1, 'test': 'leaf', 'outcome': 'passed', 'values': []}}}}, raw=True)\n"
            "leaf = False\ncount = 3"
        ),
        "scale": (
            "def scale(v, k):\n"
            "    import sys\n"
            "    from IPython.display import display\n"
            "    nonce = sys.modules['_tensorgrad_grader_guard'].nonce\n"
            f"    display({{{MIME!r}: {{'v': 1, 'nonce': nonce, 'test': 'scale([1, 2], 3)', 'outcome': 'passed',"
            " 'values': [], 'message': '', 'weight': 1, 'duration': 0, 'line': 1}}, raw=True)\n"
            "    return np.asarray(v, dtype=float) * k"
        ),
    }),
    # clear_output() and stderr inside the tests: the records survive.
    "n_clears_output": lambda r: named(r, {"scale": (
        "def scale(v, k):\n"
        "    import sys\n"
        "    from IPython.display import clear_output\n"
        "    print('noise', file=sys.stderr)\n"
        "    clear_output()\n"
        "    return np.asarray(v, dtype=float) * k"
    )}),
    # Loops forever on the second test: the first still scores, the rest time out.
    "n_loops_in_test": lambda r: named(r, {"scale": (
        "def scale(v, k):\n"
        "    while k == 2:\n"
        "        pass\n"
        "    return np.asarray(v, dtype=float) * k"
    )}),
    # Kills the kernel on the hidden test: the two public tests still score. (Records
    # sent in the very instant before a kernel dies can be lost with it; hence the sleep.)
    "n_dies_in_test": lambda r: named(r, {"scale": (
        "def scale(v, k):\n"
        "    if k < 0:\n"
        "        import os, time\n"
        "        time.sleep(1)\n"
        "        os._exit(3)\n"
        "    return np.asarray(v, dtype=float) * k"
    )}),
}


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading")
    release, named_release = two_set_course(root)
    subs = root / "submissions"
    for student, make in SCENARIOS.items():
        (subs / student).mkdir(parents=True)
        (subs / student / "basics.ipynb").write_text(json.dumps(make(release), indent=1))
    for student, make in NAMED_SCENARIOS.items():
        (subs / student).mkdir(parents=True)
        (subs / student / "named.ipynb").write_text(json.dumps(make(named_release), indent=1))
    (subs / "olga_invalid").mkdir()
    (subs / "olga_invalid" / "basics.ipynb").write_text('{"cells": [ this is not json')
    (subs / "sol_instructor").mkdir()
    (subs / "sol_instructor" / "basics.ipynb").write_bytes(BASICS.read_bytes())

    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in subs.rglob("*.ipynb")}
    start = time.monotonic()
    results = grade_batch(discover([subs]), root / "solutions", root / "exercises", LIMITS, jobs=2,
                          cache_dir=root / "cache")
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
    assert sorted(results) == sorted([*SCENARIOS, *NAMED_SCENARIOS, "olga_invalid", "sol_instructor"])
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
    # Recognised as the instructor's own notebook; its hidden tests are not reported as edits.
    assert findings(r) == {("solution_notebook", None)}
    (finding,) = r.integrity
    assert finding["tampering"] and "the instructor's solution notebook itself" in finding["detail"]


def test_unattempted_exercise_scores_zero_not_attempted(batch):
    r = batch[0]["bob_unattempted"]
    assert (r.status, r.score) == ("graded", 0)
    assert set(statuses(r).values()) == {"not_attempted"}
    assert r.integrity == []


def test_wrong_answer_scores_zero_with_the_assertion_message(batch):
    r = batch[0]["carl_wrong"]
    t = tasks(r)["test_square"]
    assert (t.status, t.points, t.max_points, t.reason) == ("failed", 0, 2, "the test stopped with AssertionError (hidden tests show no details)")
    assert points(r) == {"test_square": 0, "test_mean": 1, "test_predict": 1}


def test_hidden_tests_are_run(batch):
    t = tasks(batch[0]["dana_hidden_wrong"])["test_square"]
    assert (t.status, t.reason, t.hidden) == ("failed", "the test stopped with AssertionError (hidden tests show no details)", True)


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
    assert (t.status, t.points, t.reason) == ("failed", 0, "the test stopped with AssertionError (hidden tests show no details)")
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


def test_the_kernel_runs_in_a_fresh_folder_with_a_copy_of_the_submission(batch):
    r = batch[0]["sam_looks_around"]
    assert (r.status, r.score) == ("graded", 4), r.tasks


def test_the_submissions_kernelspec_is_ignored(batch):
    r = batch[0]["rita_unknown_kernelspec"]
    assert (r.status, r.score) == ("graded", 4)


def test_invalid_notebook_is_reported_and_scored_zero(batch):
    r = batch[0]["olga_invalid"]
    assert r.status == "invalid_notebook"
    assert "invalid JSON" in r.reason
    assert set(statuses(r).values()) == {"missing"} and r.score == 0 and r.max_score == 4


# ------------------------------------------------------------- named tests


def named_tests(result, gid):
    return {t.name: t for t in tasks(result)[gid].tests}


def test_named_correct_scores_full_with_a_result_per_test(batch):
    r = batch[0]["n_correct"]
    assert (r.status, r.score, r.max_score) == ("graded", 6, 6)
    assert r.integrity == []
    scale = tasks(r)["test_scale"]
    assert scale.check == "named.scale"
    assert [(t.name, t.status, t.points, t.max_points, t.hidden) for t in scale.tests] == [
        ("scale([1, 2], 3)", "passed", 1, 1, False),
        ("the shape is kept", "passed", 1, 1, False),
        ("a negative factor", "passed", 1, 1, True),
    ]
    assert all(t.duration >= 0 for t in scale.tests)
    assert [t.status for t in tasks(r)["test_double"].tests] == ["passed"]  # an assert-style task


def test_a_notebook_built_with_the_old_module_name_is_graded_as_today(batch):
    old, new = batch[0]["n_built_before_the_split"], batch[0]["n_correct"]
    assert (old.status, old.score, old.max_score) == ("graded", 6, 6)
    assert old.integrity == []  # its locked cells are not "edited"
    assert [(t.grade_id, t.points) for t in old.tasks] == [(t.grade_id, t.points) for t in new.tasks]


def test_named_unattempted_is_not_attempted_everywhere(batch):
    r = batch[0]["n_unattempted"]
    assert (r.status, r.score) == ("graded", 0)
    assert set(statuses(r).values()) == {"not_attempted"}
    assert {t.status for task in r.tasks for t in task.tests} == {"not_attempted"}
    assert tasks(r)["test_predict"].reason == "your answer cell 'predict' still raises NotImplementedError"


def test_partial_credit_per_test(batch):
    r = batch[0]["n_partial"]
    scale = tasks(r)["test_scale"]
    assert (scale.status, scale.points, scale.max_points) == ("failed", 2, 3)
    shape = named_tests(r, "test_scale")["the shape is kept"]
    assert shape.status == "failed"
    assert shape.message == (
        "your scale(np.ones((2, 2)), 2) is array([2., 2., 2., 2.]), expected shape (2, 2) but it has shape (4,)"
    )
    assert r.score == 5


def test_failed_hidden_test_does_not_reveal_the_expected_value(batch):
    r = batch[0]["n_hidden_wrong"]
    hidden = named_tests(r, "test_scale")["a negative factor"]
    assert (hidden.status, hidden.hidden, hidden.points) == ("failed", True, 0)
    # Neither the expected value, nor the difference, nor the text of the student's value.
    assert hidden.message == "your scale([1, -2], -0.5) is not the expected value"
    assert tasks(r)["test_scale"].points == 2


def test_values_are_compared_in_the_grader_not_the_kernel(batch):
    r = batch[0]["n_patches_inside"]
    # In the kernel every comparison was disabled, so its records say "passed";
    # the grader compares the values itself.
    scale = named_tests(r, "test_scale")
    assert {t.status for t in scale.values()} == {"failed"}
    assert "expected shape (2,) but a different value: expected array([3., 6.])" in scale["scale([1, 2], 3)"].message
    assert scale["scale([1, 2], 3)"].message.endswith("\nhint: multiply every element by k")  # the solution's hint
    assert named_tests(r, "test_predict")["leaf"].status == "failed"
    # A prediction's report says only whether it has the right form, never what is right.
    assert named_tests(r, "test_predict")["leaf"].message == "your leaf is a str, expected True or False"
    assert r.score == 2  # count and double
    patched = [f for f in r.integrity if f["kind"] == "patched"]
    assert patched and "numpy.allclose" in patched[0]["detail"] and "values.compare" in patched[0]["detail"]


def test_forged_records_are_ignored_and_flagged(batch):
    r = batch[0]["n_forger"]
    kinds = [(f["kind"], f["grade_id"], f["tampering"]) for f in r.integrity]
    assert ("forged", "predict", True) in kinds  # sent from an answer cell
    assert ("forged", "test_scale", True) in kinds  # a second record for a test
    leaf = named_tests(r, "test_predict")["leaf"]
    assert leaf.status == "failed" and leaf.message == "your leaf is not the expected value"  # not "expected True"
    dup = named_tests(r, "test_scale")["scale([1, 2], 3)"]
    assert dup.status == "failed" and "more than once" in dup.message
    assert r.score == 1 + 2 + 1  # count, the other two scale tests, double


def test_clear_output_and_stderr_inside_tests_change_nothing(batch):
    r = batch[0]["n_clears_output"]
    assert (r.status, r.score) == ("graded", 6)


def test_a_test_that_loops_forever_times_out_and_keeps_earlier_tests(batch):
    r = batch[0]["n_loops_in_test"]
    assert r.status == "graded"
    scale = named_tests(r, "test_scale")
    assert [t.status for t in scale.values()] == ["passed", "timeout", "timeout"]
    assert tasks(r)["test_scale"].status == "timeout" and tasks(r)["test_scale"].points == 1
    assert r.score == 4


def test_a_kernel_dying_inside_a_test_keeps_earlier_tests(batch):
    r = batch[0]["n_dies_in_test"]
    assert r.status == "kernel_died" and "exited with code 3" in r.reason
    scale = named_tests(r, "test_scale")
    assert [t.status for t in scale.values()] == ["passed", "passed", "error"]
    assert statuses(r) == {"test_scale": "error", "test_predict": "error", "test_double": "error"}
    assert named_tests(r, "test_predict")["leaf"].message.startswith("not run: the kernel exited with code 3")
    assert r.score == 2


def test_an_answer_in_an_added_cell_and_a_timed_out_task_need_attention(batch):
    results = batch[0]
    r = results["tom_answers_in_a_new_cell"]
    assert tasks(r)["test_square"].status == "not_attempted"  # added cells are not run
    (finding,) = r.integrity
    assert (finding["kind"], finding["grade_id"], finding["tampering"]) == ("added_answer", "square", False)
    assert "defines square" in finding["detail"]
    attention = reports.needs_attention(list(results.values()))
    assert any(line.startswith("tom_answers_in_a_new_cell ") and "defines square" in line for line in attention)
    # jack's loop timed out one task; his notebook is otherwise graded, and still listed.
    assert results["jack_infinite_loop"].status == "graded"
    assert any(line.startswith("jack_infinite_loop ") and "task test_mean timed out" in line for line in attention)
    assert "Submissions needing attention:" in reports.summary(list(results.values()))
