"""The Chinese edition (简体中文), generated from the English notebooks and one catalogue each.

The English notebooks are the one source of code and outputs. Each has a translation
catalogue, a Markdown file that holds only the Chinese text, cell by cell:

    translations/zh/lessons/03_chain_rule.md               ->  lessons/zh/03_chain_rule.ipynb
    translations/zh/solutions/03_exercises_chain_rule.md   ->  solutions/zh/03_exercises_chain_rule.ipynb
                                                               (-> exercises/zh/ by the course build)

A catalogue is a sequence of entries, each headed by a comment line that names the
cell and records a hash of the English text it translates::

    <!-- cell cell-82ec4ea7 en:3f2a9c1b7d4e -->
    ## 你将学到什么
    ...

    <!-- cell 03-04 en:9d0e1f2a3b4c code -->
    ```python
    t = check("chain_rule.task2")
    with t.test("(2, 1) 处的 dy/dw", hint="把两条路径的贡献相加"):
        t.submit("dy_dw", dy_dw, expected=5.0)
    ```

Which cells need an entry: every Markdown cell, and every code cell with a comment
that teaches or (in an exercise set) a student-facing string: the name of a
``t.test(...)``, of a value in ``t.submit(...)``, of a trained network in ``t.measure(...)`` or of
an order in ``t.order(...)``, or a ``hint=...``. A code cell's entry is the whole cell as the Chinese
edition shows it; it may differ from the English only in those comments and strings and in the
docstrings of its functions and classes (an exercise set's are translated there; a lesson's, in
printed.md, below), and the nbgrader markers (``### BEGIN SOLUTION``...) stay as they are. Everything else
of the notebook (code, stored outputs, metadata, tags) is copied from the English, so
code and outputs cannot drift: nbval runs the Chinese lessons strictly too.

Written here, beyond the catalogue's text:

* links to other notebooks of the course point at their Chinese edition
  (``../exercises/03_exercises_chain_rule.ipynb`` -> ``../../exercises/zh/03_exercises_chain_rule.ipynb``),
  other relative links at the English file they named; a notebook named in inline code
  (`` `exercises/03_exercises_chain_rule.ipynb` ``) is named by its Chinese edition's path;
* the exercise sets' setup cell gets one line, :data:`SPEAK_CHINESE`, so the
  self-check's lines are in Chinese too; their cell ids get a ``zh-`` prefix, since a
  cell id identifies the exercise set of a submission;
* a lesson's backend cell gets one line, :data:`DRAW_CHINESE`, so what ``tg.viz`` prints
  (``trace_backward``'s table, ``explain()``, the stepper) is in Chinese, and matplotlib draws
  the pictures' labels (translated in printed.md, as printed labels are) with a Chinese font;
* the glossary's column 首次出现 (lessons/zh/术语表.md): the first lesson that uses each term,
  found in the catalogues (tools/glossary.py); ``--check`` fails when it is stale or a term is
  used by no lesson;
* the Chinese notebooks are executed on their own by ``./run notebooks`` (tools/execute_notebooks.py),
  after the English ones: what they print differs from the English beyond the labels. Until then
  a newly written edition holds the English outputs, rewritten label by label; a rewrite keeps the
  outputs of each code cell whose code did not change, and ``--check`` compares everything
  but the outputs (nbval compares those with a fresh run);
* the lines of a Chinese paragraph are joined where the break falls between two Chinese
  characters (Markdown would show it as a space);
* the notebook's metadata records the edition (``metadata.translation``);
* in a lesson, the labels its code prints (``print("path w -> a -> y:", ...)``) are
  rewritten in Chinese, in the printed literals and in the stored outputs alike, from the
  table ``translations/zh/printed.md`` (:func:`read_labels`, :func:`_label_chinese`), and the
  neutral first line of a prediction's output from :data:`PRINTED`.

Commands (``./run translations ...``; ``./run notebooks`` runs ``write``, ``./run test``
runs ``--check``):

    python tools/translate.py write              write lessons/zh/ and solutions/zh/
    python tools/translate.py --check            fail, naming the cells, if a translation
                                                 is stale, missing or hand-edited
    python tools/translate.py status             per notebook: entries done, stale, missing
    python tools/translate.py skeleton NB...     add the missing entries to NB's catalogue,
                                                 marked ``todo``, with the English as a start

An entry whose header ends in ``todo`` counts as missing. When the English text of a
cell changes, its hash no longer matches and the entry is stale until a translator
updates the text and the hash (``skeleton`` prints the new hash of each stale entry).
"""

from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import io
import json
import posixpath
import re
import sys
import tokenize
import unicodedata
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import glossary
import nbformat
from tensorgrad_course import texts
from tensorgrad_course.notebooks import dumps, source_offsets  # dumps: nbformat's sorted-key JSON, as every tool writes it

ROOT = Path(__file__).resolve().parents[1]
LANGUAGE = "zh"
LANGUAGE_TAG = "zh-Hans"
#: The English folders that have a Chinese edition, and where the edition of each lives.
EDITIONS = {"lessons": "lessons/zh", "solutions": "solutions/zh", "exercises": "exercises/zh"}
TRANSLATED = ("lessons", "solutions")  # exercises/zh/ is built from solutions/zh/
CATALOGUES = Path("translations") / LANGUAGE
#: The line the generator adds to an exercise set's setup cell.
SPEAK_CHINESE = 'from tensorgrad_course import use_language; use_language("zh")  # 自检信息用中文显示'
#: The line the generator adds to a lesson's backend cell (tagged ``backend``, the one that imports
#: tensorgrad): tg.viz's traces and steppers print Chinese, and matplotlib draws Chinese labels.
DRAW_CHINESE = 'from tensorgrad.viz import use_language; use_language("zh")  # 逐步讲解和图里的文字用中文显示'

