"""The grader's self-test over the real course: a realistic class of 60 files, one batch at --jobs 2.

The class (tests/course/realistic_class.py) holds every set's solution and blank exercise and
the kinds of file a real class hands in: fully, partly and wrongly answered notebooks; an
infinite loop, ``os._exit(1)``, an edited and a deleted check cell, a 50 MB print, a wrong answer
behind a monkeypatched ``numpy.allclose``, an answer in a cell the student added; the names
course sites and browsers give files (Jupyter's ``-Copy1``, ``(1)``, Canvas, Moodle, Gradescope's
submission folders); JupyterLab 4, nbformat 4.4 and Colab files; foreign or missing kernelspecs;
empty, truncated and invalid files, a ``.py``, a PDF, HTML, a zip; the instructor's solution
under other names.

Every file must get the status, the score and the tampering findings a careful human would give
(``CAREFUL_HUMAN``, the deliberate differences marked), the batch must finish within its time,
no submission file may change, no message may show a hidden test's or a prediction's expected
value, and "needs attention" must list what a person should look at. The other tests look
closer at single kinds.
"""

import ast
import hashlib
import json
import time
from pathlib import Path

import pytest
from realistic_class import (BROKEN, BROKEN_FROM, CAREFUL_HUMAN, ENGLISH_SETS, EXERCISES, LIMITS, RENAMED, SETS,
                             SOLUTIONS, build,
                             by_id, mismatches, perturbed_task, text)

from tensorgrad_course import reports
from tensorgrad_course.exercise_set import load_exercise_sets
from tensorgrad_course.grade import discover, grade_batch, prepare_expected


@pytest.fixture(scope="module")
def selftest(tmp_path_factory):
    assert SETS, "solutions/ holds no exercise set"
    root = tmp_path_factory.mktemp("selftest")
    sets = load_exercise_sets(SOLUTIONS, EXERCISES)
    paths = build(root / "submissions", sets)
    files = [p for per_set in paths.values() for p in per_set.values()]
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    start = time.monotonic()
    results = grade_batch(discover([root / "submissions"]), SOLUTIONS, EXERCISES, LIMITS, jobs=2,
                          cache_dir=root / "cache")
    elapsed = time.monotonic() - start
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    by_path = {Path(r.path).resolve(): r for r in results}
    graded = {name: {s: by_path[p.resolve()] for s, p in per_set.items()} for name, per_set in paths.items()}
    expected = prepare_expected(SETS, sets, SOLUTIONS, EXERCISES, LIMITS, cache_dir=root / "cache")  # cached
    return {"results": graded, "sets": sets, "elapsed": elapsed, "before": before, "after": after,
            "count": len(results), "files": len(files), "expected": expected,
            "attention": reports.needs_attention(results)}


def statuses(result):
    return {t.grade_id: t.status for t in result.tasks}


@pytest.fixture(params=SETS)
def one(request, selftest):
    name = request.param
    return selftest["sets"][name], selftest["results"][name]


def broken(kind):
    """The parameter for a broken kind: its id names the set it was made from."""
    return pytest.param(kind, id=f"{kind}-{BROKEN_FROM.get(kind, 'none')}")


@pytest.fixture
def made_from(request, selftest):
    name = BROKEN_FROM[request.param]
    return selftest["sets"][name], selftest["results"][name]


def test_the_batch_finishes_and_leaves_submissions_untouched(selftest):
    assert selftest["count"] == selftest["files"]
    assert selftest["before"] == selftest["after"]
    for per_set in selftest["results"].values():
        for result in per_set.values():
            assert result.status != "grader_error", result.reason
            assert result.duration < LIMITS.notebook_timeout + 30


def test_the_class_has_about_60_files_of_every_kind():
    assert set(CAREFUL_HUMAN) == {"solution", "exercise", *BROKEN, *RENAMED}
    assert set(BROKEN_FROM.values()) == set(ENGLISH_SETS)  # every English set provides some kinds
    assert 2 * len(SETS) + len(BROKEN_FROM) >= 60  # issue 20: a realistic class of at least 60 files


