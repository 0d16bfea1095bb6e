"""Lesson 10 prints the core's own code for the learner to read, every line of it: its prose never
tells the learner to skip a line it prints. And nothing on screen before one of its predictions
(the objectives, headings, cells and outputs above it, the prediction's own source) gives the
answer away (issue 27)."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EDITIONS = [ROOT / "lessons" / "10_inside_the_engine.ipynb",
            ROOT / "lessons" / "zh" / "10_inside_the_engine.ipynb"]
# Sentences that ask the learner to pass over code, in either edition (not the code's own
# skipping, "skip an empty edge", which is what a line does)
SKIP = re.compile(r"\byou (can|may|might|could)( safely)? (skip|ignore|skim|pass over)"
                  r"|\bcan (safely )?be (skipped|ignored)|\b(skip|ignore|skim) (them|these|those|"
                  r"this part|the rest)\b|\bsafe to (skip|ignore)|\bnot worth reading"
                  r"|可以跳过|可以略过|可以忽略|不必细读|不用管", re.I)
# Per prediction (by cell id): phrases that would answer it
GIVE_AWAY = {
    "l10-19": ["exactly once", "runs once", "run once", "a.grad is 4", "恰好运行一次", "只运行一次"],
    "l10-30": ["r, q, p, x", "r q p x", "newest first", "newest node first", "newest-first", "the newest runs first",
               "最新的优先", "最新的节点优先", "最新节点优先", "最新的先运行",
               # the prompt's own code once said which node came first and which last (s13 review)
               "created first", "created last", "最先创建", "最后创建"],
}


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def text(cell):
    return "".join(cell["source"])


def printed(cell):
    return "".join("".join(output.get("text", "")) for output in cell.get("outputs", []))


def sentences(markdown):
    return re.split(r"(?<=[.!?。！？])\s+", " ".join(markdown.split()))


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.parent.name)
def test_the_prose_never_tells_the_learner_to_skip_printed_code(path):
    everything_printed = "\n".join(printed(c) for c in cells(path) if c["cell_type"] == "code")
    found = []
    for cell in cells(path):
        if cell["cell_type"] != "markdown":
            continue
        for sentence in sentences(text(cell)):
            if SKIP.search(sentence):
                names = [n for n in re.findall(r"`([^`]+)`", sentence) if n in everything_printed]
                found.append(f"{cell['id']}: {sentence!r}" + (f" (printed: {names})" if names else ""))
    assert not found, "\n".join(found)


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.parent.name)
def test_nothing_before_a_prediction_gives_its_answer(path):
    seen, found = [], []
    for cell in cells(path):
        if cell["id"] in GIVE_AWAY:
            on_screen = "\n".join(seen + [text(cell)]).lower()
            found += [f"{cell['id']}: {phrase!r}" for phrase in GIVE_AWAY[cell["id"]]
                      if phrase.lower() in on_screen]
        seen += [text(cell), printed(cell)]
    assert {c["id"] for c in cells(path)} >= set(GIVE_AWAY), "a prediction was renamed: update GIVE_AWAY"
    assert not found, "\n".join(found)
