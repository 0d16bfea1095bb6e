"""The course tooling is a distribution of its own (course/): the library ships no grader, and
installing ``tensorgrad-course`` alone is enough for the command to run.

* the library's package list, as setuptools builds it, holds no grader, and its metadata no
  ``tensorgrad-course`` script;
* every module the tooling imports outside the standard library is declared in
  ``course/pyproject.toml``, and never the library by name (PyPI's ``tensorgrad`` is another project);
* a missing dependency, or a missing library when grading, is one ``error:`` line and exit 2;
* ``pip install course/`` into a fresh venv (its dependencies from wheels repacked from this
  venv, so that no download is needed but the build backend's) runs ``--help`` and ``build``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from course_helpers import BASICS

import tensorgrad_course
from tensorgrad_course import cli, library

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "course"
PACKAGE = Path(tensorgrad_course.__file__).resolve().parent


def _toml(path: Path) -> dict:
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads(path.read_text(encoding="utf-8"))


def test_the_library_builds_without_the_grader(tmp_path):
    # A copy of the checkout's library and course folders, built by setuptools as a wheel would be.
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    for name in ("tensorgrad", "course"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-c", "import setuptools; setuptools.setup()", "-q", "build_py", "-d", str(out)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    built = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.py"))
    assert "tensorgrad/derivatives.py" in built and "tensorgrad/core/engine.py" in built
    assert not [p for p in built if "course" in p or "grade" in p], "the library's wheel would carry the grader"
    project = _toml(ROOT / "pyproject.toml")["project"]
    assert "tensorgrad-course" not in project.get("scripts", {})
    assert not any("course" in ep for group in project.get("entry-points", {}).values() for ep in group.values())
    assert not (ROOT / "tensorgrad" / "course").exists()


def _third_party_imports(package: Path) -> dict[str, set[str]]:
    """Top-level modules outside the standard library that the package's modules import."""
    found: dict[str, set[str]] = {}
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "tensorgrad_course":
                    found.setdefault(top, set()).add(path.name)
    return found


def test_every_import_is_a_declared_dependency_and_the_library_is_not():
    project = _toml(COURSE / "pyproject.toml")["project"]
    assert project["name"] == "tensorgrad-course"
    assert project["scripts"] == {"tensorgrad-course": "tensorgrad_course.cli:main"}
    declared = {re.match(r"[A-Za-z0-9._-]+", d).group(0).lower().replace("_", "-") for d in project["dependencies"]}
    assert "tensorgrad" not in declared  # a different project owns the name on PyPI
    imports = _third_party_imports(PACKAGE)
    assert "tensorgrad" not in imports, f"the tooling imports the library: {imports.get('tensorgrad')}"
    assert set(imports) <= set(cli.DEPENDENCIES), f"imported but not in cli.DEPENDENCIES: {set(imports) - set(cli.DEPENDENCIES)}"
    wanted = {d.lower().replace("_", "-") for d in cli.DEPENDENCIES.values()}
    assert wanted <= declared, f"not declared in course/pyproject.toml: {wanted - declared}"


# A subprocess in which the given top-level modules cannot be imported (as if not installed).
BLOCKED = """
import sys
blocked = set(sys.argv[1].split(","))

class Block:
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Block())
for name in list(sys.modules):
    if name.split(".")[0] in blocked | {"tensorgrad_course"}:
        del sys.modules[name]
from tensorgrad_course.cli import main
sys.exit(main(sys.argv[2:]))
"""


def run_blocked(blocked: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCKED, blocked, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)})


