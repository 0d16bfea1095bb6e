"""The Chinese edition speaks with one word per idea, as its glossary (lessons/zh/术语表.md) says.

The glossary's section ``## 一个概念，一个词`` names, for each idea, the word the edition uses and
the variants it does not (tools/glossary.py reads it). These tests look for a forbidden variant in
everything a learner of the Chinese edition reads:

* the prose of the lessons and of the exercise sets (their catalogues in translations/zh/, the
  source of lessons/zh/, solutions/zh/ and exercises/zh/): Markdown, code comments, and the names,
  hints and labels of the self-checks;
* the Chinese course pages (lessons/zh/*.md);
* what the Chinese notebooks print (their stored outputs, from their own run) and the printed and
  drawn labels (translations/zh/printed.md: print() labels, picture titles, axes and legends);
* the self-check's messages (tensorgrad_course.texts) and what tg.viz prints and draws
  (tensorgrad/viz/words.py).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import glossary  # noqa: E402
import translate  # noqa: E402

RULES = glossary.rules()


def _seed_cells(english: Path) -> set[str]:
    """The ids of the cells that quote a tutorial's code as written (tagged `seed`, or any code
    cell of a companion): their comments are the tutorial's own words."""
    nb = json.loads(english.read_text(encoding="utf-8"))
    return {cell.get("id") for cell in nb["cells"] if cell["cell_type"] == "code"
            and ("seed" in cell["metadata"].get("tags", []) or english.name.startswith("seed_"))}


def catalogue_texts():
    """(file, cell, words a learner reads) of every entry of every catalogue. In a code entry, the
    English labels the generator rewrites from translations/zh/printed.md (a printed literal, a
    docstring) are left out: the learner reads their Chinese, which printed_texts() checks."""
    labels, _ = translate.read_labels()
    for english in translate.english_notebooks():
        path = translate.catalogue_path(english)
        where = path.relative_to(ROOT).as_posix()
        quoted = _seed_cells(english)
        rewritten = sorted((label.removeprefix(translate.WHOLE) for label in
                            labels.get(english.relative_to(ROOT).as_posix(), {})), key=len, reverse=True)
        for cell_id, entry in translate.read_catalogue(path).entries.items():
            if entry.code and cell_id in quoted:
                continue
            if not entry.code:
                yield where, cell_id, glossary.prose(entry.text)
                continue
            words = glossary.code_words(entry.text)
            for label in rewritten:
                words = words.replace(label, "")
            yield where, cell_id, words


