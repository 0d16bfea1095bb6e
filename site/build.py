"""Build the course as a static website: `./run site` (issue 22).

The stored notebooks are rendered as they are, never executed (myst-nb, nb_execution_mode="off"),
in two editions, English (build/site/en/) and Chinese (build/site/zh/), each a Sphinx build of its
own (its own search index, with Chinese split into words by jieba). build/site/index.html sends a
visitor to the English edition.

Only the learner's side of the course is published: lessons/, exercises/ (the blank sets) and their
zh/ editions, the course maps and the glossary. solutions/ is never read.

The notebooks are copied into build/site-src/ first, and only those copies are changed for the
web (the shipped files stay as they are):

* a prediction (a cell tagged `predict`, stored with its output collapsed) gets myst-nb's
  `hide-output` tag, and the closed output's summary is the cell's neutral first line, the same
  line JupyterLab shows on the collapsed bar;
* a widget output saved without its state (only the text `VBox(children=...)`) is replaced by a
  note that the control needs a live notebook, and so is the backward stepper's static text (which
  repeats the table and the steps printed above it);
* every cell gets an HTML anchor named by its cell id, and a link to a cell
  (`NN_x.ipynb#cell-id=ID`, the form JupyterLab follows) becomes a link to that anchor;
* a link from one edition's course map to the other edition's becomes a link between the two
  sites.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(__file__).resolve().parent
EDITIONS = {
    # edition: {folder in the site: folder in the repository}
    "en": {"lessons": ROOT / "lessons", "exercises": ROOT / "exercises"},
    "zh": {"lessons": ROOT / "lessons" / "zh", "exercises": ROOT / "exercises" / "zh"},
}
# The English edition has no glossary of its own: the Chinese one is bilingual (Chinese, English,
# the API name), so it is published in both editions, under the same name.
SHARED_PAGES = {"en": {"lessons/术语表.md": ROOT / "lessons" / "zh" / "术语表.md"}}

PREDICT_TAG = "predict"
CELL_ID_KEY = "tensorgrad_cell_id"  # (conf.py reads it)
WIDGET_NOTE = {
    "en": "> **Note:** this is an interactive control (an ipywidgets slider): it needs a live notebook. "
          "Open the lesson with `./run lab` and run the cell to use it.",
    "zh": "> **注意**：这里是一个交互控件（ipywidgets 滑块），需要在运行中的 notebook 里使用："
          "用 `./run lab --lang zh` 打开这一课并运行这个单元格。",
}

# In place of the backward stepper's static text, which repeats the table and the steps printed
# above it: what the widget is, once.
STEPPER_NOTE = {
    "en": "> **Note:** here a live notebook shows the backward-pass stepper, an interactive widget: "
          "a slider steps through the pass above one node at a time, on the graph's picture. "
          "Open the lesson with `./run lab` and run the cell to use it.",
    "zh": "> **注意**：在运行中的 notebook 里，这里是反向传播的逐步演示（一个交互控件）：用滑块在计算图的图片上"
          "一个节点一个节点地走完上面的这一遍反向传播。用 `./run lab --lang zh` 打开这一课并运行这个单元格即可使用。",
}


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else (value or "")


def first_output_line(cell) -> str:
    """The first line of a cell's first output: what JupyterLab's collapsed bar shows."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            text = _text(output.get("text"))
        else:
            text = _text(output.get("data", {}).get("text/plain"))
        if text.strip():
            return text.strip().splitlines()[0]
    return ""


def is_unsaved_widget(output) -> bool:
    data = output.get("data", {})
    if "application/vnd.jupyter.widget-view+json" in data:
        return False  # saved with its view: myst-nb renders it
    plain = _text(data.get("text/plain"))
    return bool(re.match(r"^\[?['\"]?(VBox|HBox|interactive|IntSlider|FloatSlider|FloatLogSlider|Output)\(",
                         plain.strip()))


def is_stepper(output) -> bool:
    """The backward stepper's output (tg.viz.BackwardStepper): saved without its widget, it holds
    the trace's table and every step's arithmetic, which the lesson printed just above it."""
    plain = _text(output.get("data", {}).get("text/plain"))
    return plain.startswith("BackwardStepper(")


def edition_links(text: str, edition: str) -> str:
    """In the repository, lessons/zh/ links to ../../exercises/zh/...; in the site, where each
    edition has its own lessons/ and exercises/, that is ../exercises/..."""
    return re.sub(r"\]\(\.\./\.\./(lessons|exercises)/" + edition + "/", r"](../\1/", text)


