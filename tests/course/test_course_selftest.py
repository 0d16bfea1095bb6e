"""The grader's self-test over the real course: every set in solutions/, one batch at --jobs 2.

For each exercise set found in ``solutions/`` (the test is parametrized over what is
there), the batch grades:

* the solution notebook itself: full marks;
* the committed exercise (``exercises/``): 0, every task ``not_attempted``;

and deliberately broken submissions made here from the solutions: an infinite loop,
``os._exit(1)``, an edited test cell, a deleted graded cell (and a deleted answer), a 50 MB
print, a monkeypatched ``numpy.allclose`` with a wrong answer, and invalid JSON. Each broken
kind is made from one set, the sets taken in turn (kind i from set i modulo the number of
sets), so every kind is tested on real course content while the runtime stays flat as sets
are added.

Each must get the right status within its timeouts, the batch must finish, and no
submission file may change. The wrong answer is made generically: the solution's answer
cell runs, then every name it defines is replaced by a wrong value (bools flipped, numbers
and tensors plus one, functions wrapped to do the same to their results).
"""

import ast
import copy
import hashlib
import json
import time
from pathlib import Path

import pytest

from tensorgrad_course.exercise_set import load_exercise_sets
from tensorgrad_course.grade import discover, grade_batch
from tensorgrad_course.kernel import Limits
from tensorgrad_course.notebooks import find_notebooks

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
SETS = [p.relative_to(SOLUTIONS).with_suffix("").as_posix() for p in find_notebooks(SOLUTIONS)]
# Generous for a loaded machine (the slowest solution cell takes ~3 s there); the loop costs one cell timeout.
LIMITS = Limits(cell_timeout=15, notebook_timeout=240, interrupt_grace=3)

WRONG = '''
def _tg_wrong(value):
    if isinstance(value, bool):
        return not value
    if value is None:
        return 0
    if isinstance(value, str):
        return value + "?"
    if isinstance(value, (tuple, list)):
        return type(value)(_tg_wrong(v) for v in value)
    try:
        return value + 1
    except Exception:
        return value


def _tg_wrap(fn):
    def wrong(*args, **kwargs):
        return _tg_wrong(fn(*args, **kwargs))
    return wrong


import numpy, math
numpy.allclose = lambda *a, **k: True
numpy.isclose = lambda *a, **k: True
math.isclose = lambda *a, **k: True
'''


