"""The learner's environment, checked in a real browser (issue 14).

`./run lab` is started on a fresh working copy (TENSORGRAD_WORK in a temporary folder), and a
headless Chromium, driven by Playwright, opens lesson 3 in JupyterLab the way a learner would:

* on open, before anything runs, the shipped notebook is **trusted**, so its graph picture shows
  as a picture (an untrusted notebook shows `Graph(backward: ...)` text instead), and its
  predictions are collapsed, their bar showing only the neutral first line;
* Run All runs it to the end, and the backward-pass stepper widget appears, without
  `Error displaying widget`;
* after saving and reopening, the widget and the graph picture are still there (the widget
  manager's saveState setting, which ./run sets inside the clone);
* the shipped lessons/ and exercises/ are unchanged: JupyterLab saved into the working copy.

A second test (issue 21) opens an untouched lesson and closes it with no "Save changes?" prompt
(its working copy carries the kernel's language_info), reopens a saved stepper once its kernel
is gone and finds the plain "run this cell again" note in place of dead controls, and measures
the widest graph of the lessons: its smallest text at least 10 px on screen, and none of it cut
(shown at its own size; a wider one scrolls).

Skipped when no Chromium is installed (Debian: `apt-get install
chromium`) or Playwright is missing (`pip install -e ".[browser]"`; ./run installs it when it finds
a Chromium). Playwright's own browser download is not used: `executable_path` points at the system
Chromium. A screenshot of the reopened lesson is written to the test's temporary folder, or to
$TENSORGRAD_SCREENSHOTS when set.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSON = "03_chain_rule.ipynb"
TOKEN = "tensorgrad-browser-test"
START_TIMEOUT = 120  # seconds for ./run lab to answer (the first start trusts 22 notebooks)
RUN_TIMEOUT = 180  # seconds for Run All


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")


def shipped_digest():
    """One checksum over the shipped lessons/ and exercises/ notebooks."""
    digest = hashlib.sha256()
    for folder in ("lessons", "exercises"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def env_for(work: Path):
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    env["TENSORGRAD_WORK"] = str(work)
    return env


@contextlib.contextmanager
def running_lab(folder: Path, *args: str):
    """./run lab on a fresh working copy in ``folder`` (its log beside it), with ``args`` for
    ./run lab; yields (base url, working copy) and stops the server afterwards."""
    work = folder / "work"
    port = free_port()
    log = open(folder / "lab.log", "w")
    process = subprocess.Popen(
        [str(ROOT / "run"), "lab", *args, "--no-browser", f"--port={port}",
         f"--IdentityProvider.token={TOKEN}", "--LabApp.expose_app_in_browser=True"],
        cwd=ROOT, env=env_for(work), stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail("./run lab did not start:\n"
                                + (folder / "lab.log").read_text()[-3000:])
                time.sleep(0.5)
        yield base, work
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        log.close()


@pytest.fixture
def lab(tmp_path, request):
    """./run lab on a fresh working copy; yields (base url, working copy). A test may ask for
    more arguments of ./run lab with ``@pytest.mark.lab_args(...)``."""
    marker = request.node.get_closest_marker("lab_args")
    with running_lab(tmp_path, *(marker.args if marker else ())) as started:
        yield started


# JavaScript run in the page: the open notebook, found through JupyterLab's application object.
NOTEBOOK = "window.jupyterapp.shell.currentWidget.content"

FIND_CELLS = NOTEBOOK + """.widgets.map((cell, index) => {
    const outputs = cell.model.type === 'code' ? cell.model.outputs.toJSON() : [];
    const mimes = outputs.flatMap(o => Object.keys(o.data || {}));
    return {index, svg: mimes.includes('image/svg+xml'),
            widget: mimes.includes('application/vnd.jupyter.widget-view+json'),
            trusted: cell.model.type !== 'code' || cell.model.trusted};
})"""

PREDICTIONS = NOTEBOOK + """.widgets.map((cell, index) => ({index,
    predict: (cell.model.getMetadata('tags') || []).includes('predict'),
    hidden: cell.outputHidden === true})).filter(c => c.predict)"""

PREVIEW = """async (index) => {
    const notebook = """ + NOTEBOOK + """;
    await notebook.scrollToItem(index, 'center');
    await new Promise(resolve => setTimeout(resolve, 1000));
    const bar = notebook.widgets[index].node.querySelector('.jp-OutputPlaceholder');
    return bar ? bar.textContent : null;
}"""
NEUTRAL_PREVIEW = "The result (compare it with your prediction):"
NEUTRAL_PREVIEW_ZH = "结果（和你的预测对照一下）："  # printed by the Chinese edition (tools/translate.py)

SHOWS = """async ([index, selector]) => {
    const notebook = """ + NOTEBOOK + """;
    await notebook.scrollToItem(index, 'center');
    await new Promise(resolve => setTimeout(resolve, 1500));
    const node = notebook.widgets[index].node;
    return {found: node.querySelector(selector) !== null,
            error: node.textContent.includes('Error displaying widget')};
}"""


def launch(playwright):
    """The system Chromium, headless (Playwright's own browser download is not used)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                      args=["--no-sandbox", "--disable-dev-shm-usage"])


@contextlib.contextmanager
def browser_page():
    """A page of the system Chromium (headless), closed afterwards; skips without Playwright."""
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="needs Playwright: pip install -e '.[browser]'")
    with sync_api.sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            yield browser.new_page(viewport={"width": 1280, "height": 900})
        finally:
            browser.close()


