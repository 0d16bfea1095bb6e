"""The course as a static website (`./run site`, site/build.py; issue 22).

The site is built once per test session (about a minute and a half on 2 cores) into a temporary
folder, from the stored notebooks, without running them. The checks on the files need only the
"site" extra (`pip install -e ".[site]"`; .ci/run installs it); the checks in a real browser
(headless Debian Chromium through Playwright, as tests/test_browser.py launches it) are skipped
without Chromium or Playwright. Both are skipped, with the reason, without the site extra.
"""

from __future__ import annotations

import html.parser
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import urllib.parse
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from test_browser import CHROMIUM, browser_page, screenshots

ROOT = Path(__file__).resolve().parents[1]
EDITIONS = {"en": (ROOT / "lessons", ROOT / "exercises"),
            "zh": (ROOT / "lessons" / "zh", ROOT / "exercises" / "zh")}
NEUTRAL = {"en": "The result (compare it with your prediction):"}
BUILDER = ("sphinx", "myst_nb", "furo", "sphinx-mathjax-offline", "jieba")
MISSING = [name for name in BUILDER if importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"the site extra is not installed "
                                f"(missing {', '.join(MISSING)}): pip install -e '.[site]'")


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    if os.environ.get("TENSORGRAD_SITE"):  # an already built site, e.g. build/site of ./run site
        return Path(os.environ["TENSORGRAD_SITE"]).resolve()
    out = tmp_path_factory.mktemp("site") / "site"
    result = subprocess.run([sys.executable, str(ROOT / "site" / "build.py"), "--out", str(out)],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    warnings = [line for line in result.stderr.splitlines() if "WARNING" in line]
    assert not warnings, "Sphinx warned:\n" + "\n".join(warnings[:20])
    return out


def pages(edition):
    """(site path without .html, source notebook) of every lesson and exercise set."""
    lessons, exercises = EDITIONS[edition]
    return ([(f"lessons/{p.stem}", p) for p in sorted(lessons.glob("[0-9][0-9]_*.ipynb"))]
            + [(f"exercises/{p.stem}", p) for p in sorted(exercises.glob("[0-9][0-9]_*.ipynb"))])


def test_every_lesson_exercise_set_course_map_and_glossary_is_published(site):
    for edition in EDITIONS:
        assert len(pages(edition)) >= 26
        for name, source in pages(edition):
            assert (site / edition / f"{name}.html").is_file(), f"{edition}/{name}"
            # and its download link's notebook, as shipped
            assert (site / edition / "notebooks" / f"{name}.ipynb").read_bytes() == source.read_bytes()
        for name in ("index", "lessons/README", "lessons/术语表"):
            assert (site / edition / f"{name}.html").is_file(), f"{edition}/{name}"
    assert (site / "index.html").is_file()


def cell_output_text(cell):
    for output in cell.get("outputs", []):
        yield "".join(output.get("text", ""))
        for mime in ("text/plain", "text/html"):
            yield "".join(output.get("data", {}).get(mime, ""))


def solution_lines():
    """Every line of real content between ### BEGIN SOLUTION and ### END SOLUTION."""
    found = set()
    for path in sorted((ROOT / "solutions").rglob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            inside = False
            for line in "".join(cell["source"]).splitlines():
                if "### BEGIN SOLUTION" in line:
                    inside = True
                elif "### END SOLUTION" in line:
                    inside = False
                elif inside and len(line.strip()) >= 12 and not line.strip().startswith("#"):
                    found.add(line.strip())
    # A line that the published notebooks hold too (a lesson's own code or prose, say "return
    # values") is no answer given away.
    published = "\n".join(
        "".join(cell["source"]) + "".join(cell_output_text(cell))
        for folder in ("lessons", "exercises") for path in sorted((ROOT / folder).rglob("*.ipynb"))
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"])
    published += "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "lessons").rglob("*.md"))
    published = published.replace("`", "")  # prose writes code in backticks; the page shows it bare
    return {line for line in found if line not in published}


def site_text(site):
    """All text of the site's pages, notebooks and search indexes, with HTML tags and entities
    undone, so that a solution line printed with syntax highlighting is found too."""
    for path in site.rglob("*"):
        if path.suffix in {".html", ".ipynb", ".js", ".txt", ".json"} and "_static" not in path.parts:
            text = path.read_text(encoding="utf-8", errors="replace")
            if path.suffix == ".html":
                text = html.unescape(re.sub(r"<[^>]+>", "", text))
            yield path, text


def test_no_solution_is_published(site):
    answers = solution_lines()
    assert len(answers) > 50, "the solutions' answers were not found: is the marker still ### BEGIN SOLUTION?"
    for path, text in site_text(site):
        leaked = [line for line in answers if line in text]
        assert not leaked, f"{path.relative_to(site)} shows solution code: {leaked[:3]}"


def test_the_check_finds_a_solution_line_when_one_is_published(tmp_path):
    # The check above can fail: a page holding one solution line is caught.
    line = sorted(solution_lines())[0]
    (tmp_path / "page.html").write_text(f"<pre><span>{html.escape(line)}</span></pre>")
    assert any(line in text for _, text in site_text(tmp_path))


def test_predictions_are_closed_behind_their_neutral_first_line(site):
    for edition in EDITIONS:
        closed = 0
        for name, source in pages(edition):
            page = (site / edition / f"{name}.html").read_text(encoding="utf-8")
            cells = [c for c in page.split('<div class="cell ')[1:] if "tag_predict" in c.split('"')[0]]
            for cell in cells:
                head, _, hidden = cell.partition("<details")
                assert "cell_output" not in head, f"{edition}/{name}: a prediction's output is shown"
                summary = html.unescape(re.sub(r"<[^>]+>", "", hidden.split("</summary>")[0])).split("\n")
                line = next(s.strip() for s in summary if s.strip() and ">" not in s)
                if edition in NEUTRAL:
                    assert line == NEUTRAL[edition], f"{edition}/{name}: {line!r}"
                closed += 1
            assert len(cells) == source.read_text(encoding="utf-8").count('"predict"'), f"{edition}/{name}"
        assert closed >= 24, f"{edition}: only {closed} predictions"


def test_nothing_is_loaded_from_outside_and_widgets_are_explained(site):
    for path in site.rglob("*.html"):
        page = path.read_text(encoding="utf-8")
        assert not re.search(r'<(script|link|img)[^>]+(src|href)="(https?:)?//', page), path
    assert (site / "en" / "_static" / "mathjax" / "tex-chtml.js").is_file()
    for edition in EDITIONS:
        page = (site / edition / "lessons" / "02_derivatives.html").read_text(encoding="utf-8")
        assert "VBox(children" not in page
        assert "./run lab" in page  # the widget's note, and the run-it-yourself box


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        for key in ("href", "src"):
            if attrs.get(key):
                self.links.append(attrs[key])


def broken_links(site):
    parsed = {}
    for path in site.rglob("*.html"):
        parser = Links()
        parser.feed(path.read_text(encoding="utf-8"))
        parsed[path] = parser
    broken = []
    for path, parser in parsed.items():
        for link in parser.links:
            url = urllib.parse.urlsplit(link)
            if url.scheme or url.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = (path.parent / urllib.parse.unquote(url.path)).resolve() if url.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or site.resolve() not in target.parents:
                broken.append(f"{path.relative_to(site)} -> {link}")
            elif url.fragment and target.suffix == ".html" and target in parsed \
                    and urllib.parse.unquote(url.fragment) not in parsed[target].ids:
                broken.append(f"{path.relative_to(site)} -> {link} (no such anchor)")
    return broken


def test_no_link_inside_the_site_is_broken(site):
    broken = broken_links(site)
    assert not broken, f"{len(broken)} broken links:\n" + "\n".join(broken[:30])


def test_the_link_check_finds_a_broken_link(tmp_path):
    (tmp_path / "index.html").write_text('<a href="lessons/missing.html">x</a><a href="#top">y</a>')
    assert len(broken_links(tmp_path)) == 2


def test_the_chinese_search_index_has_chinese_words(site):
    index = (site / "zh" / "searchindex.js").read_text(encoding="utf-8")
    terms = json.loads(index[index.index("(") + 1:index.rindex(")")])["terms"]
    assert "反向传播" in terms and "backward" in terms


# --- in a real browser ---------------------------------------------------------------------

class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served(site):
    """The built site on http://127.0.0.1:<free port>/."""
    handler = partial(QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


browser = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")

# Every stored graph picture (an <img> of an SVG) of the page, after opening every closed output.
GRAPHS = """() => {
    document.querySelectorAll('details').forEach(d => d.open = true);
    return [...document.querySelectorAll('img')].filter(i => i.src.endsWith('.svg')).map(i => ({
        src: i.src, loaded: i.complete && i.naturalWidth > 0,
        width: i.getBoundingClientRect().width, height: i.getBoundingClientRect().height}));
}"""


def watch(page):
    """Console errors, uncaught exceptions and failed requests of the page, as a list."""
    problems = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"exception: {e}"))
    # (a request aborted by the next page.goto, such as the favicon's, is no failure)
    page.on("requestfailed", lambda r: r.failure != "net::ERR_ABORTED" and problems.append(f"failed: {r.url}"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))
    return problems


@browser
def test_every_lesson_loads_cleanly_with_its_graphs_and_formulas(served, tmp_path):
    with browser_page() as page:
        problems = watch(page)
        graphs = 0
        for edition in EDITIONS:
            for name, source in pages(edition):
                page.goto(f"{served}/{edition}/{name}.html", wait_until="load")
                text = source.read_text(encoding="utf-8")
                if "$" in text and name.startswith("lessons/"):
                    page.wait_for_selector("mjx-container", state="attached", timeout=15000)
                    assert page.locator("mjx-merror").count() == 0, f"{edition}/{name}: a formula failed"
                stored = sum("image/svg+xml" in output.get("data", {})  # (not the display
                             for cell in json.loads(text)["cells"]       # metadata's key)
                             for output in cell.get("outputs", []))
                shown = page.evaluate(GRAPHS)
                assert len(shown) == stored, f"{edition}/{name}: {len(shown)} of {stored} graphs"
                for graph in shown:
                    assert graph["loaded"] and graph["width"] > 20 and graph["height"] > 20, graph
                graphs += stored
                assert not problems, f"{edition}/{name}: {problems}"
        assert graphs >= 20


@browser
def test_a_prediction_is_hidden_until_clicked(served):
    with browser_page() as page:
        page.goto(f"{served}/en/lessons/03_chain_rule.html")
        cell = page.locator("div.tag_predict").first
        answer = cell.locator(".cell_output")
        summary = cell.locator("summary").first
        assert summary.inner_text().strip() == NEUTRAL["en"]
        assert not answer.is_visible()
        summary.click()
        assert answer.is_visible()
        assert "a.grad: tensor([6.])" in answer.inner_text()  # the lesson's first prediction


@browser
def test_the_language_switch_goes_to_the_same_page_in_the_other_edition(served):
    with browser_page() as page:
        for start, other in (("en", "zh"), ("zh", "en")):
            for name in ("lessons/03_chain_rule", "exercises/05_exercises_vector_backward", "lessons/README"):
                page.goto(f"{served}/{start}/{name}.html")
                page.locator("a.tg-lang").click()
                page.wait_for_load_state()
                assert page.url == f"{served}/{other}/{name}.html"
                assert page.locator("html").get_attribute("lang") == ("zh-CN" if other == "zh" else "en")


@browser
@pytest.mark.parametrize("edition, word, page_found", [
    ("en", "backward", "lessons/04_scalar_backward"), ("zh", "反向传播", "lessons/04_scalar_backward"),
    ("zh", "backward", "lessons/")])
def test_search_finds_english_and_chinese_words(served, edition, word, page_found):
    with browser_page() as page:
        problems = watch(page)
        page.goto(f"{served}/{edition}/search.html?q={urllib.parse.quote(word)}")
        # The results appear one by one; the summary line is written when the search is done.
        page.wait_for_function("(document.querySelector('#search-results .search-summary') || {})"
                               ".textContent", timeout=30000)
        results = page.locator("#search-results ul.search li a")
        assert results.count() >= 2, f"{word}: {results.count()} results"
        hrefs = [results.nth(i).get_attribute("href") for i in range(results.count())]
        assert any(page_found in h for h in hrefs), hrefs
        assert not problems


@browser
def test_screenshots_of_an_english_and_a_chinese_lesson(served, tmp_path):
    shots = screenshots(tmp_path)
    with browser_page() as page:
        for edition in EDITIONS:
            page.goto(f"{served}/{edition}/lessons/03_chain_rule.html", wait_until="load")
            page.wait_for_selector("mjx-container", state="attached", timeout=15000)
            page.screenshot(path=str(shots / f"site-{edition}-03.png"))
            assert (shots / f"site-{edition}-03.png").stat().st_size > 10000


# --- what a learner meets: a formula box, a link to a cell, the search (issue 27, item 7) -----

BOX = "#cell-cd231ff9 + blockquote"  # lesson 03: the tutorial's derivatives written upside down


@browser
@pytest.mark.parametrize("edition", EDITIONS)
def test_lesson_03s_box_shows_its_formulas_typeset(served, edition, tmp_path):
    with browser_page() as page:
        page.goto(f"{served}/{edition}/lessons/03_chain_rule.html", wait_until="load")
        box = page.locator(BOX)
        box.locator("mjx-container").first.wait_for(state="attached", timeout=15000)
        page.wait_for_function("() => !document.querySelector('span.math:not(:has(mjx-container))')",
                               timeout=15000)
        box.scroll_into_view_if_needed()
        box.screenshot(path=str(screenshots(tmp_path) / f"site-{edition}-03-box.png"))
        assert box.locator("mjx-container").count() >= 8
        assert box.locator("mjx-merror").count() == 0
        # the box's text without its typeset formulas: no TeX or dollar sign left over
        prose = box.evaluate("""b => { const c = b.cloneNode(true);
            c.querySelectorAll('mjx-container').forEach(m => m.remove()); return c.textContent; }""")
        assert "upside down" in prose or "倒了过来" in prose
        assert not re.search(r"\\[a-z]+|\$", prose), prose


@browser
@pytest.mark.parametrize("edition", EDITIONS)
def test_a_link_to_a_lesson_cell_lands_on_that_cell(served, edition, tmp_path):
    with browser_page() as page:
        page.goto(f"{served}/{edition}/lessons/seed_1_autograph_tutorial.html", wait_until="load")
        link = page.locator("a[href$='06_autograd_grad_higher_derivatives.html#cell-9d5db4e6']").first
        link.click()
        page.wait_for_url("**/06_autograd_grad_higher_derivatives.html#cell-9d5db4e6")
        page.wait_for_load_state("load")
        page.wait_for_timeout(500)
        landed = page.evaluate("""() => { const t = document.querySelector(':target');
            if (!t) return null;
            const box = t.getBoundingClientRect();
            return {id: t.id, top: box.top, scrolled: window.scrollY, height: window.innerHeight}; }""")
        page.screenshot(path=str(screenshots(tmp_path) / f"site-{edition}-cell-link.png"))
        assert landed and landed["id"] == "cell-9d5db4e6", landed
        assert landed["scrolled"] > 500 and 0 <= landed["top"] < landed["height"] / 2, landed


def test_every_cell_has_an_anchor_by_its_id(site):
    for edition in EDITIONS:
        for name, source in pages(edition):
            parser = Links()
            parser.feed((site / edition / f"{name}.html").read_text(encoding="utf-8"))
            cells = {cell["id"] for cell in json.loads(source.read_text(encoding="utf-8"))["cells"]}
            assert cells <= parser.ids, f"{edition}/{name}: no anchor for {sorted(cells - parser.ids)[:5]}"


def test_links_to_a_cell_point_at_its_anchor(site):
    # the companions' links "lesson 6, cell-9d5db4e6" and the like (the link check above proves
    # that each anchor exists)
    for edition in EDITIONS:
        page = (site / edition / "lessons" / "seed_1_autograph_tutorial.html").read_text(encoding="utf-8")
        assert len(re.findall(r'href="\d\d_[a-z0-9_]+\.html#[A-Za-z0-9_-]+"', page)) >= 20
        assert "cell-id=" not in page


SEARCH = "(document.querySelector('#search-results .search-summary') || {}).textContent"


@browser
@pytest.mark.parametrize("edition, word", [("en", "backward"), ("zh", "反向传播")])
def test_search_lists_the_lesson_titled_with_the_word_first_with_plain_text_excerpts(
        served, edition, word, tmp_path):
    with browser_page() as page:
        page.goto(f"{served}/{edition}/search.html?q={urllib.parse.quote(word)}")
        page.wait_for_function(SEARCH, timeout=30000)
        page.wait_for_timeout(3000)  # the excerpts are fetched page by page
        results = page.locator("#search-results ul.search li")
        first = [results.nth(i).locator("a").first.get_attribute("href") for i in range(3)]
        page.screenshot(path=str(screenshots(tmp_path) / f"site-{edition}-search.png"))
        assert any(href.startswith("lessons/04_scalar_backward.html") for href in first), first
        excerpts = page.locator("#search-results p.context").all_inner_texts()
        assert len(excerpts) >= 5
        tex = [text for text in excerpts if re.search(r"\\(frac|partial|\(|\[)", text)]
        assert not tex, tex[:3]


@browser
def test_the_stepper_is_described_once_not_repeated(served):
    with browser_page() as page:
        page.goto(f"{served}/en/lessons/03_chain_rule.html", wait_until="load")
        text = page.locator("article").inner_text()
        assert text.count("AccumulateGrad  w       5") == 1  # the table, printed once
        assert text.count("grad w = 3 + 2 = 5") == 1  # the last step, explained once
        assert "backward-pass stepper" in page.locator("#cell-99d5d2b9").inner_text()


def test_the_stepper_note_renders_its_bold_in_both_editions(site):
    for edition in EDITIONS:
        page = (site / edition / "lessons" / "03_chain_rule.html").read_text(encoding="utf-8")
        cell = page[page.index('id="cell-99d5d2b9"'):].split('<div class="cell ')[0]
        assert "<strong>" in cell and "**" not in cell, f"{edition}: {cell[-600:]}"
        assert "BackwardStepper(" not in cell.split("cell_output")[-1], edition  # no static text