CELL_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+?)\.ipynb#cell-id=([A-Za-z0-9_-]+)\)")


def page_links(text: str) -> str:
    """A link to one cell of a notebook (`04_scalar_backward.ipynb#cell-id=cell-c0a848b6`, as
    JupyterLab follows it) becomes a link to that cell's anchor on the notebook's page
    (`04_scalar_backward.html#cell-c0a848b6`, see cell_anchor). It is written as an HTML link, as
    Sphinx would look for a heading of that name and warn; any other form of a cell link points at
    the page."""
    text = CELL_LINK.sub(r'<a href="\2.html#\3">\1</a>', text)
    return re.sub(r"(\.ipynb)#cell-id=[^)\s]+", r"\1", text)


def cell_anchor(cell) -> None:
    """Give the cell an HTML anchor named by its cell id, so that a link to the cell lands on it.
    A code cell carries its id in its metadata, and conf.py's cell_ids puts it on the cell's
    container; a markdown cell starts with an empty <div id=...> (after its first line when that
    is the page's title, which must stay the page's first element)."""
    if cell["cell_type"] == "code":
        cell.setdefault("metadata", {})[CELL_ID_KEY] = cell["id"]
        return
    anchor = f'<div id="{cell["id"]}" class="tg-cell"></div>\n\n'
    source = _text(cell["source"])
    if source.startswith("# "):
        title, _, rest = source.partition("\n")
        cell["source"] = title + "\n\n" + anchor + rest
    else:
        cell["source"] = anchor + source


def web_notebook(path: Path, edition: str) -> dict:
    """The notebook at path, as the site shows it (see the module's docstring)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown" and edition != "en":
            cell["source"] = edition_links(_text(cell["source"]), edition)
        if cell["cell_type"] == "markdown":
            cell["source"] = page_links(_text(cell["source"]))
        if cell.get("id"):
            cell_anchor(cell)
        if cell["cell_type"] != "code":
            continue
        meta = cell.setdefault("metadata", {})
        tags = meta.setdefault("tags", [])
        if PREDICT_TAG in tags or meta.get("jupyter", {}).get("outputs_hidden"):
            if "hide-output" not in tags:
                tags.append("hide-output")
            line = first_output_line(cell) or ("Output" if edition == "en" else "输出")
            meta.setdefault("mystnb", {})["code_prompt_show"] = line
            meta["mystnb"]["code_prompt_hide"] = line
        outputs = []
        for output in cell.get("outputs", []):
            if is_stepper(output):
                outputs.append({"output_type": "display_data", "metadata": {},
                                "data": {"text/markdown": STEPPER_NOTE[edition]}})
            elif is_unsaved_widget(output):
                outputs.append({"output_type": "display_data", "metadata": {},
                                "data": {"text/markdown": WIDGET_NOTE[edition]}})
            else:
                outputs.append(output)
        cell["outputs"] = outputs
    return nb


def web_markdown(text: str, edition: str) -> str:
    """A course map or glossary (in lessons/ of its site), with a link to the other edition's
    page made a plain link between the two sites."""
    other = r"zh/([^)#/]+)\.md" if edition == "en" else r"\.\./([^)#/]+)\.md"
    target = "zh" if edition == "en" else "en"
    text = page_links(text)  # the course map links the companions' cells
    return re.sub(r"\[([^\]]+)\]\(" + other + r"\)",
                  lambda m: f'<a href="../../{target}/lessons/{m.group(2)}.html">{m.group(1)}</a>',
                  text)


def course_order(edition: str) -> list[str]:
    """Documents in course order: the course map, each lesson followed by its exercise set, then
    the edition's other pages (glossary, tutorial comparison)."""
    folders = EDITIONS[edition]
    lessons = sorted(p.stem for p in folders["lessons"].glob("[0-9][0-9]_*.ipynb"))
    exercises = {p.stem[:2]: p.stem for p in folders["exercises"].glob("[0-9][0-9]_*.ipynb")}
    order = ["lessons/README"]
    for lesson in lessons:
        order.append(f"lessons/{lesson}")
        if lesson[:2] in exercises:
            order.append(f"exercises/{exercises.pop(lesson[:2])}")
    order += [f"exercises/{stem}" for _, stem in sorted(exercises.items())]
    # the companions to the two tutorials the course was made from (lessons/README.md, end)
    order += [f"lessons/{p.stem}" for p in sorted(folders["lessons"].glob("seed_*.ipynb"))]
    extra = sorted(p.stem for p in folders["lessons"].glob("*.md") if p.stem != "README")
    extra += [Path(name).stem for name in SHARED_PAGES.get(edition, {}) if Path(name).stem not in extra]
    order += [f"lessons/{stem}" for stem in sorted(set(extra))]
    return order