#: Lines the lessons' code prints that the Chinese edition prints in Chinese: the generator
#: rewrites the ``print("...")`` in the code and the same line in the stored output, so both
#: still agree under nbval. The first is the neutral first line of every prediction's output,
#: which JupyterLab shows on the collapsed output's bar.
PRINTED = {"The result (compare it with your prediction):": "结果（和你的预测对照一下）："}
#: The labels the code of the lessons prints, and their Chinese (translations/zh/printed.md): the
#: generator rewrites each inside the code's string literals (plain strings, f-strings,
#: docstrings) and in the stored text outputs of the notebook, so both still agree under nbval.
LABELS_FILE = CATALOGUES / "printed.md"
#: How the table marks a label that is a whole string literal anywhere in the code (``= "leaf"``),
#: not only in what print() prints: a value the code prints through a variable.
WHOLE = "= "
_LABEL_LINE = re.compile(r'^(?P<whole>= )?(?P<en>"(?:[^"\\]|\\.)*")\s+→\s+(?P<zh>"(?:[^"\\]|\\.)*")\s*$')

_HEADER = re.compile(r"^<!-- cell (?P<id>[A-Za-z0-9_-]+) en:(?P<hash>[0-9a-f]{12})"
                     r"(?P<code> code)?(?P<todo> todo)? -->[ \t]*$", re.MULTILINE)
_FENCE = re.compile(r"\A```python\n(?P<body>.*?)\n?```\Z", re.DOTALL)
_MARKER = re.compile(r"^\s*#+\s*(BEGIN|END) (SOLUTION|HIDDEN TESTS)\b")
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.DOTALL)
_TEXT = re.compile(r"\s*\\text\{[^{}]*\}\s*")  # words inside a formula
_LINK = re.compile(r"(\]\(|<img [^>]*src=\")(?P<target>[^)\"\s]+)")


# -- the English side --------------------------------------------------------------------------

def formula_shape(formula: str) -> str:
    """What of a formula the translation must keep: all of it but the words in ``\\text{...}``
    (translated, and free to move: ``\\text{at } x`` is ``\\text{在 } x \\text{ 处}``) and the spaces
    around them."""
    return _TEXT.sub("", formula)