def screenshots(tmp_path) -> Path:
    """Where screenshots go: $TENSORGRAD_SCREENSHOTS when set, else the test's folder."""
    shots = Path(os.environ.get("TENSORGRAD_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    return shots


def open_lesson(page, base, lesson=LESSON):
    # the Chinese edition in its own workspace, as ./run lab --lang zh opens it
    workspace = "/lab/workspaces/zh" if lesson.startswith("zh/") else "/lab"
    page.goto(f"{base}{workspace}/tree/lessons/{lesson}?token={TOKEN}")
    # (a workspace saved by an earlier run may reopen other notebooks too: wait for this one)
    page.wait_for_function(
        "window.jupyterapp && window.jupyterapp.shell.currentWidget"
        " && window.jupyterapp.shell.currentWidget.context"
        f" && window.jupyterapp.shell.currentWidget.context.path === 'lessons/{lesson}'"
        " && window.jupyterapp.shell.currentWidget.content"
        " && window.jupyterapp.shell.currentWidget.content.widgets.length > 10", timeout=90_000)
    page.wait_for_function(
        "window.jupyterapp.shell.currentWidget.context.isReady", timeout=90_000)
    page.wait_for_timeout(2000)


def wait_until_idle(page):
    page.wait_for_function(
        "(() => { const s = window.jupyterapp.shell.currentWidget.sessionContext;"
        " return s.session && s.session.kernel && s.session.kernel.status === 'idle'"
        " && ![...document.querySelectorAll('.jp-InputArea-prompt')]"
        ".some(e => e.textContent.includes('*')); })()", timeout=RUN_TIMEOUT * 1000)


def test_a_lesson_runs_saves_and_reopens_with_its_pictures(lab, tmp_path):
    base, work = lab
    before = shipped_digest()
    shots = screenshots(tmp_path)
    with browser_page() as page:
        open_lesson(page, base)
        cells = page.evaluate(FIND_CELLS)
        untrusted = [c["index"] for c in cells if not c["trusted"]]
        assert not untrusted, f"the shipped {LESSON} opens untrusted (cells {untrusted})"
        predictions = page.evaluate(PREDICTIONS)
        assert predictions, f"{LESSON} has no cell tagged 'predict'"
        open_outputs = [c["index"] for c in predictions if not c["hidden"]]
        assert not open_outputs, f"prediction cells {open_outputs} open with their output shown"
        preview = page.evaluate(PREVIEW, predictions[0]["index"])
        assert preview is not None and NEUTRAL_PREVIEW in preview, (
            f"the collapsed prediction previews {preview!r}")
        graph = next(c["index"] for c in cells if c["svg"])
        shown = page.evaluate(SHOWS, [graph, ".jp-RenderedSVG"])
        assert shown["found"], f"cell {graph}'s graph does not show as a picture on open"

        page.evaluate(f"{NOTEBOOK}.activeCellIndex = 0")
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_timeout(2000)
        wait_until_idle(page)
        cells = page.evaluate(FIND_CELLS)
        widget = next((c["index"] for c in cells if c["widget"]), None)
        assert widget is not None, "after Run All no cell shows a widget (the stepper)"
        shown = page.evaluate(SHOWS, [widget, ".jupyter-widgets"])
        assert shown["found"] and not shown["error"], f"cell {widget}: the widget does not show"

        page.evaluate("window.jupyterapp.commands.execute('docmanager:save')")
        page.wait_for_function(
            "!window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)
        saved = json.loads((work / "lessons" / LESSON).read_text(encoding="utf-8"))
        state = saved.get("metadata", {}).get("widgets", {})
        assert state, "the saved notebook holds no widget state (saveState is off)"

        page.reload()
        open_lesson(page, base)
        shown = page.evaluate(SHOWS, [widget, ".jupyter-widgets"])
        assert shown["found"] and not shown["error"], (
            f"after reopening, cell {widget}'s widget does not show "
            f"(error text: {shown['error']})")
        page.screenshot(path=str(shots / "reopened_widget.png"))
        shown = page.evaluate(SHOWS, [graph, ".jp-RenderedSVG"])
        assert shown["found"], f"after reopening, cell {graph}'s graph is not a picture"
        page.screenshot(path=str(shots / "reopened_graph.png"))
    assert shipped_digest() == before, "the shipped lessons/ or exercises/ changed"
    status = subprocess.run(["git", "status", "--porcelain", "--", "lessons", "exercises"],
                            cwd=ROOT, capture_output=True, text=True).stdout
    assert not status.strip() or os.environ.get("TENSORGRAD_ALLOW_DIRTY"), status


# The rendered prose of the open notebook's markdown cells (code and formulas left out: `x ** 2`
# is not bold).
RENDERED_MARKDOWN = """[...window.jupyterapp.shell.currentWidget.node
    .querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown')].map(e => {
        const prose = e.cloneNode(true);
        prose.querySelectorAll('pre, code, mjx-container, .MathJax').forEach(c => c.remove());
        return prose.textContent;
    })"""


@pytest.mark.lab_args("--lang", "zh")
def test_the_chinese_edition_opens_and_reads_as_chinese(lab, tmp_path):
    """`./run lab --lang zh` opens lessons/zh/; a Chinese lesson renders its bold (no `**` shown
    as text: Chinese punctuation next to a closing `**` can defeat Markdown), keeps its
    predictions collapsed behind the neutral line, and shows its graph picture."""
    base, work = lab
    assert (work / "lessons" / "zh" / LESSON).exists(), "./run lab did not copy the Chinese lessons"

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        urllib.request.build_opener(NoRedirect).open(f"{base}/?token={TOKEN}", timeout=10)
        location = ""
    except urllib.error.HTTPError as redirect:
        location = redirect.headers.get("Location", "")
    assert location.startswith("/lab/workspaces/zh/tree/lessons/zh"), (
        f"./run lab --lang zh opens {location!r}, not its own workspace \"zh\"")
    shots = screenshots(tmp_path)
    with browser_page() as page:
        open_lesson(page, base, f"zh/{LESSON}")
        for index in range(0, len(page.evaluate(FIND_CELLS)), 8):  # render every cell
            page.evaluate(f"{NOTEBOOK}.scrollToItem({index}, 'start')")
            page.wait_for_timeout(150)
        tabs = page.evaluate("[...window.jupyterapp.shell.widgets('main')]"
                             ".map(w => w.context ? w.context.path : w.title.label)")
        english = [tab for tab in tabs if not str(tab).startswith("lessons/zh/")]
        assert not english, f"the Chinese workspace opens English tabs too: {english}"
        texts = page.evaluate(RENDERED_MARKDOWN)
        assert texts and texts[0].startswith("第 3 课"), texts[:1]
        stray = [t[:60] for t in texts if "**" in t]
        assert not stray, f"markdown shows ** as text: {stray}"
        predictions = page.evaluate(PREDICTIONS)
        assert predictions and all(c["hidden"] for c in predictions)
        preview = page.evaluate(PREVIEW, predictions[0]["index"])
        assert preview is not None and NEUTRAL_PREVIEW_ZH in preview, preview
        cells = page.evaluate(FIND_CELLS)
        graph = next(c["index"] for c in cells if c["svg"])
        assert page.evaluate(SHOWS, [graph, ".jp-RenderedSVG"])["found"]
        page.screenshot(path=str(shots / "zh_lesson.png"))


# -- an untouched lesson, a reopened stepper, the largest graph (issue 21) -----------------------

DIALOG = "document.querySelector('.jp-Dialog') !== null"

REOPENED = """async (index) => {
    const notebook = """ + NOTEBOOK + """;
    await notebook.scrollToItem(index, 'center');
    await new Promise(resolve => setTimeout(resolve, 1500));
    const node = notebook.widgets[index].node;
    const shown = e => e !== null && getComputedStyle(e).display !== 'none' && e.offsetParent !== null;
    const note = node.querySelector('.tg-stepper-reopened');
    return {note: shown(note) ? note.textContent : null,
            controls: shown(node.querySelector('.tg-stepper-controls')),
            buttons: [...node.querySelectorAll('.tg-stepper button')].filter(shown).length};
}"""

# The picture's size on screen against its own size, and whether all of it can be seen.
PICTURE = """async (index) => {
    const notebook = """ + NOTEBOOK + """;
    await notebook.scrollToItem(index, 'start');
    await new Promise(resolve => setTimeout(resolve, 1500));
    const image = notebook.widgets[index].node.querySelector('.jp-RenderedSVG img, .jp-RenderedSVG svg');
    if (image === null) return null;
    await (image.decode ? image.decode().catch(() => null) : null);
    let area = image.parentElement, scrolls = false;
    for (let e = image.parentElement; e && !e.classList.contains('jp-Notebook'); e = e.parentElement) {
        const overflow = getComputedStyle(e).overflowX;
        if (overflow === 'auto' || overflow === 'scroll') { scrolls = true; area = e; break; }
    }
    const box = image.getBoundingClientRect(), shown = area.getBoundingClientRect();
    return {rendered: box.width, natural: image.naturalWidth || box.width, scrolls,
            fits: box.right <= shown.right + 1, areaWidth: shown.width};
}"""


def largest_graph():
    """(lesson, cell index, width in pt at natural size, smallest font size in pt, the scale
    `dot` drew it at) of the widest graph picture stored in lessons/."""
    import re
    best = None
    for path in sorted((ROOT / "lessons").glob("*.ipynb")):
        for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            for output in cell.get("outputs", []):
                svg = output.get("data", {}).get("image/svg+xml")
                if not svg:
                    continue
                svg = "".join(svg) if isinstance(svg, list) else svg
                width = float(re.search(r'<svg width="([\d.]+)pt"', svg).group(1))
                scale = re.search(r'class="graph" transform="scale\(([\d.]+)', svg)
                factor = float(scale.group(1)) if scale else 1.0
                font = min(float(f) for f in re.findall(r'font-size="([\d.]+)"', svg))
                if best is None or width / factor > best[2]:
                    best = (path.name, index, width / factor, font, factor)
    return best


def test_untouched_lesson_closes_unasked_a_reopened_stepper_says_rerun_and_graphs_are_readable(
        lab, tmp_path):
    base, work = lab
    shots = screenshots(tmp_path)
    with browser_page() as page:
        # (a) an untouched lesson stays unmodified once its kernel has started, and closes unasked
        open_lesson(page, base, "01_computation_graphs.ipynb")
        page.wait_for_function(
            "(() => { const s = window.jupyterapp.shell.currentWidget.sessionContext;"
            " return s.session && s.session.kernel && s.session.kernel.status === 'idle'; })()",
            timeout=90_000)
        page.wait_for_timeout(3000)
        dirty = page.evaluate("window.jupyterapp.shell.currentWidget.context.model.dirty")
        assert not dirty, "the untouched lesson 01 turned 'modified' on opening"
        page.evaluate("window.jupyterapp.commands.execute('application:close')")
        page.wait_for_timeout(1500)
        asked = page.evaluate(DIALOG)
        if asked:
            page.screenshot(path=str(shots / "close_asks.png"))
        assert not asked, "closing the untouched lesson 01 asks 'Save changes?'"

        # (b) a stepper saved with its lesson, reopened once its kernel is gone, says to re-run
        open_lesson(page, base)
        page.evaluate(f"{NOTEBOOK}.activeCellIndex = 0")
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_timeout(2000)
        wait_until_idle(page)
        widget = next(c["index"] for c in page.evaluate(FIND_CELLS) if c["widget"])
        live = page.evaluate(REOPENED, widget)
        assert live["note"] is None and live["controls"], f"the live stepper shows {live}"
        page.evaluate("window.jupyterapp.commands.execute('docmanager:save')")
        page.wait_for_function(
            "!window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)
        page.evaluate("window.jupyterapp.serviceManager.sessions.shutdownAll()")
        page.wait_for_timeout(2000)
        page.reload()
        open_lesson(page, base)
        reopened = page.evaluate(REOPENED, widget)
        page.screenshot(path=str(shots / "reopened_stepper.png"))
        assert reopened["note"] and "run this cell again" in reopened["note"], reopened
        assert not reopened["controls"] and reopened["buttons"] == 0, (
            f"the reopened stepper still shows its dead controls: {reopened}")

        # (c) the widest graph of the lessons: its smallest text at least 10 px, none of it cut
        lesson, index, _, font, factor = largest_graph()
        open_lesson(page, base, lesson)
        picture = page.evaluate(PICTURE, index)
        page.screenshot(path=str(shots / "largest_graph.png"))
        assert picture is not None, f"{lesson} cell {index}: no picture"
        # on screen: font size (pt, 4/3 px each) x dot's scale x the browser's scale
        smallest = font * 4 / 3 * factor * picture["rendered"] / picture["natural"]
        assert smallest >= 10, (f"{lesson} cell {index}: its {font:g} pt text shows "
                                f"{smallest:.1f} px high ({picture})")
        assert picture["fits"] or picture["scrolls"], f"{lesson} cell {index} is cut: {picture}"


# -- lesson 03's box with its formulas typeset (issue 27, item 7) --------------------------------

BOX_CELL = "cell-cd231ff9"  # lesson 03: the tutorial's derivatives written upside down

TYPESET = """async (id) => {
    const notebook = """ + NOTEBOOK + """;
    const index = notebook.widgets.findIndex(cell => cell.model.id === id);
    if (index < 0) return null;
    await notebook.scrollToItem(index, 'center');
    await new Promise(resolve => setTimeout(resolve, 3000));
    const rendered = notebook.widgets[index].node.querySelector('.jp-RenderedMarkdown');
    const prose = rendered.cloneNode(true);
    prose.querySelectorAll('mjx-container, .MathJax, mjx-assistive-mml').forEach(m => m.remove());
    return {formulas: rendered.querySelectorAll('mjx-container').length,
            errors: rendered.querySelectorAll('mjx-merror').length, prose: prose.textContent};
}"""


def test_lesson_03s_box_shows_its_formulas_typeset_in_jupyterlab(lab, tmp_path):
    import re
    base, work = lab
    shots = screenshots(tmp_path)
    with browser_page() as page:
        open_lesson(page, base)
        box = page.evaluate(TYPESET, BOX_CELL)
        page.screenshot(path=str(shots / "lab-03-box.png"))
        assert box is not None, f"{LESSON} has no cell {BOX_CELL}"
        assert box["formulas"] >= 8 and box["errors"] == 0, box
        assert "upside down" in box["prose"]
        assert not re.search(r"\\[a-z]+|\$", box["prose"]), box["prose"]
