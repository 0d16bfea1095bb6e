"""What the grader knows about one exercise set, taken from the instructor's files.

An :class:`ExerciseSet` holds the instructor's source notebook (from
``solutions/``, with the real tests and the hidden tests), its tasks, the stub
of every answer cell, and the *release*: the cells as students received them
(``exercises/``). The release is what tamper reports compare against: a test
cell is reported as edited only if it differs from what the student was given,
never merely because the source has hidden tests (nbgrader's checksum warning
fires on every notebook for that reason, which buries the real cases).

A task is one autograded test cell (``grade: true, solution: false``) with its
points. Its answer cells are the answer cells between the previous test cell
and it; they are used to explain a failure ("your answer still raises
NotImplementedError"), never to decide it.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from . import generate, markers
from .errors import BuildError, CourseError, NotebookError, UsageError
from .notebooks import (
    ANSWER,
    LOCKED,
    TEST,
    grade_id,
    is_manually_graded,
    load_json,
    points,
    read_notebook,
    role,
    source_of,
)


@dataclass(frozen=True)
class Task:
    grade_id: str
    points: float
    answers: tuple[str, ...]  # grade_ids of the answer cells this test checks
    hidden: bool  # whether the instructor's test has hidden parts
    check: str | None = None  # the name given to check(...) in the test cell, if any


@dataclass(frozen=True)
class ReleasedCell:
    cell_type: str
    source: str


@dataclass
class ExerciseSet:
    name: str  # path below solutions/ without ".ipynb", e.g. "vector_backward"
    source_path: Path
    notebook: object  # nbformat.NotebookNode: the instructor's source
    tasks: list[Task]
    stubs: dict[str, str]  # answer grade_id -> the student's starting source
    release: dict[str, ReleasedCell]  # grade_id -> cell as released to students
    release_locked: list[str]  # grade_ids of released cells students must not change
    manual: list[tuple[str, float]] = field(default_factory=list)  # manually graded answers
    source_sha256: str = ""  # of the solution notebook's bytes
    cell_ids: frozenset[str] = frozenset()  # ids of the cells of the source and of the release
    unique_ids: frozenset[str] = frozenset()  # those of cell_ids that no other set has

    @property
    def uses_checks(self) -> bool:
        """Whether any test cell declares named tests with ``check(...)``."""
        return any(t.check for t in self.tasks)

    @functools.cached_property
    def imports(self) -> tuple[str, ...]:
        """The modules the set's own cells import (:func:`.guard.exercise_imports`)."""
        from .guard import exercise_imports

        return exercise_imports(self.notebook)

    def task(self, gid: str) -> Task:
        return next(t for t in self.tasks if t.grade_id == gid)

    @property
    def short_name(self) -> str:
        return Path(self.name).name

    @property
    def answer_ids(self) -> list[str]:
        return [gid for c in self.notebook.cells if role(c) == ANSWER and (gid := grade_id(c))]

    @property
    def all_ids(self) -> set[str]:
        return {gid for c in self.notebook.cells if (gid := grade_id(c))} | set(self.release)

    @property
    def max_score(self) -> float:
        return sum(t.points for t in self.tasks)


def _tasks(nb) -> tuple[list[Task], list[tuple[str, float]]]:
    tasks, manual, pending_answers = [], [], []
    for cell in nb.cells:
        gid, cell_role = grade_id(cell), role(cell)
        if cell_role == ANSWER and gid:
            pending_answers.append(gid)
            if is_manually_graded(cell):
                manual.append((gid, points(cell) or 0.0))
        elif cell_role == TEST and gid:
            source = source_of(cell)
            hidden = markers.HIDDEN_TESTS in markers.parse(source).kinds()
            names = generate.check_names(source)
            tasks.append(Task(gid, points(cell) or 0.0, tuple(pending_answers), hidden, names[0] if names else None))
            pending_answers = []
    return tasks, manual