def test_every_file_gets_the_status_and_score_a_careful_human_gives(selftest):
    wrong = mismatches(selftest["results"], selftest["sets"])
    assert not wrong, "\n".join(wrong)


def test_no_message_gives_a_hidden_or_predicted_value_away(selftest):
    """Over the whole class: a failed hidden test or prediction never shows the solution's value or the difference."""
    looked = 0
    for name, per_set in selftest["results"].items():
        wanted = selftest["expected"][name].tasks
        for kind, r in per_set.items():
            for task in r.tasks:
                solution_tests = {t.name: t for t in wanted[task.grade_id].tests} if task.grade_id in wanted else {}
                for test in task.tests:
                    ref = solution_tests.get(test.name)
                    if test.status == "passed" or ref is None:
                        continue
                    secret = [v["value"].get("repr", "") for v in ref.values if ref.hidden or not v.get("expected_given")]
                    if not secret:
                        continue
                    looked += 1
                    for text_ in (test.message, task.reason):
                        text_ = text_.replace("expected True or False", "a bool")  # the form, not the value
                        assert "difference" not in text_, (kind, name, test.name, text_)
                        for value in secret:
                            assert not value or f"expected {value}" not in text_, (kind, name, test.name, text_)
    assert looked >= 5  # the wrong and patched answers fail hidden tests and predictions


def test_needs_attention_lists_timeouts_added_answers_and_files_not_graded(selftest):
    attention = selftest["attention"]

    def listed(kind, words):
        r = selftest["results"][BROKEN_FROM[kind]][kind]
        return any(line.startswith(f"{r.student} {r.path}") and words in line for line in attention)

    loop_set = selftest["sets"][BROKEN_FROM["loop"]]
    assert listed("loop", f"task {loop_set.tasks[0].grade_id} timed out")
    assert listed("added_answer", "which the student added, defines")
    assert listed("exit", "kernel_died")
    assert listed("empty", "empty file")
    assert listed("anonymous", "unmatched")
    assert not listed("jupyterlab4", "")  # a file graded to the end, with nothing odd, is not listed


def test_the_solution_scores_full_marks(one):
    exset, results = one
    r = results["solution"]
    assert (r.status, r.score, r.max_score) == ("graded", exset.max_score, exset.max_score), r.tasks
    assert all(t.status == "passed" for t in r.tasks)
    assert exset.max_score > 0 and len(exset.tasks) >= 5


def test_the_exercise_scores_zero_with_every_task_not_attempted(one):
    exset, results = one
    r = results["exercise"]
    assert (r.status, r.score) == ("graded", 0)
    assert set(statuses(r).values()) == {"not_attempted"}, statuses(r)
    assert r.integrity == []  # an honest, untouched notebook raises no flag


@pytest.mark.parametrize("made_from", [broken('loop')], indirect=True)
def test_an_infinite_loop_times_out_its_task_only(made_from):
    exset, results = made_from
    r = results["loop"]
    assert r.status == "graded"
    assert statuses(r)[exset.tasks[0].grade_id] == "timeout"


@pytest.mark.parametrize("made_from", [broken('exit')], indirect=True)
def test_os_exit_kills_the_kernel_and_keeps_earlier_tasks(made_from):
    exset, results = made_from
    r = results["exit"]
    assert r.status == "kernel_died" and "exited with code 1" in r.reason
    *earlier, last = exset.tasks
    assert all(statuses(r)[t.grade_id] == "passed" for t in earlier)
    assert statuses(r)[last.grade_id] == "error"
    assert r.score == exset.max_score - last.points


@pytest.mark.parametrize("made_from", [broken('edited')], indirect=True)
def test_an_edited_test_cell_changes_nothing_and_is_reported(made_from):
    exset, results = made_from
    r = results["edited"]
    first = exset.tasks[0]
    assert statuses(r)[first.grade_id] == "not_attempted"  # the instructor's test ran, not "pass"
    assert r.score <= exset.max_score - first.points
    assert ("edited", first.grade_id, True) in {(f["kind"], f["grade_id"], f["tampering"]) for f in r.integrity}


