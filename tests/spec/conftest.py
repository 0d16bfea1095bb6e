"""Shared fixtures and helpers for the PyTorch conformance suite.

Every test in ``tests/spec`` takes the ``tg`` fixture, which is parametrized over two
backends:

* ``tensorgrad``: the library under test (``import tensorgrad as tg``);
* ``torch``: real PyTorch, skipped when it is not installed.

So every spec test is also a parity test: the same code runs on both and must produce the
same text.  Expected strings are written in *tensorgrad form* (``tensorgrad.float64``,
``tensorgrad.Size([2])``, ``tensorgrad::autograd::AccumulateGrad``).  Output produced by
torch is normalised to that form before comparing; output produced by tensorgrad is taken
as is (apart from memory addresses), so tensorgrad must print ``tensorgrad.`` itself.

Helpers (import them with ``from .conftest import ...``):

* ``show(obj)``: ``repr(obj)`` with addresses normalised to ``0x…`` (and, on torch,
  ``torch.``/``torch::`` replaced by ``tensorgrad.``/``tensorgrad::``, outside links:
  ``tests/parity.py``'s ``tensorgrad_names``).
* ``printed(capsys)``: what was printed since the last call, normalised the same way.
* ``raises_exactly(tg, exc_type, message)``: the block must raise exactly ``exc_type``
  (not a subclass) with ``str(exc) == message``.  For torch the message is compared up to
  `` (Triggered internally`` and after the torch→tensorgrad normalisation.
* ``record_warnings(tg)`` / ``warns_exactly(tg, category, message, count=1)`` /
  ``no_warnings(tg)``: warning checks with ``simplefilter("always")``.
* ``fresh_process_warnings(tg, *snippets)``: runs code snippets in order in a fresh
  interpreter (for once-per-process warnings) and returns the warnings of each snippet.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from parity import tensorgrad_names

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    # Test the library in this checkout, also when pytest is not started from the repo root.
    sys.path.insert(0, str(REPO_ROOT))

BACKENDS = ("tensorgrad", "torch")
NEEDS_NN = "needs tg.nn (issue 3)"

_state = {"backend": None}

# Messages quoted by several test files.
SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
NOT_SCALAR = "grad can be implicitly created only for scalar outputs"
NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
CREATE_GRAPH_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak."
)


def skip_needs_nn(tg):
    """Rows that use ``nn``/``nn.functional``. tensorgrad has them now (issue 3), so nothing is
    skipped; kept so the rows still say what they depend on."""

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_CPP_TAIL = " (Triggered internally"


# --------------------------------------------------------------------------- normalising


def backend_name(tg) -> str:
    """'torch' or 'tensorgrad' for a backend module."""
    return "torch" if tg.__name__ == "torch" else "tensorgrad"


def _current_backend() -> str:
    return _state["backend"] or "tensorgrad"


def normalise_text(text: str, backend: str | None = None) -> str:
    """Addresses → ``0x…``; on torch also ``torch.``/``torch::`` → ``tensorgrad.``/``tensorgrad::``
    (not in links)."""
    backend = backend or _current_backend()
    text = _ADDRESS.sub("0x…", text)
    if backend == "torch":
        text = tensorgrad_names(text)  # (links keep torch's names: tests/parity.py)
    return text


def normalise_message(text: str, backend: str | None = None) -> str:
    """An exception or warning message, in tensorgrad form.

    On torch the C++ location tail (`` (Triggered internally at …)``) is cut off first.
    """
    backend = backend or _current_backend()
    if backend == "torch":
        cut = text.find(_CPP_TAIL)
        if cut != -1:
            text = text[:cut]
    return normalise_text(text, backend)


def show(obj) -> str:
    """``repr(obj)`` in tensorgrad form, with memory addresses normalised."""
    return normalise_text(repr(obj))


def printed(capsys) -> str:
    """Everything printed to stdout since the last read, normalised like ``show``."""
    return normalise_text(capsys.readouterr().out)


# --------------------------------------------------------------------------- exceptions


@contextlib.contextmanager
def raises_exactly(tg, exc_type, message):
    """The block must raise exactly ``exc_type`` whose message equals ``message``."""
    backend = backend_name(tg)
    with pytest.raises(Exception) as info:
        yield info
    exc = info.value
    assert type(exc) is exc_type, (
        f"expected {exc_type.__name__}, got {type(exc).__module__}.{type(exc).__qualname__}: {exc}"
    )
    got = normalise_message(str(exc), backend)
    assert got == message


# --------------------------------------------------------------------------- warnings


class WarningLog:
    """Warnings recorded in a block, as ``(category, normalised message)`` pairs."""

    def __init__(self, backend, records):
        self._backend = backend
        self._records = records

    @property
    def entries(self):
        return [(r.category, normalise_message(str(r.message), self._backend)) for r in self._records]

    def messages(self, category=None):
        return [m for c, m in self.entries if category is None or c is category]

    def count(self, category, message):
        return sum(1 for c, m in self.entries if c is category and m == message)

    def __len__(self):
        return len(self._records)


@contextlib.contextmanager
def record_warnings(tg):
    """Record every warning in the block (``simplefilter("always")``)."""
    backend = backend_name(tg)
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        yield WarningLog(backend, records)


@contextlib.contextmanager
def warns_exactly(tg, category, message, count=1):
    """The block must emit ``count`` warnings with exactly this category and message.

    ``count=None`` means "at least one".  Other, unrelated warnings are allowed.
    """
    with record_warnings(tg) as log:
        yield log
    same_text = [c for c, m in log.entries if m == message]
    assert same_text, f"no warning with this message; got {log.entries!r}"
    assert all(c is category for c in same_text), (
        f"expected category {category.__name__}, got {[c.__name__ for c in same_text]}"
    )
    if count is not None:
        assert len(same_text) == count, f"expected {count} warning(s), got {len(same_text)}"


@contextlib.contextmanager
def no_warnings(tg):
    """The block must not emit any warning."""
    with record_warnings(tg) as log:
        yield log
    assert log.entries == [], f"unexpected warnings: {log.entries!r}"


_FRESH_DRIVER = r"""
import importlib, json, sys, warnings
tg = importlib.import_module(sys.argv[1])
snippets = json.loads(sys.stdin.read())
result = []
for src in snippets:
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        exec(compile(src, "<snippet>", "exec"), {"tg": tg})
    result.append([[r.category.__name__, str(r.message)] for r in rec])
