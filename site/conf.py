"""Sphinx configuration of the course website, for both editions (site/build.py runs it once per
edition with TENSORGRAD_SITE_EDITION=en or zh and TENSORGRAD_SITE_SOURCES set)."""

from __future__ import annotations

import html
import importlib.util
import json
import os
import posixpath
from pathlib import Path

from docutils import nodes

CELL_ID_KEY = "tensorgrad_cell_id"  # site/build.py's name for it

EDITION = os.environ.get("TENSORGRAD_SITE_EDITION", "en")
OTHER = "zh" if EDITION == "en" else "en"
SOURCES = Path(os.environ.get("TENSORGRAD_SITE_SOURCES", Path(__file__).parents[1] / "build" / "site-src"))

project = "tensorgrad"
author = "the tensorgrad authors"
copyright = "the tensorgrad authors"  # noqa: A001  (Sphinx's name)
language = "en" if EDITION == "en" else "zh_CN"
locale_dirs = [str(SOURCES / "locale")]
html_title = "tensorgrad course" if EDITION == "en" else "tensorgrad 课程"

extensions = ["myst_nb", "sphinx.ext.mathjax"]
exclude_patterns = [".doctrees*", "**/.ipynb_checkpoints"]
templates_path = ["_templates"]
# MathJax 3 from the site itself, never a CDN: the copy that the PyPI package sphinx-mathjax-offline
# ships (its static/mathjax/ becomes _static/mathjax/; the package's own hook is not used, as it
# would make Sphinx read serially).
MATHJAX = Path(importlib.util.find_spec("sphinx-mathjax-offline").origin).parent / "static"
html_static_path = ["_static", str(MATHJAX)]
mathjax_path = "mathjax/tex-chtml.js"
html_css_files = ["tensorgrad.css"]
html_favicon = "_static/favicon.svg"
html_extra_path = [str(SOURCES / f"{EDITION}-files")]  # notebooks/...: the download links
html_theme = "furo"
html_theme_options = {
    "light_css_variables": {
        # Latin first, then a CJK stack, so Chinese text never falls back to a missing glyph.
        "font-stack": ('-apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, '
                       '"Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Hiragino Sans GB", '
                       '"Microsoft YaHei", "WenQuanYi Micro Hei", sans-serif'),
    },
}
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None

# Notebooks as stored: never executed.
nb_execution_mode = "off"
nb_output_stderr = "show"
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "html_image"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type"]
# The search splits Chinese into words with jieba (Sphinx's zh support).
html_search_language = "zh" if EDITION == "zh" else "en"
if EDITION == "zh":
    # The glossary's terms as whole words (site/build.py writes the list).
    html_search_options = {"dict": str(SOURCES / "zh-words.txt")}
    # Sphinx 9.0's language_data.js for Chinese says `window.Stemmer = ChineseStemmer` without
    # defining ChineseStemmer, so the search page fails ("ChineseStemmer is not defined"):
    # defined here, as the Python side stems (English stemming of lower case; Chinese unchanged).
    html_js_files = ["zh-stemmer.js"]
    # jieba caches its dictionary in the system's temp folder unless told otherwise: here, inside
    # the clone (.cache/ is git-ignored).
    import jieba

    jieba.dt.tmp_dir = str(Path(__file__).resolve().parents[1] / ".cache" / "jieba")
    Path(jieba.dt.tmp_dir).mkdir(parents=True, exist_ok=True)
# The search ranks a page whose title holds every word searched first (lessons before the other
# pages) and shows formulas in its excerpts as plain text, not TeX (Sphinx puts this file into
# language_data.js, after searchtools.js).
html_search_scorer = str(Path(__file__).resolve().parent / "search.js")

ORDER = json.loads((SOURCES / f"{EDITION}.json").read_text()) if (SOURCES / f"{EDITION}.json").exists() else []
OTHER_PAGES = (set(json.loads((SOURCES / f"{OTHER}.json").read_text()))
               if (SOURCES / f"{OTHER}.json").exists() else set())

TEXT = {
    "en": {"switch": "中文版", "download": "Download this notebook",
           "run_title": "Run it yourself",
           "run": ("Clone the repository, then <code>./run lab</code> opens the lessons in JupyterLab "
                   "(your own copy, in <code>my-work/</code>) and <code>./run test</code> runs the "
                   "tests. This page shows the notebook as stored, with its outputs; the "
                   "predictions are closed until you open them.")},
    "zh": {"switch": "English", "download": "下载这个 notebook",
           "run_title": "自己运行",
           "run": ("克隆仓库后，<code>./run lab --lang zh</code> 在 JupyterLab 中打开中文课程（你自己的副本，"
                   "在 <code>my-work/</code> 里），<code>./run test</code> 运行测试。本页显示的是 notebook "
                   "保存的内容和输出；预测的结果在你点开之前是收起的。")},
}[EDITION]


def _relative(pagename: str, target: str) -> str:
    """A URL from the page pagename to target (a path from the site's root, above both editions)."""
    depth = pagename.count("/") + 1  # +1: out of the edition's folder
    return "../" * depth + target


def page_bar(app, pagename, templatename, context, doctree):
    """Above every page's body: the language switch (to the same page in the other edition, or its
    home page when it has none), the download link and, on notebook pages, the run-it-yourself box."""
    if "body" not in context:
        return
    other = pagename if pagename in OTHER_PAGES else "index"
    links = [f'<a class="tg-lang" hreflang="{OTHER}" lang="{OTHER}" '
             f'href="{html.escape(_relative(pagename, f"{OTHER}/{other}.html"))}">{TEXT["switch"]}</a>']
    source = SOURCES / EDITION / f"{pagename}.ipynb"
    notebook = source.exists()
    if notebook:
        href = posixpath.relpath(f"notebooks/{pagename}.ipynb", posixpath.dirname(pagename) or ".")
        links.append(f'<a class="tg-download" download href="{html.escape(href)}">{TEXT["download"]}</a>')
    bar = '<div class="tg-bar">' + " · ".join(links) + "</div>"
    if notebook:
        bar += (f'<aside class="tg-run admonition tip"><p class="admonition-title">{TEXT["run_title"]}</p>'
                f'<p>{TEXT["run"]}</p></aside>')
    context["body"] = bar + context["body"]


def cell_ids(app, doctree):
    """Each code cell's container gets its cell id as HTML id (site/build.py puts the id into the
    cell's metadata; markdown cells carry their own anchor), so a link to the cell lands on it."""
    for node in doctree.findall(nodes.container):
        cell_id = node.get("nb_element") == "cell_code" and node.get("cell_metadata", {}).get(CELL_ID_KEY)
        if cell_id and cell_id not in node["ids"]:
            node["ids"].insert(0, cell_id)


def setup(app):
    app.connect("html-page-context", page_bar)
    app.connect("doctree-read", cell_ids)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
