"""The grader's self-test over the real course: a realistic class of 60 files, one batch at --jobs 2.

For each exercise set found in ``solutions/`` the batch grades the solution notebook itself and
the committed exercise (``exercises/``). Then come the kinds of file a real class hands in
(:data:`BROKEN` and :data:`RENAMED`), each made from one set, the sets taken in turn (kind i from
set i modulo the number of sets), so that every kind is tested on real course content while the
runtime stays flat as sets are added: fully, partly and wrongly answered notebooks; an infinite
loop, ``os._exit(1)``, an edited and a deleted check cell, a 50 MB print, a wrong answer behind a
monkeypatched ``numpy.allclose``, an answer in a cell the student added; the names course sites
and browsers give files (Jupyter's ``-Copy1``, ``(1)``, Canvas, Moodle, Gradescope's submission
folders); JupyterLab 4, nbformat 4.4 and Colab files; foreign or missing kernelspecs; empty,
truncated and invalid files, a ``.py``, a PDF, HTML, a zip; the instructor's solution under other
names.

:data:`CAREFUL_HUMAN` gives, for every kind, the status, the score a careful human would give
from what the file holds, and the tampering findings; the deliberate differences from a human
are marked there and listed in docs/instructors.md. The batch must finish, no submission file
may change, no message may show a hidden test's or a prediction's expected value, and "needs
attention" must list what a person should look at. A wrong answer is made generically: the
solution's answer cell runs, then every name it defines is replaced by a wrong value (bools
flipped, numbers and tensors plus one, functions wrapped to do the same to their results).
"""

import ast
import hashlib
import json
import time
from pathlib import Path

import pytest
from course_helpers import answered as answered_release

from tensorgrad.course.exercise_set import load_exercise_sets
from tensorgrad.course import reports
from tensorgrad.course.grade import discover, grade_batch, prepare_expected
from tensorgrad.course.kernel import Limits
from tensorgrad.course.notebooks import find_notebooks

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
'''
PATCH = '''
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


def wrong_answer(source, *, patch=True):
    """The answer cell ``source`` with every value it defines made wrong (and the comparisons patched)."""
    variables, functions = defined_names(source)
    lines = [source, WRONG + (PATCH if patch else "")]
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
    "colab": "Copy of {}.ipynb",  # a Colab export: its metadata, cell ids in metadata, Colab's outputs
    "julia_kernel": "{}.ipynb",  # a kernelspec that does not exist here
    "partial": "{}.ipynb",  # only the first task answered
    "truncated": "{}.ipynb",  # an upload cut short
    "wrong": "{}.ipynb",  # one task answered wrongly (every value it defines is off), the rest right
    "gradescope": "{}.ipynb",  # in a Gradescope export's submission folder (see FOLDERS)
    "jupyterlab4": "{}.ipynb",  # saved by JupyterLab 4: outputs, execution counts, widget state
    "nbformat44": "{}.ipynb",  # saved by an older Jupyter: nbformat 4.4, no cell ids, metadata kept
    "ir_kernel": "{}.ipynb",  # the R kernel's kernelspec
    "python2_kernel": "{}.ipynb",  # a Python 2 kernelspec
    "no_kernelspec": "{}.ipynb",  # no kernelspec, no language_info
    "solution_as_student": "{}.ipynb",  # the instructor's notebook under a student's name (FOLDERS)
    "unattempted_run": "{}.ipynb",  # the exercise, run in JupyterLab: every cell's error saved
    "added_answer": "{}.ipynb",  # the first task answered in a cell the student added
    "canvas_late": "smithjane_LATE_12345_678901_{}.ipynb",  # Canvas's late submission, no ids or metadata
    "copy_of_copy": "{}-Copy1 (1).ipynb",  # a download of a Jupyter copy, no ids or metadata
    "moodle_again": "Jane Smith_12345_assignsubmission_file_{} (1).ipynb",  # no ids or metadata
    "noisy": "{}.ipynb",  # warnings and prints on stderr in an answer cell
    "crlf": "{}.ipynb",  # saved on Windows: CRLF line ends, other indentation
    "ipynb_txt": "{}.ipynb.txt",  # a browser's "save as text": the notebook's JSON
    "html": "{}.html",  # nbconvert's HTML export
    "zip": "{}.zip",  # the notebook in a zip archive
}
#: The folder (the student) of a kind, where it is not the kind's name.
FOLDERS = {"gradescope": "submission_204817263", "solution_as_student": "jane_doe"}
#: Which set each broken or renamed kind is made from: the sets in turn.
BROKEN_FROM = {kind: SETS[i % len(SETS)] for i, kind in enumerate(BROKEN + tuple(RENAMED))} if SETS else {}


