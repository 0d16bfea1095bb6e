"""docs/reading-the-source.md's path through the library: every file it names exists, every line
count it gives is what `wc -l` says today, and its totals are the sums of its rows (so the figures
cannot go stale when the library changes)."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "reading-the-source.md").read_text(encoding="utf-8")
ROW = re.compile(r"^\| (\d+) \| `([^`]+)`(?:, lines (\d+)-(\d+))? \| (\d+) \|", re.M)
CORE = "## Read the core in file order"


def section(heading=CORE):
    start = PAGE.index(heading)
    end = PAGE.find("\n## ", start + 1)
    return PAGE[start:end if end != -1 else len(PAGE)]


def wc_l(path):
    return (ROOT / path).read_bytes().count(b"\n")  # what `wc -l` counts


def rows(text=PAGE):
    found = [(int(n), path, first and int(first), last and int(last), int(count))
             for n, path, first, last, count in ROW.findall(text)]
    assert found, "no table rows found in docs/reading-the-source.md"
    return found


def number(text):
    return int(text.replace(",", ""))


def test_each_row_counts_its_file_as_wc_does():
    wrong = []
    for n, path, first, last, count in rows():
        assert (ROOT / path).is_file(), f"row {n}: {path} does not exist"
        actual = last - first + 1 if first else wc_l(path)
        if first:
            assert last <= wc_l(path), f"row {n}: {path} has fewer than {last} lines"
        if actual != count:
            wrong.append(f"row {n} ({path}): the page says {count}, the file has {actual}")
    assert not wrong, "\n".join(wrong)


def test_the_rows_are_numbered_in_order():
    assert [n for n, *_ in rows()] == list(range(1, len(rows()) + 1))


def test_the_totals_are_the_sums_of_their_rows():
    core = rows(section())
    text = " ".join(section().split())
    together, without_table = re.search(r"these files are ([\d,]+) lines, ([\d,]+) without the table", text).groups()
    assert number(together) == sum(count for *_, count in core)
    assert number(without_table) == sum(count for _, path, _, _, count in core if path != "tensorgrad/derivatives.py")
    whole = number(re.search(r"`tensor.py` as a whole is ([\d,]+) lines", text).group(1))
    assert whole == wc_l("tensorgrad/tensor.py")
    library = number(re.search(r"the library ([\d,]+)\.", text).group(1))
    assert library == sum(wc_l(p.relative_to(ROOT)) for p in (ROOT / "tensorgrad").rglob("*.py"))


def test_the_engine_loop_is_where_the_page_says():
    tree = ast.parse((ROOT / "tensorgrad/autograd/engine.py").read_text(encoding="utf-8"))
    execute = next(node for node in tree.body
                   if isinstance(node, ast.FunctionDef) and node.name == "execute")
    text = " ".join(section().split())
    first, last = map(int, re.search(r"the backward pass \(lines (\d+)-(\d+)\)", text).groups())
    assert (first, last) == (execute.lineno, execute.end_lineno)
    length = int(re.search(r"`execute` itself is (\d+) lines", text).group(1))
    assert length == execute.end_lineno - execute.lineno + 1
