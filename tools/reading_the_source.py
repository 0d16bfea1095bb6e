"""Rewrite the figures of docs/reading-the-source.md (line counts, the core's lines of code, the
library's size, where `execute` sits) from the files as they are now.

    python tools/reading_the_source.py

tests/test_reading_the_source.py checks the same figures; run this after changing a file the page
names (a merge that touches one, for instance), then read the diff: a row whose file grew a lot
may need its words changed too. The order and choice of rows stay the author's.
"""

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from test_core_reads_like_a_textbook import code_lines  # noqa: E402  (the test's own counting)

PAGE = ROOT / "docs" / "reading-the-source.md"
ROW = re.compile(r"^\| (\d+) \| `([^`]+)`(?:, lines (\d+)-(\d+))? \| (\d+) \|", re.M)


def wc_l(path):
    return (ROOT / path).read_bytes().count(b"\n")


def main():
    text = PAGE.read_text(encoding="utf-8")

    def row(match):
        _, path, first, last, count = match.groups()
        lines = int(last) - int(first) + 1 if first else wc_l(path)
        return match.group(0)[:-len(f"| {count} |")] + f"| {lines} |"

    text = ROW.sub(row, text)
    core = sorted((ROOT / "tensorgrad" / "core").glob("*.py"))
    lines = sum(wc_l(p) for p in core if p.name != "__init__.py")
    code = sum(code_lines(p) for p in core)
    library = sum(wc_l(p) for p in (ROOT / "tensorgrad").rglob("*.py"))
    text = re.sub(r"is [\d,]+ lines, [\d,]+ of them", f"is {lines:,} lines, {code:,} of them", text)
    text = re.sub(r"the library [\d,]+\.", f"the library {library:,}.", text)
    tree = ast.parse((ROOT / "tensorgrad" / "core" / "engine.py").read_text(encoding="utf-8"))
    execute = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "execute")
    text = re.sub(r"\(lines \d+-\d+\)", f"(lines {execute.lineno}-{execute.end_lineno})", text)
    text = re.sub(r"`execute` itself is \d+ lines",
                  f"`execute` itself is {execute.end_lineno - execute.lineno + 1} lines", text)
    PAGE.write_text(text, encoding="utf-8")
    print(f"{PAGE.relative_to(ROOT)}: core {lines} lines ({code} of code), library {library}")


if __name__ == "__main__":
    main()