def _release_cells(path: Path) -> tuple[dict[str, ReleasedCell], list[str], set[str]]:
    data = load_json(path)
    cells: dict[str, ReleasedCell] = {}
    locked: list[str] = []
    ids = {c["id"] for c in data["cells"] if isinstance(c, dict) and isinstance(c.get("id"), str)}
    for cell in data["cells"]:
        if not isinstance(cell, dict):
            continue
        gid = grade_id(cell)
        if gid and gid not in cells:
            cells[gid] = ReleasedCell(str(cell.get("cell_type", "code")), source_of(cell))
            if role(cell) in (TEST, LOCKED):
                locked.append(gid)
    return cells, locked, ids


def load_exercise_set(source: Path, solutions_dir: Path, exercises_dir: Path | None, *,
                      nb=None, cell_ids: dict[str, str] | None = None) -> ExerciseSet:
    """Read one source notebook (validated as the generator would) and its release.

    ``nb`` is the source if already read; ``cell_ids`` the build's renamed cell
    ids (:func:`.generate.course_cell_ids`).
    """
    rel = source.relative_to(solutions_dir)
    shown = generate.display_path(source)
    name = generate.set_name_of(rel)
    nb = nb if nb is not None else read_notebook(source, id_seed=rel.as_posix())
    student = generate.generate_notebook(nb, path=shown, set_name=name, cell_ids=cell_ids).notebook
    tasks, manual = _tasks(nb)
    stubs = {gid: source_of(c) for c in student.cells if role(c) == ANSWER and (gid := grade_id(c))}

    release_file = exercises_dir / rel if exercises_dir is not None else None
    if release_file is not None and release_file.is_file():
        try:
            release, locked, release_ids = _release_cells(release_file)
        except NotebookError as exc:
            raise CourseError(f"cannot read the released exercise: {exc}") from None
    else:
        release = {
            gid: ReleasedCell(c.cell_type, source_of(c))
            for c in student.cells
            if (gid := grade_id(c))
        }
        locked = [gid for c in student.cells if role(c) in (TEST, LOCKED) and (gid := grade_id(c))]
        release_ids = {c["id"] for c in student.cells if c.get("id")}
    return ExerciseSet(
        source_sha256=hashlib.sha256(source.read_bytes()).hexdigest(),
        cell_ids=frozenset({c["id"] for c in nb.cells if c.get("id")} | release_ids),
        name=name,
        source_path=source,
        notebook=nb,
        tasks=tasks,
        stubs=stubs,
        release=release,
        manual=manual,
        release_locked=locked,
    )


def load_exercise_sets(solutions_dir: Path, exercises_dir: Path | None) -> dict[str, ExerciseSet]:
    """Every exercise set under ``solutions_dir``, by name; raise on any authoring error."""
    solutions_dir = Path(solutions_dir).resolve()
    if not solutions_dir.is_dir():
        raise UsageError(f"solutions folder not found: {generate.display_path(solutions_dir)}")
    exercises_dir = Path(exercises_dir).resolve() if exercises_dir is not None else None
    sets: dict[str, ExerciseSet] = {}
    sources, errors = generate.read_sources(solutions_dir)
    renamed = generate.course_cell_ids({generate.set_name_of(rel): nb for rel, nb in sources.items()})
    for rel, nb in sources.items():
        try:
            exset = load_exercise_set(solutions_dir / rel, solutions_dir, exercises_dir, nb=nb,
                                      cell_ids=renamed.get(generate.set_name_of(rel)))
        except CourseError as exc:
            errors.append(exc)
            continue
        sets[exset.name] = exset
    if errors:
        raise BuildError(errors)
    if not sets:
        raise UsageError(f"no notebooks found in {generate.display_path(solutions_dir)}")
    owners: dict[str, int] = {}
    for exset in sets.values():
        for cell_id in exset.cell_ids:
            owners[cell_id] = owners.get(cell_id, 0) + 1
    for exset in sets.values():
        exset.unique_ids = frozenset(i for i in exset.cell_ids if owners[i] == 1)
    return sets
