"""The front page a newcomer reads, and the pages it leads to.

README.md stays short enough to finish in five minutes (at most 10,000 characters: what it is,
the two commands, a picture, what the course contains, links onward), and every relative link
in README.md, docs/ and lessons/README.md leads somewhere: to a file of the checkout and, when
it names an anchor (`file.md#a-heading`), to a heading of that file as GitHub names it. CI
(.ci/run) ends with exactly the test command the front page gives, and the front page names
what CI installs before it, which a newcomer's `./run test` skips without.
"""

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_README_CHARS = 10_000

PAGES = sorted([README, *(ROOT / "docs").rglob("*.md"), ROOT / "lessons" / "README.md"])

#: [text](target) and ![alt](target), the target up to a space (a title may follow) or ")".
MARKDOWN_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: <img src="..."> and <a href="...">, which the pages use for sized pictures.
HTML_LINK = re.compile(r"<(?:img|a)\b[^>]*?\b(?:src|href)=\"([^\"]+)\"", re.IGNORECASE)


def without_code_blocks(text: str) -> str:
    """The text without HTML comments and fenced code blocks (whose `#` lines are no headings)."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)
    return re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.MULTILINE | re.DOTALL)


def prose(text: str) -> str:
    """The text without HTML comments, code blocks and inline code, where brackets are notes or
    code, not links."""
    text = without_code_blocks(text)
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", text, flags=re.DOTALL)


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped (letters of any script,
    digits, `_` and `-` kept), spaces made hyphens."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading counts by its text
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor a Markdown file has: its headings' (numbered -1, -2 when repeated) and any
    explicit <a id="..."> / <a name="...">."""
    text = path.read_text(encoding="utf-8")
    found, seen = set(), {}
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", without_code_blocks(text), flags=re.MULTILINE):
        slug = github_anchor(heading)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    found |= set(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
    return found


def cell_ids(path: Path) -> set[str]:
    """The cell ids of a notebook (JupyterLab opens `notebook.ipynb#cell-id=ID` at that cell)."""
    return {cell.get("id") for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]}


def links(path: Path) -> list[str]:
    text = prose(path.read_text(encoding="utf-8"))
    return MARKDOWN_LINK.findall(text) + HTML_LINK.findall(text)


def broken_links(path: Path) -> list[str]:
    """The relative links of ``path`` that lead nowhere, each with the reason."""
    broken = []
    for target in links(path):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):  # https:, mailto:, ...
            continue
        file_part, _, anchor = target.partition("#")
        where = (path.parent / file_part).resolve() if file_part else path
        if ROOT not in where.parents and where != ROOT:
            broken.append(f"{target}: outside the repository")
        elif not where.exists():
            broken.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(f"{target}: {where.relative_to(ROOT)} has no heading #{anchor}")
        elif anchor.startswith("cell-id=") and where.suffix == ".ipynb" and anchor[8:] not in cell_ids(where):
            broken.append(f"{target}: {where.relative_to(ROOT)} has no cell {anchor[8:]!r}")
    return broken


def test_the_front_page_is_short():
    size = len(README.read_text(encoding="utf-8"))
    assert size <= MAX_README_CHARS, f"README.md has {size} characters; at most {MAX_README_CHARS} (move detail to docs/)"


def test_the_front_page_has_the_two_commands_and_a_picture():
    text = README.read_text(encoding="utf-8")
    assert "./run lab" in text and "./run test" in text
    pictures = [t for t in links(README) if re.search(r"\.(svg|png|jpe?g|gif)$", t)]
    assert pictures, "README.md shows no picture"


def test_ci_runs_exactly_the_test_command_the_front_page_gives():
    block = re.search(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL).group(1)
    commands = {line.split("#")[1].strip(): line.split("#")[0].strip() for line in block.splitlines() if "#" in line}
    assert set(commands) == {"opens the lessons in JupyterLab", "runs the whole test suite"}, commands
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    (ran,) = re.findall(r"^exec (.+)$", ci, flags=re.MULTILINE)
    assert ran.strip() == commands["runs the whole test suite"]


# What .ci/run installs before the test command (its words), and the front page's name for it
CI_INSTALLS = {"torch==": "PyTorch 2.13.0", "nbgrader": "nbgrader", ".[site]": "website's builder",
               "chromium": "Chromium"}


def test_the_front_page_names_what_ci_installs_before_the_tests():
    """A newcomer's `./run test` is CI's last command, not all of CI: the front page says which
    installs CI adds, and so which tests a plain `./run test` skips (review s14b, F7)."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert "CI runs exactly this command" not in text
    for installed, named in CI_INSTALLS.items():
        assert installed in ci, f".ci/run no longer installs {installed}: update CI_INSTALLS"
        assert named in text, f"README.md does not say that CI installs {named}"


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_relative_link_resolves(page):
    assert links(page) or page != README, "no links found in README.md: the link pattern is wrong"
    broken = broken_links(page)
    assert not broken, f"{page.relative_to(ROOT)} has broken links:\n  " + "\n  ".join(broken)


def test_the_link_check_finds_a_broken_link_and_a_missing_anchor(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## Its `second` part\n", encoding="utf-8")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/a.md) [ok](docs/a.md#its-second-part) [ok](#top-heading) [web](https://example.org)\n"
        "# Top heading\n`[code](nowhere.md)`\n"
        "[gone](docs/b.md) [no anchor](docs/a.md#third) ![pic](docs/pic.svg) <img src=\"docs/img.png\">\n"
        "<!-- [a note](nowhere.md) --> [cell](n.ipynb#cell-id=c1) [no cell](n.ipynb#cell-id=c2)\n",
        encoding="utf-8")
    (tmp_path / "n.ipynb").write_text(json.dumps({"cells": [{"id": "c1"}]}), encoding="utf-8")
    assert broken_links(page) == [
        "docs/b.md: no such file", "docs/a.md#third: docs/a.md has no heading #third",
        "docs/pic.svg: no such file", "n.ipynb#cell-id=c2: n.ipynb has no cell 'c2'", "docs/img.png: no such file",
    ]


def test_the_front_page_states_the_course_maps_hours():
    """README.md's hours of lessons and exercises are the ones lessons/README.md's table adds up
    to (tests/test_lessons.py checks the table against the notebooks)."""
    course_map = (ROOT / "lessons" / "README.md").read_text(encoding="utf-8")
    stated = re.search(r"About \*\*(\d+) hours\*\* for the lessons and about \*\*(\d+) hours\*\*", course_map)
    front = re.search(r"About (\d+) hours of lessons and (\d+) of exercises", README.read_text(encoding="utf-8"))
    assert stated and front and front.groups() == stated.groups(), (front and front.groups(), stated.groups())
    zh_map = (ROOT / "lessons" / "zh" / "README.md").read_text(encoding="utf-8")
    zh = re.search(r"各课一共约 \*\*(\d+) 小时\*\*，练习一共约 \*\*(\d+) 小时\*\*", zh_map)
    assert zh and zh.groups() == stated.groups(), (zh and zh.groups(), stated.groups())
