"""Generate the student notebooks (``exercises/``) from the single source (``solutions/``).

For every notebook in ``solutions/`` the student version has:

* answer regions replaced by ``# YOUR CODE HERE`` / ``raise NotImplementedError()``
  (``YOUR ANSWER HERE`` in markdown), and answer cells without markers replaced
  whole, as nbgrader does;
* hidden-test regions removed;
* outputs, execution counts, timing metadata and widget state cleared;
* test cells ``locked: true``; nbgrader metadata (schema_version 3) kept, so the
  files also work with nbgrader; nbgrader's ``deletable: false`` on answer, test
  and locked cells and ``editable: false`` on test and locked cells, which
  JupyterLab honours;
* answer and test code cells tagged ``raises-exception``, so that Run All on a
  blank exercise runs every check cell instead of stopping at the first stub;
* the set's identity in the notebook's metadata (``metadata.tensorgrad.exercise_set``),
  and cell ids unique across the course (a cell id that another set also uses is
  replaced by one derived from the set's name), so that the grader recognises a
  submission by its content whatever the file is called (:mod:`.grade`).

The generator refuses to write anything when a source notebook has a malformed
marker, a graded cell without points, a duplicate grade_id, or markers in a cell
without nbgrader metadata (:class:`~.errors.BuildError` lists every problem).

**Leak check.** Before a file is moved into ``exercises/`` its bytes are read
back and scanned (:func:`verify_no_leaks`): no line may look like a marker, and
no line may be a *secret line*. A secret line is a line (compared without
surrounding blanks) that occurs inside a solution or hidden-test region of the
source notebook *and nowhere outside those regions*. The exception matters:
lines such as ``return out`` or ``import numpy as np`` occur in solutions and in
the public text alike; flagging them would make the check useless, while
ignoring the exception would let a real leak through. By construction the output
only contains public lines and stubs, so a hit means a generator bug or a marker
that was not recognised, which is exactly what the check exists to catch.

Output is byte-stable: same source, same bytes (see :mod:`.notebooks`).
:func:`check` regenerates into a temporary folder and lists what differs; CI
runs it as ``tensorgrad-course build --check``.
"""

from __future__ import annotations

import ast
import copy
import difflib
import hashlib
import json
import math
import operator
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import markers, values
from .texts import SEALED, seal
from .errors import BuildError, CourseError, LeakError, NotebookError, UsageError
from .notebooks import (
    ANSWER,
    SCHEMA_VERSION,
    TEST,
    dumps,
    find_notebooks,
    nbgrader,
    points,
    read_notebook,
    role,
    source_of,
    source_offsets,
)

# check("name") with a literal name, as test cells write it.
_CHECK_CALL = re.compile(r"""\bcheck\(\s*(?P<q>['"])(?P<name>[^'"\n]+)(?P=q)\s*\)""")
_DONE_CALL = re.compile(r"\.done\(\s*\)")


def check_names(source: str) -> list[str]:
    """The names passed to ``check("...")`` in a test cell's source, in order."""
    return [m["name"] for m in _CHECK_CALL.finditer(source)]


def calls_done(source: str) -> bool:
    return bool(_DONE_CALL.search(source))


#: Cell metadata that records a past run, not content; cleared in exercises.
_RUN_METADATA = ("execution",)
#: Tag of the student versions' answer and check cells: JupyterLab's Run All goes on past them
#: when they raise (an unanswered stub, a failing check), so every task's check still runs.
RUN_ON_TAG = "raises-exception"


def _tag(cell, tag: str) -> None:
    tags = list(cell.metadata.get("tags", []))
    if tag not in tags:
        cell.metadata["tags"] = [*tags, tag]


#: The notebook metadata key where the student version names its exercise set.
METADATA_KEY = "tensorgrad"


def set_name_of(rel: Path) -> str:
    """An exercise set's name: its path below solutions/ without ``.ipynb``."""
    return Path(rel).with_suffix("").as_posix()


# A set's file name carries the word "exercises" after its number (``03_exercises_chain_rule``), so
# that it differs from its lesson's (``03_chain_rule``): in JupyterLab the two open side by side
# as tabs named by their files. Sets were once named like their lessons.
_SET_WORD = re.compile(r"(^|/)(\d+_)?exercises_(?=.)")


def earlier_name(name: str) -> str:
    """The name a set had before sets were named apart from their lessons:
    ``zh/03_exercises_chain_rule`` -> ``zh/03_chain_rule``; a name without the word is its own.
    The grader still recognises a submission that carries the earlier name (:mod:`.identify`),
    and cell ids are derived from it (:func:`course_cell_ids`), so that they did not change."""
    return _SET_WORD.sub(r"\1\2", name)


