"""Validation of the lessons (issue 5): structure, errors that still happen, portability.

Every notebook in lessons/ is checked; the rules are those of docs/authoring-lessons.md.

* **Structure** (reads the stored notebooks, fast): a `# Lesson N: ...` title matching the file
  number, a `## What you will learn` cell, a closing `## Summary` that names an `exercises/`
  notebook that exists, exactly one `backend` cell `import tensorgrad as tg`, a
  **Predict:**/**Answer:** pair, predictions that are not spoiled (the `predict` code cell stored
  with its output collapsed and a neutral first line, the answer a closed `<details>` block), at
  least 24 predictions in the course, a picture (SVG or PNG) in every lesson, no wider than the
  output area, contiguous numbering from 01, lessons/README.md listing exactly the files present,
  few `nbval-ignore-output` cells, every code cell executed in order, errors stored only in
  `raises-exception` cells, and a reason for every `tensorgrad-only` tag.
* **Errors still happen**: each lesson is run again (nbclient, PYTHONHASHSEED=0, a kernel on this
  interpreter), and every `raises-exception` cell must raise the stored exception class with the
  stored message. No other cell may raise.
* **Portability** (skipped when torch cannot be imported): each lesson is run with its backend
  cell swapped for `import torch as tg` and its `tensorgrad-only` cells skipped. Every other
  cell's text output (stream text, `text/plain`, and errors as `Class: message`) must equal the
  stored one, after normalising memory addresses and treating `torch.`/`tensorgrad.` (and
  `torch::`/`tensorgrad::`) as the same. Cells tagged `nbval-ignore-output` still run, but their
  output is not compared. Mismatches are reported cell by cell, with a diff.

Each lesson is executed at most once per backend per session (the `lesson_runs` fixture), so
the tests that need a fresh run share it.

nbval itself (`./run test`) compares every stored output against a fresh tensorgrad run; these
tests add what nbval cannot check.
"""

from __future__ import annotations

import difflib
import functools
import importlib.util
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
# The kernels' environment, copied once here in the main thread: lessons run in worker threads,
# and reading os.environ there races with pytest, which changes PYTEST_CURRENT_TEST per test.
KERNEL_BASE_ENV = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
LESSONS_DIR = ROOT / "lessons"
README = LESSONS_DIR / "README.md"
SANITIZE_FILE = ROOT / "tests" / "nbval_sanitize.cfg"
LESSONS = sorted(LESSONS_DIR.glob("*.ipynb"))

FILE_NAME = re.compile(r"^(\d\d)_[a-z0-9_]+\.ipynb$")
BACKEND_SOURCE = "import tensorgrad as tg"
TORCH_BACKEND_SOURCE = "import torch as tg"
MAX_IGNORE_OUTPUT_SHARE = 0.15
CELL_TIMEOUT = 120  # seconds, as nbval's --nbval-cell-timeout in ./run test

TAG_BACKEND = "backend"
TAG_ONLY = "tensorgrad-only"
TAG_IGNORE_OUTPUT = "nbval-ignore-output"
TAG_RAISES = "raises-exception"


def lesson_params():
    return [pytest.param(path, id=path.name) for path in LESSONS]


# -- reading notebooks -------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def load(path: Path):
    """The stored notebook (cached: treat it as read-only)."""
    return nbformat.read(path, as_version=4)


def tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def code_cells(nb):
    return [(index, cell) for index, cell in enumerate(nb.cells) if cell.cell_type == "code"]


def markdown_starting(nb, prefix):
    return [(index, cell) for index, cell in enumerate(nb.cells)
            if cell.cell_type == "markdown" and cell.source.lstrip().startswith(prefix)]


def describe(index, cell) -> str:
    first = cell.source.strip().splitlines()[0] if cell.source.strip() else "<empty>"
    return f"cell {index} ({first[:70]!r})"


def lesson_number(path: Path) -> int:
    match = FILE_NAME.match(path.name)
    assert match, (f"{path.name}: lesson files are named NN_short_name.ipynb "
                   "(two digits, lower-case letters, digits and underscores)")
    return int(match.group(1))


