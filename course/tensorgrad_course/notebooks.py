"""Reading and writing notebooks, and what nbgrader's cell metadata means.

Two concerns live here because both generator and grader need them:

* **Byte-stable I/O.** ``exercises/`` is committed and CI regenerates it, so the
  same source must always give the same bytes. nbformat invents *random* cell
  ids for cells that lack one; we assign deterministic ids first. Files are
  written with ``nbformat.writes`` (sorted keys, one-space indent) atomically.
* **Cell roles.** nbgrader's schema (``schema_version`` 3) marks answer cells
  with ``solution: true`` and autograded test cells with ``grade: true,
  solution: false, locked: true, points: N``. :func:`role` turns that into one
  word so that the rest of the code does not repeat the boolean logic.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import warnings
from pathlib import Path
from typing import Any

import nbformat

from .errors import NotebookError

SCHEMA_VERSION = 3

ANSWER = "answer"  # solution: true (the student edits it); may also be manually graded
TEST = "test"  # grade: true, solution: false (autograded, locked)
LOCKED = "locked"  # locked: true, neither of the above (e.g. instructions, setup code)
PLAIN = "plain"  # no nbgrader role

_CELL_ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")


def nbgrader(cell: dict) -> dict | None:
    """The cell's ``metadata.nbgrader`` dict, or None if it has none."""
    metadata = cell.get("metadata") if isinstance(cell, dict) else None
    meta = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return meta if isinstance(meta, dict) else None


def grade_id(cell: dict) -> str | None:
    meta = nbgrader(cell)
    gid = meta.get("grade_id") if meta else None
    return gid if isinstance(gid, str) and gid else None


def role(cell: dict) -> str:
    """One of ANSWER, TEST, LOCKED, PLAIN (see module docstring)."""
    meta = nbgrader(cell)
    if not meta:
        return PLAIN
    if meta.get("solution"):
        return ANSWER
    if meta.get("grade"):
        return TEST
    if meta.get("locked"):
        return LOCKED
    return PLAIN


def points(cell: dict) -> float | None:
    """The cell's points if it is graded and they are a usable number, else None."""
    meta = nbgrader(cell) or {}
    value = meta.get("points")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return float(value)


def is_manually_graded(cell: dict) -> bool:
    """An answer cell that also carries points: a person grades it, not the autograder."""
    meta = nbgrader(cell) or {}
    return bool(meta.get("solution") and meta.get("grade"))


def source_of(cell: dict) -> str:
    """A cell's source as one string (notebook JSON may store a list of lines)."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def source_offsets(source: str):
    """A function ``(lineno, col, *, chars=False) -> offset`` into ``source``, for a position
    that :mod:`ast` gives (its columns count UTF-8 bytes) or, with ``chars``, :mod:`tokenize`
    (its columns count characters)."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(lineno: int, col: int, *, chars: bool = False) -> int:
        if chars or lineno > len(lines):
            return starts[min(lineno, len(lines)) - 1 if lines else 0] + col
        return starts[lineno - 1] + len(lines[lineno - 1].encode("utf-8")[:col].decode("utf-8"))

    return offset


#: The most values (objects, lists, and the items between commas) the grader parses in one JSON text, a
#: kernel message or a submitted notebook: counted on the bytes before any parsing (:func:`json_items`).
#: Parsed, a value costs at most about 100 bytes (``{}`` is a 64-byte dict plus its place in a list), so
#: one text costs the grader its own size twice (bytes, text) plus at most about 100 MB.
MAX_JSON_ITEMS = 1_000_000
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


def json_items(raw: bytes) -> int:
    """How many values JSON text ``raw`` holds (its objects, lists and commas, outside strings), counted
    on the bytes, in C, before anything is parsed. The string-blind count first; only when that is
    over :data:`MAX_JSON_ITEMS` are the strings taken out (brackets and commas in text are no values)."""
    quick = raw.count(b",") + raw.count(b"[") + raw.count(b"{")
    if quick <= MAX_JSON_ITEMS:
        return quick
    bare = _JSON_STRING.sub(b"", raw)
    return bare.count(b",") + bare.count(b"[") + bare.count(b"{")


