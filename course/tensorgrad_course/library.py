"""Where the tensorgrad library is: the notebooks the grader runs import it; the grader never does.

The course tooling is a distribution of its own (``tensorgrad-course``), installed beside the
library (the distribution ``tensorgrad-autograd``, imported as ``tensorgrad``). Building exercises and reading reports need nothing of the library;
grading runs notebooks that ``import tensorgrad``, so the grader finds the library's folder
(without importing it) to show it to kernels read-only (:mod:`.sandbox`), to put it on their
path (:mod:`.expected`), to key the expected-values cache on its sources, and to pack it into
the Gradescope zip (:mod:`.gradescope`).

A different, unrelated project owns the name ``tensorgrad`` on PyPI, so a folder named
``tensorgrad`` is taken for the library only if it holds the library's derivative table.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

from .errors import UsageError

#: The library's import name, and the name of its distribution (another project owns
#: ``tensorgrad`` on PyPI).
NAME = "tensorgrad"
DISTRIBUTION = "tensorgrad-autograd"
#: A file only this course's library has (its derivative table).
_MARKER = "derivatives.py"
INSTALL_HINT = ("install it from the course's checkout: pip install -e . (the distribution tensorgrad-autograd), "
                "never pip install tensorgrad")


class LibraryMissing(UsageError):
    """The tensorgrad library, which the graded notebooks import, cannot be found."""


def _package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def package_dir() -> Path | None:
    """The library's package folder (``.../tensorgrad``), or None if it is not importable."""
    found = _package_dir(NAME)
    return found if found is not None and (found / _MARKER).is_file() else None


def require(purpose: str = "grading") -> Path:
    """The library's package folder; raise :class:`LibraryMissing` (one line) if there is none."""
    found = package_dir()
    if found is not None:
        return found
    other = _package_dir(NAME)
    if other is not None:
        raise LibraryMissing(f"{purpose} needs the tensorgrad library, and the tensorgrad at {other} is another "
                             f"project of the same name; {INSTALL_HINT}")
    raise LibraryMissing(f"{purpose} needs the tensorgrad library, which is not installed here; {INSTALL_HINT}")


#: A line of code that imports the library (``import tensorgrad as tg``, ``from tensorgrad import nn``).
_IMPORTS_LIBRARY = re.compile(r"^[ \t]*(?:import|from)[ \t]+tensorgrad(?![\w])", re.M)


def users(notebooks: list[Path]) -> list[Path]:
    """The notebooks among ``notebooks`` whose code cells import the library."""
    found = []
    for path in notebooks:
        try:
            cells = json.loads(Path(path).read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError, AttributeError):
            continue  # the build or the grader reports an unreadable notebook
        sources = ("".join(c.get("source", "")) if isinstance(c.get("source"), list) else str(c.get("source", ""))
                   for c in cells if isinstance(c, dict) and c.get("cell_type") == "code")
        if any(_IMPORTS_LIBRARY.search(s) for s in sources):
            found.append(Path(path))
    return found


def require_for(notebooks: list[Path], purpose: str = "grading") -> None:
    """Raise :class:`LibraryMissing` if one of ``notebooks`` imports the library and it cannot be found."""
    if package_dir() is None and (using := users(notebooks)):
        more = f" and {len(using) - 1} more" if len(using) > 1 else ""
        require(f"{purpose} {using[0].name}{more}")


def course_dir() -> Path:
    """This package's folder (``.../tensorgrad_course``), which kernels import ``check`` from."""
    return Path(__file__).resolve().parent


def import_roots() -> list[str]:
    """The folders a kernel's ``sys.path`` needs for ``import tensorgrad`` and ``import tensorgrad_course``."""
    folders = [p.parent for p in (package_dir(), course_dir()) if p is not None]
    return [str(p) for p in dict.fromkeys(folders)]