def nbgrader(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


def by_id(nb, gid):
    (cell,) = [c for c in nb["cells"] if nbgrader(c).get("grade_id") == gid]
    return cell


def text(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def defined_names(source):
    """Top-level names an answer cell defines: (variables, functions)."""
    variables, functions = [], []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            functions.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        variables.append(n.id)
    return list(dict.fromkeys(variables)), list(dict.fromkeys(functions))


def wrong_answer(source):
    variables, functions = defined_names(source)
    lines = [source, WRONG]
    lines += [f"{v} = _tg_wrong({v})" for v in variables]
    lines += [f"{f} = _tg_wrap({f})" for f in functions]
    return "\n".join(lines)


def perturbed_task(exset):
    """The first task whose answer cell defines values or functions (no classes) to make wrong."""
    for task in exset.tasks:
        source = text(by_id(exset.notebook, task.answers[-1])) if task.answers else ""
        variables, functions = defined_names(source) if source else ([], [])
        classes = [n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)] if source else []
        if (variables or functions) and not classes:
            return task
    raise AssertionError(f"{exset.name}: no task has an answer cell whose values can be made wrong")


def perturbed_answer(exset):
    return perturbed_task(exset).answers[-1]


def tasks_of(exset):
    return [(t.grade_id, t.answers) for t in exset.tasks]


BROKEN = ("loop", "exit", "edited", "deleted", "flood", "patched", "invalid")
#: Files under the names course sites and browsers give them, and files that are not notebooks:
#: kind -> the file name ({} is the set's short name).
RENAMED = {
    "copy1": "{}-Copy1.ipynb",  # Jupyter's copy, metadata kept
    "browser": "{} (1).ipynb",  # a second download; metadata lost: found by its cell ids
    "canvas": "smithjane_12345_678901_{}.ipynb",  # nbformat 4.4 without ids or metadata: by name
    "moodle": "Jane Smith_12345_assignsubmission_file_{}-1.ipynb",
    "solution_renamed": "my homework.ipynb",  # the instructor's notebook under another name
    "anonymous": "homework.ipynb",  # no metadata, no ids, no name: unmatched
    "script": "{}.py",
    "empty": "{}.ipynb",
    "pdf": "{}.pdf",
    "colab": "Copy of {}.ipynb",  # a Colab export: its metadata, another kernelspec, no ids
    "julia_kernel": "{}.ipynb",  # a kernelspec that does not exist here
    "partial": "{}.ipynb",  # only the first task answered
    "truncated": "{}.ipynb",  # an upload cut short
}
#: Which set each broken or renamed kind is made from: the sets in turn.
# The broken kinds test the grader, whatever the language: they are made from the English sets.
# The Chinese edition's sets (zh/...) are graded as solution (full marks) and blank (zero).
ENGLISH_SETS = [name for name in SETS if "/" not in name]
BROKEN_FROM = ({kind: ENGLISH_SETS[i % len(ENGLISH_SETS)] for i, kind in enumerate(BROKEN + tuple(RENAMED))}
               if ENGLISH_SETS else {})


def make_submissions(name, exset, root, kinds):
    """{scenario: path} for one exercise set: its solution, its exercise, and the broken ``kinds``."""
    solution = json.loads((SOLUTIONS / f"{name}.ipynb").read_text(encoding="utf-8"))
    release_path = EXERCISES / f"{name}.ipynb"
    (first_test, first_answers), (second_test, second_answers) = tasks_of(exset)[:2]
    last_answer = exset.tasks[-1].answers[-1]

    def variant(edit):
        nb = copy.deepcopy(solution)
        edit(nb)
        return json.dumps(nb, indent=1)

    def loop(nb):
        by_id(nb, first_answers[0])["source"] = "while True:\n    pass"

    def exit_(nb):
        cell = by_id(nb, last_answer)
        cell["source"] = "import os\nos._exit(1)\n" + text(cell)

    def edited(nb):
        release = json.loads(release_path.read_text(encoding="utf-8"))
        for gid in first_answers:
            by_id(nb, gid)["source"] = text(by_id(release, gid))  # the stub
        by_id(nb, first_test)["source"] = "pass  # no more tests"

    def deleted(nb):
        nb["cells"] = [c for c in nb["cells"] if nbgrader(c).get("grade_id") not in (first_test, second_answers[0])]

    def flood(nb):
        cell = by_id(nb, first_answers[0])
        cell["source"] = "print('x' * 50_000_000)\n" + text(cell)

    def patched(nb):
        cell = by_id(nb, perturbed_answer(exset))
        cell["source"] = wrong_answer(text(cell))

    def answered():
        """The release with the solution's answers typed in (marker lines left out)."""
        nb = json.loads(release_path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            gid = nbgrader(cell).get("grade_id")
            if gid in exset.answer_ids:
                lines = text(by_id(solution, gid)).splitlines()
                cell["source"] = "\n".join(line for line in lines if "### BEGIN" not in line and "### END" not in line)
        return nb

    def without_metadata(nb):
        del nb["metadata"]["tensorgrad"]
        return nb

    def without_ids(nb):
        for cell in nb["cells"]:
            cell.pop("id", None)
        nb["nbformat_minor"] = 4
        return without_metadata(nb)

    def colab(nb):
        nb = without_ids(nb)
        nb["metadata"] = {"colab": {"provenance": [], "name": f"Copy of {name}.ipynb"},
                          "kernelspec": {"name": "python3", "display_name": "Python 3"}, "accelerator": "GPU"}
        return nb

    def julia(nb):
        nb["metadata"]["kernelspec"] = {"name": "julia-1.9", "display_name": "Julia 1.9", "language": "julia"}
        return nb

    def partial(nb):
        release = json.loads(release_path.read_text(encoding="utf-8"))
        for task in exset.tasks[1:]:
            for gid in task.answers:
                by_id(nb, gid)["source"] = text(by_id(release, gid))
        return nb

    makers = {
        "copy1": lambda: json.dumps(answered()),
        "browser": lambda: json.dumps(without_metadata(answered())),
        "canvas": lambda: json.dumps(without_ids(answered())),
        "moodle": lambda: json.dumps(without_ids(answered())),
        "solution_renamed": lambda: json.dumps(solution),
        "anonymous": lambda: json.dumps(without_ids(answered())),
        "colab": lambda: json.dumps(colab(answered())),
        "julia_kernel": lambda: json.dumps(julia(answered())),
        "partial": lambda: json.dumps(partial(answered())),
        "truncated": lambda: json.dumps(answered())[:5000],
        "script": lambda: "import tensorgrad as tg\n",
        "empty": lambda: "",
        "pdf": lambda: "%PDF-1.7\n...",
        "loop": lambda: variant(loop),
        "exit": lambda: variant(exit_),
        "edited": lambda: variant(edited),
        "deleted": lambda: variant(deleted),
        "flood": lambda: variant(flood),
        "patched": lambda: variant(patched),
        "invalid": lambda: '{"cells": [ this is not JSON',
    }
    made = {
        "solution": (SOLUTIONS / f"{name}.ipynb").read_text(encoding="utf-8"),
        "exercise": release_path.read_text(encoding="utf-8"),
        **{kind: makers[kind]() for kind in kinds},
    }
    paths = {}
    for scenario, content in made.items():
        stem = name.replace("/", "_")  # zh/03_chain_rule -> zh_03_chain_rule: one file per set
        path = root / scenario / RENAMED.get(scenario, "{}.ipynb").format(stem)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        paths[scenario] = path
    return paths


@pytest.fixture(scope="module")
def selftest(tmp_path_factory):
    assert SETS, "solutions/ holds no exercise set"
    root = tmp_path_factory.mktemp("selftest")
    sets = load_exercise_sets(SOLUTIONS, EXERCISES)
    paths = {
        name: make_submissions(name, sets[name], root / "submissions",
                               [kind for kind in BROKEN + tuple(RENAMED) if BROKEN_FROM[kind] == name])
        for name in SETS
    }
    files = [p for per_set in paths.values() for p in per_set.values()]
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    start = time.monotonic()
    results = grade_batch(discover([root / "submissions"]), SOLUTIONS, EXERCISES, LIMITS, jobs=2,
                          cache_dir=root / "cache")
    elapsed = time.monotonic() - start
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    by_path = {Path(r.path).resolve(): r for r in results}
    graded = {name: {s: by_path[p.resolve()] for s, p in per_set.items()} for name, per_set in paths.items()}
    return {"results": graded, "sets": sets, "elapsed": elapsed, "before": before, "after": after,
            "count": len(results), "files": len(files)}


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


@pytest.mark.parametrize("name", SETS)
def test_no_two_tasks_of_a_set_answer_with_the_same_name(name):
    # A later task that reuses an earlier task's name would find the earlier answer while its own
    # is still blank: its self-check would say "answered", and the grader "failed", not "not attempted".
    exset = load_exercise_sets(SOLUTIONS, EXERCISES)[name]
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

    name = "01_computation_graphs"
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