@pytest.mark.parametrize("made_from", [broken('deleted')], indirect=True)
def test_a_deleted_graded_cell_and_a_deleted_answer(made_from):
    exset, results = made_from
    r = results["deleted"]
    first, second = exset.tasks[:2]
    assert statuses(r)[first.grade_id] == "passed"  # its test still ran, from the instructor's notebook
    assert statuses(r)[second.grade_id] == "missing"
    found = {(f["kind"], f["grade_id"], f["tampering"]) for f in r.integrity}
    assert ("deleted", first.grade_id, True) in found and ("deleted", second.answers[0], False) in found


@pytest.mark.parametrize("made_from", [broken('flood')], indirect=True)
def test_a_50_mb_print_is_capped_and_graded(made_from):
    exset, results = made_from
    r = results["flood"]
    assert (r.status, r.score) == ("graded", exset.max_score)


@pytest.mark.parametrize("made_from", [broken('patched')], indirect=True)
def test_monkeypatched_allclose_does_not_pass_a_wrong_answer(made_from):
    exset, results = made_from
    r = results["patched"]
    target = perturbed_task(exset)
    task = {t.grade_id: t for t in r.tasks}[target.grade_id]
    assert task.status == "failed" and task.points < task.max_points, task
    patched = [f for f in r.integrity if f["kind"] == "patched"]
    assert patched and "numpy.allclose" in patched[0]["detail"] and patched[0]["tampering"]


@pytest.mark.parametrize("made_from", [broken('invalid')], indirect=True)
def test_invalid_json_is_an_invalid_notebook(made_from):
    exset, results = made_from
    r = results["invalid"]
    assert r.status == "invalid_notebook" and "invalid JSON" in r.reason
    assert r.score == 0 and r.max_score == exset.max_score


def test_runtime(selftest):
    # Two cores: the whole self-test should stay under two minutes on an idle machine;
    # this bound leaves room for a loaded one.
    assert selftest["elapsed"] < 30 * len(SETS) + 240


@pytest.mark.parametrize("made_from", [broken(k) for k in ("copy1", "browser", "canvas", "moodle")], indirect=True)
def test_renamed_and_lms_named_notebooks_are_graded_against_their_set(made_from, request):
    exset, results = made_from
    kind = request.node.callspec.id.split("-")[0]
    r = results[kind]
    assert (r.status, r.notebook, r.score) == ("graded", exset.name, exset.max_score), (r.reason, r.tasks)
    assert not [f for f in r.integrity if f["tampering"]]


@pytest.mark.parametrize("made_from", [broken("solution_renamed")], indirect=True)
def test_the_instructors_notebook_under_another_name_is_recognised(made_from):
    exset, results = made_from
    r = results["solution_renamed"]
    assert (r.status, r.notebook, r.score) == ("graded", exset.name, exset.max_score)
    assert [f["kind"] for f in r.integrity] == ["solution_notebook"] and r.integrity[0]["tampering"]


@pytest.mark.parametrize("made_from", [broken("anonymous")], indirect=True)
def test_a_notebook_nothing_identifies_is_unmatched_not_guessed(made_from):
    _, results = made_from
    r = results["anonymous"]
    assert (r.status, r.score, r.max_score, r.tasks) == ("unmatched", 0, 0, [])
    assert "no tensorgrad metadata, no cell of any exercise set" in r.reason


NOT_NOTEBOOKS = {"script": "a Python script (.py), not a notebook", "empty": "empty file", "pdf": "a PDF, not a notebook"}


@pytest.mark.parametrize("made_from", [broken(k) for k in NOT_NOTEBOOKS], indirect=True)
def test_files_that_are_not_notebooks_get_a_row_with_a_reason(made_from, request):
    exset, results = made_from
    kind = request.node.callspec.id.split("-")[0]
    words = NOT_NOTEBOOKS[kind]
    r = results[kind]
    assert r.status == "invalid_notebook" and words in r.reason and "upload" in r.reason
    assert (r.notebook, r.score) == (exset.name, 0)  # its row is in its set's table, with 0 points


