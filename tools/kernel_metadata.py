"""Give the learner's copies of the notebooks the metadata their kernel will report.

    python tools/kernel_metadata.py NOTEBOOK...    (run by ./run lab and ./run reset)

The shipped notebooks store ``language_info`` without ``version`` (the Python patch version
differs from machine to machine; tools/execute_notebooks.py drops it). But JupyterLab writes the
running kernel's ``language_info`` into the notebook as soon as the kernel starts, version
included, and that marks an untouched lesson "modified": closing it asked "Save changes?".
So the working copy gets, when it is made, the version this interpreter (the venv's Python, the
one every kernel of ./run lab runs on) reports, as ipykernel reports it, and nothing else
changes. Files are rewritten only when that adds something.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from tensorgrad_course.notebooks import dumps  # the sorted-key JSON every tool writes

#: What ipykernel puts in its kernel_info reply (language_info.version).
KERNEL_PYTHON = sys.version.split()[0]


def add_kernel_version(path: Path) -> bool:
    """Set metadata.language_info.version to the kernel's Python; True if the file changed."""
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    info = nb.metadata.get("language_info")
    if not isinstance(info, dict) or info.get("name") != "python" or info.get("version") == KERNEL_PYTHON:
        return False
    info["version"] = KERNEL_PYTHON
    new = dumps(nb)
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def main(argv: list[str]) -> int:
    for name in argv:
        add_kernel_version(Path(name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
