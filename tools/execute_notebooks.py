"""Re-execute the course notebooks and store their outputs, deterministically.

    ./run notebooks                      # every notebook in lessons/ and solutions/
    ./run notebooks lessons/01_x.ipynb   # only these files or folders
    ./run notebooks --check              # run them, report which would change, write nothing

Stored outputs are what nbval compares against in CI, so they are only ever produced
by this script, never edited by hand. To keep re-runs byte-identical:

* the kernel runs with PYTHONHASHSEED=0, in the notebook's folder, on this
  interpreter (the project's venv), whatever kernelspecs are installed elsewhere;
* NumPy's BLAS runs on one thread: the sums of a product then do not depend on the machine's
  core count, and a timing a lesson stores measures the work, not the wait: on a busy machine a
  two-thread BLAS waits for its second thread at every product (lesson 13 once stored a
  512 x 512 product at 50 ms instead of 1, and a backward pass at "10 x the forward");
* widget state is not stored (its model ids are random), and consecutive stream
  outputs are merged (how a print is split into messages depends on timing);
* per-cell execution timestamps are not recorded, and language_info.version (the
  Python patch version) is dropped from the notebook metadata;
* tracebacks end at the learner's line (tools/short_tracebacks.py, run in every kernel), and
  name the checkout's files by relative path, not absolute;
* text outputs are rewritten with the rules of tests/nbval_sanitize.cfg (memory
  addresses, ipykernel temp paths, the graphviz version), which nbval applies anyway
  before comparing, so a stray address does not churn the stored file;
* a widget's view output is dropped where the output also has a text/plain form;
* cells without an id get ``cell-<hash>`` ids from the file name and position (the same
  scheme as tensorgrad_course.notebooks), instead of nbformat's random ones;
* files are written with nbformat's sorted-key, one-space-indent JSON, and only when
  their bytes change.

Cells tagged ``raises-exception`` may raise; any other error stops with a message that
names the notebook and cell.

The Chinese edition (``lessons/zh/``, ``solutions/zh/``) is generated: after the English
notebooks run, ``tools/translate.py`` writes their Chinese editions, and these are executed
here too, since they print Chinese (the sets' self-check, the lessons' traces, steppers and
the labels of their pictures). A folder argument therefore skips its ``zh/`` subfolder.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
from pathlib import Path

os.environ["PYTHONHASHSEED"] = "0"  # inherited by the kernel process
for _blas_threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_blas_threads] = "1"  # (see the docstring)

import ipykernel.kernelspec  # noqa: E402
import nbformat  # noqa: E402
from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402
from jupyter_client.manager import KernelManager  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from nbclient.exceptions import CellExecutionError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import translate  # noqa: E402  (tools/translate.py: the Chinese edition)
from tensorgrad_course.notebooks import dumps  # noqa: E402  (byte-stable notebook JSON)
from tensorgrad.viz.words import chinese_fonts  # noqa: E402  (what the Chinese lessons' pictures are drawn in)
SHORT_TRACEBACKS = ROOT / "tools" / "short_tracebacks.py"
SANITIZE_FILE = ROOT / "tests" / "nbval_sanitize.cfg"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
DEFAULT_FOLDERS = ("lessons", "solutions")
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
_CELL_ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")


class CurrentEnvKernelSpecs(KernelSpecManager):
    """Always start ipykernel on this interpreter (as nbval's --nbval-current-env does)."""

    def get_kernel_spec(self, kernel_name):
        return self.kernel_spec_class(
            resource_dir=ipykernel.kernelspec.RESOURCES, **ipykernel.kernelspec.get_kernel_dict()
        )


def find_notebooks(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for arg in paths:
        path = Path(arg)
        if path.is_file() and path.suffix == ".ipynb":
            found.append(path)
        elif path.is_dir():
            found.extend(
                p for p in sorted(path.rglob("*.ipynb"))
                if not any(part.startswith(".") for part in p.relative_to(path).parts)
                and not _in_generated_edition(p, path)
            )
        elif not path.exists() and arg not in DEFAULT_FOLDERS:
            raise SystemExit(f"execute_notebooks: no such file or folder: {arg}")
    return found


def _in_generated_edition(path: Path, folder: Path) -> bool:
    """``lessons/zh/x.ipynb`` found under ``lessons/``: written by tools/translate.py."""
    parts = path.relative_to(folder).parts
    return len(parts) > 1 and parts[0] == translate.LANGUAGE and folder.resolve().name in translate.TRANSLATED


def assign_ids(nb, seed: str) -> None:
    used = {c.get("id") for c in nb.cells}
    for index, cell in enumerate(nb.cells):
        if isinstance(cell.get("id"), str) and _CELL_ID.match(cell["id"]):
            continue
        n = 0
        while True:
            cell_id = "cell-" + hashlib.sha1(f"{seed}:{index}:{n}".encode()).hexdigest()[:8]
            if cell_id not in used:
                break
            n += 1
        used.add(cell_id)
        cell["id"] = cell_id


def sanitize_rules() -> list[tuple[re.Pattern, str]]:
    """The regex/replace pairs of tests/nbval_sanitize.cfg, parsed as nbval parses them."""
    if not SANITIZE_FILE.exists():
        return []
    text = SANITIZE_FILE.read_text(encoding="utf-8")
    pairs = re.findall(r"^regex: (.*)$\n^replace: (.*)$", text, flags=re.MULTILINE)
    return [(re.compile(regex), replace) for regex, replace in pairs]


def _sanitize_text(value, rules):
    joined = "".join(value) if isinstance(value, list) else value
    if not isinstance(joined, str):
        return value
    for regex, replace in rules:
        joined = regex.sub(replace, joined)
    return joined


def normalise(nb) -> None:
    """Remove what changes from run to run or machine to machine but carries no content."""
    rules = sanitize_rules()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            # transient display ids are per-session
            output.pop("transient", None)
            if "text" in output:
                output["text"] = _sanitize_text(output["text"], rules)
            if output.get("output_type") == "error":
                # nbval does not compare tracebacks, but they name files by absolute path:
                # store them relative to the checkout so the file is the same in any clone.
                prefix = str(ROOT) + os.sep
                output["traceback"] = [_sanitize_text(line.replace(prefix, ""), rules)
                                       for line in output.get("traceback", [])]
            data = output.get("data")
            if not data:
                continue
            if WIDGET_VIEW in data and "text/plain" in data:
                del data[WIDGET_VIEW]
            for mime in list(data):
                if mime.startswith("text/") or mime.endswith(("+xml", "/javascript")):
                    data[mime] = _sanitize_text(data[mime], rules)
    nb.metadata.pop("widgets", None)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    info = nb.metadata.get("language_info")
    if isinstance(info, dict):
        info.pop("version", None)


def execute(path: Path, timeout: int) -> str:
    nb = nbformat.read(path, as_version=4)
    if nb.nbformat_minor < 5:
        nb.nbformat_minor = 5
    assign_ids(nb, path.name)
    km = KernelManager(kernel_name="python3", kernel_spec_manager=CurrentEnvKernelSpecs())
    client = NotebookClient(
        nb,
        km=km,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent.resolve())}},
        store_widget_state=False,
        coalesce_streams=True,  # how a print is split into messages is timing, not content
        record_timing=False,
        allow_errors=False,
        # The short tracebacks the learner sees (tools/short_tracebacks.py), whether or not this
        # runs under ./run, whose IPython folder has it as a start-up file.
        extra_arguments=[f"--IPKernelApp.exec_files={SHORT_TRACEBACKS}"],
    )
    try:
        client.execute(cwd=str(path.parent.resolve()))
    finally:
        if km.has_kernel:  # nbclient leaves a kernel manager it did not create running
            km.shutdown_kernel(now=True)
    normalise(nb)
    return dumps(nb)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="notebooks or folders (default: lessons/ solutions/)")
    parser.add_argument("--check", action="store_true",
                        help="execute, report notebooks whose stored outputs differ, write nothing")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")
    args = parser.parse_args(argv)

    os.chdir(ROOT)
    notebooks = find_notebooks(args.paths or list(DEFAULT_FOLDERS))
    if not notebooks:
        print("execute_notebooks: no notebooks found in " + ", ".join(args.paths or DEFAULT_FOLDERS))
        return 0
    changed, failed = run_all(notebooks, args)
    untranslated = 0
    english = [p for p in notebooks if translate.edition_of(p) is not None]
    if english:
        # The Chinese edition of what just ran, which runs too (its self-check, traces and
        # pictures speak Chinese); --check runs the edition as it is stored.
        if not args.check:
            untranslated = translate.cmd_write([str(p) for p in english])
        editions = [translate.edition_of(p) for p in english]
        if not args.check and any(not translate.is_exercise_set(p) for p in english) and not chinese_fonts():
            print("execute_notebooks: warning: no Chinese font for matplotlib (Debian: apt-get install "
                  "fonts-wqy-microhei); the Chinese lessons' pictures will show boxes for their labels",
                  file=sys.stderr)
        more_changed, more_failed = run_all([p for p in editions if p.exists()], args)
        changed += more_changed
        failed += more_failed
        notebooks += editions
    verb = "would change" if args.check else "updated"
    print(f"execute_notebooks: {len(notebooks)} notebook(s), {len(changed)} {verb}, "
          f"{len(failed)} failed")
    if untranslated:
        print("execute_notebooks: the Chinese edition is not up to date (see the errors above): update "
              "the entries in translations/zh/ and run ./run translations write", file=sys.stderr)
    if failed or untranslated or (args.check and changed):
        return 1
    return 0


def run_all(notebooks: list[Path], args) -> tuple[list[Path], list[Path]]:
    """Execute each notebook; store its outputs unless --check. Returns (changed, failed)."""
    changed, failed = [], []
    for path in notebooks:
        print(f"executing {path} ...", flush=True)
        try:
            text = execute(path, args.timeout)
        except CellExecutionError as exc:
            failed.append(path)
            print(f"  FAILED: {path}: a cell raised (tag it 'raises-exception' if that is meant)\n{exc}",
                  file=sys.stderr)
            continue
        old = path.read_text(encoding="utf-8")
        if text == old:
            print("  unchanged")
            continue
        changed.append(path)
        if args.check:
            print("  outputs differ from the stored ones")
        else:
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
            print("  updated")
    return changed, failed


if __name__ == "__main__":
    sys.exit(main())