def _bound(target):
    """The names an assignment target binds: ``a``, ``a, b`` or ``*a`` (not ``a.b`` or ``a[0]``)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for item in target.elts:
            yield from _bound(item)
    elif isinstance(target, ast.Starred):
        yield from _bound(target.value)


def bound_names(source):
    """The top-level names an answer cell binds: functions, classes and assigned variables."""
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(_bound(target))
    return names


@pytest.fixture(scope="module")
def exercise_sets():
    """Every set of solutions/ and exercises/, loaded once for the tests that only read them (a
    load reads and checks all 26 sets: seconds, not worth paying once per set)."""
    return load_exercise_sets(SOLUTIONS, EXERCISES)


@pytest.mark.parametrize("name", SETS)
def test_no_two_tasks_of_a_set_answer_with_the_same_name(name, exercise_sets):
    # A later task that reuses an earlier task's name would find the earlier answer while its own
    # is still blank: its self-check would say "answered", and the grader "failed", not "not attempted".
    exset = exercise_sets[name]
    first_answer = {}
    for task in exset.tasks:
        for gid in task.answers:
            for bound in sorted(bound_names(text(by_id(exset.notebook, gid)))):
                earlier = first_answer.setdefault(bound, gid)
                assert earlier in task.answers, (
                    f"{name}: answer cell {gid!r} binds {bound!r}, as answer cell {earlier!r} of another task does")


def _count_twice(t):
    """The common wrong count_ops of set 01 task 3: no memory of the nodes seen."""
    count, stack = 0, [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or type(node).__name__ == "AccumulateGrad":
            continue
        count += 1
        stack.extend(n for n, _ in node.next_functions)
    return count


def test_a_public_check_catches_a_count_ops_that_counts_a_shared_node_twice(capsys):
    from tensorgrad_course import CheckFailure

    name = "01_exercises_computation_graphs"
    if name not in SETS:
        pytest.skip(f"{name} is not in solutions/")
    release = json.loads((EXERCISES / f"{name}.ipynb").read_text(encoding="utf-8"))
    public = text(by_id(release, "task3_check"))
    with pytest.raises(CheckFailure, match="1 of 3 checks failed"):
        exec(public, {"count_ops": _count_twice})
    assert "\N{BALLOT X} a node reached by two paths counts once: your count_ops(a * a) is 3, expected 2" in (
        capsys.readouterr().out)
    solution = json.loads((SOLUTIONS / f"{name}.ipynb").read_text(encoding="utf-8"))
    namespace = {}
    exec(text(by_id(solution, "task3")).replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", ""), namespace)
    exec(public, namespace)  # the right answer passes them all
    assert capsys.readouterr().out.splitlines()[-1] == "task3: all 3 checks pass. More tests run when your work is graded."


@pytest.mark.parametrize("made_from", [broken("colab"), broken("julia_kernel")], indirect=True)
def test_colab_exports_and_foreign_kernelspecs_are_graded_as_usual(made_from, request):
    exset, results = made_from
    r = results[request.node.callspec.id.split("-")[0]]
    assert (r.status, r.notebook, r.score) == ("graded", exset.name, exset.max_score), (r.reason, r.tasks)


@pytest.mark.parametrize("made_from", [broken("partial")], indirect=True)
def test_a_partly_answered_notebook_scores_its_first_task_only(made_from):
    exset, results = made_from
    r = results["partial"]
    first, *rest = exset.tasks
    assert statuses(r)[first.grade_id] == "passed"
    assert all(statuses(r)[t.grade_id] == "not_attempted" for t in rest)
    assert r.score == first.points


@pytest.mark.parametrize("made_from", [broken("truncated")], indirect=True)
def test_a_truncated_upload_is_an_invalid_notebook_that_says_so(made_from):
    exset, results = made_from
    r = results["truncated"]
    assert r.status == "invalid_notebook" and "truncated" in r.reason and r.notebook == exset.name
