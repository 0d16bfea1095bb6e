"""A lesson and its exercise set, open side by side in JupyterLab, carry tabs a learner tells
apart at a glance (issue 27).

`./run lab` is started once, on a fresh working copy, for both editions (the tests change nothing
in it: they open notebooks, read their tabs and close them), and a
headless Chromium opens a lesson, then its exercise set, as a learner does, and reads the two
tabs: their names must differ, and so must the part of each name the tab has room to show
(JupyterLab cuts a long name with "…" at its end, so two names that differ only near their ends
look the same). Lessons 03 (the set the issue names) and 12 (the longest name a lesson and its set
shared), in both editions.

Skipped like test_browser.py: without a Chromium or without Playwright.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_browser import CHROMIUM, browser_page, open_lesson, running_lab, screenshots

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")

LESSONS = ("03", "12")

# The main area's tabs: each one's full name and the part of it shown on screen (the characters
# that fit in the label's width; when the name is cut, room is left for the "…").
TABS = """[...document.querySelectorAll('.lm-DockPanel-tabBar .lm-TabBar-tab')].map(tab => {
    const label = tab.querySelector('.lm-TabBar-tabLabel');
    const text = label.textContent, node = label.firstChild, room = label.clientWidth;
    const range = document.createRange();
    const width = k => { range.setStart(node, 0); range.setEnd(node, k);
                         return range.getBoundingClientRect().width; };
    let shown = text.length;
    if (node && width(text.length) > room) {
        const ellipsis = width(1);  // about one character's width
        while (shown > 0 && width(shown) + ellipsis > room) shown -= 1;
    }
    return {name: text, shown: text.slice(0, shown), title: tab.title};
})"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """One ./run lab for the module's tests; yields (base url, working copy)."""
    with running_lab(tmp_path_factory.mktemp("lab")) as started:
        yield started


def exercise_set_of(number: str, edition: str) -> str:
    """The path (below the working copy) of lesson ``number``'s exercise set."""
    folder = "exercises/zh" if edition == "zh" else "exercises"
    (path,) = sorted((ROOT / folder).glob(f"{number}_*.ipynb"))
    return f"{folder}/{path.name}"


def lesson_of(number: str, edition: str) -> str:
    (path,) = sorted((ROOT / "lessons" / ("zh" if edition == "zh" else "")).glob(f"{number}_*.ipynb"))
    return f"zh/{path.name}" if edition == "zh" else path.name


def open_beside(page, path: str):
    """Open the notebook at ``path`` in a second tab, as the file browser does."""
    page.evaluate(f"window.jupyterapp.commands.execute('docmanager:open', {{path: '{path}'}})")
    page.wait_for_function(
        "window.jupyterapp.shell.currentWidget && window.jupyterapp.shell.currentWidget.context"
        f" && window.jupyterapp.shell.currentWidget.context.path === '{path}'"
        " && window.jupyterapp.shell.currentWidget.context.isReady", timeout=90_000)
    page.wait_for_timeout(1500)


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_a_lesson_and_its_exercise_set_open_in_tabs_named_differently(lab, tmp_path, edition):
    base, _ = lab
    shots = screenshots(tmp_path)
    with browser_page() as page:
        for number in LESSONS:
            lesson, exercises = lesson_of(number, edition), exercise_set_of(number, edition)
            open_lesson(page, base, lesson)
            open_beside(page, exercises)
            tabs = page.evaluate(TABS)
            page.screenshot(path=str(shots / f"tabs_{edition}_{number}.png"))
            names = [tab["name"] for tab in tabs]
            assert sorted(names) == sorted([Path(lesson).name, Path(exercises).name]), (
                f"lessons/{lesson} and {exercises} open as the tabs {tabs}")
            lesson_tab, set_tab = tabs
            assert lesson_tab["name"] != set_tab["name"], (
                f"lessons/{lesson} and {exercises} open as two tabs named {lesson_tab['name']!r}")
            assert lesson_tab["shown"] != set_tab["shown"], (
                f"the tabs of lessons/{lesson} and {exercises} both show {lesson_tab['shown']!r} "
                f"(the rest of their names is cut): {tabs}")
            page.evaluate("window.jupyterapp.commands.execute('application:close-all')")
            page.wait_for_timeout(1000)
            page.evaluate("window.jupyterapp.serviceManager.sessions.shutdownAll()")
