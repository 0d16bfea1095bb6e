"""Which exercise set a submitted file belongs to: by its content first, never by a guess.

A class folder holds whatever students uploaded, under whatever names their
course site gave it: ``03_exercises_chain_rule-Copy1.ipynb`` (Jupyter's copy),
``01_exercises_computation_graphs (1).ipynb`` (a browser's second download),
``smithjane_12345_678901_03_exercises_chain_rule.ipynb`` (Canvas),
``Jane Smith_12345_assignsubmission_file_03_exercises_chain_rule.ipynb`` (Moodle),
``03_chain_rule.ipynb`` (the set's name before sets were named apart from their lessons), a
``.py`` export, a PDF, an empty file. Every set uses the same grade ids
(``task1``, ``task1_check``...), so grade ids cannot tell sets apart. The
evidence, strongest first:

1. **metadata**: ``tensorgrad-course build`` writes ``metadata.tensorgrad.exercise_set``
   into every student notebook, and Jupyter keeps notebook metadata through
   renames, copies and downloads (a set's earlier name, ``03_chain_rule``, names it too:
   :func:`.generate.earlier_name`);
2. **cell ids** that occur in one set only (the build makes the ids of the
   student versions unique across the course, and Jupyter keeps cell ids);
3. **the file name**, once the course site's and the browser's additions are
   stripped: it must name exactly one set (``03_exercises_chain_rule``, ``exercises_chain_rule``,
   its earlier name ``03_chain_rule`` or ``chain_rule``), or one set's English and Chinese
   editions (``03_exercises_chain_rule``, ``zh/03_exercises_chain_rule``), when the language
   of the notebook's text tells which;
4. with a single exercise set, grade ids in common with it.

Evidence that contradicts itself (metadata naming one set and cells of
another), several candidates, or none gives no set at all: the submission is
reported as ``unmatched`` with the reason, for a person to decide.

Files that are not notebooks are recognised (:func:`not_a_notebook`) so that
their row says what the instructor can do about them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .exercise_set import ExerciseSet
from .generate import METADATA_KEY, earlier_name
from .notebooks import source_of
from .texts import chinese_share

#: The largest submission file read, in bytes (a notebook of a few MB is already large).
MAX_FILE_BYTES = 100 * 1024 * 1024

_COPY_SUFFIX = re.compile(r"(?:[ _-]*\(\d+\)|-copy\d*|[ _]copy(?: \d+)?| - copy(?: \(\d+\))?)$", re.IGNORECASE)
_NON_WORD = re.compile(r"[^a-z0-9]+")
_LEADING_NUMBER = re.compile(r"^\d+_")
_ASK = "ask the student to upload the notebook (.ipynb) again, as saved from Jupyter (File > Download)"


@dataclass
class Match:
    exset: ExerciseSet | None
    how: str  # "metadata", "cell ids", "file name", "grade ids", or "" when unmatched
    problem: str = ""  # why there is no match


def not_a_notebook(path: str, data: bytes) -> str:
    """A reason a person can act on when ``data`` is plainly not a notebook, else ""."""
    suffix = Path(path).suffix.lower()
    if not data:
        return f"empty file (0 bytes): nothing was uploaded; {_ASK}"
    if not data.strip():
        return f"empty file (only blank space): {_ASK}"
    if data.startswith(b"%PDF"):
        return f"a PDF, not a notebook: the grader runs the .ipynb file; {_ASK}"
    if data.startswith(b"PK\x03\x04"):
        return "a zip archive, not a notebook: unpack it and grade the .ipynb files inside"
    if suffix == ".py" or (suffix != ".ipynb" and not data.lstrip().startswith(b"{")):
        kind = "a Python script (.py)" if suffix == ".py" else f"a {suffix or 'extensionless'} file"
        return f"{kind}, not a notebook: the grader needs the .ipynb file; {_ASK}"
    return ""


def set_names_in(file_name: str, sets: dict[str, ExerciseSet]) -> list[str]:
    """The sets whose name occurs in ``file_name`` as whole words, after copies' suffixes are removed.

    ``03_exercises_chain_rule``, ``exercises_chain_rule``, the set's earlier name
    ``03_chain_rule`` and ``chain_rule`` all name ``03_exercises_chain_rule``; a name
    inside a longer matching one (``training`` in ``pre_training``) is dropped.
    """
    stem = Path(file_name).name
    if stem.lower().endswith(".ipynb"):
        stem = stem[: -len(".ipynb")]
    while (stripped := _COPY_SUFFIX.sub("", stem)) != stem:
        stem = stripped
    text = "_" + _NON_WORD.sub("_", stem.lower()).strip("_") + "_"
    spans: dict[str, tuple[int, int]] = {}
    for name, exset in sets.items():
        keys = set()
        for short in {exset.short_name, earlier_name(exset.short_name)}:
            short = _NON_WORD.sub("_", short.lower()).strip("_")
            keys |= {short, _LEADING_NUMBER.sub("", short)}
        for key in keys:
            if not key:
                continue
            at = text.find(f"_{key}_")
            if at >= 0:
                span = (at, at + len(key) + 2)
                old = spans.get(name)
                spans[name] = span if old is None or span[1] - span[0] > old[1] - old[0] else old
    inside = {a for a, (s, e) in spans.items()
              for b, (s2, e2) in spans.items() if a != b and s2 <= s and e <= e2 and (s, e) != (s2, e2)}
    return sorted(set(spans) - inside)


_EDITION = re.compile(r"^[a-z]{2}(?:-[A-Za-z]+)?/")  # zh/03_exercises_chain_rule: a set's edition in another language


def _written_in_chinese(nb_json: dict) -> bool:
    """Whether the notebook's markdown is mostly Chinese (at least 30% of its letters)."""
    cells = nb_json.get("cells") if isinstance(nb_json.get("cells"), list) else []
    text = "".join(source_of(c) for c in cells if isinstance(c, dict) and c.get("cell_type") == "markdown")
    return chinese_share(text) >= 0.3