def page_texts():
    for path in sorted((ROOT / "lessons" / "zh").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        if path.name == "术语表.md":  # its rules name the variants they forbid
            text = text.split(glossary.RULES_HEADING)[0] + text.split(glossary.RULES_HEADING)[1].split("\n## ", 1)[-1]
        yield path.relative_to(ROOT).as_posix(), "", glossary.prose(text)


def printed_texts():
    """What the Chinese notebooks printed (stdout and results as text), the printed and drawn
    labels, the self-check's messages and tg.viz's words."""
    for folder in ("lessons/zh", "solutions/zh"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            nb = json.loads(path.read_text(encoding="utf-8"))
            for cell in nb["cells"]:
                for output in cell.get("outputs", []):
                    text = output.get("text") if output.get("name") == "stdout" else \
                        output.get("data", {}).get("text/plain")
                    if text:
                        yield path.relative_to(ROOT).as_posix(), cell.get("id"), "".join(text)
    labels, _ = translate.read_labels()
    for notebook, table in labels.items():
        yield "translations/zh/printed.md", notebook, "\n".join(table.values())
    from tensorgrad_course import texts
    for key, text in texts.TEXTS.items():
        yield "tensorgrad_course/texts.py", key, text["zh"]
    from tensorgrad.viz import words
    for key, text in words.WORDS["zh"].items():
        yield "tensorgrad/viz/words.py", key, " ".join(text) if isinstance(text, tuple) else text


def violations(texts) -> list[tuple[str, str, str, str, str]]:
    return [(where, cell, variant, word, around) for where, cell, text in texts
            for variant, word, around in glossary.variants_in(text, RULES)]



# -- the rules themselves ----------------------------------------------------------------------

def test_the_glossary_names_a_word_and_its_forbidden_variants_for_each_idea():
    by_word = {rule.word: rule for rule in RULES}
    assert by_word["跟踪"].avoided == ("追踪",)
    assert by_word["次"].avoided == ("遍数", "遍") and "遍历" in by_word["次"].unrelated
    assert {"依赖数", "清零", "Python 浮点数", "笔记本", "反向传播"} <= set(by_word), sorted(by_word)


@pytest.mark.parametrize("text, found", [
    ("需要 3 遍前向计算", ["遍"]),
    ("反向传播遍历计算图，这很普遍", []),  # 遍历 and 普遍 are other words
    ("每次之前先清空 `x.grad`", ["清空"]),
    ("保存 notebook 并提交", ["notebook"]),
    ("见 `notebook.ipynb` 和 notebooks/", []),  # code and paths are not prose
    ("返回一个 Python float", ["Python float"]),
    ("教程写道：“后向传播”", []),  # a quotation keeps its own words
])
def test_a_forbidden_variant_is_found_in_prose_and_not_in_code_paths_or_quotations(text, found):
    assert [v for v, _, _ in glossary.variants_in(glossary.prose(text), RULES)] == found


# -- everything a learner reads ----------------------------------------------------------------

def test_no_forbidden_variant_in_the_exercise_sets_pages_printed_output_and_messages():
    found = violations([*catalogue_texts(), *page_texts(), *printed_texts()])
    assert not found, "\n".join(f"{where} {cell}: {variant} (the glossary says {word}): …{around}…"
                                for where, cell, variant, word, around in found)



# -- the glossary's first-appearance column ----------------------------------------------------

def test_the_glossary_first_appearance_column_is_computed_and_current():
    assert glossary.glossary_problems() == []


def test_a_term_no_lesson_uses_and_a_stale_column_are_reported(tmp_path):
    catalogues = tmp_path / glossary.LESSON_CATALOGUES
    catalogues.mkdir(parents=True)
    (catalogues / "01_a.md").write_text("<!-- cell a en:000000000000 -->\n张量是一个数组。\n", encoding="utf-8")
    (catalogues / "02_b.md").write_text("<!-- cell b en:000000000000 -->\n梯度和张量。\n", encoding="utf-8")
    page = tmp_path / glossary.GLOSSARY
    page.parent.mkdir(parents=True)
    page.write_text("| 中文 | English | 名字 | 首次出现 |\n|---|---|---|---|\n"
                    "| 梯度 | gradient | | [第 1 课](01_a.ipynb) |\n| 冻结参数 | freeze | | |\n\n"
                    f"{glossary.RULES_HEADING}\n", encoding="utf-8")
    problems = glossary.glossary_problems(tmp_path)
    assert any("'冻结参数'" in p for p in problems) and any("stale" in p for p in problems), problems
    assert glossary.write_first_appearances(tmp_path)
    assert "| 梯度 | gradient | | [第 2 课](02_b.ipynb) |" in page.read_text(encoding="utf-8")


def test_first_appearance_follows_the_reading_order_and_names_no_lesson_for_an_answer(tmp_path):
    """The column counts lessons in the course map's reading order (13 is read before 7), and a term
    first used in a prediction's answer box names no lesson: the glossary is read before any lesson."""
    catalogues = tmp_path / glossary.LESSON_CATALOGUES
    catalogues.mkdir(parents=True)
    (catalogues / "07_a.md").write_text("<!-- cell a en:000000000000 -->\n钩子。\n", encoding="utf-8")
    (catalogues / "13_b.md").write_text("<!-- cell b en:000000000000 -->\n钩子和张量。\n<!-- cell c en:000000000000 -->\n"
                                        "<details><summary>答案</summary>\n\n梯度累加。\n\n</details>\n梯度累加。\n",
                                        encoding="utf-8")
    page = tmp_path / glossary.GLOSSARY
    page.parent.mkdir(parents=True)
    (tmp_path / glossary.COURSE_MAP).write_text("## The lessons\n\n- [13_b.ipynb](13_b.ipynb)\n- [07_a.ipynb](07_a.ipynb)\n",
                                                encoding="utf-8")
    page.write_text("| 中文 | English | 名字 | 首次出现 |\n|---|---|---|---|\n"
                    "| 钩子 | hook | | |\n| 梯度累加 | gradient accumulation | | |\n\n"
                    f"{glossary.RULES_HEADING}\n", encoding="utf-8")
    assert glossary.write_first_appearances(tmp_path)
    text = page.read_text(encoding="utf-8")
    assert "| 钩子 | hook | | [第 13 课](13_b.ipynb) |" in text, text
    assert f"| 梯度累加 | gradient accumulation | | {glossary.IN_AN_ANSWER} |" in text, text
