"""The answer and hidden-test markers inside a cell's source.

Solution notebooks mark the part of a cell the student must write, and the
tests only the instructor sees, with nbgrader's markers::

    def sigmoid_backward(ctx, grad):
        ### BEGIN SOLUTION
        (y,) = ctx.saved_tensors
        return grad * y * (1 - y)
        ### END SOLUTION

    ### BEGIN HIDDEN TESTS
    assert ...
    ### END HIDDEN TESTS

Why whole lines: nbgrader finds markers as *substrings*, so a line such as
``x = 1  ### BEGIN SOLUTION`` silently opens a region. Here a marker is a line
that holds the marker and nothing else (indentation and trailing blanks are
allowed). A line that merely *looks* like a marker (other text on the line,
lower case, missing ``###``) is an error rather than a silent non-marker:
if it were ignored, the solution after it would be published.

Regions cannot nest, must be closed, and must sit in the right kind of cell
(solution markers in answer cells, hidden-test markers in graded test cells).
Errors are :class:`~.errors.MarkerError` with notebook, cell and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import MarkerError

SOLUTION = "SOLUTION"
HIDDEN_TESTS = "HIDDEN TESTS"

#: What replaces an answer region in a code cell (each line at the marker's indentation).
CODE_STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
#: What replaces an answer region in a markdown (or raw) cell, as nbgrader does.
TEXT_STUB = "YOUR ANSWER HERE"
#: Every line a stub can produce; the leak check allows these in the output.
STUB_LINES = frozenset(CODE_STUB + (TEXT_STUB,))

# A real marker: the whole line, nothing else but blanks around it.
_MARKER = re.compile(
    r"^(?P<indent>[ \t]*)### (?P<edge>BEGIN|END) (?P<kind>SOLUTION|HIDDEN TESTS)[ \t]*$"
)
# Anything that looks like a marker. A line matching this but not _MARKER is a
# typo that would leak the region after it, so it is reported, never ignored.
_LOOKS_LIKE_MARKER = re.compile(r"#+\s*(BEGIN|END)[\s_-]+(SOLUTION|HIDDEN[\s_-]*TEST)", re.IGNORECASE)


@dataclass(frozen=True)
class Where:
    """Where a cell is, for error messages."""

    path: str | None = None
    cell_index: int | None = None
    grade_id: str | None = None

    def error(self, message: str, line: int | None = None) -> MarkerError:
        return MarkerError(
            message, path=self.path, cell_index=self.cell_index, grade_id=self.grade_id, line=line
        )


@dataclass(frozen=True)
class Region:
    """One BEGIN...END block. Line numbers are 0-based indexes into the cell's lines."""

    kind: str  # SOLUTION or HIDDEN_TESTS
    begin: int  # index of the BEGIN marker line
    end: int  # index of the END marker line
    indent: str  # leading whitespace of the BEGIN marker


@dataclass(frozen=True)
class ParsedSource:
    """A cell's source split into lines (line endings kept) and its marked regions."""

    lines: tuple[str, ...]
    regions: tuple[Region, ...]

    def kinds(self) -> set[str]:
        return {r.kind for r in self.regions}

    def outside(self) -> list[str]:
        """Lines outside every region, markers excluded (what students see anyway)."""
        covered = {i for r in self.regions for i in range(r.begin, r.end + 1)}
        return [line for i, line in enumerate(self.lines) if i not in covered]


def is_marker_like(line: str) -> bool:
    """True if ``line`` is a marker or looks like one (used by the leak check)."""
    return bool(_MARKER.match(line.rstrip("\r\n")) or _LOOKS_LIKE_MARKER.search(line))


