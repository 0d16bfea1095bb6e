"""Build the notebook the grader runs, and the integrity report of a submission.

The grader never runs the student's file. It runs the **instructor's source
notebook** in which only the answer cells are replaced by the student's cells
with the same ``grade_id``. Test cells, hidden tests, setup cells and the
order of everything come from the instructor. So a student who edits, weakens
or deletes a test cell changes nothing about the grade.

How the usual accidents are handled (none of them stops grading):

=================  ========================================================
answer deleted     the released stub is run in its place (task: ``missing``)
answer duplicated  every copy is run, in the student's order, as they would
                   have run top to bottom (the last definition wins)
answer retyped     the text is run as the instructor's cell type (a code
                   answer accidentally turned into markdown still counts)
test edited        the instructor's test is run; reported as tampering
test deleted       the instructor's test is run; reported as tampering
other cells        cells the student added (no grade_id) are not run
=================  ========================================================

Tampering is reported only when a locked cell differs from the **release**
(``exercises/``), compared line by line without trailing blanks, so the report
stays quiet for honest notebooks and real cases stand out.

Around the cells, the grader adds the cells of :mod:`.guard`.

Notebooks released before the course tooling became a package of its own
(``tensorgrad_course``) import ``check`` from ``tensorgrad.course``, a module
that no longer exists: the grader reads every submitted cell with that name
mapped to the new one (:func:`current_imports`), so such a notebook is graded
as if built today, and its locked cells are not reported as edited.

A submission's saved outputs are never read, but grader records found in them
are reported (:func:`saved_records_finding`): a student's own kernel never
produces them.
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass, field

import nbformat
from nbformat.corpus.words import generate_corpus_id as random_cell_id

from . import guard
from .exercise_set import ExerciseSet
from .notebooks import ANSWER, TEST, grade_id, role, source_of

#: Roles of cells in the notebook the grader runs.
SETUP, GUARD, ANSWER_CELL, TEST_CELL, INSTRUCTOR = "setup", "guard", "answer", "test", "instructor"
#: The guard's check right after a test cell: what it restores was patched *while the test ran*,
#: so the test's own result may have been forged on its way to the grader (it does not count).
GUARD_AFTER = "guard_after"


@dataclass(frozen=True)
class SubmittedCell:
    index: int
    cell_type: str
    source: str
    grade_id: str | None


@dataclass(frozen=True)
class Finding:
    """One line of the integrity report."""

    kind: str  # deleted | duplicated | retyped | edited | patched | guard | unknown_cells
    grade_id: str | None
    detail: str
    tampering: bool = False  # True when a locked cell or the grader's checks were interfered with

    def as_dict(self) -> dict:
        return {"kind": self.kind, "grade_id": self.grade_id, "detail": self.detail, "tampering": self.tampering}


@dataclass
class Assembly:
    notebook: object  # nbformat.NotebookNode to run
    roles: list[tuple[str, str | None]]  # per cell of ``notebook``: (role, grade_id)
    findings: list[Finding] = field(default_factory=list)
    missing_answers: set[str] = field(default_factory=set)
    retyped_answers: set[str] = field(default_factory=set)

    def indexes(self, cell_role: str, gid: str | None) -> list[int]:
        return [i for i, (r, g) in enumerate(self.roles) if r == cell_role and g == gid]


#: The course tooling's module name before it became its own distribution.
_LEGACY_MODULE = re.compile(r"\btensorgrad\.course\b")


def current_imports(source: str) -> str:
    """``source`` with the old module name ``tensorgrad.course`` read as ``tensorgrad_course``."""
    return _LEGACY_MODULE.sub("tensorgrad_course", source)


def submitted_cells(data: dict) -> list[SubmittedCell]:
    """The cells of a submission's JSON, read leniently (odd metadata is not an error)."""
    cells = []
    for index, cell in enumerate(data.get("cells", [])):
        if not isinstance(cell, dict):
            continue
        cell_type = cell.get("cell_type")
        cells.append(
            SubmittedCell(
                index=index,
                cell_type=cell_type if isinstance(cell_type, str) else "code",
                source=current_imports(source_of(cell)),
                grade_id=grade_id(cell),
            )
        )
    return cells