print("@@RESULT@@" + json.dumps(result))
"""


def fresh_process_warnings(tg, *snippets):
    """Run ``snippets`` one after another in a fresh interpreter, ``tg`` bound to the backend.

    Returns, per snippet, a list of ``(category name, normalised message)`` pairs.
    """
    backend = backend_name(tg)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p
    )
    proc = subprocess.run(
        [sys.executable, "-c", _FRESH_DRIVER, tg.__name__],
        input=json.dumps([textwrap.dedent(s) for s in snippets]),
        capture_output=True,
        text=True,
        cwd=str(REPO_ROOT),
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, f"subprocess failed:\n{proc.stdout}\n{proc.stderr}"
    line = [l for l in proc.stdout.splitlines() if l.startswith("@@RESULT@@")][-1]
    raw = json.loads(line[len("@@RESULT@@"):])
    return [[(cat, normalise_message(msg, backend)) for cat, msg in per] for per in raw]


# --------------------------------------------------------------------------- fixtures


def _reset_global_state(mod):
    """Default print options and grad mode on."""
    set_printoptions = getattr(mod, "set_printoptions", None)
    if set_printoptions is not None:
        # Tolerant on purpose: a missing print-options feature is reported by the print-options
        # tests, not by a setup error in every test.
        try:
            set_printoptions(profile="default")
        except Exception:
            try:
                set_printoptions(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)
            except Exception:
                pass
    set_grad_enabled = getattr(mod, "set_grad_enabled", None)
    if set_grad_enabled is not None:
        set_grad_enabled(True)


@pytest.fixture(params=BACKENDS)
def tg(request):
    """The backend module: ``tensorgrad`` or ``torch`` (skipped when torch is absent)."""
    name = request.param
    if name == "torch":
        mod = pytest.importorskip("torch")
    else:
        mod = importlib.import_module("tensorgrad")
    is_grad_enabled = getattr(mod, "is_grad_enabled", None)
    grad_mode_before = is_grad_enabled() if is_grad_enabled is not None else True
    _state["backend"] = name
    _reset_global_state(mod)
    try:
        yield mod
    finally:
        _reset_global_state(mod)
        set_grad_enabled = getattr(mod, "set_grad_enabled", None)
        if set_grad_enabled is not None:
            set_grad_enabled(grad_mode_before)
        _state["backend"] = None


@pytest.fixture
def is_torch(tg):
    return backend_name(tg) == "torch"