def one_edition(named: list[str], nb_json: dict) -> str | None:
    """Of the editions of one set that a file name fits (``03_exercises_chain_rule`` and
    ``zh/03_exercises_chain_rule``), the one in the notebook's own language; None if ``named`` holds
    other sets too. A file with no readable text (invalid JSON) gets the English edition:
    editions share their tasks and points."""
    bases = {_EDITION.sub("", name) for name in named}
    if len(named) < 2 or len(bases) != 1:
        return None
    wanted = [n for n in named if n.startswith("zh/")] if _written_in_chinese(nb_json) else \
        [n for n in named if not _EDITION.match(n)]
    return wanted[0] if len(wanted) == 1 else None


def copy_rank(path: str, set_name: str) -> tuple:
    """Sort key among one student's copies of one set, the copy to grade first: the file named as the
    set (``basics.ipynb``), else the one saved last, else the first by name; so that two copies of a
    12-point set never score 24 (:func:`.gradescope.choose`, :func:`.reports.one_copy_per_set`)."""
    file = Path(path)
    try:
        mtime = file.lstat().st_mtime
    except OSError:
        mtime = 0.0
    return (file.stem != set_name.rsplit("/", 1)[-1], -mtime, file.name)


def set_by_name(path: str, sets: dict[str, ExerciseSet]) -> ExerciseSet | None:
    """The one set a file's name gives (or the only set there is); None if not exactly one."""
    named = set_names_in(path, sets)
    if len(named) > 1 and (edition := one_edition(named, {})) is not None:
        named = [edition]
    if len(named) == 1:
        return sets[named[0]]
    return next(iter(sets.values())) if len(sets) == 1 and not named else None


def _claimed_set(nb_json: dict, sets: dict[str, ExerciseSet]) -> str | None:
    """The set the notebook's metadata names; a set's earlier name (``03_chain_rule``, written
    by builds before sets were named apart from their lessons) stands for the set."""
    meta = nb_json.get("metadata")
    meta = meta.get(METADATA_KEY) if isinstance(meta, dict) else None
    name = meta.get("exercise_set") if isinstance(meta, dict) else None
    if not isinstance(name, str) or not name:
        return None
    if name not in sets:
        renamed = [n for n in sets if earlier_name(n) == name and n != name]
        if len(renamed) == 1:
            return renamed[0]
    return name


def _cell_ids(nb_json: dict) -> set[str]:
    cells = nb_json.get("cells") if isinstance(nb_json.get("cells"), list) else []
    return {c["id"] for c in cells if isinstance(c, dict) and isinstance(c.get("id"), str)}


def _quote(name: str) -> str:
    return repr(name[:80])


def identify(path: str, nb_json: dict, grade_ids: set[str], sets: dict[str, ExerciseSet]) -> Match:
    """The exercise set of the notebook ``nb_json`` found at ``path`` (see the module docstring)."""
    ids = _cell_ids(nb_json)
    by_ids = {name: len(ids & s.unique_ids) for name, s in sets.items() if ids & s.unique_ids}
    claimed = _claimed_set(nb_json, sets)
    notes = []
    if claimed is not None:
        if claimed in sets:
            others = sorted(n for n in by_ids if n != claimed)
            if others and claimed not in by_ids:
                return Match(None, "", (
                    f"its metadata names exercise set {claimed!r} but its cells are those of "
                    f"{', '.join(repr(n) for n in others)}; check which set the student meant"))
            return Match(sets[claimed], "metadata")
        notes.append(f"its metadata names exercise set {_quote(claimed)}, which is not in the solutions")
    if len(by_ids) == 1:
        return Match(sets[next(iter(by_ids))], "cell ids")
    if len(by_ids) > 1:
        found = ", ".join(f"{n!r} ({k} cells)" for n, k in sorted(by_ids.items()))
        return Match(None, "", f"its cells come from several exercise sets: {found}; check which set the student meant")
    named = set_names_in(path, sets)
    if len(named) > 1 and (edition := one_edition(named, nb_json)) is not None:
        named = [edition]  # the set's English and Chinese editions: the notebook's language decides
    if len(named) == 1:
        exset = sets[named[0]]
        if grade_ids and not grade_ids & exset.all_ids:
            return Match(None, "", (
                f"its file name names exercise set {exset.name!r} but none of its cells belong to it"))
        return Match(exset, "file name")
    if len(named) > 1:
        return Match(None, "", (
            f"its file name fits several exercise sets ({', '.join(repr(n) for n in named)}) "
            "and nothing in it tells them apart"))
    if len(sets) == 1:
        (exset,) = sets.values()
        if grade_ids & exset.all_ids:
            return Match(exset, "grade ids")
    notes.append("it has no tensorgrad metadata, no cell of any exercise set, and its file name "
                 f"names no set ({', '.join(repr(s.short_name) for s in list(sets.values())[:3])}"
                 f"{', ...' if len(sets) > 3 else ''})")
    return Match(None, "", "; ".join(notes))


def solution_markers(nb_json: dict) -> str:
    """Which instructor-only markers the notebook still contains ("" if none)."""
    found = set()
    for cell in nb_json.get("cells", []):
        if not isinstance(cell, dict):
            continue
        for line in source_of(cell).splitlines():
            stripped = line.strip()
            if stripped == "### BEGIN SOLUTION":
                found.add("solution")
            elif stripped == "### BEGIN HIDDEN TESTS":
                found.add("hidden tests")
    return " and ".join(sorted(found))