# -- normalising text outputs ------------------------------------------------------------------
def _sanitize_rules():
    """The regex/replace pairs of tests/nbval_sanitize.cfg (as nbval reads them)."""
    if not SANITIZE_FILE.exists():
        return []
    text = SANITIZE_FILE.read_text(encoding="utf-8")
    pairs = re.findall(r"^regex: (.*)$\n^replace: (.*)$", text, flags=re.MULTILINE)
    return [(re.compile(regex), replace) for regex, replace in pairs]


SANITIZE = _sanitize_rules()
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
# PyTorch's C++ warnings end with a source location inside its build tree.
TORCH_SOURCE_TAIL = re.compile(r" \(Triggered internally at [^\n]*?\.\)")


def normalise(text: str, *, modules: bool = False) -> str:
    for regex, replace in SANITIZE:
        text = regex.sub(replace, text)
    text = ADDRESS.sub("0xADDR", text)
    if modules:
        text = text.replace("tensorgrad::", "torch::").replace("tensorgrad.", "torch.")
        text = TORCH_SOURCE_TAIL.sub("", text)
    return text


def _joined(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def text_outputs(cell, *, modules: bool = False) -> str:
    """A cell's text outputs as one comparable string.

    stdout and stderr are each joined over the whole cell (how a stream is chunked into
    outputs depends on timing); `text/plain` of results and displays, and errors as
    `Class: message`, are kept in order.
    """
    streams = {"stdout": [], "stderr": []}
    others = []
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream":
            streams.setdefault(output.get("name", "stdout"), []).append(_joined(output.get("text", "")))
        elif kind in ("execute_result", "display_data"):
            data = output.get("data", {})
            if "text/plain" in data:
                others.append(f"[{kind} text/plain]\n{_joined(data['text/plain'])}")
        elif kind == "error":
            others.append(f"[error]\n{output.get('ename')}: {output.get('evalue')}")
    parts = [f"[{name}]\n{''.join(chunks)}" for name, chunks in streams.items() if chunks]
    return normalise("\n".join(parts + others), modules=modules)


def error_of(cell):
    """(ename, evalue) of the cell's error output, or None."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return output.get("ename"), normalise(output.get("evalue", ""))
    return None


# -- executing notebooks -----------------------------------------------------------------------
def _execute(nb, workdir: Path, retried=False):
    """Run `nb` in place with a fresh kernel on this interpreter; errors are kept as outputs."""
    import copy

    original = copy.deepcopy(nb)  # (to start again from, if the kernel dies at start-up)
    import ipykernel.kernelspec
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    class CurrentEnvKernelSpecs(KernelSpecManager):
        """Always start ipykernel on this interpreter (as nbval's --nbval-current-env)."""

        def get_kernel_spec(self, kernel_name):
            return self.kernel_spec_class(resource_dir=ipykernel.kernelspec.RESOURCES,
                                          **ipykernel.kernelspec.get_kernel_dict())

    env = dict(KERNEL_BASE_ENV)
    env["PYTHONHASHSEED"] = "0"
    # The kernel runs in lessons/; make this checkout importable even without an install.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    km = KernelManager(kernel_name="python3", kernel_spec_manager=CurrentEnvKernelSpecs())
    client = NotebookClient(
        nb,
        km=km,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        allow_errors=True,  # record every error, so that all problems are reported at once
        # The stored files are written elsewhere (./run notebooks, with widget state off);
        # here the state is kept only because nbclient's Output-widget capture needs it.
        store_widget_state=True,
        record_timing=False,
        resources={"metadata": {"path": str(workdir)}},
    )
    try:
        client.execute(cwd=str(workdir), env=env)
    except RuntimeError as error:
        # On a loaded 2-core machine a kernel started next to others sometimes dies before its
        # first reply (seen in CI: "Kernel died before replying to kernel_info"). That says
        # nothing about the lesson, so start it once more; any other failure is reported.
        if "before replying to kernel_info" not in str(error) or retried:
            raise
        if km.has_kernel:
            km.shutdown_kernel(now=True)
        return _execute(original, workdir, retried=True)
    finally:
        if km.has_kernel:
            km.shutdown_kernel(now=True)
    return nb


def torch_variant(nb):
    """A copy of `nb` with the backend cell swapped for torch and tensorgrad-only cells skipped.

    Skipped cells become raw cells, so that cell indices stay the same.
    """
    copy = nbformat.reads(nbformat.writes(nb), as_version=4)
    for index, cell in enumerate(copy.cells):
        if cell.cell_type != "code":
            continue
        if TAG_BACKEND in tags(cell):
            cell.source = TORCH_BACKEND_SOURCE
        elif TAG_ONLY in tags(cell):
            copy.cells[index] = nbformat.v4.new_raw_cell(cell.source)
            copy.cells[index]["id"] = cell.get("id", f"skipped-{index}")
    return copy


def fresh_copy(path: Path, backend: str):
    """The stored notebook with its outputs cleared, ready to run on `backend`."""
    nb = load(path)
    fresh = torch_variant(nb) if backend == "torch" else nbformat.reads(nbformat.writes(nb),
                                                                         as_version=4)
    for cell in fresh.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return fresh


def run_lesson(path: Path, backend: str):
    return _execute(fresh_copy(path, backend), path.parent)


# Which test needs a fresh run on which backend.
RUNS_NEEDED_BY = {"test_errors_still_happen": "tensorgrad", "test_portable_to_pytorch": "torch"}


class LessonRuns:
    """Fresh runs of the lessons, one per lesson and backend, kept for the whole session.

    The runs that the selected tests will need are started together on first use, a few at
    a time (TENSORGRAD_LESSON_JOBS, default: the number of CPUs, at most 4): each run is a
    separate kernel process, so this cuts the wall time on a multi-core machine.
    """

    def __init__(self, needed):
        self._needed = list(dict.fromkeys(needed))
        self._futures = {}
        self._pool = None

    def _start(self, key):
        if self._pool is None:
            jobs = int(os.environ.get("TENSORGRAD_LESSON_JOBS", min(4, os.cpu_count() or 1)))
            self._pool = ThreadPoolExecutor(max_workers=max(1, jobs))
        if key not in self._futures:
            self._futures[key] = self._pool.submit(run_lesson, *key)

    def get(self, path: Path, backend: str):
        key = (path, backend)
        if key not in self._futures:
            for other in self._needed:
                self._start(other)
            self._start(key)
        return self._futures[key].result()

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="session")
def lesson_runs(request):
    needed = []
    for item in request.session.items:
        backend = RUNS_NEEDED_BY.get(getattr(item, "originalname", None))
        path = getattr(item, "callspec", None) and item.callspec.params.get("path")
        if backend and path is not None:
            needed.append((path, backend))
    if importlib.util.find_spec("torch") is None:
        needed = [key for key in needed if key[1] != "torch"]
    runs = LessonRuns(needed)
    yield runs
    runs.close()


# -- structure ---------------------------------------------------------------------------------
def test_there_are_lessons():
    assert LESSONS, f"no notebooks in {LESSONS_DIR}"


def test_lessons_are_numbered_contiguously_from_01():
    numbers = [lesson_number(path) for path in LESSONS]
    assert numbers == list(range(1, len(LESSONS) + 1)), (
        "lesson numbers must run 01, 02, 03, ... with no gap or repeat; found "
        + ", ".join(path.name for path in LESSONS))


def test_readme_lists_exactly_the_lessons_present():
    assert README.exists(), "lessons/README.md is missing"
    listed = re.findall(r"\b(\d\d_[A-Za-z0-9_]+\.ipynb)\b", README.read_text(encoding="utf-8"))
    present = [path.name for path in LESSONS]
    # a line may name its file twice (link text and target), so count lines, not mentions
    lines = [line for line in README.read_text(encoding="utf-8").splitlines()
             if re.search(r"\b\d\d_[A-Za-z0-9_]+\.ipynb\b", line)]
    per_line = [sorted(set(re.findall(r"\b(\d\d_[A-Za-z0-9_]+\.ipynb)\b", line))) for line in lines]
    repeated = sorted({name for names in per_line for name in names
                       if sum(name in other for other in per_line) > 1})
    assert not repeated, f"lessons/README.md lists these more than once: {repeated}"
    missing = sorted(set(present) - set(listed))
    extra = sorted(set(listed) - set(present))
    assert not missing and not extra, (
        f"lessons/README.md must list exactly the lessons present. Not listed: {missing}; "
        f"listed but no such file: {extra}")


@pytest.mark.parametrize("path", lesson_params())
def test_title_matches_file_number(path):
    nb = load(path)
    first = nb.cells[0] if nb.cells else None
    assert first is not None and first.cell_type == "markdown", \
        f"{path.name}: the first cell must be a markdown title"
    match = re.match(r"# Lesson (\d+): \S", first.source.lstrip())
    assert match, f"{path.name}: the first cell must start with '# Lesson N: Title'"
    assert int(match.group(1)) == lesson_number(path), (
        f"{path.name}: the title says lesson {match.group(1)}, the file name "
        f"{lesson_number(path)}")


@pytest.mark.parametrize("path", lesson_params())
def test_what_you_will_learn_and_summary(path):
    nb = load(path)
    learn = markdown_starting(nb, "## What you will learn")
    assert len(learn) == 1, f"{path.name}: needs one markdown cell starting '## What you will learn'"
    assert learn[0][0] < len(nb.cells) // 2, \
        f"{path.name}: '## What you will learn' belongs at the start"
    summary = markdown_starting(nb, "## Summary")
    assert summary, f"{path.name}: needs a markdown cell starting '## Summary'"
    index, cell = summary[-1]
    assert index == len(nb.cells) - 1, f"{path.name}: the '## Summary' cell must be the last cell"
    named = re.findall(r"exercises/[A-Za-z0-9_]+\.ipynb", cell.source)
    assert named, (
        f"{path.name}: the summary must point to its exercise set, e.g. "
        "`exercises/03_chain_rule.ipynb`")
    missing = sorted({name for name in named if not (ROOT / name).is_file()})
    assert not missing, f"{path.name}: the summary points to exercise sets that do not exist: {missing}"


@pytest.mark.parametrize("path", lesson_params())
def test_one_backend_cell(path):
    nb = load(path)
    backend = [(i, c) for i, c in enumerate(nb.cells) if TAG_BACKEND in tags(c)]
    assert len(backend) == 1, (
        f"{path.name}: exactly one cell must be tagged '{TAG_BACKEND}', found {len(backend)}")
    index, cell = backend[0]
    assert cell.cell_type == "code" and cell.source.strip() == BACKEND_SOURCE, (
        f"{path.name}: the backend cell must be a code cell whose whole source is "
        f"{BACKEND_SOURCE!r}; found {cell.source!r}")
    importing = [describe(i, c) for i, c in code_cells(nb)
                 if i != index and TAG_ONLY not in tags(c)
                 and re.search(r"^\s*(import tensorgrad|from tensorgrad)\b", c.source, re.M)]
    assert not importing, (
        f"{path.name}: only the backend cell may import tensorgrad (or tag the cell "
        f"'{TAG_ONLY}'): {importing}")


def is_answer(cell) -> bool:
    """An answer cell: markdown that opens with `<details>` and holds the **Answer:**."""
    text = cell.source.lstrip()
    return (cell.cell_type == "markdown" and text.startswith("<details")
            and "**Answer:**" in text)


def predict_pairs(nb):
    """[(predict_index, [code indices], answer_index or None, problem or None)] of a notebook."""
    pairs = []
    for start, _ in markdown_starting(nb, "**Predict:**"):
        codes, answer, problem = [], None, None
        for index in range(start + 1, len(nb.cells)):
            cell = nb.cells[index]
            if cell.cell_type == "code":
                codes.append(index)
            elif cell.source.lstrip().startswith("**Predict:**"):
                problem = "**Predict:** without an answer before the next one"
                break
            elif is_answer(cell):
                answer = index
                break
            elif cell.source.lstrip().startswith("**Answer:**"):
                problem = ("the answer is not collapsed: write it as a closed "
                           "<details><summary>...</summary> block holding **Answer:**")
                break
        else:
            problem = "**Predict:** is never answered"
        if answer is not None and not codes:
            problem = "no code cell between **Predict:** and its answer"
        pairs.append((start, codes, answer, problem))
    return pairs


def preview_line(cell):
    """The line JupyterLab shows on the bar of a collapsed output (its first output's first
    non-empty line, taken from the first of these MIME types that the output has)."""
    outputs = cell.get("outputs", [])
    if not outputs:
        return None
    first = outputs[0]
    if first.get("output_type") == "stream":
        data = {f"application/vnd.jupyter.{first.get('name', 'stdout')}": first.get("text", "")}
    else:
        data = first.get("data", {})
    for mime in ("text/html", "image/svg+xml", "application/pdf", "text/markdown", "text/plain",
                 "application/vnd.jupyter.stderr", "application/vnd.jupyter.stdout"):
        if mime in data:
            lines = _joined(data[mime]).split("\n")
            return next((line for line in lines if line != ""), None)
    return None


# The only first lines a collapsed prediction may show (JupyterLab previews them on the bar).
NEUTRAL_PREVIEW = "The result (compare it with your prediction):"
ANSWER_SUMMARY = re.compile(
    r"^<details>\s*<summary>\s*<b>Answer</b> \(open it once you have run the cell above\)"
    r"\s*</summary>\s*\n\s*\n")
MIN_PREDICTIONS = 24


@pytest.mark.parametrize("path", lesson_params())
def test_predict_then_answer(path):
    nb = load(path)
    pairs = predict_pairs(nb)
    problems = [f"cell {start}: {problem}" for start, _, _, problem in pairs if problem]
    assert not problems, f"{path.name}: " + "; ".join(problems)
    assert pairs, (f"{path.name}: needs at least one predict-then-run moment: a markdown "
                   "cell starting **Predict:**, code, then a collapsed **Answer:**")


@pytest.mark.parametrize("path", lesson_params())
def test_predictions_are_not_spoiled(path):
    """Each prediction's output is stored collapsed, its answer closed, and neither previews it."""
    nb = load(path)
    problems = []
    in_pairs = set()
    for start, codes, answer, _ in predict_pairs(nb):
        for index in codes:
            in_pairs.add(index)
            cell = nb.cells[index]
            if "predict" not in tags(cell):
                problems.append(f"{describe(index, cell)}: a prediction cell must be tagged 'predict'")
            if cell.get("metadata", {}).get("jupyter", {}).get("outputs_hidden") is not True:
                problems.append(f"{describe(index, cell)}: store it with its output collapsed "
                                "(metadata.jupyter.outputs_hidden: true)")
            line = preview_line(cell)
            if line != NEUTRAL_PREVIEW:
                problems.append(f"{describe(index, cell)}: the collapsed output previews {line!r}; "
                                f"print {NEUTRAL_PREVIEW!r} first")
        if answer is not None:
            cell = nb.cells[answer]
            if cell.get("metadata", {}).get("jupyter", {}).get("source_hidden") is not True \
                    and not ANSWER_SUMMARY.match(cell.source.lstrip()):
                problems.append(f"cell {answer}: the answer must open with the closed block "
                                "'<details><summary><b>Answer</b> (open it once you have run the "
                                "cell above)</summary>' and a blank line")
    stray = [describe(i, c) for i, c in code_cells(nb) if "predict" in tags(c) and i not in in_pairs]
    if stray:
        problems.append(f"tagged 'predict' outside a **Predict:**/answer pair: {stray}")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


def test_enough_predictions_across_the_course():
    count = sum(len(predict_pairs(load(path))) for path in LESSONS)
    assert count >= MIN_PREDICTIONS, (
        f"the lessons have {count} predict-then-run moments; the course wants at least "
        f"{MIN_PREDICTIONS}")


TAG_SEED = "seed"
MISCONCEPTION_BOX = ("> **Misconception:", "> **Out of date:")
MIN_SEEDS = 10


@pytest.mark.parametrize("path", lesson_params())
def test_seed_examples_have_a_misconception_box(path):
    """A `seed` cell shows a tutorial's example as written there; before the next code cell, a
    markdown box starting `> **Misconception:` or `> **Out of date:` says what is wrong in it."""
    nb = load(path)
    missing = []
    for index, cell in code_cells(nb):
        if TAG_SEED not in tags(cell):
            continue
        boxes = []
        for later in nb.cells[index + 1:]:
            if later.cell_type == "code":
                break
            boxes.append(later.source.lstrip().startswith(MISCONCEPTION_BOX))
        if not any(boxes):
            missing.append(describe(index, cell))
    assert not missing, (f"{path.name}: seed examples without a misconception box after them: "
                         f"{missing}")


def test_enough_seed_examples_across_the_course():
    count = sum(TAG_SEED in tags(cell) for path in LESSONS for _, cell in code_cells(load(path)))
    assert count >= MIN_SEEDS, (f"the lessons show {count} seed-tutorial examples (cells tagged "
                                f"'{TAG_SEED}'); the course wants at least {MIN_SEEDS}")


PICTURE_TYPES = ("image/svg+xml", "image/png")
MAX_SVG_WIDTH_PT = 640  # JupyterLab's output area at a 1280-pixel-wide window, with margins


def svg_width_pt(svg: str):
    match = re.search(r'<svg\b[^>]*\bwidth="([\d.]+)(pt|px)?"', svg)
    if not match:
        return None
    value = float(match.group(1))
    return value * 0.75 if match.group(2) == "px" else value


@pytest.mark.parametrize("path", lesson_params())
def test_stores_a_picture_that_fits(path):
    nb = load(path)
    pictures, too_wide = 0, []
    for index, cell in code_cells(nb):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if any(mime in data for mime in PICTURE_TYPES):
                pictures += 1
            svg = data.get("image/svg+xml")
            if svg:
                width = svg_width_pt(_joined(svg))
                if width is not None and width > MAX_SVG_WIDTH_PT:
                    too_wide.append(f"{describe(index, cell)}: {width:.0f} pt")
    assert pictures, f"{path.name}: stores no picture (an SVG or PNG output)"
    assert not too_wide, (f"{path.name}: pictures wider than the output area "
                          f"({MAX_SVG_WIDTH_PT} pt): {too_wide}")


@pytest.mark.parametrize("path", lesson_params())
def test_few_ignored_outputs(path):
    nb = load(path)
    cells = code_cells(nb)
    ignored = [i for i, c in cells if TAG_IGNORE_OUTPUT in tags(c)]
    assert len(ignored) < MAX_IGNORE_OUTPUT_SHARE * len(cells), (
        f"{path.name}: {len(ignored)} of {len(cells)} code cells are tagged "
        f"'{TAG_IGNORE_OUTPUT}' (cells {ignored}); the limit is under "
        f"{MAX_IGNORE_OUTPUT_SHARE:.0%}")


@pytest.mark.parametrize("path", lesson_params())
def test_stored_executed_in_order(path):
    nb = load(path)
    problems = []
    counts = []
    for index, cell in code_cells(nb):
        if not cell.source.strip():
            problems.append(f"cell {index} is an empty code cell")
            continue
        if cell.execution_count is None:
            problems.append(f"{describe(index, cell)} was not executed")
        else:
            counts.append(cell.execution_count)
        lines = [line for line in cell.source.rstrip().splitlines()
                 if line.strip() and not line.lstrip().startswith("#")]
        if lines and lines[-1].rstrip().endswith(";"):
            problems.append(f"{describe(index, cell)} ends with ';' (write `_ = expr` instead)")
    if counts and counts != list(range(1, len(counts) + 1)):
        problems.append(f"execution counts are {counts}, not 1, 2, 3, ...: re-run the whole "
                        "notebook with ./run notebooks")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("path", lesson_params())
def test_stored_errors_are_tagged(path):
    nb = load(path)
    untagged = [describe(i, c) for i, c in code_cells(nb)
                if error_of(c) and TAG_RAISES not in tags(c)]
    no_error = [describe(i, c) for i, c in code_cells(nb)
                if TAG_RAISES in tags(c) and not error_of(c)]
    assert not untagged, f"{path.name}: stored errors in cells not tagged '{TAG_RAISES}': {untagged}"
    assert not no_error, f"{path.name}: tagged '{TAG_RAISES}' but no stored error: {no_error}"


@pytest.mark.parametrize("path", lesson_params())
def test_tensorgrad_only_cells_say_why(path):
    nb = load(path)
    problems = []
    for index, cell in enumerate(nb.cells):
        if TAG_ONLY not in tags(cell):
            continue
        reason = cell.get("metadata", {}).get("tensorgrad", {}).get("only_because")
        if cell.cell_type != "code":
            problems.append(f"cell {index}: '{TAG_ONLY}' on a {cell.cell_type} cell")
        elif TAG_BACKEND in tags(cell):
            problems.append(f"cell {index}: the backend cell cannot be '{TAG_ONLY}'")
        elif not isinstance(reason, str) or not reason.strip():
            problems.append(f"{describe(index, cell)}: no metadata.tensorgrad.only_because")
        else:
            absent = [part.strip() for part in re.split(r"[,;]", reason)
                      if part.strip() and part.strip() not in cell.source]
            if absent:
                problems.append(f"{describe(index, cell)}: only_because names {absent}, "
                                "which the cell's source does not use")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


# -- fresh runs --------------------------------------------------------------------------------
@pytest.mark.parametrize("path", lesson_params())
def test_errors_still_happen(path, lesson_runs):
    stored = load(path)
    fresh = lesson_runs.get(path, "tensorgrad")
    problems = []
    for index, cell in code_cells(stored):
        got = error_of(fresh.cells[index])
        if TAG_RAISES in tags(cell):
            expected = error_of(cell)
            if expected is None:
                problems.append(f"{describe(index, cell)}: tagged '{TAG_RAISES}' but no error is stored")
            elif got is None:
                problems.append(f"{describe(index, cell)}: no longer raises; the lesson shows "
                                f"{expected[0]}: {expected[1]}")
            elif got != expected:
                problems.append(f"{describe(index, cell)}: raises a different error\n"
                                f"    stored: {expected[0]}: {expected[1]}\n"
                                f"    now:    {got[0]}: {got[1]}")
        elif got is not None:
            problems.append(f"{describe(index, cell)}: raises {got[0]}: {got[1]}")
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("path", lesson_params())
def test_portable_to_pytorch(path, lesson_runs):
    pytest.importorskip("torch", reason="the portability test needs PyTorch installed")
    stored = load(path)
    fresh = lesson_runs.get(path, "torch")
    mismatches = []
    for index, cell in code_cells(stored):
        cell_tags = tags(cell)
        if TAG_ONLY in cell_tags or TAG_IGNORE_OUTPUT in cell_tags or TAG_BACKEND in cell_tags:
            continue
        expected = text_outputs(cell, modules=True)
        got = text_outputs(fresh.cells[index], modules=True)
        if expected != got:
            diff = "\n".join(difflib.unified_diff(
                expected.splitlines(), got.splitlines(),
                "stored (tensorgrad)", "torch", lineterm=""))
            mismatches.append(f"{describe(index, cell)}:\n{diff}")
    assert not mismatches, (
        f"{path.name}: {len(mismatches)} cell(s) print differently with `import torch as tg`:\n\n"
        + "\n\n".join(mismatches))
