"""The course package's module map (its __init__'s docstring) names every module, and nothing else.

The import structure itself (layers, no circle, no import of the tensorgrad library) is
import-linter's contracts in pyproject.toml, run by `./run test`'s "layers (import-linter)" part.
"""

import re
from pathlib import Path

import tensorgrad_course

PACKAGE = Path(tensorgrad_course.__file__).resolve().parent


def test_the_module_map_lists_every_module():
    doc = tensorgrad_course.__doc__
    table = doc[doc.index("Module map"):]
    listed = re.findall(r"^``(\w+)``\s", table, flags=re.MULTILINE)
    modules = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    assert sorted(listed) == modules, (
        f"not in the module map: {sorted(set(modules) - set(listed))}; "
        f"in the map but no module: {sorted(set(listed) - set(modules))}")
    assert len(listed) == len(set(listed)), "a module is listed twice"