INDEX = {
    "en": """# tensorgrad: a course on automatic differentiation

Thirteen lessons on reverse-mode autograd, each followed by its exercise set, read here without
installing anything. The pages show the notebooks as stored, with their outputs; to run them,
see *Run it yourself* on any lesson page. Start with the [course map](lessons/README.md).

```{{toctree}}
:caption: Course
:maxdepth: 1

{docs}
```
""",
    "zh": """# tensorgrad：自动微分课程

13 课讲反向模式自动微分，每课之后是它的练习。无需安装任何东西即可在这里阅读；页面显示的是 notebook
保存的内容和输出。想自己运行，请看每一课页面上的“自己运行”。从[课程地图](lessons/README.md)开始。

```{{toctree}}
:caption: 课程
:maxdepth: 1

{docs}
```
""",
}


def stage(out: Path) -> None:
    """Write the Sphinx sources of both editions into out/<edition>/, and the notebooks offered for
    download (as shipped) into out/<edition>-files/notebooks/."""
    if out.exists():
        shutil.rmtree(out)
    for edition, folders in EDITIONS.items():
        src = out / edition
        files = out / f"{edition}-files" / "notebooks"
        for name, folder in folders.items():
            (src / name).mkdir(parents=True)
            (files / name).mkdir(parents=True)
            for path in sorted(folder.glob("*.ipynb")):
                (src / name / path.name).write_text(
                    json.dumps(web_notebook(path, edition), ensure_ascii=False, indent=1),
                    encoding="utf-8")
                shutil.copyfile(path, files / name / path.name)
        pages = {f"lessons/{p.name}": p for p in folders["lessons"].glob("*.md")}
        pages.update(SHARED_PAGES.get(edition, {}))
        for name, path in pages.items():
            (src / name).write_text(web_markdown(path.read_text(encoding="utf-8"), edition),
                                    encoding="utf-8")
        docs = "\n".join(course_order(edition))
        (src / "index.md").write_text(INDEX[edition].format(docs=docs), encoding="utf-8")
        (out / f"{edition}.json").write_text(json.dumps(course_order(edition) + ["index"]))
    # The theme's few words that Sphinx does not translate (site/locale/); copied, as Sphinx
    # compiles the catalogue next to it.
    shutil.copytree(SITE / "locale", out / "locale")
    (out / "zh-words.txt").write_text("".join(f"{w} 100000\n" for w in glossary_words()),
                                      encoding="utf-8")


def glossary_words() -> list[str]:
    """The Chinese terms of the glossary's first column, so that the Chinese search keeps each
    one whole (jieba alone splits 反向传播 into 反向 and 传播, and the search for the whole term
    would find nothing)."""
    words = []
    for line in (ROOT / "lessons" / "zh" / "术语表.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) > 1 and re.search(r"[\u4e00-\u9fff]", cells[0]):
            words += [w for w in re.split(r"[、，,/（）()\s]+", cells[0])
                      if len(w) > 1 and re.fullmatch(r"[\u4e00-\u9fff\-]+", w)]
    return sorted(set(words))


REDIRECT = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>tensorgrad course</title>
<meta http-equiv="refresh" content="0; url=en/index.html"></head>
<body><p><a href="en/index.html">English</a> · <a href="zh/index.html">中文</a></p></body></html>
"""


def build(out: Path, jobs: str) -> None:
    src = out.parent / f"{out.name}-src"
    start = time.monotonic()
    stage(src)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for edition in EDITIONS:
        env = dict(os.environ, TENSORGRAD_SITE_EDITION=edition,
                   TENSORGRAD_SITE_SOURCES=str(src))
        command = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-j", jobs, "-c", str(SITE),
                   "-d", str(src / f".doctrees-{edition}"), str(src / edition), str(out / edition)]
        print(f"[site] {edition}: sphinx-build into {out / edition}", flush=True)
        subprocess.run(command, env=env, check=True)
    (out / "index.html").write_text(REDIRECT, encoding="utf-8")
    (out / ".nojekyll").write_text("")
    print(f"[site] built {out} in {time.monotonic() - start:.0f} s; open {out / 'index.html'}",
          flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "site",
                        help="output folder (default build/site, git-ignored)")
    parser.add_argument("-j", "--jobs", default="auto", help="Sphinx's parallel jobs (default auto)")
    args = parser.parse_args(argv)
    build(args.out.resolve(), args.jobs)


if __name__ == "__main__":
    main()