@pytest.mark.parametrize("module, command", [
    ("nbformat", "build"), ("numpy", "grade"), ("nbclient", "grade"), ("zmq", "grade"), ("IPython", "grade"),
])
def test_a_missing_dependency_is_one_error_line(tmp_path, module, command):
    (tmp_path / "solutions").mkdir()
    shutil.copy(BASICS, tmp_path / "solutions" / "basics.ipynb")
    args = ["build"] if command == "build" else ["grade", str(tmp_path / "solutions"), "--no-sandbox",
                                                  "--out", str(tmp_path / "out")]
    done = run_blocked(module, *args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert lines == [f"error: tensorgrad-course needs {module}, which is not installed "
                     f"(pip install {cli.DEPENDENCIES[module]}; installing tensorgrad-course with pip brings "
                     "every dependency)"], done.stderr
    assert not (tmp_path / "out").exists()


def test_help_needs_no_dependency(tmp_path):
    done = run_blocked(",".join(cli.DEPENDENCIES), "--help", cwd=tmp_path)
    assert done.returncode == 0 and "build" in done.stdout and not done.stderr


def solutions_using_the_library(folder: Path) -> Path:
    """solutions/ with the basics set and a copy of it whose first cell imports tensorgrad."""
    (folder / "solutions").mkdir()
    shutil.copy(BASICS, folder / "solutions" / "basics.ipynb")
    nb = json.loads(BASICS.read_text())
    nb["cells"].insert(0, {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                           "source": ["import numpy as np\n", "import tensorgrad as tg\n"]})
    (folder / "solutions" / "uses_tg.ipynb").write_text(json.dumps(nb))
    return folder / "solutions"


def test_grading_without_the_library_says_so_in_one_line(tmp_path):
    solutions_using_the_library(tmp_path)
    for args in (["grade", "solutions", "--no-sandbox", "--out", "out"], ["nbgrader", "--out", "nbg"],
                 ["gradescope", "solutions/basics.ipynb", "--out", "a.zip"]):
        done = run_blocked("tensorgrad", *args, cwd=tmp_path)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        (line,) = done.stderr.splitlines()
        assert line.startswith("error: ") and "needs the tensorgrad library, which is not installed here" in line
        assert "pip install -e . (the distribution tensorgrad-autograd), never pip install tensorgrad" in line
        assert ("uses_tg.ipynb" in line) == (args[0] != "gradescope")
    assert not {"out", "nbg", "a.zip"} & {p.name for p in tmp_path.iterdir()}
    # Building exercises needs nothing of the library.
    assert run_blocked("tensorgrad", "build", cwd=tmp_path).returncode == 0


def test_which_notebooks_import_the_library(tmp_path):
    folder = solutions_using_the_library(tmp_path)
    assert library.users(sorted(folder.glob("*.ipynb"))) == [folder / "uses_tg.ipynb"]


def test_a_folder_named_tensorgrad_that_is_not_the_library_is_refused(tmp_path, monkeypatch):
    (tmp_path / "tensorgrad").mkdir()
    (tmp_path / "tensorgrad" / "__init__.py").write_text("")  # like PyPI's unrelated tensorgrad
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tensorgrad", raising=False)  # found anew, not the one imported
    assert library.package_dir() is None
    with pytest.raises(library.LibraryMissing, match="another project of the same name"):
        library.require()


# ------------------------------------------------------------------ a fresh venv


def _requirements(dist) -> list[str]:
    from packaging.requirements import Requirement

    names = []
    for text in dist.requires or []:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            names.append(req.name)
    return names


def _repack(dist, into: Path) -> None:
    """A wheel of an installed distribution, from the files its RECORD lists (scripts are
    regenerated by pip from entry_points.txt)."""
    info = Path(dist._path).name  # noqa: SLF001 - the .dist-info folder's name
    tags = [line.split(":", 1)[1].strip() for line in (dist.read_text("WHEEL") or "").splitlines()
            if line.startswith("Tag:")]
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"])
    files = [f for f in dist.files or [] if ".." not in f.parts and "__pycache__" not in f.parts
             and f.parts[-1] not in ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json")]
    with zipfile.ZipFile(into / f"{name}-{dist.version}-{tags[0]}.whl", "w", zipfile.ZIP_STORED) as archive:
        for f in files:
            archive.write(dist.locate_file(f), f.as_posix())
        archive.writestr(f"{info}/RECORD", "".join(f"{f.as_posix()},,\n" for f in files) + f"{info}/RECORD,,\n")


def test_installing_the_course_folder_alone_is_enough(tmp_path):
    start = time.monotonic()
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    todo, done, pins = list(_requirements(metadata.distribution("tensorgrad-course"))), set(), []
    while todo:
        dist = metadata.distribution(todo.pop())
        key = dist.metadata["Name"].lower().replace("_", "-")
        if key in done:
            continue
        done.add(key)
        assert key != "tensorgrad"
        _repack(dist, wheels)
        pins.append(f"{key}=={dist.version}")
        todo += _requirements(dist)
    (tmp_path / "pins.txt").write_text("\n".join(pins) + "\n")
    repacked = time.monotonic()
    shutil.copytree(COURSE, tmp_path / "course", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    # Dependencies only from the wheels above (pinned); the index is asked only for the build
    # backend (setuptools), which pip caches.
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-compile", "--disable-pip-version-check",
         "--find-links", str(wheels), "--constraint", str(tmp_path / "pins.txt"), str(tmp_path / "course")],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PIP_CONSTRAINT": ""})
    if install.returncode != 0 and re.search(r"setuptools|wheel", install.stderr) and \
            re.search(r"Could not find a version|No matching distribution|connection", install.stderr, re.I):
        pytest.skip(f"pip could not get the build backend: {install.stderr.strip().splitlines()[-1]}")
    assert install.returncode == 0, install.stderr
    print(f"repacked {len(pins)} wheels in {repacked - start:.1f} s, installed in {time.monotonic() - repacked:.1f} s")
    script = venv / "bin" / "tensorgrad-course"
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    assert subprocess.run([str(python), "-c", "import tensorgrad"], cwd=tmp_path, env=env,
                          capture_output=True).returncode != 0
    helped = subprocess.run([str(script), "--help"], env=env, capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "build" in helped.stdout, helped.stderr
    (tmp_path / "solutions").mkdir()
    shutil.copy(BASICS, tmp_path / "solutions" / "basics.ipynb")
    built = subprocess.run([str(script), "build"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert built.returncode == 0 and "build: 1 written" in built.stdout, built.stderr
    assert json.loads((tmp_path / "exercises" / "basics.ipynb").read_text())["cells"]
    # It grades a set that does not need the library (the instructor's own solution, submitted) ...
    graded = subprocess.run([str(script), "grade", "solutions", "--no-sandbox", "--no-progress"], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=120)
    assert graded.returncode == 0, graded.stderr
    assert "Graded 1" in graded.stdout and json.loads((tmp_path / "grades" / "report.json").read_text())
    # ... and says in one line that a set importing tensorgrad needs the library.
    (tmp_path / "with_tg").mkdir()
    solutions_using_the_library(tmp_path / "with_tg")
    refused = subprocess.run([str(script), "grade", "solutions", "--no-sandbox"], cwd=tmp_path / "with_tg", env=env,
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stderr.startswith("error: grading uses_tg.ipynb needs the tensorgrad")
    assert len(refused.stderr.splitlines()) == 1
    assert time.monotonic() - start < 120
