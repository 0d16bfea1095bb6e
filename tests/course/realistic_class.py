"""A realistic class of about 60 files, made from every set in ``solutions/``, and how a careful
human grades each: shared by the self-test (tests/course/test_course_selftest.py) and the grading
benchmark (bench/bench_grading.py --class).

:func:`build` writes the class into a folder: for each set its solution notebook and its blank
exercise, then the kinds of file a real class hands in (:data:`BROKEN` and :data:`RENAMED`), each
made from one set, the sets taken in turn (kind i from set i modulo the number of sets), so that
every kind is made from real course content while the class stays the same size as sets are
added. :data:`CAREFUL_HUMAN` gives, for every kind, the status, the score a careful human would
give from what the file holds, and the tampering findings; the deliberate differences from a
human are marked there and listed in docs/instructors/grade.md; :func:`mismatches` compares a batch's
results with it.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from course_helpers import answered as answered_release

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
#: Which set each broken or renamed kind is made from: the English sets in turn. (The broken kinds
#: test the grader, whatever the language; each set of the Chinese edition, zh/..., is in the
#: class as its solution, full marks, and its blank exercise, zero.)
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
        stem = name.replace("/", "_")  # zh/03_exercises_chain_rule -> zh_03_exercises_chain_rule: one file per set
        path = root / FOLDERS.get(scenario, scenario) / RENAMED.get(scenario, "{}.ipynb").format(stem)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8"))
        paths[scenario] = path
    return paths




def build(root: Path, sets: dict) -> dict[str, dict[str, Path]]:
    """The class in ``root``: {set: {kind: path}}, every kind made from the set :data:`BROKEN_FROM` gives."""
    return {
        name: make_submissions(name, sets[name], root,
                               [kind for kind in BROKEN + tuple(RENAMED) if BROKEN_FROM[kind] == name])
        for name in SETS
    }


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
#: The deliberate differences from a human (docs/instructors/grade.md) are marked "deliberate".
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




def mismatches(results: dict[str, dict], sets: dict) -> list[str]:
    """Where the grader's results ({set: {kind: result}}) differ from :data:`CAREFUL_HUMAN`, one line each."""
    wrong = []
    for name, per_set in results.items():
        exset = sets[name]
        for kind, r in per_set.items():
            status, score, tampering = CAREFUL_HUMAN[kind]
            want = (status, exset.name if status != "unmatched" else "", score(exset), tampering)
            notebook = r.notebook if r.status != "unmatched" else ""
            got = (r.status, notebook, r.score, {f["kind"] for f in r.integrity if f["tampering"]})
            if got[:2] != want[:2] or abs(got[2] - want[2]) > 1e-6 or got[3] != want[3]:
                wrong.append(f"{kind} ({name}): expected {want}, got {got}; {r.reason} "
                             f"{[(t.grade_id, t.status, t.points) for t in r.tasks]}")
    return wrong
