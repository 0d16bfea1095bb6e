"""The library's import-linter contract (pyproject.toml, "The library in layers") names every
module of tensorgrad/ (outside review s14b, F7; s13 N7). import-linter's own `exhaustive` needs
one container whose children are the layers, and the library's layers cut across its folders
(nn.functional sits below tensor_methods, nn.modules far above it), so this test does that
check: each module is a layer, or inside a package that is one (tensorgrad.core, tensorgrad.viz,
...). The package `__init__` modules that gather their children's public names (tensorgrad,
tensorgrad.autograd, tensorgrad.nn, tensorgrad.ops) are the doors above every layer, and are the
only ones left out."""

import pkgutil
import tomllib
from pathlib import Path

import tensorgrad

ROOT = Path(__file__).resolve().parents[1]
DOORS = {"tensorgrad", "tensorgrad.autograd", "tensorgrad.nn", "tensorgrad.ops"}


def _library_layers():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"]
                   if c["name"].startswith("The library in layers")]
    return {name.strip() for layer in contract["layers"] for name in layer.split("|")}


def _modules():
    found = {"tensorgrad"}
    for info in pkgutil.walk_packages(tensorgrad.__path__, "tensorgrad."):
        found.add(info.name)
    return found


def test_every_module_is_in_a_layer_or_a_door():
    layers = _library_layers()

    def placed(module):
        parts = module.split(".")
        return any(".".join(parts[:n]) in layers for n in range(1, len(parts) + 1))

    assert sorted(m for m in _modules() if not placed(m) and m not in DOORS) == []


def test_every_layer_names_a_module():
    modules = _modules()
    assert sorted(layer for layer in _library_layers() if layer not in modules) == []