def course_cell_ids(notebooks: dict[str, object]) -> dict[str, dict[str, str]]:
    """For each set (by name), new ids for its cells whose id another set also uses.

    Cell ids identify a submission's exercise set (:mod:`.grade`), so in the
    student versions no id may occur in two sets. Ids that are already unique
    are kept; a shared one becomes ``<set>-<hash>``, derived from the set's
    name and the cell's position, so the build stays byte-stable. The name is the
    set's :func:`earlier_name`, so that renaming the sets kept the ids of their cells
    (a submission of an earlier release is still recognised by them).
    """
    owners: dict[str, set[str]] = {}
    for name, nb in notebooks.items():
        for cell in nb.cells:
            if cell.get("id"):
                owners.setdefault(cell["id"], set()).add(name)
    used = set(owners)
    renamed: dict[str, dict[str, str]] = {}
    for name, nb in sorted(notebooks.items(), key=lambda item: earlier_name(item[0])):
        stem = earlier_name(name)
        slug = re.sub(r"[^a-zA-Z0-9_-]+", "_", stem)[:40]
        for index, cell in enumerate(nb.cells):
            cell_id = cell.get("id")
            if cell_id and len(owners[cell_id]) > 1:
                n = 0
                while (new := f"{slug}-{hashlib.sha1(f'{stem}:{index}:{n}'.encode()).hexdigest()[:8]}") in used:
                    n += 1
                used.add(new)
                renamed.setdefault(name, {})[cell_id] = new
    return renamed


@dataclass
class Generated:
    """A student notebook plus what the leak check needs to know about its source."""

    notebook: object  # nbformat.NotebookNode
    path: str
    secret_lines: dict[str, str] = field(default_factory=dict)  # stripped line -> region kind


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it is below it (shorter messages)."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _where(path: str, index: int, cell: dict) -> markers.Where:
    meta = nbgrader(cell) or {}
    gid = meta.get("grade_id") if isinstance(meta.get("grade_id"), str) else None
    return markers.Where(path, index, gid)


def _validate_metadata(cell: dict, where: markers.Where, seen: dict[str, int]) -> None:
    """nbgrader metadata rules: schema 3, a unique grade_id, points on graded cells."""
    meta = nbgrader(cell)
    assert meta is not None
    version = meta.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise where.error(f"unsupported nbgrader schema_version {version!r} (expected 3)")
    active = any(meta.get(k) for k in ("solution", "grade", "locked"))
    gid = meta.get("grade_id")
    if active and not (isinstance(gid, str) and gid.strip()):
        raise NotebookError(
            "nbgrader cell without a grade_id; give it a unique 'grade_id'",
            path=where.path,
            cell_index=where.cell_index,
        )
    if isinstance(gid, str) and gid:
        if gid in seen:
            raise where.error(f"duplicate grade_id {gid!r} (also used by cell {seen[gid]})")
        seen[gid] = where.cell_index  # type: ignore[assignment]
    if meta.get("grade") and points(cell) is None:
        raise where.error(
            f"graded cell without points (got {meta.get('points')!r}); "
            "set nbgrader 'points' to a number >= 0"
        )


def _validate_checks(source: str, public: str, where: markers.Where, seen: dict[str, int]) -> None:
    """Named tests: one ``check("...")`` per test cell, unique names, ``.done()`` at the end.

    Without ``.done()`` a failing test would not fail the cell, so nbgrader (and
    a student reading red cells) would count it as passed.
    """
    names = check_names(source)
    if not names:
        return
    if len(names) > 1:
        raise where.error(
            f"a test cell may call check() once (found {', '.join(repr(n) for n in names)}); "
            "give each task its own test cell"
        )
    (name,) = names
    if name in seen:
        raise where.error(f"check({name!r}) is also used by cell {seen[name]}; each task needs its own name")
    seen[name] = where.cell_index  # type: ignore[assignment]
    if not check_names(public):
        raise where.error(f"check({name!r}) is inside the hidden tests; students need it to run their checks")
    if not calls_done(public):
        raise where.error(
            f"the test cell calls check({name!r}) but never .done() outside the hidden tests; "
            "end it with t.done() so that a failing test fails the cell"
        )