def english_hash(text: str) -> str:
    """The first 12 hex digits of the SHA-256 of a cell's English source."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _tokens(source: str) -> list[tokenize.TokenInfo] | None:
    """The cell's Python tokens, or None when it is not plain Python (a magic, say)."""
    try:
        return list(tokenize.generate_tokens(io.StringIO(source + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None


#: The self-check's calls whose first argument is a name the student reads (and the grader matches
#: it by; the Chinese solution and exercise share it, since both come from the same catalogue).
NAMED = ("test", "submit", "measure", "order")
NAMED_CALLS = [[".", call, "("] for call in NAMED]


def _char_column(lines: list[str], row: int, byte_column: int) -> int:
    """ast counts a column in UTF-8 bytes, tokenize in characters: a Chinese message has both."""
    line = lines[row - 1] if row <= len(lines) else ""
    return len(line.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))


def _shown_by_the_cell(source: str) -> tuple[set[str], list[tuple[tuple[int, int], tuple[int, int]]]]:
    """What else of a check cell the student reads, beyond the self-check's own calls:

    * the cell's own helpers that hand their first parameter on as the name of a self-check call
      (``def check_order(name, ...): t.order(name, ...)``): the first argument of a call of one
      is such a name;
    * the message of an ``assert`` (the self-check prints it when the check fails), as the span
      (start, end) of the message, in tokenize's (row, character column).
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), []
    helpers = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.args.args:
            first = node.args.args[0].arg
            if any(isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in NAMED
                   and call.args and isinstance(call.args[0], ast.Name) and call.args[0].id == first
                   for call in ast.walk(node)):
                helpers.add(node.name)
    lines = source.splitlines()
    messages = [((n.msg.lineno, _char_column(lines, n.msg.lineno, n.msg.col_offset)),
                 (n.msg.end_lineno, _char_column(lines, n.msg.end_lineno, n.msg.end_col_offset)))
                for n in ast.walk(tree) if isinstance(n, ast.Assert) and n.msg is not None]
    return helpers, messages


def _translatable_strings(tokens: list[tokenize.TokenInfo], source: str) -> set[int]:
    """Positions of the strings a student reads: the names in ``t.test("name", hint="...")``,
    ``t.submit("name", ...)``, ``t.measure("name", ...)`` and ``t.order("name", ...)``, and hints;
    the name handed to a helper of the cell that passes it on to one of those calls; and the
    message of an ``assert``. (The grader matches values by these names, and the Chinese solution
    and exercise share them, since both come from the same catalogue.)"""
    helpers, messages = _shown_by_the_cell(source)
    significant = [i for i, tok in enumerate(tokens)
                   if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE)]
    found = set()
    for k, i in enumerate(significant):
        if tokens[i].type != tokenize.STRING:
            continue
        before = [tokens[j].string for j in significant[max(0, k - 3):k]]
        continued = k > 0 and significant[k - 1] in found  # "..." "..." (implicit concatenation)
        helper = len(before) >= 2 and before[-2] in helpers and before[-1] == "(" and \
            (len(before) < 3 or before[-3] not in (".", "def"))
        in_message = any(start <= tokens[i].start and tokens[i].end <= end for start, end in messages)
        if continued or before[-3:] in NAMED_CALLS or before[-2:] == ["hint", "="] or helper or in_message:
            found.add(i)
    return found


def translatable_texts(source: str) -> list[str]:
    """The texts of a code cell that its catalogue entry translates (see :func:`_translatable_strings`)."""
    tokens = _tokens(source)
    if tokens is None:
        return []
    return [tokens[i].string for i in sorted(_translatable_strings(tokens, source))]


def _docstring_tokens(tokens: list[tokenize.TokenInfo], source: str) -> set[int]:
    """Positions of the tokens that are the docstrings of the cell's functions and classes
    (prose the learner reads in the code; nothing runs it)."""
    spans = docstrings(source)
    if not spans:
        return set()
    offset = source_offsets(source)
    return {i for i, tok in enumerate(tokens) if tok.type == tokenize.STRING
            and any(offset(*tok.start, chars=True) <= a and b <= offset(*tok.end, chars=True) for a, b in spans)}


def code_shape(source: str) -> list[str] | None:
    """What must stay identical between the editions: the tokens, with comments, docstrings and
    the student-facing strings left out (their places kept), and the nbgrader markers."""
    tokens = _tokens(source)
    if tokens is None:
        return None
    strings = _translatable_strings(tokens, source) | _docstring_tokens(tokens, source)
    shape = []
    previous = None
    for i, tok in enumerate(tokens):
        if tok.type == tokenize.COMMENT:
            if _MARKER.match(tok.string):
                shape.append(tok.string.strip())
            continue
        if tok.type == tokenize.NL:
            continue
        if i in strings:
            if previous not in strings:  # "..." "..." is one text: it may become one string
                shape.append("<text>")
        else:
            shape.append(tok.string)
        previous = i
    return shape


def needs_translation(cell) -> bool:
    """Markdown cells always; code cells with a teaching comment or a student-facing string."""
    if cell.cell_type == "markdown":
        return bool(cell.source.strip())
    if cell.cell_type != "code":
        return False
    tokens = _tokens(cell.source)
    if tokens is None:
        return "#" in cell.source
    if _translatable_strings(tokens, cell.source):
        return True
    return any(tok.type == tokenize.COMMENT and not _MARKER.match(tok.string) for tok in tokens)


_CJK_TEXT = "\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef“”‘’…—"
_ENDS_CJK = re.compile(f"[{_CJK_TEXT}](?:\\*\\*|\\*)?$")  # bold or italic may close the line
_STARTS_CJK = re.compile(f"^(?:\\*\\*|\\*|\\[)?[{_CJK_TEXT}]")  # ... or open the next
_ENDS_FULLWIDTH = re.compile(r"[，。：；？！、（“]$")
_BLOCK_START = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#|\||<|```|\$\$)")
_QUOTE = re.compile(r"^\s*>\s?")


def join_chinese_lines(markdown: str) -> str:
    """Join the lines of a paragraph where both sides of the break are Chinese.

    A line break inside a Markdown paragraph is shown as a space, which Chinese does not put
    between characters (``计算\n图`` would read ``计算 图``). Translators may wrap their lines;
    the edition joins them. Code blocks, ``$$`` formulas, list items, tables and headings are left
    as they are; a break between Chinese and Latin text stays a break (a space belongs there),
    except after full-width punctuation, which takes no space.
    """
    out: list[str] = []
    fenced = math = False
    for line in markdown.split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
            out.append(line)
            continue
        if math:  # inside a $$ ... $$ formula: kept line by line, until the line that closes it
            math = "$$" not in stripped
            out.append(line)
            continue
        if not fenced and stripped.startswith("$$") and stripped.count("$$") == 1:
            math = True
            out.append(line)
            continue
        if fenced or not out:
            out.append(line)
            continue
        previous = out[-1]
        quoted = _QUOTE.match(line) is not None and _QUOTE.match(previous) is not None
        content = _QUOTE.sub("", line, count=1) if quoted else line.lstrip()
        after_punctuation = _ENDS_FULLWIDTH.search(previous.rstrip()) is not None  # no space after ，。：
        if (stripped and previous.strip() and _ENDS_CJK.search(previous.rstrip())
                and (_STARTS_CJK.match(content) or after_punctuation)
                and not _BLOCK_START.match(content) and not previous.lstrip().startswith(("#", "|"))
                and (quoted or _QUOTE.match(line) is None)
                and not (previous.rstrip().endswith("*") and content.startswith("*"))):
            out[-1] = previous.rstrip() + content
        else:
            out.append(line)
    return "\n".join(out)


def unrendered_bold(markdown: str) -> list[str]:
    """``**bold**`` that CommonMark (and so JupyterLab) leaves as asterisks, e.g. ``**预测：**运行``.

    A closing ``**`` must be right-flanking: not after a space, and, when it follows punctuation
    (``：``, ``。``, ``”``), followed by a space or punctuation. An opening one mirrors that. Chinese
    prose hits this where English does not, since Chinese puts no space after its punctuation.
    """
    def punct(ch: str) -> bool:
        return unicodedata.category(ch)[0] in "PS"

    def space(ch: str) -> bool:
        return ch == "" or ch.isspace()

    found = []
    text = re.sub(r"```.*?```", "\n\n", markdown, flags=re.DOTALL)
    text = re.sub(r"`[^`\n]+`", "`x`", text)
    text = _MATH.sub("$x$", text)
    for paragraph in re.split(r"\n\s*\n", text):
        runs = [m for m in re.finditer(r"(?<!\*)\*\*(?!\*)", paragraph)]
        for k, run in enumerate(runs):
            before = paragraph[run.start() - 1] if run.start() else ""
            after = paragraph[run.end()] if run.end() < len(paragraph) else ""
            if k % 2 == 0:  # opening
                ok = not space(after) and (not punct(after) or space(before) or punct(before))
            else:
                ok = not space(before) and (not punct(before) or space(after) or punct(after))
            if not ok:
                found.append(paragraph[max(0, run.start() - 12):run.end() + 12].replace("\n", " "))
    return found


# -- catalogues --------------------------------------------------------------------------------

@dataclass
class Entry:
    """One cell's Chinese text, with the hash of the English it was translated from."""

    cell_id: str
    hash: str
    text: str
    code: bool
    todo: bool
    line: int


@dataclass
class Catalogue:
    """A notebook's translation catalogue: its entries by cell id, and what is wrong with it."""

    path: Path
    entries: dict[str, Entry] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def read_catalogue(path: Path) -> Catalogue:
    """Parse a catalogue; duplicate cells and malformed code entries become problems."""
    catalogue = Catalogue(path)
    if not path.exists():
        return catalogue
    text = path.read_text(encoding="utf-8")
    headers = list(_HEADER.finditer(text))
    for k, match in enumerate(headers):
        end = headers[k + 1].start() if k + 1 < len(headers) else len(text)
        body = text[match.end():end].strip("\n")
        line = text.count("\n", 0, match.start()) + 1
        is_code = bool(match["code"])
        if is_code:
            fenced = _FENCE.match(body.strip())
            if not fenced:
                catalogue.problems.append(f"{_show(path)}:{line}: cell {match['id']}: a code entry is one "
                                          "```python block")
                continue
            body = fenced["body"]
        if match["id"] in catalogue.entries:
            catalogue.problems.append(f"{_show(path)}:{line}: cell {match['id']} has two entries")
            continue
        catalogue.entries[match["id"]] = Entry(match["id"], match["hash"], body, is_code, bool(match["todo"]), line)
    return catalogue


def format_entry(cell_id: str, english: str, text: str, *, code: bool, todo: bool) -> str:
    header = f"<!-- cell {cell_id} en:{english_hash(english)}{' code' if code else ''}{' todo' if todo else ''} -->"
    body = f"```python\n{text}\n```" if code else text
    return f"{header}\n{body}\n"


def _relative(path: Path) -> Path:
    """``path`` from the checkout's root (paths given on the command line are relative already)."""
    path = Path(path)
    return path.resolve().relative_to(ROOT) if path.is_absolute() else path


def catalogue_path(english: Path) -> Path:
    """translations/zh/<folder>/<name>.md for lessons/<name>.ipynb or solutions/<name>.ipynb."""
    rel = _relative(english)
    return ROOT / CATALOGUES / rel.parent / (rel.stem + ".md")


def edition_of(path: Path) -> Path | None:
    """The Chinese edition of an English lesson or exercise set (relative in, relative out), else None."""
    rel = _relative(path).as_posix()
    if rel.partition("/")[0] not in TRANSLATED or not rel.endswith(".ipynb"):
        return None
    edition = _edition_rel(rel)
    return None if edition == rel else Path(edition)


def is_exercise_set(english: Path) -> bool:
    """An English exercise set (solutions/...): its Chinese edition is run, not copied, since
    its self-check prints Chinese."""
    return _relative(english).parts[0] == "solutions"


def edition_path(english: Path) -> Path:
    """Where the Chinese edition of an English notebook is written (absolute)."""
    return ROOT / edition_of(english)


def _show(path: Path) -> str:
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


# -- writing the edition -----------------------------------------------------------------------

def _read(path: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nbformat.read(path, as_version=4)


def rewrite_links(text: str, english_rel: str) -> str:
    """Relative links of a notebook at ``english_rel`` as seen from its Chinese edition."""
    here = posixpath.dirname(english_rel)
    there = posixpath.dirname(_edition_rel(english_rel))

    def fix(match: re.Match) -> str:
        target = match["target"]
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#|^/", target):
            return match.group(0)
        path, hash_, anchor = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(here, path))
        translated = _edition_rel(resolved)
        if translated != resolved and _has_edition(resolved):
            resolved = translated
        new = posixpath.relpath(resolved, there) + (hash_ + anchor)
        return match.group(1) + new

    text = _LINK.sub(fix, text)
    return _CODE_PATH.sub(lambda m: f"`{_edition_rel(m[1]) if _has_edition(m[1]) else m[1]}`", text)


#: Inline code that names a course notebook, as in "open `exercises/03_exercises_chain_rule.ipynb`".
_CODE_PATH = re.compile(r"`((?:lessons|exercises|solutions)/[A-Za-z0-9_]+\.ipynb)`")


def _edition_rel(rel: str) -> str:
    """The path (from the checkout) of the Chinese edition of the course file ``rel``, or ``rel``
    itself when it is not one that has an edition (an edition's own file, a docs page...)."""
    top, _, rest = rel.partition("/")
    if top in EDITIONS and rest and not rest.startswith(LANGUAGE + "/"):
        if rest.endswith(".ipynb") or rest == "README.md":
            return f"{EDITIONS[top]}/{rest}"
    return rel


def _has_edition(rel: str) -> bool:
    """Whether the English file ``rel`` has a Chinese edition: a notebook whose source has a
    catalogue (decided from the sources, so the output never depends on what was written
    first), or a README.md with a hand-written Chinese version beside it."""
    top, _, rest = rel.partition("/")
    if rest.endswith(".ipynb"):
        source = f"{'solutions' if top == 'exercises' else top}/{rest}"
        return (ROOT / source).exists() and catalogue_path(Path(source)).exists()
    return (ROOT / _edition_rel(rel)).exists()


@dataclass
class Result:
    english: Path
    text: str | None  # the Chinese notebook's file text; None when it cannot be written
    problems: list[str]
    done: int = 0
    stale: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def translate_notebook(english: Path) -> Result:
    """The Chinese edition of one English notebook, and every problem of its catalogue."""
    rel = english.relative_to(ROOT).as_posix()
    catalogue = read_catalogue(catalogue_path(english))
    where = _show(catalogue.path)
    problems = list(catalogue.problems)
    if not catalogue.path.exists():
        problems.append(f"{where}: no catalogue for {rel}")
    nb = _read(english)
    zh = copy.deepcopy(nb)
    result = Result(english, None, problems)
    seen = set()
    for index, cell in enumerate(zh.cells):
        cell_id = cell.get("id", "")
        label = f"{where}: cell {cell_id} (cell {index} of {rel})"
        if not needs_translation(cell):
            continue
        seen.add(cell_id)
        entry = catalogue.entries.get(cell_id)
        if entry is None or entry.todo:
            result.missing.append(cell_id)
            problems.append(f"{label}: no translation" + (" (marked todo)" if entry else ""))
            continue
        if entry.hash != english_hash(cell.source):
            result.stale.append(cell_id)
            problems.append(f"{label}: stale: the English changed since it was translated "
                            f"(entry en:{entry.hash}, English now en:{english_hash(cell.source)})")
            continue
        if entry.code != (cell.cell_type == "code"):
            problems.append(f"{label}: the entry is marked {'code' if entry.code else 'text'}, "
                            f"the cell is {cell.cell_type}")
            continue
        if cell.cell_type == "code":
            if code_shape(entry.text) != code_shape(cell.source) or code_shape(cell.source) is None \
                    and entry.text != cell.source:
                problems.append(f"{label}: the code differs from the English; only comments, "
                                "docstrings, the names of t.test(), t.submit(), t.measure() and t.order() and hints may be translated")
                continue
        else:
            lost = sorted(formula for formula in _MATH.findall(cell.source)
                          if formula_shape(formula) not in
                          {formula_shape(f) for f in _MATH.findall(entry.text)})
            if lost:
                problems.append(f"{label}: formulas must stay as they are; missing {lost[0]!r}")
                continue
            bold = unrendered_bold(entry.text)
            if bold:
                problems.append(f"{label}: Markdown shows this bold as asterisks (put the punctuation "
                                f"outside the **, as in **预测**：): {bold[0]!r}")
                continue
        cell.source = (join_chinese_lines(rewrite_links(entry.text, rel)) if cell.cell_type == "markdown"
                       else entry.text)
        result.done += 1
    for cell_id, entry in catalogue.entries.items():
        if cell_id not in seen:
            problems.append(f"{where}:{entry.line}: cell {cell_id}: no such cell to translate in {rel}")
    _print_chinese(zh)
    labels, label_problems = read_labels()
    problems += label_problems
    if not is_exercise_set(english):  # (a set's code is the grader's: its strings stay)
        problems += [f"{_show(ROOT / LABELS_FILE)}: {problem} in {rel}"
                     for problem in _label_chinese(zh, labels.get(rel, {}))]
    if is_exercise_set(english):
        _add_line(zh, SPEAK_CHINESE)
        for cell in zh.cells:
            if cell.get("id"):
                cell["id"] = f"{LANGUAGE}-{cell['id']}"[:64]
    else:
        _add_line(zh, DRAW_CHINESE, tag="backend")
    zh.metadata["translation"] = {"language": LANGUAGE_TAG, "source": rel}
    if not problems:
        result.text = dumps(zh)
    return result


def read_labels(path: Path | None = None) -> tuple[dict[str, dict[str, str]], list[str]]:
    """The printed labels' table, ``{English notebook: {English: Chinese}}``, and its problems.

    Under a heading ``## lessons/03_chain_rule.ipynb``, one label a line, ``"English" → "中文"``,
    each side a JSON string; other lines are comments. A label holds no backslash or line break:
    it is matched as text inside the source of the literals that ``print()`` prints (plain
    strings and the literal parts of f-strings, a hook's ``print`` in a lambda included), or is
    the whole text of a docstring; a label that would make the code invalid is reported."""
    path = ROOT / LABELS_FILE if path is None else path
    labels: dict[str, dict[str, str]] = {}
    problems: list[str] = []
    if not path.exists():
        return labels, problems
    notebook = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("## "):
            notebook = line[3:].strip()
            if not (ROOT / notebook).is_file():
                problems.append(f"{_show(path)}:{number}: no such notebook {notebook}")
            labels.setdefault(notebook, {})
            continue
        match = _LABEL_LINE.match(line)
        if not match:
            if line.startswith('"'):
                problems.append(f"{_show(path)}:{number}: a label line is \"English\" → \"中文\"")
            continue
        english, chinese = json.loads(match["en"]), json.loads(match["zh"])
        if notebook is None:
            problems.append(f"{_show(path)}:{number}: a label comes under a ## notebook heading")
        elif re.search(r"[\\\n]", english + chinese) or not english.strip():
            problems.append(f"{_show(path)}:{number}: a label holds no backslash or line break")
        elif english in labels[notebook]:
            problems.append(f"{_show(path)}:{number}: {english!r} is listed twice")
        else:
            labels[notebook][WHOLE + english if match["whole"] else english] = chinese
    return labels, problems


def _literal_text(token: tokenize.TokenInfo, start: int) -> list[tuple[int, int]]:
    """The (start, end) offsets of the text of a string token: all of a plain string's, and of
    an f-string (one token before Python 3.12) only its literal parts and the strings nested in
    its fields (``{'error':>13}``), never the fields' code (``{slope - 6:>12}``)."""
    text = token.string
    quote = re.match(r"[A-Za-z]*", text).end()
    prefix, delimiter = text[:quote].lower(), text[quote:quote + 3] if text[quote:quote + 3] in ('"""', "'''") else text[quote]
    body_start, body_end = quote + len(delimiter), len(text) - len(delimiter)
    if "f" not in prefix:
        return [(start + body_start, start + body_end)]
    regions, depth, i, begin = [], 0, body_start, body_start
    while i < body_end:
        ch = text[i]
        if depth == 0:
            if text.startswith(("{{", "}}"), i):
                i += 2
                continue
            if ch == "{":
                regions.append((begin, i))
                depth = 1
        elif ch in "\"'":
            close = text.find(ch, i + 1, body_end)
            if close < 0:
                break
            regions.append((i + 1, close))
            i = close
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                begin = i + 1
        i += 1
    if depth == 0:
        regions.append((begin, body_end))
    return [(start + a, start + b) for a, b in regions if b > a]


def _function_spans(tree: ast.AST, offset) -> list[tuple[int, int]]:
    return [(offset(n.lineno, n.col_offset), offset(n.end_lineno, n.end_col_offset)) for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]


def whole_literals(source: str) -> list[tuple[int, int, bool]]:
    """(start, end, in_function) of the text of every plain string literal in ``source`` (not an
    f-string, not a docstring), and whether it is inside a function or lambda."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    offset = source_offsets(source)
    functions = _function_spans(tree, offset)
    docs = set(docstrings(source))
    found = []
    for token in _tokens(source) or []:
        if token.type != tokenize.STRING or "f" in re.match(r"[A-Za-z]*", token.string)[0].lower():
            continue
        start = offset(*token.start, chars=True)
        for a, b in _literal_text(token, start):
            if (a, b) not in docs:
                found.append((a, b, any(f <= a and b <= g for f, g in functions)))
    return found


#: matplotlib's calls that draw text in a picture, and which of their arguments is the text:
#: ``ax.set_title("...")``, ``ax.text(x, y, "...")``, ``ax.annotate("...", ...)``.
DRAWN_TEXT = {"set_title": 0, "set_xlabel": 0, "set_ylabel": 0, "title": 0, "xlabel": 0, "ylabel": 0,
              "suptitle": 0, "text": 2, "annotate": 0}


def _shown_arguments(node: ast.AST) -> list[ast.expr]:
    """The arguments of a call that show text to the learner: all of print()'s, the text of a
    matplotlib call that draws text (DRAWN_TEXT), and any call's ``label=`` (a legend's entry)."""
    if not isinstance(node, ast.Call):
        return []
    if isinstance(node.func, ast.Name) and node.func.id == "print":
        return list(node.args)
    shown = [k.value for k in node.keywords if k.arg == "label"]
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    if name in DRAWN_TEXT and len(node.args) > DRAWN_TEXT[name]:
        shown.append(node.args[DRAWN_TEXT[name]])
    return shown


def printed_literals(source: str) -> list[tuple[int, int, bool]]:
    """(start, end, in_function) of each literal text in ``source`` that the learner is shown:
    what a ``print(...)`` call prints (the strings and f-strings among or inside its arguments,
    without the f-strings' code) and the text a picture draws (titles, axis labels, legend
    entries: :func:`_shown_arguments`), and whether it is inside a function or lambda (which may
    print in a later cell). A string that is a subscript's key (``counts["loss"]``) is not shown."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    tokens = _tokens(source) or []
    lines = source.splitlines()
    offset = source_offsets(source)
    functions = _function_spans(tree, offset)
    printed, keys = [], []
    for node in ast.walk(tree):
        for arg in _shown_arguments(node):
            printed.append((offset(arg.lineno, arg.col_offset), offset(arg.end_lineno, arg.end_col_offset)))
        if isinstance(node, ast.Subscript):  # counts["loss"]: a key, looked up, not shown
            key = node.slice
            keys.append((offset(key.lineno, key.col_offset), offset(key.end_lineno, key.end_col_offset)))
    inside = lambda a, b: any(f <= a and b <= g for f, g in functions)  # noqa: E731
    regions = []
    for token in tokens:
        if token.start[0] > len(lines):
            continue
        start, end = offset(*token.start, chars=True), offset(*token.end, chars=True)
        if not any(a <= start and end <= b for a, b in printed) or any(a <= start and end <= b for a, b in keys):
            continue
        if token.type == tokenize.STRING:
            regions += [(a, b, inside(a, b)) for a, b in _literal_text(token, start)]
        elif token.type == getattr(tokenize, "FSTRING_MIDDLE", None):  # Python 3.12 and later
            regions.append((start, end, inside(start, end)))
    return sorted(regions)


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


def docstrings(source: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the text of the docstrings of the functions and classes in
    ``source`` (prose the learner reads in the code; nothing prints it)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    offset = source_offsets(source)
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                start = offset(first.value.lineno, first.value.col_offset)
                end = offset(first.value.end_lineno, first.value.end_col_offset)
                text = source[start:end]
                quote = re.match(r"[A-Za-z]*(\"\"\"|\'\'\'|\"|\')", text)
                spans.append((start + quote.end(), end - len(quote[1])))
    return spans


#: A string printed in an f-string's field of a given width: ``{'误差':>13}``.
_WIDE_FIELD = re.compile(r"""\{(?P<quote>['"])(?P<text>[^'"{}\\]*)(?P=quote):(?P<align>.?[<>^])?(?P<width>\d+)\}""")


def display_width(text: str) -> int:
    """How many columns ``text`` takes on a fixed-width screen: a Chinese character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def fit_to_display_width(source: str) -> str:
    """``source`` with each string printed in a field of a given width (``{'误差':>13}``) given
    the width that makes it take that many columns on screen: Python pads by characters, and a
    Chinese character takes two columns, so ``{'误差':>11}`` (9 spaces and 2 characters, 13
    columns). A table's Chinese header then lines up with its numbers, as the English one does."""
    def fit(match: re.Match) -> str:
        extra = display_width(match["text"]) - len(match["text"])
        if not extra:
            return match[0]
        width = max(int(match["width"]) - extra, 0)
        return f"{{{match['quote']}{match['text']}{match['quote']}:{match['align'] or ''}{width}}}"
    return _WIDE_FIELD.sub(fit, source)


def _label_chinese(nb, labels: dict[str, str]) -> list[str]:
    """Rewrite the labels inside the printed literals of each code cell, and the same text in
    the stored stream outputs of that cell (and of the later ones, for a label printed inside a
    function, which may be called there): what a fresh run of the rewritten code prints. A label
    printed in a field of a given width (``{'error':>13}``) takes as many columns on screen as the
    English one: :func:`fit_to_display_width`. Docstrings are rewritten too (a docstring is a label as a whole), and a label
    marked ``= "leaf"`` is any plain string literal that is exactly it (a value printed through
    a variable), replaced in the outputs where it stands as a word. The problems: cells whose
    code no longer parses."""
    whole = {english[len(WHOLE):]: chinese for english, chinese in labels.items() if english.startswith(WHOLE)}
    labels = {english: chinese for english, chinese in labels.items() if not english.startswith(WHOLE)}
    ordered = sorted(labels, key=len, reverse=True)  # "step   loss" before "step "
    in_functions: set[str] = set()  # labels a function of an earlier cell may print here
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        source, found = cell.source, set(in_functions)
        regions = [(a, b, in_function, "printed") for a, b, in_function in printed_literals(source)]
        regions += [(a, b, False, "docstring") for a, b in docstrings(source)]
        if whole:
            printed = {(a, b) for a, b, _ in printed_literals(source)}
            regions += [(a, b, in_function, "whole") for a, b, in_function in whole_literals(source)
                        if (a, b) not in printed]
        for start, end, in_function, kind in sorted(regions, reverse=True):
            literal = source[start:end]
            if kind == "whole":
                if literal in whole:
                    found.add(WHOLE + literal)
                    if in_function:
                        in_functions.add(WHOLE + literal)
                    literal = whole[literal]
            for english in ordered if kind != "whole" else ():
                if kind == "printed" and english in literal or kind == "docstring" and literal.strip() == english:
                    literal = literal.replace(english, labels[english])
                    if kind == "printed":
                        found.add(english)
                    if in_function:
                        in_functions.add(english)
            source = source[:start] + literal + source[end:]
        source = fit_to_display_width(source)
        if source != cell.source and _parses(cell.source) and not _parses(source):
            problems.append(f"cell {cell.get('id')} (cell {index}): a label made its code invalid")
        cell.source = source
        if not found:
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and "text" in output:
                text = "".join(output["text"]) if isinstance(output["text"], list) else output["text"]
                for english in ordered:
                    if english in found:
                        text = text.replace(english, labels[english])
                for english, chinese in whole.items():  # a word of its own, not part of is_leaf
                    if WHOLE + english in found:
                        text = re.sub(rf"(?<![\w.]){re.escape(english)}(?![\w(])", chinese, text)
                output["text"] = text
    return problems


def _print_chinese(nb) -> None:
    """Rewrite the PRINTED lines, in a code cell's ``print("...")`` and in its stored output."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for english, chinese in PRINTED.items():
            call = f"print({json.dumps(english)})"
            if call not in cell.source:
                continue
            cell.source = cell.source.replace(call, f"print({json.dumps(chinese, ensure_ascii=False)})")
            for output in cell.get("outputs", []):
                if output.get("output_type") == "stream" and "text" in output:
                    text = "".join(output["text"]) if isinstance(output["text"], list) else output["text"]
                    output["text"] = re.sub(rf"^{re.escape(english)}$", chinese, text, flags=re.M)


def _add_line(nb, line: str, tag: str | None = None) -> None:
    """Add `line` to the first code cell (with `tag`, if given): the set's setup cell, the lesson's
    backend cell."""
    for cell in nb.cells:
        if cell.cell_type == "code" and (tag is None or tag in cell.metadata.get("tags", [])):
            cell.source = cell.source.rstrip("\n") + "\n" + line
            return


def english_notebooks(paths: list[str] | None = None) -> list[Path]:
    """The English notebooks that have (or are given) a Chinese edition."""
    found = []
    for folder in TRANSLATED:
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            found.append(path)
    if paths:
        wanted = {(ROOT / p).resolve() for p in paths}
        found = [p for p in found if p.resolve() in wanted or catalogue_path(p).resolve() in wanted]
    return found


def orphan_catalogues() -> list[str]:
    known = {catalogue_path(p).resolve() for p in english_notebooks()}
    return [f"{_show(p)}: no English notebook {p.stem}.ipynb for this catalogue"
            for p in sorted((ROOT / CATALOGUES).rglob("*.md")) if p.resolve() not in known
            and p.parent.name in TRANSLATED]


# -- commands ----------------------------------------------------------------------------------

def cmd_write(paths: list[str]) -> int:
    failed = 0
    for english in english_notebooks(paths):
        result = translate_notebook(english)
        target = edition_path(english)
        if result.text is None:
            failed += 1
            for problem in result.problems:
                print(f"error: {problem}", file=sys.stderr)
            continue
        old = target.read_text(encoding="utf-8") if target.exists() else None
        text = result.text if old is None else _keep_outputs(old, result.text)
        if old == text:
            continue  # the edition keeps the outputs of its own run (it speaks Chinese)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        fresh = old is None or not _same_except_outputs(old, text) and _changed_code(old, text)
        print(f"wrote {_show(target)}" + (" (cells with changed code hold the English outputs until "
                                          "./run notebooks runs it)" if fresh else ""))
    if not paths and glossary.write_first_appearances(ROOT):
        print(f"wrote {_show(ROOT / glossary.GLOSSARY)} (the column 首次出现)")
    if failed:
        print(f"error: {failed} notebook(s) not written; fix the entries named above", file=sys.stderr)
    return 1 if failed else 0


def _keep_outputs(committed: str, generated: str) -> str:
    """`generated`, with the outputs of the committed edition's run in every code cell whose code
    is unchanged (a new translation of the prose does not throw away what the run printed)."""
    old = {cell.get("id"): cell for cell in json.loads(committed)["cells"] if cell["cell_type"] == "code"}
    nb = nbformat.reads(generated, as_version=4)
    for cell in nb.cells:
        before = old.get(cell.get("id"))
        if cell.cell_type == "code" and before is not None and "".join(before["source"]) == cell.source:
            cell.outputs = nbformat.from_dict(before.get("outputs", []))
            cell.execution_count = before.get("execution_count")
    return dumps(nb)


def _changed_code(committed: str, generated: str) -> bool:
    def code(text):
        return [cell.source for cell in nbformat.reads(text, as_version=4).cells if cell.cell_type == "code"]
    return code(committed) != code(generated)


def _same_except_outputs(committed: str, generated: str) -> bool:
    """The Chinese edition's outputs come from its own run (its code speaks Chinese)."""
    def strip(text):
        nb = json.loads(text)
        for cell in nb["cells"]:
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
        return nb
    return strip(committed) == strip(generated)


def cmd_check(paths: list[str]) -> int:
    problems = [] if paths else orphan_catalogues()
    for english in english_notebooks(paths):
        result = translate_notebook(english)
        problems += result.problems
        target = edition_path(english)
        if result.text is None:
            continue
        if not target.exists():
            problems.append(f"{_show(target)}: missing; run ./run translations write")
            continue
        committed = target.read_text(encoding="utf-8")
        same = _same_except_outputs(committed, result.text)
        if not same:
            problems.append(f"{_show(target)}: differs from what its catalogue and the English generate "
                            "(edited by hand?); change the catalogue and run ./run translations write")
    if not paths:
        problems += glossary.glossary_problems(ROOT)
        expected = {edition_path(p).resolve() for p in english_notebooks()}
        for folder in TRANSLATED:
            for path in sorted((ROOT / EDITIONS[folder]).glob("*.ipynb")):
                if path.resolve() not in expected:
                    problems.append(f"{_show(path)}: no English notebook generates this file")
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if problems:
        print(f"translations check: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"translations check: {len(english_notebooks(paths))} notebooks up to date")
    return 0


def cmd_status(paths: list[str]) -> int:
    for english in english_notebooks(paths):
        result = translate_notebook(english)
        nb = _read(english)
        total = sum(needs_translation(c) for c in nb.cells)
        print(f"{english.relative_to(ROOT).as_posix():50s} {result.done:3d}/{total:<3d} done"
              f"  {len(result.stale):3d} stale  {len(result.missing):3d} missing"
              f"  {chinese_share(edition_path(english)):4.0%} Chinese")
    return 0


def cmd_skeleton(paths: list[str]) -> int:
    """Append a ``todo`` entry, with the English text, for every cell that has none."""
    if not paths:
        print("error: name the English notebooks, e.g. lessons/03_chain_rule.ipynb", file=sys.stderr)
        return 2
    for english in english_notebooks(paths):
        path = catalogue_path(english)
        catalogue = read_catalogue(path)
        nb = _read(english)
        added = []
        for cell in nb.cells:
            if not needs_translation(cell):
                continue
            entry = catalogue.entries.get(cell["id"])
            if entry is None:
                added.append(format_entry(cell["id"], cell.source, cell.source,
                                          code=cell.cell_type == "code", todo=True))
            elif entry.hash != english_hash(cell.source):
                print(f"{_show(path)}:{entry.line}: cell {cell['id']} is stale; once updated, its header "
                      f"is <!-- cell {cell['id']} en:{english_hash(cell.source)}"
                      f"{' code' if entry.code else ''} -->")
        if added:
            path.parent.mkdir(parents=True, exist_ok=True)
            old = path.read_text(encoding="utf-8") if path.exists() else (
                f"<!-- 中文版翻译：{english.relative_to(ROOT).as_posix()}。每个条目以 cell 行开头；"
                "格式见 tools/translate.py。 -->\n")
            path.write_text(old.rstrip("\n") + "\n\n" + "\n".join(added), encoding="utf-8")
            print(f"{_show(path)}: {len(added)} todo entries added")
    return 0


def chinese_share(path: Path) -> float:
    """The share of a notebook's prose letters that are Chinese (code, formulas, links left out)."""
    if not path.exists():
        return 0.0
    return texts.chinese_share("".join(prose_of(c.source) for c in _read(path).cells if c.cell_type == "markdown"))


def prose_of(markdown: str) -> str:
    """Markdown without fenced code, inline code, formulas, HTML tags and link targets."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.DOTALL)
    text = re.sub(r"`[^`\n]*`", " ", text)
    text = _MATH.sub(" ", text)
    text = re.sub(r"<[^>]+>", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="translate", description=__doc__.split("\n\n")[0])
    parser.add_argument("words", nargs="*", metavar="[write|check|status|skeleton] [NOTEBOOK ...]",
                        help="a command (default: write), then English notebooks (default: all)")
    parser.add_argument("--check", action="store_true", help="the same as the command check")
    args = parser.parse_args(argv)
    commands = {"write": cmd_write, "check": cmd_check, "status": cmd_status, "skeleton": cmd_skeleton}
    words = list(args.words)
    command = words.pop(0) if words and words[0] in commands else "write"
    if args.check:
        command = "check"
    missing = [w for w in words if not (ROOT / w).exists()]
    if missing:
        parser.error(f"no such notebook: {missing[0]}")
    return commands[command](words)


if __name__ == "__main__":
    sys.exit(main())
