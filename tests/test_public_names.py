"""What a learner's Tab completion shows is the public API, checked at the door (issue 30, the
outside review s15, F1): in each public module, every name that does not start with `_` and is
a function (not a class, not a module) is an operation of torch's module of the same path, and
refuses wrong-typed arguments with a torch-style error (TypeError, RuntimeError, ...), never with
an AttributeError or a NumPy error from inside. The library's own helpers are imported under `_`
names, so they stay out of sight."""

import importlib
import inspect
import types
import warnings

import pytest

import tensorgrad as tg

MODULES = ["tensorgrad", "tensorgrad.nn.functional", "tensorgrad.nn.init", "tensorgrad.func",
           "tensorgrad.autograd", "tensorgrad.autograd.functional",
           "tensorgrad.autograd.forward_ad", "tensorgrad.autograd.graph", "tensorgrad.random",
           "tensorgrad.autograd.profiler", "tensorgrad.nn.modules", "tensorgrad.nn.utils"]

# torch-style refusals; anything else (AttributeError, NumPy's errors, KeyError) leaks
REFUSALS = (TypeError, RuntimeError, ValueError, IndexError, NotImplementedError)

# Where torch 2.13 itself raises an AttributeError for these wrong types (measured; with torch
# installed, the test measures it again): `torch.save(t, object())`, `torch.load(object())`,
# `torch.autograd.backward([1.], t)`, `torch.autograd.grad([1.], t)`, and gradgradcheck; and the
# losses whose Python code reads `target.size()` of what it is given (`F.mse_loss(t, object())`).
AS_TORCH = {("tensorgrad", "save"), ("tensorgrad", "load"), ("tensorgrad.autograd", "backward"),
            ("tensorgrad.autograd", "grad"), ("tensorgrad.autograd", "gradgradcheck"),
            *(("tensorgrad.nn.functional", loss) for loss in (
                "mse_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits"))}


def _public_functions(module_name):
    module = importlib.import_module(module_name)
    for name in sorted(dir(module)):
        value = getattr(module, name)
        if name.startswith("_") or not callable(value) or inspect.isclass(value):
            continue
        yield name, value


FUNCTIONS = [(m, name) for m in MODULES for name, _ in _public_functions(m)]


def _wrong_arguments(lib):
    t = lib.ones(2, 2)
    return [(object(),), (t, object()), ([1.], t), (t, t, object())]


def _refusals(module_name, name, lib):
    """The exception class each wrong call raises (None: it ran), in lib (tensorgrad or torch)."""
    function = getattr(importlib.import_module(module_name.replace("tensorgrad", lib.__name__, 1)),
                       name)
    raised = []
    for arguments in _wrong_arguments(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                function(*arguments)
                raised.append(None)
            except Exception as error:  # noqa: BLE001  (which class is what is tested)
                raised.append(type(error))
    return raised


@pytest.mark.parametrize("module_name, name", FUNCTIONS)
def test_a_public_function_refuses_wrong_types_in_torch_words(module_name, name):
    raised = _refusals(module_name, name, tg)
    if (module_name, name) in AS_TORCH:
        torch = pytest.importorskip("torch")
        as_torch = _refusals(module_name, name, torch)
    else:
        as_torch = [None] * len(raised)
    leaks = [kind.__name__ for kind, torchs in zip(raised, as_torch)
             if kind and not issubclass(kind, REFUSALS) and kind is not torchs]
    assert leaks == []


@pytest.mark.parametrize("module_name", MODULES)
def test_a_public_function_is_a_name_of_torchs_module(module_name):
    torch = pytest.importorskip("torch")
    torch_module = importlib.import_module(module_name.replace("tensorgrad", "torch", 1))
    module = importlib.import_module(module_name)
    assert torch
    not_torchs = [name for name, _ in _public_functions(module_name)
                  if not hasattr(torch_module, name)]
    declared = [name for name in getattr(module, "__all__", ()) if not hasattr(torch_module, name)
                and not inspect.isclass(getattr(module, name)) and callable(getattr(module, name))]
    assert not_torchs == [] and declared == []


@pytest.mark.parametrize("module_name", MODULES)
def test_no_public_name_holds_the_unchecked_functions(module_name):
    """The plain forms the library calls (nn.functional's and nn.init's `_plain`) check nothing:
    under a public name a learner's Tab would reach them, and `F.plain.softmax('x', 0)` ended in
    an AttributeError from inside (the outside review s16, F4)."""
    module = importlib.import_module(module_name)
    holders = [name for name in dir(module)
               if not name.startswith("_") and isinstance(getattr(module, name), types.SimpleNamespace)]
    assert holders == []


@pytest.fixture(autouse=True)
def _print_options_restored():
    """`set_printoptions(object())` is taken as PyTorch takes it (no check: it is a plain Python
    function there too), and would leave every later repr broken: put the defaults back."""
    yield
    tg.set_printoptions(profile="default")