def load_json(path: Path) -> dict:
    """Parse a notebook file as JSON, with errors that say what is wrong."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise NotebookError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    return parse_json(data, path=str(path))


def parse_json(data: bytes, *, path: str | None = None) -> dict:
    """Parse notebook bytes as JSON; the dict must have a ``cells`` list, and at most
    :data:`MAX_JSON_ITEMS` values (a file of millions of ``{}`` would cost the grader 30 times its size)."""
    if json_items(data) > MAX_JSON_ITEMS:
        raise NotebookError(f"not a notebook the grader reads: more than {MAX_JSON_ITEMS:,} JSON values "
                            "(objects, lists, items)", path=path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotebookError("not a notebook: the file is not UTF-8 text", path=path) from None
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(
            f"not a notebook: invalid JSON ({exc.msg} at line {exc.lineno})", path=path
        ) from None
    except RecursionError:
        raise NotebookError("not a notebook: JSON nested too deeply", path=path) from None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("cells"), list):
        raise NotebookError("not a notebook: JSON without a 'cells' list", path=path)
    return parsed


#: What each field of a notebook and of its cells must be, where present (nbformat 4's schema).
_NOTEBOOK_FIELDS = {"metadata": dict, "cells": list, "nbformat": int, "nbformat_minor": int}
_CELL_FIELDS = {"cell_type": str, "metadata": dict, "id": str, "outputs": list, "attachments": dict}
_NBGRADER_FIELDS = {"grade_id": str, "schema_version": int}


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true or false", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def shape_problem(data: dict) -> str:
    """What in a submitted notebook's JSON is not the shape of a notebook (a list where a dict
    belongs, a cell that is a number...), or "" when every field the grader reads has its
    type. Submissions are anyone's bytes: the grader checks their shape once, here, so that
    no later step meets a ``'list' object has no attribute 'get'`` and no odd file stops a batch."""
    for key, kind in _NOTEBOOK_FIELDS.items():
        if key in data and not isinstance(data[key], kind):
            return f"the notebook's {key!r} is {_kind(data[key])}, not {_kind(kind())}"
    metadata = data.get("metadata", {})
    for key in ("tensorgrad", "kernelspec", "language_info"):
        if key in metadata and not isinstance(metadata[key], dict):
            return f"the notebook's metadata {key!r} is {_kind(metadata[key])}, not an object"
    for index, cell in enumerate(data.get("cells", [])):
        where = f"cell {index + 1}"
        if not isinstance(cell, dict):
            return f"{where} is {_kind(cell)}, not an object"
        for key, kind in _CELL_FIELDS.items():
            if key in cell and not isinstance(cell[key], kind):
                return f"{where}'s {key!r} is {_kind(cell[key])}, not {_kind(kind())}"
        source = cell.get("source", "")
        if not (isinstance(source, str) or isinstance(source, list) and all(isinstance(s, str) for s in source)):
            return f"{where}'s source is {_kind(source)}, not text"
        nbg = cell.get("metadata", {}).get("nbgrader")
        if nbg is not None and not isinstance(nbg, dict):
            return f"{where}'s nbgrader metadata is {_kind(nbg)}, not an object"
        for key, kind in _NBGRADER_FIELDS.items():
            if nbg and key in nbg and not (isinstance(nbg[key], kind) and not isinstance(nbg[key], bool)):
                return f"{where}'s nbgrader {key!r} is {_kind(nbg[key])}, not {_kind(kind())}"
    return ""


def read_notebook(path: Path, *, id_seed: str | None = None) -> nbformat.NotebookNode:
    """Read and validate a (source) notebook deterministically.

    Cells without an id get ``cell-<hash>`` ids derived from ``id_seed`` (default:
    the file name) and their position, instead of nbformat's random ones.
    """
    data = load_json(path)
    major = data.get("nbformat")
    if major != 4:
        raise NotebookError(
            f"unsupported notebook format {major!r}; save it with Jupyter (nbformat 4)",
            path=str(path),
        )
    if data.get("nbformat_minor", 0) >= 5:
        seed = id_seed or Path(path).name
        used = {c.get("id") for c in data["cells"] if isinstance(c, dict)}
        for index, cell in enumerate(data["cells"]):
            if isinstance(cell, dict) and not (
                isinstance(cell.get("id"), str) and _CELL_ID.match(cell["id"])
            ):
                cell["id"] = _fresh_id(seed, index, used)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            nb = nbformat.from_dict(data)
            nbformat.validate(nb)
        except nbformat.ValidationError as exc:
            raise NotebookError(
                f"not a valid notebook: {exc.message}", path=str(path)
            ) from None
    return nb


def _fresh_id(seed: str, index: int, used: set) -> str:
    n = 0
    while True:
        digest = hashlib.sha1(f"{seed}:{index}:{n}".encode()).hexdigest()[:8]
        cell_id = f"cell-{digest}"
        if cell_id not in used:
            used.add(cell_id)
            return cell_id
        n += 1


def dumps(nb: Any) -> str:
    """Serialize byte-stably: nbformat's sorted-key, indent-1 JSON, ending in a newline."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` so that readers see either the old file or the new one, never half."""
    write_atomic_bytes(path, text.encode("utf-8"))


def write_atomic_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def find_notebooks(root: Path) -> list[Path]:
    """All ``*.ipynb`` under ``root``, sorted, skipping hidden dirs and checkpoints."""
    root = Path(root)
    found = []
    for path in root.rglob("*.ipynb"):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts):
            continue
        found.append(path)
    return sorted(found)