def _normalized(source: str) -> list[str]:
    lines = [line.rstrip() for line in source.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def _by_grade_id(cells: list[SubmittedCell]) -> dict[str, list[SubmittedCell]]:
    found: dict[str, list[SubmittedCell]] = {}
    for cell in cells:
        if cell.grade_id:
            found.setdefault(cell.grade_id, []).append(cell)
    return found


def integrity_findings(exset: ExerciseSet, cells: list[SubmittedCell]) -> list[Finding]:
    """Deleted, duplicated and retyped cells, edited locked cells, unknown grade_ids."""
    by_id = _by_grade_id(cells)
    findings: list[Finding] = []
    for gid in exset.answer_ids:
        copies = by_id.get(gid, [])
        released = exset.release.get(gid)
        if not copies:
            findings.append(Finding("deleted", gid, "answer cell deleted; graded as unanswered"))
            continue
        if len(copies) > 1:
            findings.append(
                Finding("duplicated", gid, f"answer cell appears {len(copies)} times; all copies were run in order")
            )
        if released and any(c.cell_type != released.cell_type for c in copies):
            other = next(c.cell_type for c in copies if c.cell_type != released.cell_type)
            findings.append(
                Finding("retyped", gid, f"answer cell changed from {released.cell_type} to {other}; run as {released.cell_type}")
            )
    for gid in exset.release_locked:
        copies = by_id.get(gid, [])
        released = exset.release[gid]
        if not copies:
            findings.append(
                Finding("deleted", gid, "locked cell deleted; the instructor's version was run", tampering=True)
            )
            continue
        if len(copies) > 1:
            findings.append(Finding("duplicated", gid, f"locked cell appears {len(copies)} times"))
        if any(c.cell_type != released.cell_type for c in copies):
            findings.append(Finding("retyped", gid, f"locked cell changed from {released.cell_type}", tampering=True))
        if any(_normalized(c.source) != _normalized(released.source) for c in copies):
            findings.append(
                Finding("edited", gid, "locked cell edited; the instructor's version was run", tampering=True)
            )
    unknown = sorted(gid for gid in by_id if gid not in exset.all_ids)
    if unknown:
        shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        findings.append(Finding("unknown_cells", None, f"cells with grade_ids not in this exercise set: {shown}"))
    findings.extend(added_answer_findings(exset, cells))
    return findings


_MAX_PARSED = 200_000  # characters of a cell's source worth parsing for the names it defines


def defined_names(source: str) -> set[str]:
    """Top-level names a cell's code defines (functions, classes, assignments); none if it does not parse."""
    if len(source) > _MAX_PARSED:
        return set()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def added_answer_findings(exset: ExerciseSet, cells: list[SubmittedCell]) -> list[Finding]:
    """Cells the student added (no grade_id) that define a name an answer cell should define.

    Added cells are never run, so an answer written there is lost: the
    instructor should look (and the student move it into its answer cell).
    """
    owner: dict[str, str] = {}
    for cell in exset.notebook.cells:
        if role(cell) == ANSWER and cell.cell_type == "code" and (gid := grade_id(cell)):
            for name in defined_names(source_of(cell)):
                owner.setdefault(name, gid)
    findings = []
    for cell in cells:
        if cell.grade_id or cell.cell_type != "code":
            continue
        names = sorted(defined_names(cell.source) & set(owner))
        if names:
            gid = owner[names[0]]
            shown = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
            findings.append(Finding(
                "added_answer", gid,
                f"cell {cell.index}, which the student added, defines {shown} (the answer of {gid!r}); "
                "added cells are not run, so this was not graded: look at it by hand",
            ))
    return findings


def saved_records_finding(data: dict) -> Finding | None:
    """A finding if the submission's saved outputs carry grader records (they never should)."""
    from .values import MIME

    count = 0
    for cell in data.get("cells", []):
        if not isinstance(cell, dict) or not isinstance(cell.get("outputs"), list):
            continue
        count += sum(isinstance(o, dict) and isinstance(o.get("data"), dict) and MIME in o["data"]
                     for o in cell["outputs"])
    if not count:
        return None
    return Finding(
        "forged", None,
        f"the notebook's saved outputs contain {count} grader record(s); the grader never reads saved outputs",
        tampering=True,
    )


#: Metadata key of the assembled cells that run without being stored in the input history.
PRIVATE = "tensorgrad_private"


def _new_cell(cell_type: str, source: str, metadata: dict | None = None):
    """A cell of the notebook to run, built directly: nbformat's ``new_*_cell`` validates each
    cell against the notebook schema (a tenth of the grader's own time per submission), and
    these cells are made of strings and the source notebook's metadata, so they are valid."""
    kind = cell_type if cell_type in ("code", "markdown") else "raw"
    cell = nbformat.NotebookNode(cell_type=kind, id=random_cell_id(), source=str(source),
                                 metadata=nbformat.from_dict(copy.deepcopy(metadata or {})))
    if kind == "code":
        cell.outputs = []
        cell.execution_count = None
    return cell


def assemble(exset: ExerciseSet, cells: list[SubmittedCell], *, nonce: str | None = None) -> Assembly:
    """The instructor's notebook with the student's answers in it, plus the guard cells.

    ``nonce`` arms :mod:`.checks` before each test cell: test records must carry
    it (see :func:`.expected.collect`).
    """
    by_id = _by_grade_id(cells)
    nb = nbformat.v4.new_notebook(metadata=dict(exset.notebook.metadata))
    roles: list[tuple[str, str | None]] = []
    assembly = Assembly(nb, roles, findings=integrity_findings(exset, cells))

    def add(cell, cell_role: str, gid: str | None) -> None:
        nb.cells.append(cell)
        roles.append((cell_role, gid))

    def private(cell):
        """A cell of the grader or a test cell: run without a trace in IPython's input history (In,
        _ih, the history database), so that a later answer cell cannot read the tests' source there."""
        cell.metadata[PRIVATE] = True
        return cell

    add(private(_new_cell("code", guard.setup_source(exset.uses_checks, exset.imports,
                                                   guard.protected_folders(str(exset.source_path), exset.name)))), SETUP, None)
    for cell in exset.notebook.cells:
        gid, cell_role = grade_id(cell), role(cell)
        if cell_role == ANSWER and gid:
            copies = by_id.get(gid, [])
            if not copies:
                assembly.missing_answers.add(gid)
                add(_new_cell(cell.cell_type, exset.stubs[gid], cell.metadata), ANSWER_CELL, gid)
            for submitted in copies:
                if submitted.cell_type != cell.cell_type:
                    assembly.retyped_answers.add(gid)
                add(_new_cell(cell.cell_type, submitted.source, cell.metadata), ANSWER_CELL, gid)
        elif cell_role == TEST and gid:
            add(private(_new_cell("code", guard.check_source(nonce))), GUARD, gid)
            add(private(_new_cell(cell.cell_type, source_of(cell), cell.metadata)), TEST_CELL, gid)
            add(private(_new_cell("code", guard.check_source(nonce))), GUARD_AFTER, gid)
        else:
            add(_new_cell(cell.cell_type, source_of(cell), cell.metadata), INSTRUCTOR, gid)
    return assembly
