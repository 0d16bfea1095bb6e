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


# A constant the printed code tests against (`sys.getrefcount(grad) <= UNSHARED_TENSOR`) is a name
# the learner would have to look up in the library: the prose names each one it prints and says
# what it is (the s13 review found UNSHARED_TENSOR and UNSHARED_DATA named nowhere).
CONSTANT = re.compile(r"\b_?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b[A-Z]{4,}\b")


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.parent.name)
def test_every_constant_the_printed_code_uses_is_named_in_the_prose(path):
    code = "\n".join(printed(c) for c in cells(path) if c["cell_type"] == "code")
    prose = "\n".join(text(c) for c in cells(path) if c["cell_type"] == "markdown")
    unnamed = sorted(name for name in set(CONSTANT.findall(code)) if f"`{name}`" not in prose
                     and not re.search(rf"`[^`\n]*\b{re.escape(name)}\b[^`\n]*`", prose))
    assert not unnamed, f"{path.name}: printed, never named in the prose: {unnamed}"


def _makes_a_capture(call) -> bool:
    """Whether `call` (run on a fresh small graph) reaches the engine with a Capture."""
    import tensorgrad as tg
    from tensorgrad.core import engine
    made = []
    original = engine.Capture

    class Watched(original):
        def __init__(self, *args, **kwargs):
            made.append(True)
            super().__init__(*args, **kwargs)

    engine.Capture = Watched
    try:
        a = tg.tensor(2., requires_grad=True)
        call(a, a * a)
    finally:
        engine.Capture = original
    return bool(made)


CALLS = {"`backward()`": lambda a, y: y.backward(),
         "`backward(inputs=...)`": lambda a, y: y.backward(inputs=[a]),
         "`tg.autograd.grad`": lambda a, y: tg_grad(y, a)}


def tg_grad(y, a):
    import tensorgrad as tg
    return tg.autograd.grad(y, a)


def test_the_reading_of_execute_says_which_calls_make_a_capture():
    """Lesson 10's bullet on `wanted` names the calls that give the engine a Capture, all of them
    (it once said autograd.grad only, and backward(inputs=...) makes one too)."""
    made = {call: _makes_a_capture(run) for call, run in CALLS.items()}
    assert made == {"`backward()`": False, "`backward(inputs=...)`": True, "`tg.autograd.grad`": True}
    bullet = next(part for c in cells(EDITIONS[0]) if c["cell_type"] == "markdown"
                  for part in text(c).split("\n- ") if part.startswith("`wanted` is"))
    for call, makes in made.items():
        if makes:
            assert call in bullet, f"the bullet on `wanted` does not name {call}: {bullet!r}"


# Each branch of Rule.apply as lesson 10 prints it (cell l10-07), which the prose right after it
# (l10-08) must explain, quoting it: the empty edge, a setting read from the node (review s14b
# F5: the `getattr` branch was printed and never explained), and cat's and stack's one formula.
RULE_APPLY_BRANCHES = ["next_node is None", "getattr(self, name)", '"tensors"']


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.parent.name)
def test_the_prose_explains_every_branch_of_rule_apply(path):
    by_id = {cell.get("id"): cell for cell in cells(path)}
    shown, prose = printed(by_id["l10-07"]), text(by_id["l10-08"])
    assert "def apply(self, grads):" in shown
    for branch in RULE_APPLY_BRANCHES:
        assert branch in shown, f"Rule.apply no longer reads {branch!r}: update this list"
        assert f"`{branch}`" in prose or f"`values[{branch}]`" in prose or (
            f"test for `{branch}`" in prose or f"检查 `{branch}`" in prose), (
            f"{path.parent.name}: l10-08 does not explain {branch!r}")
