"""Exceptions of the course tooling.

Authoring mistakes (an unclosed marker, a graded cell without points...) are
*user* errors: the command line prints ``str(error)`` as one line and exits
non-zero, without a traceback. So every message here names the notebook, the
cell (index and grade_id) and, where it helps, the line, and says what to do.
"""

from __future__ import annotations


class CourseError(Exception):
    """Base class: a problem the user can fix, reported without a traceback."""


class NotebookError(CourseError):
    """Something wrong with a notebook or one of its cells.

    ``cell_index`` is 0-based (as in the notebook JSON); ``line`` is 1-based
    (as an editor shows it). Either may be None when it does not apply.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        cell_index: int | None = None,
        grade_id: str | None = None,
        line: int | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.cell_index = cell_index
        self.grade_id = grade_id
        self.line = line
        super().__init__(self._format())

    def _format(self) -> str:
        # "solutions/a.ipynb, cell 3 (grade_id 'grad_w'), line 5: message"
        where = [str(self.path)] if self.path else []
        if self.cell_index is not None:
            cell = f"cell {self.cell_index}"
            if self.grade_id:
                cell += f" (grade_id {self.grade_id!r})"
            where.append(cell)
        elif self.grade_id:
            where.append(f"grade_id {self.grade_id!r}")
        if self.line is not None:
            where.append(f"line {self.line}")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class MarkerError(NotebookError):
    """An unbalanced, nested, malformed or misplaced BEGIN/END marker."""


class LeakError(NotebookError):
    """Solution or hidden-test text found in a generated student notebook."""


class BuildError(CourseError):
    """One or more notebooks could not be generated; holds every problem found."""

    def __init__(self, errors: list[CourseError]) -> None:
        self.errors = list(errors)
        super().__init__("\n".join(str(e) for e in self.errors))


class UsageError(CourseError):
    """Bad command-line input: a missing folder, a file that does not exist..."""