def _student_metadata(cell: dict, cell_role: str) -> None:
    """Normalise nbgrader metadata in place: schema 3, defaults, tests locked."""
    meta = dict(nbgrader(cell) or {})
    meta.pop("checksum", None)  # stale once the source changes; nbgrader recomputes it
    meta["schema_version"] = SCHEMA_VERSION
    for key in ("grade", "solution", "locked", "task"):
        meta.setdefault(key, False)
    if cell_role == TEST:
        meta["locked"] = True
    if cell_role == ANSWER:
        meta["locked"] = False
    cell["metadata"]["nbgrader"] = meta
    # What nbgrader's release sets and JupyterLab honours: graded and locked cells cannot be
    # deleted, and locked cells (check cells, instructions, setup) cannot be edited.
    if cell_role == ANSWER or meta["locked"] or meta["grade"]:
        cell["metadata"]["deletable"] = False
    if meta["locked"] and cell_role != ANSWER:
        cell["metadata"]["editable"] = False


def seal_hints(source: str) -> str:
    """``source`` with the text of each ``t.test(..., hint="...")`` sealed (:func:`.texts.seal`).

    A hint is meant for a student whose attempt failed; in the check cell's source, right under
    the answer cell, it would be read before the attempt (and for a prediction it often gives
    the answer away). Sealed, the self-check still prints it under a failure. Only a hint
    written as one string literal (or adjacent literals) is sealed; anything else stays.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "test":
            for keyword in node.keywords:
                value = keyword.value
                if (keyword.arg == "hint" and isinstance(value, ast.Constant) and isinstance(value.value, str)
                        and not value.value.startswith(SEALED)):  # sealed once only
                    spans.append((value.lineno, value.col_offset, value.end_lineno, value.end_col_offset,
                                  value.value))
    if not spans:
        return source
    offset = source_offsets(source)
    for lineno, col, end_lineno, end_col, text in sorted(spans, reverse=True):
        begin, end = offset(lineno, col), offset(end_lineno, end_col)
        source = source[:begin] + repr(seal(text)) + source[end:]
    return source


_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
               ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
               ast.Pow: operator.pow, ast.USub: operator.neg, ast.UAdd: operator.pos}
_MATH = {name: getattr(math, name) for name in ("sin", "cos", "tan", "tanh", "exp", "log", "sqrt",
                                                "sinh", "cosh", "atan", "asin", "acos", "log1p", "expm1")}


def _constant(expr: ast.expr, known: dict[str, object]):
    """The value of a constant expression of an answer cell: a literal, a name set to one
    before, arithmetic on numbers (``2 / 3``, ``3.0 * 4 + 4``) and ``math`` functions and
    constants (``math.cos(u0)``, ``math.e``), lists and tuples of them; else ValueError.
    Nothing is executed: the expression is read, and computed here from its parts."""
    try:
        return ast.literal_eval(expr)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    if isinstance(expr, ast.Name) and expr.id in known:
        return known[expr.id]
    if isinstance(expr, (ast.List, ast.Tuple)):
        items = [_constant(e, known) for e in expr.elts]
        return items if isinstance(expr, ast.List) else tuple(items)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "math" \
            and expr.attr in ("pi", "e", "tau"):
        return getattr(math, expr.attr)
    number = (int, float)
    if isinstance(expr, ast.UnaryOp) and type(expr.op) in _ARITHMETIC:
        operand = _constant(expr.operand, known)
        if isinstance(operand, number) and not isinstance(operand, bool):
            return _ARITHMETIC[type(expr.op)](operand)
    if isinstance(expr, ast.BinOp) and type(expr.op) in _ARITHMETIC:
        left, right = _constant(expr.left, known), _constant(expr.right, known)
        if all(isinstance(v, number) and not isinstance(v, bool) for v in (left, right)):
            if isinstance(expr.op, ast.Pow) and abs(right) > 64:
                raise ValueError("too large a power")
            try:
                return _ARITHMETIC[type(expr.op)](left, right)
            except (ArithmeticError, ValueError) as error:
                raise ValueError(str(error)) from None
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not expr.keywords
            and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "math" and expr.func.attr in _MATH):
        args = [_constant(a, known) for a in expr.args]
        if all(isinstance(v, number) and not isinstance(v, bool) for v in args):
            try:
                return _MATH[expr.func.attr](*args)
            except (ArithmeticError, ValueError, TypeError) as error:
                raise ValueError(str(error)) from None
    raise ValueError("not a constant expression")


def literal_answers(source: str) -> dict[str, object]:
    """name -> value of each top-level ``name = <constant>`` in an answer cell's source: a
    literal (a prediction's answer: ``x_grad = 6.0``) or a constant expression of literals,
    earlier names and ``math`` (``dy_du = math.cos(u0)``, see :func:`_constant`). A name that any
    other statement sets (a loop, ``+=``, a call) is left out."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, object] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            for inner in ast.walk(node):  # whatever else sets a name makes it no constant
                if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                    found.pop(inner.id, None)
            continue
        target, value = node.targets[0], node.value
        pairs = [(target, value)]
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            pairs = list(zip(target.elts, value.elts))  # a, b = 1, 2.0
        elif isinstance(target, ast.Tuple):
            pairs = [(name, None) for name in target.elts]
        computed = []
        for name, expr in pairs:
            if not isinstance(name, ast.Name):
                continue
            try:
                computed.append((name.id, _constant(expr, found)))
            except (ValueError, TypeError):
                computed.append((name.id, _MISSING_VALUE))
        for name, value in computed:  # a, b = b, a: both read before either is set
            if value is _MISSING_VALUE:
                found.pop(name, None)
            else:
                found[name] = value
    return found


_MISSING_VALUE = object()


def add_fingerprints(source: str, answers: dict[str, object]) -> str:
    """``source`` (a student's check cell) with a ``t.fingerprints({...})`` call after
    ``t = check("...")``: for each public ``t.submit("name", variable)`` without ``expected=``
    whose variable the answer cells set to a constant (:func:`literal_answers`), the
    fingerprint of its value
    (:func:`.values.fingerprint`, salted with the task's name and the value's)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    owner = task = None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "check"
                and node.value.args and isinstance(node.value.args[0], ast.Constant)):
            owner, task, line = node.targets[0].id, node.value.args[0].value, node.end_lineno
            break
    if owner is None:
        return source
    table: dict[str, dict[str, str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.With) or not node.items:
            continue
        call = node.items[0].context_expr
        if not (isinstance(call, ast.Call) and getattr(call.func, "attr", None) == "test" and call.args
                and isinstance(call.args[0], ast.Constant)):
            continue
        marks: dict[str, str] = {}
        for inner in ast.walk(node):
            if (isinstance(inner, ast.Call) and getattr(inner.func, "attr", None) == "submit"
                    and len(inner.args) >= 2 and not any(k.arg == "expected" for k in inner.keywords)):
                # a test is fingerprinted whole or not at all: each of its unanswered values
                # must be a constant of the answer cells
                mark = None
                if (isinstance(inner.args[0], ast.Constant) and isinstance(inner.args[1], ast.Name)
                        and inner.args[1].id in answers):
                    mark = values.fingerprint(task, inner.args[0].value, answers[inner.args[1].id])
                if mark is None:
                    marks = {}
                    break
                marks[inner.args[0].value] = mark
        if marks:
            table[call.args[0].value] = marks
    if not table:
        return source
    lines = source.splitlines(keepends=True)
    call = f"{owner}.fingerprints({json.dumps(table, ensure_ascii=False, sort_keys=True)})\n"
    return "".join(lines[:line]) + call + "".join(lines[line:])


def generate_notebook(nb, *, path: str, set_name: str | None = None,
                      cell_ids: dict[str, str] | None = None, feedback: bool = True) -> Generated:
    """The student version of one source notebook (pure: nothing is written).

    ``set_name`` is written into the notebook's metadata; ``cell_ids`` renames
    cells whose id another set uses (:func:`course_cell_ids`). ``feedback`` writes the
    fingerprints of the predictions' answers into the check cells, for self-study feedback
    (:func:`add_fingerprints`); an edition built for grading leaves it off, and so does a set
    whose metadata says ``"tensorgrad": {"self_study_feedback": false}``.
    """
    feedback = feedback and nb.metadata.get(METADATA_KEY, {}).get("self_study_feedback", True) is not False
    answers: dict[str, object] = {}
    out = copy.deepcopy(nb)
    out.metadata.pop("widgets", None)
    out.metadata.pop(METADATA_KEY, None)
    if set_name is not None:
        out.metadata[METADATA_KEY] = {"exercise_set": set_name}
    for cell in out.cells:
        if cell_ids and cell.get("id") in cell_ids:
            cell["id"] = cell_ids[cell["id"]]
    seen: dict[str, int] = {}
    check_seen: dict[str, int] = {}
    public: set[str] = set(markers.STUB_LINES)
    secret: dict[str, str] = {}

    for index, cell in enumerate(out.cells):
        where = _where(path, index, cell)
        source = source_of(cell)
        parsed = markers.parse(source, where)
        meta = nbgrader(cell)
        cell_role = role(cell)

        if meta is None:
            if parsed.regions:
                raise where.error(
                    "cell contains markers but has no nbgrader metadata; make it an answer cell "
                    "('solution': true) or a graded test cell ('grade': true, 'points': N)",
                    line=parsed.regions[0].begin + 1,
                )
        else:
            _validate_metadata(cell, where, seen)
            markers.check_placement(
                parsed,
                is_solution_cell=cell_role == ANSWER,
                is_test_cell=cell_role == TEST,
                where=where,
            )
            _student_metadata(cell, cell_role)
            if cell_role == TEST:
                _validate_checks(source, "".join(parsed.outside()), where, check_seen)

        if cell_role == ANSWER:
            answers.update(literal_answers(source))
        if cell_role == ANSWER and not parsed.regions:
            # nbgrader semantics: an answer cell without markers is all answer.
            for line in parsed.lines:
                secret.setdefault(line.strip(), markers.SOLUTION)
            cell.source = markers.whole_cell_stub(cell.cell_type)
        else:
            public.update(line.strip() for line in parsed.outside())
            for region in parsed.regions:
                for line in parsed.lines[region.begin + 1 : region.end]:
                    secret.setdefault(line.strip(), region.kind)
            if parsed.regions:
                cell.source = markers.render_student(parsed, cell.cell_type)
        if cell_role == TEST and cell.cell_type == "code":
            cell.source = seal_hints(source_of(cell))
            if feedback:
                cell.source = add_fingerprints(source_of(cell), answers)

        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            if cell_role in (ANSWER, TEST):
                _tag(cell, RUN_ON_TAG)
        for key in _RUN_METADATA:
            cell.metadata.pop(key, None)

    secret_only = {line: k for line, k in secret.items() if line and line not in public}
    return Generated(out, path, secret_only)


def verify_no_leaks(text: str, generated: Generated, *, shown_path: str) -> None:
    """Scan a written student notebook for markers, secret lines and stored outputs."""
    data = json.loads(text)
    if "widgets" in data.get("metadata", {}):
        raise LeakError("widget state survived into the student notebook", path=shown_path)
    for index, cell in enumerate(data["cells"]):
        where = _where(shown_path, index, cell)
        for lineno, line in enumerate(source_of(cell).splitlines(), start=1):
            if markers.is_marker_like(line):
                raise LeakError(
                    f"a marker line survived into the student notebook: {line.strip()!r}",
                    path=where.path, cell_index=index, grade_id=where.grade_id, line=lineno,
                )
            kind = generated.secret_lines.get(line.strip())
            if kind is not None:
                what = "solution" if kind == markers.SOLUTION else "hidden-test"
                raise LeakError(
                    f"{what} text survived into the student notebook: {line.strip()[:80]!r}",
                    path=where.path, cell_index=index, grade_id=where.grade_id, line=lineno,
                )
        if cell.get("outputs") or cell.get("execution_count") is not None:
            raise LeakError(
                "outputs survived into the student notebook",
                path=where.path, cell_index=index, grade_id=where.grade_id,
            )


def _check_dirs(solutions_dir: Path, exercises_dir: Path) -> tuple[Path, Path]:
    solutions_dir, exercises_dir = Path(solutions_dir).resolve(), Path(exercises_dir).resolve()
    if not solutions_dir.is_dir():
        raise UsageError(f"solutions folder not found: {display_path(solutions_dir)}")
    if (
        solutions_dir == exercises_dir
        or solutions_dir in exercises_dir.parents
        or exercises_dir in solutions_dir.parents
    ):
        raise UsageError(
            "the exercises folder must not be the solutions folder or inside/around it "
            f"(solutions: {display_path(solutions_dir)}, exercises: {display_path(exercises_dir)})"
        )
    return solutions_dir, exercises_dir


def read_sources(solutions_dir: Path) -> tuple[dict[Path, object], list[CourseError]]:
    """Every source notebook below ``solutions_dir`` by relative path, and the read errors."""
    sources: dict[Path, object] = {}
    errors: list[CourseError] = []
    for src in find_notebooks(solutions_dir):
        rel = src.relative_to(solutions_dir)
        try:
            sources[rel] = read_notebook(src, id_seed=rel.as_posix())
        except CourseError as exc:
            errors.append(exc)
    return sources, errors


def render_all(solutions_dir: Path, *, feedback: bool = True) -> dict[Path, tuple[str, Generated]]:
    """Generate every notebook in memory: relative path -> (file text, Generated).

    Raises :class:`BuildError` listing the problems of every notebook at once,
    so an author can fix them in one pass.
    """
    rendered: dict[Path, tuple[str, Generated]] = {}
    sources, errors = read_sources(solutions_dir)
    renamed = course_cell_ids({set_name_of(rel): nb for rel, nb in sources.items()})
    for rel, nb in sources.items():
        shown = display_path(solutions_dir / rel)
        name = set_name_of(rel)
        try:
            generated = generate_notebook(nb, path=shown, set_name=name, cell_ids=renamed.get(name),
                                          feedback=feedback)
            text = dumps(generated.notebook)
            verify_no_leaks(text, generated, shown_path=shown)
        except CourseError as exc:
            errors.append(exc)
            continue
        rendered[rel] = (text, generated)
    if errors:
        raise BuildError(errors)
    return rendered


@dataclass
class BuildReport:
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{len(self.written)} written, {len(self.unchanged)} unchanged, "
            f"{len(self.removed)} removed"
        )


def _write_verified(target: Path, text: str, generated: Generated) -> None:
    """Write via a temp file, scan the bytes actually written, then move into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        tmp_path.write_bytes(text.encode("utf-8"))
        verify_no_leaks(tmp_path.read_text(encoding="utf-8"), generated, shown_path=display_path(target))
        os.chmod(tmp_path, 0o644)
        os.replace(tmp_path, target)
    finally:
        tmp_path.unlink(missing_ok=True)


def build(solutions_dir: Path, exercises_dir: Path, *, feedback: bool = True) -> BuildReport:
    """Write ``exercises_dir`` from ``solutions_dir``; nothing is written if any source is bad.

    Notebooks in ``exercises_dir`` with no source are removed: the folder is
    generated, and a stale exercise left behind would be handed out.
    """
    solutions_dir, exercises_dir = _check_dirs(solutions_dir, exercises_dir)
    rendered = render_all(solutions_dir, feedback=feedback)
    report = BuildReport()
    for rel, (text, generated) in sorted(rendered.items()):
        target = exercises_dir / rel
        if target.is_file() and target.read_bytes() == text.encode("utf-8"):
            report.unchanged.append(target)
            continue
        _write_verified(target, text, generated)
        report.written.append(target)
    if exercises_dir.is_dir():
        for path in find_notebooks(exercises_dir):
            if path.relative_to(exercises_dir) not in rendered:
                path.unlink()
                report.removed.append(path)
    return report


@dataclass
class CheckReport:
    problems: list[str] = field(default_factory=list)  # one line each
    diff: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def check(solutions_dir: Path, exercises_dir: Path, *, max_diff_lines: int = 200,
          feedback: bool = True) -> CheckReport:
    """Regenerate into a temporary folder and compare with ``exercises_dir`` byte for byte."""
    solutions_dir, exercises_dir = _check_dirs(solutions_dir, exercises_dir)
    report = CheckReport()
    diff_lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="tg-build-check-") as tmp:
        fresh_dir = Path(tmp) / "exercises"
        build(solutions_dir, fresh_dir, feedback=feedback)
        fresh = {p.relative_to(fresh_dir) for p in find_notebooks(fresh_dir)}
        current = (
            {p.relative_to(exercises_dir) for p in find_notebooks(exercises_dir)}
            if exercises_dir.is_dir()
            else set()
        )
        for rel in sorted(fresh | current):
            shown = display_path(exercises_dir / rel)
            if rel not in current:
                report.problems.append(f"{shown} is missing (run tensorgrad-course build)")
            elif rel not in fresh:
                report.problems.append(f"{shown} has no source in solutions/ (run tensorgrad-course build)")
            else:
                old = (exercises_dir / rel).read_bytes()
                new = (fresh_dir / rel).read_bytes()
                if old != new:
                    report.problems.append(f"{shown} is stale (run tensorgrad-course build)")
                    diff_lines.extend(
                        difflib.unified_diff(
                            old.decode("utf-8", "replace").splitlines(),
                            new.decode("utf-8", "replace").splitlines(),
                            f"{shown} (committed)",
                            f"{shown} (generated)",
                            lineterm="",
                        )
                    )
    if len(diff_lines) > max_diff_lines:
        diff_lines = diff_lines[:max_diff_lines] + [f"... ({len(diff_lines) - max_diff_lines} more diff lines)"]
    report.diff = "\n".join(diff_lines)
    return report
