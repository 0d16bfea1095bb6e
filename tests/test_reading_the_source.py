"""The reading path of docs/reading-the-source.md: every file it names exists, every line count it
gives is what `wc -l` says today (so the figures cannot go stale when the library changes), and its
core rows are the files of tensorgrad/core in the order the folder itself gives for reading it."""

import ast
import re
from pathlib import Path

from test_core_reads_like_a_textbook import code_lines

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "reading-the-source.md").read_text(encoding="utf-8")
ROW = re.compile(r"^\| (\d+) \| `([^`]+)`(?:, lines (\d+)-(\d+))? \| (\d+) \|", re.M)
CORE = ROOT / "tensorgrad" / "core"


def wc_l(path):
    return (ROOT / path).read_bytes().count(b"\n")  # what `wc -l` counts


def rows():
    found = [(int(n), path, first and int(first), last and int(last), int(count))
             for n, path, first, last, count in ROW.findall(PAGE)]
    assert found, "no table rows found in docs/reading-the-source.md"
    return found


def number(text):
    return int(text.replace(",", ""))


def text():
    return " ".join(PAGE.split())


def test_each_row_counts_its_file_as_wc_does():
    wrong = []
    for n, path, first, last, count in rows():
        assert (ROOT / path).is_file(), f"row {n}: {path} does not exist"
        actual = last - first + 1 if first else wc_l(path)
        if first:
            assert last <= wc_l(path), f"row {n}: {path} has fewer than {last} lines"
        if actual != count:
            wrong.append(f"row {n} ({path}): the page says {count}, the file has {actual}")
    assert not wrong, "\n".join(wrong + ["(python tools/reading_the_source.py rewrites the figures)"])


def core_reading_order():
    """The files tensorgrad/core/__init__.py lists for reading, in its order."""
    listed = re.findall(r"^    (\w+\.py) ", ast.get_docstring(ast.parse(
        (CORE / "__init__.py").read_text(encoding="utf-8"))), re.M)
    return [f"tensorgrad/core/{name}" for name in listed]


def test_the_core_rows_are_the_core_folder_in_its_reading_order():
    on_disk = sorted(f"tensorgrad/core/{p.name}" for p in CORE.glob("*.py") if p.name != "__init__.py")
    assert sorted(core_reading_order()) == on_disk, "core/__init__.py lists not every file once"
    in_page = [path for _, path, _, _, _ in rows() if path.startswith("tensorgrad/core/")]
    assert in_page == core_reading_order()


def test_the_totals_are_the_sums_of_their_rows():
    core_lines, core_code = map(number, re.search(
        r"that gives their order\) is ([\d,]+) lines, ([\d,]+) of them code", text()).groups())
    assert core_lines == sum(wc_l(path) for path in core_reading_order())
    assert core_code == sum(code_lines(CORE / p.name) for p in CORE.glob("*.py"))
    library = number(re.search(r"the library ([\d,]+)\.", text()).group(1))
    assert library == sum(wc_l(p.relative_to(ROOT)) for p in (ROOT / "tensorgrad").rglob("*.py"))


def test_the_engine_loop_is_where_the_page_says():
    tree = ast.parse((CORE / "engine.py").read_text(encoding="utf-8"))
    execute = next(node for node in tree.body
                   if isinstance(node, ast.FunctionDef) and node.name == "execute")
    first, last = map(int, re.search(r"the backward pass \(lines (\d+)-(\d+)\)", text()).groups())
    assert (first, last) == (execute.lineno, execute.end_lineno)
    length = int(re.search(r"`execute` itself is (\d+) lines", text()).group(1))
    assert length == execute.end_lineno - execute.lineno + 1


def test_a_line_range_ends_where_a_definition_ends():
    """A row that names a range of lines (`derivatives.py, lines 1-80`) ends on a whole entry: the
    line after it is blank (or the file ends), so a learner who reads exactly that range does not
    stop inside an unclosed `rule(` (the outside review s15, F4)."""
    for _, path, first, last, _ in rows():
        if last:
            lines = (ROOT / path).read_text(encoding="utf-8").split("\n")
            assert last == len(lines) or not lines[last].strip(), (path, last, lines[last])
