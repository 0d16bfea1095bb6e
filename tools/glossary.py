"""The Chinese glossary (lessons/zh/术语表.md) held to what the Chinese edition says.

Two things in the glossary are not typed by hand but checked against the edition:

* **Where each term first appears.** The last column of the glossary's first table links the
  first lesson whose Chinese text uses the term. :func:`first_appearances` finds it in the
  lessons' catalogues (translations/zh/lessons/NN_*.md, the source of lessons/zh/), lesson by
  lesson; ``python tools/translate.py write`` rewrites the column, and ``--check`` fails when it
  is stale or when a term appears in no lesson (use the term where its idea is taught, or drop it).
  A term inside another row's longer term does not count as the term (视图 in 前向视图).
  "First" is in the reading order of the course map (lessons/README.md: lesson 13 is read right
  after 6), and a term whose first use is inside a prediction's answer box (``<details>``) gets
  :data:`IN_AN_ANSWER` instead of a lesson: the glossary is read before any lesson, and "gradient
  accumulation, lesson 4" would tell a reader what lesson 4 asks them to predict.
  A term is the first column's text without its parenthesised note, each of its ``/``- or
  ``、``-separated words counting (``拓扑排序 / 拓扑顺序``: whichever comes first).
* **One term per idea.** The section ``## 一个概念，一个词`` lists, one line each, the word the
  edition uses and the variants it does not, and words that contain a variant but are another
  word (``遍历`` is not the measure word ``遍``)::

      - 次（数前向计算、反向传播有几次；不用：遍数、遍；不算：遍历、普遍）

  :func:`variants_in` finds the forbidden variants in a text; tests/test_zh_terms.py runs it over
  everything a learner of the Chinese edition reads.

What a learner reads, for :func:`variants_in`: prose without its inline code, link targets and
HTML tags, and without what it quotes between Chinese quotation marks (“…”: a tutorial's or a
misconception's own words, quoted as they were written).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = Path("lessons") / "zh" / "术语表.md"  # from the checkout's root
LESSON_CATALOGUES = Path("translations") / "zh" / "lessons"
RULES_HEADING = "## 一个概念，一个词"
COURSE_MAP = Path("lessons") / "README.md"
IN_AN_ANSWER = "（先出现在一个预测的答案里）"
_ANSWER_BOX = re.compile(r"(<details>.*?</details>)", re.DOTALL)

_ROW = re.compile(r"^\| (?P<term>[^|]+?) \|(?P<middle>.*)\|\s*(?P<first>[^|]*?)\s*\|$")
_FIRST = re.compile(r"^\[第 (\d+) 课\]\((\d\d_[a-z0-9_]+\.ipynb)\)$")
_RULE = re.compile(r"^- (?P<word>[^（\n]+?)（(?P<note>[^\n]*)）\s*$", re.M)
_NOTE = re.compile(r"(?:^|[;；])\s*(?P<kind>不用|不算)：(?P<words>[^;；]+)")
_CJK_WORD = re.compile(r"[\u4e00-\u9fff]{2,}")
_PARENTHESES = re.compile(r"（[^）]*）|\([^)]*\)")


@dataclass(frozen=True)
class Rule:
    """One idea, one word: ``word`` is used, ``avoided`` are not; ``unrelated`` contain an avoided
    word but are other words (遍历 holds 遍)."""

    word: str
    avoided: tuple[str, ...]
    unrelated: tuple[str, ...]


def _split(words: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in re.split(r"[、，,]", words) if w.strip())


def rules(text: str | None = None) -> list[Rule]:
    """The rules of the glossary's section ``## 一个概念，一个词``."""
    text = (ROOT / GLOSSARY).read_text(encoding="utf-8") if text is None else text
    section = text.split(RULES_HEADING, 1)[1].split("\n## ", 1)[0]
    found = []
    for match in _RULE.finditer(section):
        notes = {m["kind"]: _split(m["words"]) for m in _NOTE.finditer(match["note"])}
        if notes.get("不用"):
            found.append(Rule(match["word"].strip(), notes["不用"], notes.get("不算", ())))
    return found