def make_submissions(name, exset, root, kinds):
    """{scenario: path} for one exercise set: its solution, its exercise, and the broken ``kinds``."""
    solution = json.loads((SOLUTIONS / f"{name}.ipynb").read_text(encoding="utf-8"))
    release_path = EXERCISES / f"{name}.ipynb"
    (first_test, first_answers), (second_test, second_answers) = tasks_of(exset)[:2]
    last_answer = exset.tasks[-1].answers[-1]

    def variant(edit):
        """A student's file: the release with the right answers typed in, then ``edit``."""
        nb = answered()
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
        return answered_release(solution, json.loads(release_path.read_text(encoding="utf-8")))

    def nbformat44(nb):
        for cell in nb["cells"]:
            cell.pop("id", None)
        nb["nbformat_minor"] = 4
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
        """As Colab exports: nbformat 4.0, its metadata, each cell's id in the cell's metadata, its outputs."""
        nb = without_ids(nb)
        nb["nbformat_minor"] = 0
        nb["metadata"] = {"colab": {"provenance": [], "name": f"Copy of {name}.ipynb", "toc_visible": True,
                                    "gpuType": "T4"},
                          "kernelspec": {"name": "python3", "display_name": "Python 3"},
                          "language_info": {"name": "python"}, "accelerator": "GPU"}
        for index, cell in enumerate(nb["cells"]):
            cell["metadata"]["id"] = f"kq{index:04d}Zx"
            if cell["cell_type"] == "code":
                cell["metadata"]["colab"] = {"base_uri": "https://localhost:8080/", "height": 35}
                cell["metadata"]["outputId"] = f"{index:08x}-3c1e-4f5a-9b0d-6e2f1a7c8d90"
                cell["execution_count"] = index
                cell["outputs"] = [
                    {"output_type": "display_data", "metadata": {},
                     "data": {"application/vnd.colab-display-data+json": {"pinned_output": False},
                              "text/html": "<pre>tensor(4.5000)</pre>", "text/plain": "<IPython.core.display.HTML object>"}},
                    {"output_type": "execute_result", "execution_count": index, "metadata": {},
                     "data": {"application/vnd.google.colaboratory.intrinsic+json": {"type": "string"},
                              "text/plain": "'MulBackward0'"}},
                ]
        return nb

    def kernelspec(spec):
        def edit(nb):
            if spec is None:
                nb["metadata"].pop("kernelspec", None)
                nb["metadata"].pop("language_info", None)
            else:
                nb["metadata"]["kernelspec"] = spec
            return nb
        return edit

    julia = kernelspec({"name": "julia-1.9", "display_name": "Julia 1.9", "language": "julia"})

    def jupyterlab4(nb):
        """As JupyterLab 4 saves a notebook it ran: counts, outputs, cell metadata, widget state."""
        nb["nbformat_minor"] = 5
        nb["metadata"].update({
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
                              "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
                              "pygments_lexer": "ipython3", "version": "3.12.3"},
            "widgets": {"application/vnd.jupyter.widget-state+json": {
                "state": {"5f0c2a": {"model_module": "@jupyter-widgets/controls", "model_module_version": "2.0.0",
                                     "model_name": "FloatSliderModel", "state": {"value": 0.5, "max": 1.0}}},
                "version_major": 2, "version_minor": 0}},
        })
        count = 0
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                cell["metadata"]["jp-MarkdownHeadingCollapsed"] = True
                continue
            count += 1
            cell["execution_count"] = count
            cell["metadata"].update({"scrolled": True, "jupyter": {"outputs_hidden": False},
                                     "execution": {"iopub.execute_input": "2026-11-30T10:00:00.000Z",
                                                   "shell.execute_reply": "2026-11-30T10:00:00.100Z"}})
            cell["outputs"] = [
                {"output_type": "stream", "name": "stdout", "text": ["\N{CHECK MARK} a test the student ran\n"]},
                {"output_type": "display_data", "metadata": {},
                 "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "5f0c2a", "version_major": 2,
                                                                      "version_minor": 0},
                          "text/plain": "FloatSlider(value=0.5, max=1.0)"}},
                {"output_type": "execute_result", "execution_count": count, "metadata": {},
                 "data": {"text/plain": "tensor(4.5000, grad_fn=<MulBackward0>)"}},
            ]
        return nb

    def unattempted_run(nb):
        """The exercise as a student who ran it without answering saves it: the errors in the outputs."""
        count = 0
        for cell in nb["cells"]:
            if cell["cell_type"] == "code" and nbgrader(cell).get("grade_id"):
                count += 1
                cell["execution_count"] = count
                cell["outputs"] = [{"output_type": "error", "ename": "NotImplementedError", "evalue": "",
                                    "traceback": ["NotImplementedError"]}]
        return nb

    def added_answer(nb):
        """The first task's answer typed into a new cell below its (unchanged) answer cell."""
        release = json.loads(release_path.read_text(encoding="utf-8"))
        typed = "\n".join(text(by_id(nb, gid)) for gid in first_answers)
        for gid in first_answers:
            by_id(nb, gid)["source"] = text(by_id(release, gid))
        cells = nb["cells"]
        cells.insert(cells.index(by_id(nb, first_answers[-1])) + 1,
                     {"cell_type": "code", "id": "added-by-jane", "metadata": {}, "source": typed, "outputs": [],
                      "execution_count": None})
        return nb

    def wrong(nb):
        for gid in perturbed_task(exset).answers:
            if defined_names(text(by_id(nb, gid))) != ([], []):
                by_id(nb, gid)["source"] = wrong_answer(text(by_id(nb, gid)), patch=False)
        return nb

    def noisy(nb):
        cell = by_id(nb, first_answers[0])
        cell["source"] = ("import sys, warnings\nwarnings.warn('this function is deprecated')\n"
                          "print('debug: here', file=sys.stderr)\n" + text(cell))
        return nb

    def crlf(nb):
        return json.dumps(nb, indent=2).replace("\n", "\r\n")

    def partial(nb):
        release = json.loads(release_path.read_text(encoding="utf-8"))
        for task in exset.tasks[1:]:
            for gid in task.answers:
                by_id(nb, gid)["source"] = text(by_id(release, gid))
        return nb

    makers = {
        "wrong": lambda: json.dumps(wrong(answered())),
        "gradescope": lambda: json.dumps(answered()),
        "jupyterlab4": lambda: json.dumps(jupyterlab4(answered()), indent=1),
        "nbformat44": lambda: json.dumps(nbformat44(answered()), indent=1),
        "ir_kernel": lambda: json.dumps(kernelspec({"name": "ir", "display_name": "R", "language": "R"})(answered())),
        "python2_kernel": lambda: json.dumps(kernelspec({"name": "python2", "display_name": "Python 2",
                                                         "language": "python"})(answered())),
        "no_kernelspec": lambda: json.dumps(kernelspec(None)(answered())),
        "solution_as_student": lambda: json.dumps(solution, indent=1),
        "unattempted_run": lambda: json.dumps(unattempted_run(json.loads(release_path.read_text(encoding="utf-8")))),
        "added_answer": lambda: json.dumps(added_answer(answered())),
        "canvas_late": lambda: json.dumps(without_ids(answered())),
        "copy_of_copy": lambda: json.dumps(without_ids(answered())),
        "moodle_again": lambda: json.dumps(without_ids(answered())),
        "noisy": lambda: json.dumps(noisy(answered())),
        "crlf": lambda: crlf(answered()),
        "ipynb_txt": lambda: json.dumps(answered()),
        "html": lambda: f"<!DOCTYPE html>\n<html><head><title>{name}</title></head><body>...</body></html>\n",
        "zip": lambda: "PK\x03\x04\x14\x00\x00\x00\x08\x00",
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
        path = root / FOLDERS.get(scenario, scenario) / RENAMED.get(scenario, "{}.ipynb").format(Path(name).name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8"))
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


def _full(exset):
    return exset.max_score


def _nothing(exset):
    return 0


def _but_first(exset):
    return exset.max_score - exset.tasks[0].points


def _but_perturbed(exset):
    return exset.max_score - perturbed_task(exset).points


FULL = ("graded", _full, set())  # every answer right: full marks, nothing to flag
NOT_A_NOTEBOOK = ("invalid_notebook", _nothing, set())  # a row with 0 points and what to ask the student for
#: kind -> (status, the score a careful human gives from what the file holds, tampering findings).
#: The deliberate differences from a human (docs/instructors.md) are marked "deliberate".
CAREFUL_HUMAN = {
    "solution": ("graded", _full, {"solution_notebook"}),  # deliberate: graded as submitted, and flagged
    "exercise": ("graded", _nothing, set()),
    "loop": ("graded", _but_first, set()),  # the looping task earns nothing, the others their points
    "exit": ("kernel_died", lambda e: e.max_score - e.tasks[-1].points, set()),  # the tasks before the crash
    "edited": ("graded", _but_first, {"edited"}),  # first task unanswered; weakening its test gains nothing
    "deleted": ("graded", lambda e: e.max_score - e.tasks[1].points, {"deleted"}),  # the second answer is gone
    "flood": FULL,
    "patched": ("graded", _but_perturbed, {"patched"}),  # wrong values, whatever the kernel's allclose says
    "invalid": NOT_A_NOTEBOOK,
    "copy1": FULL,
    "browser": FULL,
    "canvas": FULL,
    "moodle": FULL,
    "solution_renamed": ("graded", _full, {"solution_notebook"}),  # deliberate, as "solution"
    "anonymous": ("unmatched", _nothing, set()),  # deliberate: nothing in the file names its set
    "script": NOT_A_NOTEBOOK,  # deliberate: a human could read a .py; ask for the notebook
    "empty": NOT_A_NOTEBOOK,
    "pdf": NOT_A_NOTEBOOK,  # deliberate: a human could read a PDF; ask for the notebook
    "colab": FULL,
    "julia_kernel": FULL,
    "partial": ("graded", lambda e: e.tasks[0].points, set()),
    "truncated": NOT_A_NOTEBOOK,
    "wrong": ("graded", _but_perturbed, set()),
    "gradescope": FULL,
    "jupyterlab4": FULL,
    "nbformat44": FULL,
    "ir_kernel": FULL,
    "python2_kernel": FULL,
    "no_kernelspec": FULL,
    "solution_as_student": ("graded", _full, {"solution_notebook"}),  # deliberate, as "solution"
    "unattempted_run": ("graded", _nothing, set()),
    "added_answer": ("graded", _but_first, set()),  # deliberate: the added cell is not run; listed to look at
    "canvas_late": FULL,
    "copy_of_copy": FULL,
    "moodle_again": FULL,
    "noisy": FULL,
    "crlf": FULL,
    "ipynb_txt": FULL,
    "html": NOT_A_NOTEBOOK,  # deliberate, as "pdf"
    "zip": NOT_A_NOTEBOOK,  # deliberate: unpack it and grade what is inside
}


def test_the_class_has_about_60_files_of_every_kind():
    assert set(CAREFUL_HUMAN) == {"solution", "exercise", *BROKEN, *RENAMED}
    assert set(BROKEN_FROM.values()) == set(SETS)  # every set provides some kinds
    assert 2 * len(SETS) + len(BROKEN_FROM) >= 55


def test_every_file_gets_the_status_and_score_a_careful_human_gives(selftest):
    wrong = []
    for name, per_set in selftest["results"].items():
        exset = selftest["sets"][name]
        for kind, r in per_set.items():
            status, score, tampering = CAREFUL_HUMAN[kind]
            want = (status, exset.name if status != "unmatched" else "", score(exset), tampering)
            notebook = r.notebook if r.status != "unmatched" else ""
            got = (r.status, notebook, r.score, {f["kind"] for f in r.integrity if f["tampering"]})
            if got[:2] != want[:2] or got[2] != pytest.approx(want[2], abs=1e-6) or got[3] != want[3]:
                wrong.append(f"{kind} ({name}): expected {want}, got {got}; {r.reason} "
                             f"{[(t.grade_id, t.status, t.points) for t in r.tasks]}")
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
    from tensorgrad.course import CheckFailure

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