def parse(source: str, where: Where = Where()) -> ParsedSource:
    """Split ``source`` into lines and find its regions; raise on any malformed marker."""
    lines = tuple(source.splitlines(keepends=True))
    regions: list[Region] = []
    open_kind: str | None = None
    open_line = 0
    open_indent = ""
    for i, raw in enumerate(lines):
        text = raw.rstrip("\r\n")
        match = _MARKER.match(text)
        if match is None:
            if _LOOKS_LIKE_MARKER.search(text):
                raise where.error(
                    f"{text.strip()!r} looks like a marker but is not one; a marker must be "
                    "alone on its line and spelled exactly '### BEGIN SOLUTION', '### END SOLUTION', "
                    "'### BEGIN HIDDEN TESTS' or '### END HIDDEN TESTS'",
                    line=i + 1,
                )
            continue
        edge, kind = match["edge"], match["kind"]
        if edge == "BEGIN":
            if open_kind is not None:
                raise where.error(
                    f"nested marker: '### BEGIN {kind}' inside the '### BEGIN {open_kind}' "
                    f"block opened at line {open_line + 1}; close that block first",
                    line=i + 1,
                )
            open_kind, open_line, open_indent = kind, i, match["indent"]
        else:
            if open_kind is None:
                raise where.error(
                    f"'### END {kind}' without a matching '### BEGIN {kind}' before it", line=i + 1
                )
            if kind != open_kind:
                raise where.error(
                    f"'### END {kind}' cannot close the '### BEGIN {open_kind}' block "
                    f"opened at line {open_line + 1}",
                    line=i + 1,
                )
            regions.append(Region(kind, open_line, i, open_indent))
            open_kind = None
    if open_kind is not None:
        raise where.error(
            f"'### BEGIN {open_kind}' is never closed (add '### END {open_kind}')",
            line=open_line + 1,
        )
    return ParsedSource(lines, tuple(regions))


def check_placement(
    parsed: ParsedSource, *, is_solution_cell: bool, is_test_cell: bool, where: Where = Where()
) -> None:
    """Solution markers only in answer cells, hidden-test markers only in graded test cells.

    A marker in the wrong cell would be left in the student version (solution
    text in a test cell is not stubbed) or would remove code the student needs.
    """
    for region in parsed.regions:
        if region.kind == SOLUTION and not is_solution_cell:
            raise where.error(
                "'### BEGIN SOLUTION' outside an answer cell; set nbgrader metadata "
                "'solution': true on this cell, or remove the markers",
                line=region.begin + 1,
            )
        if region.kind == HIDDEN_TESTS and not is_test_cell:
            raise where.error(
                "'### BEGIN HIDDEN TESTS' outside an autograded test cell; hidden tests belong "
                "in a locked graded test cell ('grade': true, 'solution': false, 'points': N)",
                line=region.begin + 1,
            )


def _ending(line: str) -> str:
    """The line ending of ``line`` ("" for a last line without one)."""
    return line[len(line.rstrip("\r\n")) :]


def render_student(parsed: ParsedSource, cell_type: str) -> str:
    """The student's version: answer regions stubbed, hidden-test regions removed.

    In a code cell the stub is ``# YOUR CODE HERE`` / ``raise NotImplementedError()``
    at the BEGIN marker's indentation, so a stubbed function body stays valid
    Python. In a markdown cell it is ``YOUR ANSWER HERE``, as nbgrader writes it.
    Lines outside the regions are copied byte for byte.
    """
    out: list[str] = []
    starts = {r.begin: r for r in parsed.regions}
    i = 0
    while i < len(parsed.lines):
        region = starts.get(i)
        if region is None:
            out.append(parsed.lines[i])
            i += 1
            continue
        if region.kind == SOLUTION:
            stub = [region.indent + s for s in CODE_STUB] if cell_type == "code" else [TEXT_STUB]
            # The stub's lines end like the END marker did, so the text after the
            # region (or the cell's end) is unchanged.
            out.extend(line + "\n" for line in stub[:-1])
            out.append(stub[-1] + _ending(parsed.lines[region.end]))
        i = region.end + 1
    text = "".join(out)
    if parsed.lines and not _ending(parsed.lines[-1]) and text.endswith("\n"):
        # A hidden-test region at the very end of a cell would leave a trailing
        # newline that the source did not have.
        text = text[:-1]
    return text


def whole_cell_stub(cell_type: str) -> str:
    """The stub for an answer cell without markers: nbgrader replaces the whole cell."""
    return "\n".join(CODE_STUB) if cell_type == "code" else TEXT_STUB