def prose(text: str) -> str:
    """What a reader reads of Markdown as words: no fenced or inline code, link targets, HTML
    tags, formulas, or words quoted between “ and ” (each replaced by a space)."""
    text = re.sub(r"```.*?```", " ", text, flags=re.DOTALL)
    text = re.sub(r"`[^`\n]*`", " ", text)
    text = re.sub(r"\$\$.+?\$\$|\$[^$\n]+?\$", " ", text, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"https?://\S+", " ", text)
    return re.sub(r"“[^”]*”", " ", text)


def code_words(source: str) -> str:
    """What a reader reads of Python code as words: its comments and string literals."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    return "\n".join(tok.string for tok in tokens if tok.type in (tokenize.COMMENT, tokenize.STRING))


def variants_in(text: str, all_rules: list[Rule]) -> list[tuple[str, str, str]]:
    """The forbidden variants in ``text``: (variant, the glossary's word, the words around it)."""
    found = []
    for rule in all_rules:
        for variant in rule.avoided:
            english = variant.isascii() and variant[:1].isalpha()
            pattern = (rf"(?i)(?<![A-Za-z_./-]){re.escape(variant)}(?![A-Za-z_/-]|\.ipynb)"
                       if english else re.escape(variant))
            for match in re.finditer(pattern, text):
                around = text[max(0, match.start() - 6):match.end() + 6]
                if any(u in around and _covers(text, match, u) for u in rule.unrelated):
                    continue
                found.append((variant, rule.word, around.replace("\n", " ")))
    return found


def _covers(text: str, match: re.Match, word: str) -> bool:
    """Whether an occurrence of ``word`` in ``text`` contains the match (遍 inside 遍历)."""
    start = max(0, match.start() - len(word))
    for hit in re.finditer(re.escape(word), text[start:match.end() + len(word)]):
        if start + hit.start() <= match.start() and match.end() <= start + hit.end():
            return True
    return False


# -- the first appearance of each term ----------------------------------------------------------

@dataclass
class Row:
    line: int  # index in the glossary's lines
    term: str
    middle: str
    first: str


def rows(lines: list[str]) -> list[Row]:
    """The rows of the glossary's first table (the one with the column 首次出现)."""
    found, inside = [], False
    for index, line in enumerate(lines):
        if line.startswith("| 中文 |") and "首次出现" in line:
            inside = True
            continue
        if inside and not line.startswith("|"):
            break
        match = _ROW.match(line) if inside else None
        if match and not set(match["term"]) <= set("-"):
            found.append(Row(index, match["term"], match["middle"], match["first"]))
    return found


def term_words(term: str) -> list[str]:
    """The words a row's term stands for: its text split at / and 、, and a word in parentheses
    that is another name of the term (``有限差分（中心差分）``); a note in parentheses, with
    punctuation, code or spaces (``一次（前向计算、反向传播的计数：…）``), is not a word."""
    alternatives = [inner for inner in re.findall(r"（([^）]*)）", term) if _CJK_WORD.fullmatch(inner)]
    words = re.split(r"[/、]", _PARENTHESES.sub("", term)) + alternatives
    return [w.strip() for w in words if w.strip()]


def reading_order(root: Path = ROOT) -> list[str]:
    """The lessons' notebook names in the course map's reading order (none if there is no map)."""
    path = root / COURSE_MAP
    text = path.read_text(encoding="utf-8").split("## The lessons", 1) if path.exists() else []
    return re.findall(r"^- \[(\d\d_[A-Za-z0-9_]+\.ipynb)\]", text[1], flags=re.M) if len(text) == 2 else []


def _words(text: str) -> str:
    """What a reader reads of a catalogue's text: the prose of its Markdown, the comments and
    strings of its code."""
    parts = re.split(r"```python\n(.*?)```", text, flags=re.DOTALL)
    return "".join(prose(part) if k % 2 == 0 else code_words(part) for k, part in enumerate(parts))


def lesson_texts(root: Path = ROOT) -> list[tuple[int, str, list[tuple[bool, str]]]]:
    """(number, notebook name, what a reader reads) of each numbered lesson, in the course map's
    reading order, from its catalogue; what a reader reads is in pieces, in order, each marked
    whether it is a prediction's answer box."""
    order = reading_order(root)
    paths = sorted((root / LESSON_CATALOGUES).glob("[0-9][0-9]_*.md"))
    paths.sort(key=lambda p: order.index(p.stem + ".ipynb") if p.stem + ".ipynb" in order else len(order))
    found = []
    for path in paths:
        pieces = _ANSWER_BOX.split(path.read_text(encoding="utf-8"))
        found.append((int(path.name[:2]), path.stem + ".ipynb",
                      [(k % 2 == 1, _words(piece)) for k, piece in enumerate(pieces)]))
    return found


def _without(text: str, words: set[str]) -> str:
    """``text`` with each of ``words`` blanked out, longest first: a term inside another row's
    longer term is that other term (视图 in 前向视图, the drawing, is no tensor view)."""
    for word in sorted(words, key=len, reverse=True):
        text = text.replace(word, " ")
    return text


def first_appearances(glossary: str, root: Path = ROOT) -> tuple[dict[str, str], list[str]]:
    """{a row's term: the link to the first lesson that uses it}, and the terms no lesson uses."""
    lessons = lesson_texts(root)
    all_rows = rows(glossary.splitlines())
    firsts, unused = {}, []
    for row in all_rows:
        words = term_words(row.term)
        longer = {other for r in all_rows if r is not row for other in term_words(r.term)
                  if any(w in other and w != other for w in words)}
        hit = next(((n, name, answer) for n, name, pieces in lessons for answer, text in pieces
                    if any(w in _without(text, longer) for w in words)), None)
        if hit is None:
            unused.append(row.term)
        else:
            firsts[row.term] = IN_AN_ANSWER if hit[2] else f"[第 {hit[0]} 课]({hit[1]})"
    return firsts, unused


def with_first_appearances(glossary: str, root: Path = ROOT) -> str:
    """The glossary with its first-appearance column computed (a term no lesson uses keeps its cell)."""
    firsts, _ = first_appearances(glossary, root)
    lines = glossary.splitlines()
    for row in rows(lines):
        if row.term in firsts:
            lines[row.line] = f"| {row.term} |{row.middle}| {firsts[row.term]} |"
    return "\n".join(lines) + ("\n" if glossary.endswith("\n") else "")


def glossary_problems(root: Path = ROOT) -> list[str]:
    """What ``translate.py --check`` reports of the glossary: a stale first-appearance column, and
    terms that no lesson uses (none when the checkout at ``root`` has no glossary)."""
    if not (root / GLOSSARY).exists():
        return []
    text = (root / GLOSSARY).read_text(encoding="utf-8")
    _, unused = first_appearances(text, root)
    problems = [f"lessons/zh/术语表.md: no lesson uses the term {term!r}: use it where its idea is "
                "taught, or drop its row" for term in unused]
    if with_first_appearances(text, root) != text:
        problems.append("lessons/zh/术语表.md: the column 首次出现 is stale; run python tools/translate.py write")
    return problems


def write_first_appearances(root: Path = ROOT) -> bool:
    """Rewrite the glossary's first-appearance column; whether it changed."""
    if not (root / GLOSSARY).exists():
        return False
    text = (root / GLOSSARY).read_text(encoding="utf-8")
    new = with_first_appearances(text, root)
    if new != text:
        (root / GLOSSARY).write_text(new, encoding="utf-8")
    return new != text
