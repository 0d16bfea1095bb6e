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


def test_every_module_constant_is_read_somewhere_in_the_package():
    """No unused helpers: each UPPER_CASE constant a module defines at its top level is read by
    the package's own code (a name or an attribute in some module), not only by tests, or is
    documented for instructors in docs/ (reports.SUBMISSION_SCHEMA)."""
    import ast

    docs = PACKAGE.parents[1] / "docs"
    defined, read = {}, set()
    for page in docs.rglob("*.md"):
        read.update(re.findall(r"tensorgrad_course\.\w+\.(\w+)", page.read_text(encoding="utf-8")))
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for statement in tree.body:
            targets = statement.targets if isinstance(statement, ast.Assign) else (
                [statement.target] if isinstance(statement, ast.AnnAssign) else [])
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and re.fullmatch(r"[A-Z][A-Z0-9_]*", name.id):
                        defined[name.id] = path.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                read.add(node.id)
            elif isinstance(node, ast.Attribute):
                read.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                read.add(node.value)  # a name in __all__, or read by getattr
    unused = sorted(f"{module}: {name}" for name, module in defined.items() if name not in read)
    assert not unused, unused
