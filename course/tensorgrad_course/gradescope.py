"""A Gradescope autograder: ``tensorgrad-course gradescope SOLUTION.ipynb... --out autograder.zip``.

The zip is what an instructor uploads to Gradescope as is::

    setup.sh            installs the dependencies (the declared ranges, capped below the next major
                        version: :func:`requirements_for`; they resolve on Python 3.10 to 3.12),
                        then the library and the grader from the wheels inside the zip: never
                        by name, since ``pip install tensorgrad`` installs an unrelated PyPI project
    run_autograder      grades whatever is in /autograder/submission
    solutions/          the instructor's notebooks (the source of the exercise sets)
    exercises/          their released versions, to tell edited locked cells
    wheels/             the wheels of tensorgrad (the library) and tensorgrad-course (the grader)
    config.json         hidden-test visibility, time and memory limits

``run_autograder`` runs :func:`run`: it finds every file in the submission
folder (renamed notebooks, several notebooks, none, a ``.py``: each is
identified by content, :mod:`.identify`), grades them as ``tensorgrad-course
grade`` does, and **always** writes ``/autograder/results/results.json``: a
failure entry when there is nothing to grade or grading itself fails. Public
tests are ``visible``; hidden tests ``after_published`` (or ``hidden``). The
top-level ``output`` is a public summary; one entry visible only to
instructors lists the integrity findings and the sandbox used.

Kernels run in the bubblewrap sandbox when it works in the container
(``setup.sh`` installs ``bubblewrap`` when ``apt-get`` is there); otherwise,
as the container is itself fresh for each submission, without it, and the
instructor-only entry says so.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

from . import library
from .errors import UsageError

VISIBILITIES = ("after_published", "hidden")

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, in /autograder/source, to build the autograder's image.
set -euo pipefail
cd "$(dirname "${{BASH_SOURCE[0]}}")"
PY="${{TG_PYTHON:-python3}}"
if command -v apt-get >/dev/null 2>&1 && ! command -v bwrap >/dev/null 2>&1; then
    # the grader's sandbox for student kernels (run_autograder goes on without it if it cannot run)
    (apt-get update && apt-get install -y bubblewrap) >/dev/null 2>&1 || echo "bubblewrap not installed"
fi
if [[ -z "${{TG_SKIP_DEPS:-}}" ]]; then
    "$PY" -m pip install --no-cache-dir ${{TG_PIP_ARGS:-}} {requirements}
fi
# tensorgrad-autograd (the library) and tensorgrad-course from the wheels in this zip, never by
# name (neither is on PyPI, and a different project owns the name tensorgrad there).
"$PY" -m pip install --no-cache-dir --no-deps ${{TG_PIP_ARGS:-}} {wheels}
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission; it always writes /autograder/results/results.json.
cd "${AUTOGRADER_ROOT:-/autograder}/source" 2>/dev/null || cd "$(dirname "${BASH_SOURCE[0]}")"
exec "${TG_PYTHON:-python3}" -m tensorgrad_course.gradescope run --root "${AUTOGRADER_ROOT:-/autograder}"
"""


def _distributions() -> list[tuple[str, Path]]:
    """The distributions the zip carries as wheels: (name, its package folder)."""
    return [(library.DISTRIBUTION, library.require("building the autograder")),
            ("tensorgrad-course", library.course_dir())]


def requirements_for(requirements: list[str]) -> list[str]:
    """setup.sh's requirements: the declared ranges, one per distribution, each capped below the
    next major version of the one installed here (``numpy>=2.0,<3``).

    Not the build machine's exact versions: those need its Python (numpy 2.4 and IPython 9
    have no release for Python 3.10, the Python of Ubuntu 22.04 images), while the ranges
    the packages declare resolve on every Python they support. The cap keeps a new major
    release, which may break the grader, out of a later build.
    """
    import re

    merged: dict[str, list[str]] = {}
    for requirement in requirements:
        requirement = requirement.split(";")[0].strip()
        match = re.match(r"([A-Za-z0-9._-]+)\s*(.*)", requirement)
        if not match:
            continue
        name, spec = match.group(1), match.group(2).replace(" ", "")
        key = re.sub(r"[-_.]+", "-", name).lower()
        specs = merged.setdefault(key, [])
        specs.extend(part for part in spec.split(",") if part and part not in specs)
    out = []
    for name, specs in merged.items():
        if not any(part.startswith(("<", "==", "~=")) for part in specs):
            try:
                major = int(re.match(r"\d+", metadata.version(name)).group(0))
                specs.append(f"<{major + 1}")
            except (metadata.PackageNotFoundError, AttributeError, ValueError):
                pass
        out.append(name + ",".join(specs))
    return out


def _project(name: str, package: Path) -> dict:
    """Version, dependencies and console scripts of distribution ``name``, whose package is ``package``:
    from the pyproject.toml beside it (a checkout), else from the installed distribution's metadata."""
    pyproject = package.parent / "pyproject.toml"
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the installed metadata (./run installs the checkout)
        tomllib = None
    if tomllib is not None and pyproject.is_file():
        data = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        if data.get("name") == name:
            return {"version": data["version"], "dependencies": data.get("dependencies", []),
                    "scripts": data.get("scripts", {})}
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise UsageError(f"cannot build {name}'s wheel: {package} is neither in a checkout (no pyproject.toml "
                         "beside it) nor installed with pip") from None
    return {"version": dist.version, "dependencies": [r for r in dist.requires or [] if "extra ==" not in r],
            "scripts": {ep.name: ep.value for ep in dist.entry_points if ep.group == "console_scripts"}}


def _wheel(name: str, package: Path, project: dict, into: Path) -> Path:
    """The wheel (pure Python) of distribution ``name``, written from its package folder ``package``.

    Written directly (a wheel is a zip with a ``.dist-info`` folder), so that
    building the autograder needs neither the network nor the ``wheel`` package.
    """
    import base64
    import hashlib

    version = project["version"]
    stem = f"{name.replace('-', '_')}-{version}"
    dist = f"{stem}.dist-info"
    files: dict[str, bytes] = {}
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" not in path.parts:
            files[path.relative_to(package.parent).as_posix()] = path.read_bytes()
    requires = "".join(f"Requires-Dist: {d}\n" for d in project["dependencies"])
    files[f"{dist}/METADATA"] = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{requires}").encode()
    files[f"{dist}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: tensorgrad-course\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{dist}/entry_points.txt"] = (
        "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in project["scripts"].items())).encode()
    record = []
    for arcname, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{arcname},sha256={digest},{len(data)}")
    record.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = ("\n".join(record) + "\n").encode()
    into.mkdir(parents=True, exist_ok=True)
    wheel = into / f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for arcname, data in files.items():
            archive.writestr(zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return wheel


def build_zip(solutions: list[Path], out: Path, *, hidden_visibility: str = "after_published",
              cell_timeout: float = 60.0, notebook_timeout: float = 600.0, memory_mb: int = 2048) -> Path:
    """Write the autograder zip for the exercise sets ``solutions`` (source notebooks)."""
    from . import generate
    from .exercise_set import load_exercise_sets

    if hidden_visibility not in VISIBILITIES:
        raise UsageError(f"hidden-test visibility must be one of {', '.join(VISIBILITIES)}")
    missing = [str(p) for p in solutions if not Path(p).is_file()]
    if missing:
        raise UsageError(f"solution notebook not found: {', '.join(missing)}")
    with tempfile.TemporaryDirectory(prefix="tg-gradescope-") as tmp:
        tmp = Path(tmp)
        (tmp / "solutions").mkdir()
        for path in solutions:
            shutil.copyfile(path, tmp / "solutions" / Path(path).name)
        generate.build(tmp / "solutions", tmp / "exercises")
        load_exercise_sets(tmp / "solutions", tmp / "exercises")  # every authoring error, before a zip exists
        wheels, requirements = [], []
        for name, package in _distributions():
            project = _project(name, package)
            wheels.append(_wheel(name, package, project, tmp / "wheels"))
            requirements += project["dependencies"]
        config = {"hidden_visibility": hidden_visibility, "cell_timeout": cell_timeout,
                  "notebook_timeout": notebook_timeout, "memory_mb": memory_mb}
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            setup = SETUP_SH.format(requirements=" ".join(shlex.quote(r) for r in requirements_for(requirements)),
                                    wheels=" ".join(f"wheels/{w.name}" for w in wheels))
            for name, text in (("setup.sh", setup),
                               ("run_autograder", RUN_AUTOGRADER)):
                info = zipfile.ZipInfo(name)
                info.external_attr = 0o755 << 16
                archive.writestr(info, text)
            archive.writestr("config.json", json.dumps(config, indent=1, sort_keys=True) + "\n")
            for folder in ("solutions", "exercises"):
                for path in sorted((tmp / folder).glob("*.ipynb")):
                    archive.write(path, f"{folder}/{path.name}")
            for wheel in wheels:
                archive.write(wheel, f"wheels/{wheel.name}")
    return out


# --------------------------------------------------------------- in the container


def _failure(message: str) -> dict:
    return {"score": 0, "output": message,
            "tests": [{"name": "Grading", "score": 0, "max_score": 0, "status": "failed",
                       "visibility": "visible", "output": message}]}


#: Statuses of a file that was run against its exercise set (the others were never run: strays).
_RUN = ("graded", "timeout", "kernel_died")


def results_for(results, hidden_visibility: str, sandbox_note: str, duplicates: list[tuple[str, str]] = (),
                notes: list[str] = ()) -> dict:
    """Gradescope's results.json for one student's files.

    Test entries come only from files run against their exercise set, one per set
    (:func:`choose`; ``duplicates`` lists ``(file, the copy graded instead)``). Anything
    else uploaded (a ``.py``, a PDF, an unreadable notebook, a link) is a *stray*: noted in
    the output, never a test entry, so it adds nothing to the maximum. Only when nothing
    at all could be graded does the student get one failure entry saying why.
    """
    from . import reports

    if not results:
        return _failure("No file was uploaded: upload your notebook (.ipynb), as saved from Jupyter.")
    run = [r for r in results if r.status in _RUN and r.tasks]
    strays = [r for r in results if r not in run]
    if not run:
        reasons = "\n".join(f"{reports.plain(Path(r.path).name)}: {r.status}: {reports.plain(r.reason)}"
                            for r in strays)
        data = _failure(f"Nothing could be graded:\n{reasons}\nUpload your notebook (.ipynb), as saved from Jupyter.")
        data["tests"].append(_instructor_entry(strays, sandbox_note, duplicates, notes))
        return data
    data = reports.gradescope(run)
    for test in data["tests"]:
        if test["visibility"] == "after_published":
            test["visibility"] = hidden_visibility
    lines = []
    for r in run:
        if r.status == "graded":
            lines.append(f"{r.notebook}: {reports._num(r.score)}/{reports._num(r.max_score)}")
        else:
            lines.append(f"{reports.plain(Path(r.path).name)}: {r.status}: {reports.plain(r.reason)}")
    for name, kept in duplicates:
        lines.append(f"{reports.plain(name)}: not graded: another copy of the same exercise set "
                     f"({reports.plain(kept)}) was graded instead; upload one notebook per exercise set")
    for r in strays:
        lines.append(f"{reports.plain(Path(r.path).name)}: ignored ({r.status}: {reports.plain(r.reason)})")
    data["output"] = "\n".join(lines)
    data["tests"].append(_instructor_entry(results, sandbox_note, duplicates, notes))
    return data


def _instructor_entry(results, sandbox_note: str, duplicates, notes: list[str] = ()) -> dict:
    from . import reports

    findings = [f"{reports.plain(r.notebook)} {reports.finding_line(None, f)}" for r in results for f in r.integrity]
    findings += [f"duplicate: {reports.plain(name)} not graded ({reports.plain(kept)} was)" for name, kept in duplicates]
    findings += [reports.plain(note) for note in notes]
    return {
        "name": "Integrity findings (instructors only)", "score": 0, "max_score": 0, "visibility": "hidden",
        "output": "\n".join([f"sandbox: {sandbox_note}", *(findings or ["no findings"])]),
    }


def choose(subs, sets) -> tuple[list, list[tuple[str, str]]]:
    """One submission per exercise set: (the ones to grade, [(file not graded, the copy graded)]).

    Of several files of one set, the one whose name is the set's own (``basics.ipynb``) is
    graded, else the one saved last, else the first by name; the others are graded never
    and listed, so that two copies of a 12-point set never score 24.
    """
    from . import identify
    from .grade import _read

    by_set: dict[str, list] = {}
    keep = []
    for sub in subs:
        data, nb_json, problem, exset = _read(sub, sets)
        if nb_json is None or exset is None or problem:
            keep.append(sub)  # a stray: its row says why
            continue
        by_set.setdefault(exset.name, []).append(sub)
    duplicates = []
    for name, group in by_set.items():
        group.sort(key=lambda sub, name=name: identify.copy_rank(sub.path, name))
        keep.append(group[0])
        duplicates += [(Path(sub.path).name, Path(group[0].path).name) for sub in group[1:]]
    return keep, duplicates


def load_grader() -> dict[str, str]:
    """Import every module of the grader now, before any student code runs, and return
    {file: sha256} of their files as imported.

    A module imported later (``from . import reports`` inside a function) would be read from
    disk after the submission ran, and without a sandbox the submission may have rewritten
    it. Imported up front, the grader runs the code it started with; the hashes tell
    afterwards whether its files were changed (:func:`changed_files`).
    """
    import hashlib
    import importlib
    import pkgutil

    import tensorgrad_course

    for info in pkgutil.iter_modules(tensorgrad_course.__path__):
        if info.name not in ("__main__",):
            importlib.import_module(f"tensorgrad_course.{info.name}")
    files = {}
    for name, module in sorted(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and name.split(".")[0] in ("tensorgrad_course", "tensorgrad") and os.path.isfile(path):
            files[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return files


def changed_files(files: dict[str, str]) -> list[str]:
    """The grader's files (from :func:`load_grader`) whose content is no longer what was imported."""
    import hashlib

    changed = []
    for path, digest in files.items():
        try:
            now = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            now = ""
        if now != digest:
            changed.append(path)
    return changed


def _protect(root: Path, user: tuple[int, int, str] | None) -> list[str]:
    """Without a sandbox, as root: only root may enter the autograder's source (solutions,
    config) and results folders. Returns what the kernels' user can still read (nothing, or
    the instructor is told)."""
    from . import sandbox

    if user is None:
        return []
    for folder in (root / "source", root / "results"):
        if folder.is_dir():
            os.chmod(folder, 0o700)
    probes = [p for p in (root / "source").rglob("*") if p.is_file()][:50]
    return sandbox.readable_by(user[0], user[1], probes)


def run(root: Path) -> int:
    """Grade ``root/submission`` with ``root/source``; always write ``root/results/results.json``, last.

    Without a sandbox (the container cannot run bubblewrap) and as root, the student's
    kernels run as an unprivileged user that cannot read ``root/source`` or write
    ``root/results``; every process of that user is killed before results.json is written,
    and the grader's modules are all imported before any kernel starts (:func:`load_grader`).
    """
    results_file = root / "results" / "results.json"
    results_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        from . import guard, sandbox

        grader_files = load_grader()
        from .grade import discover, grade_batch
        from .kernel import Limits

        source = root / "source"
        config = json.loads((source / "config.json").read_text(encoding="utf-8"))
        # The strongest isolation that works in this container (sandbox.mode): nested
        # namespaces, else a bwrap per kernel, else one without /proc (Docker), else none,
        # since the container is itself fresh for each submission; the instructor-only entry says which.
        level, tried = sandbox.mode()
        sandboxed = level is not None
        user = None if sandboxed else sandbox.kernel_user()[0]
        guard.EXTRA_PROTECTED[:] = [str(root.resolve())]  # (the submission's own copy is in the kernel's folder)
        notes = [f"the kernels' user can read {p}" for p in _protect(root, user)]
        limits = Limits(cell_timeout=config["cell_timeout"], notebook_timeout=config["notebook_timeout"],
                        memory_mb=config["memory_mb"], sandbox=sandboxed)
        submission = root / "submission"
        subs = discover([submission]) if submission.is_dir() else []
        from .exercise_set import load_exercise_sets

        subs, duplicates = choose(subs, load_exercise_sets(source / "solutions", source / "exercises"))
        with tempfile.TemporaryDirectory(prefix="tg-gradescope-cache-") as cache:
            results = grade_batch(subs, source / "solutions", source / "exercises", limits, cache_dir=Path(cache)) \
                if subs else []
        if user is not None:
            lingering = sandbox.sweep(user[0])
            if lingering:
                notes.append(f"tampering: the submission left {lingering} process(es) running after its notebook "
                             "ended; they were killed before results.json was written")
        changed = changed_files(grader_files)
        if changed:
            notes.append("tampering: the grader's own files were changed while the submission ran: "
                         + ", ".join(changed) + "; every score of this run is set to 0")
            for r in results:
                r.score = 0.0
                for task in r.tasks:
                    task.points = 0.0
                    task.status, task.reason = "error", "not graded: the grader's files were changed"
                    for test in task.tests:
                        test.points, test.status = 0.0, "error"
        note = sandbox.describe(sandboxed, gradescope=True) + ("" if level == "nested" else f" [probes: {tried}]")
        data = results_for(results, config.get("hidden_visibility", "after_published"), note, duplicates, notes)
        code = 0
    except Exception as exc:  # noqa: BLE001 - Gradescope must always get a results.json
        data = _failure(f"The autograder could not grade this submission ({type(exc).__name__}: {exc}). "
                        "Your instructor can see this message; please let them know.")
        code = 1
    # Last, and whole: a reader sees the old file or this one, never a mix.
    temporary = results_file.with_name(f".results.{os.getpid()}.json")
    temporary.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(temporary, results_file)
    return code


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 3 and argv[0] == "run" and argv[1] == "--root":
        return run(Path(argv[2]))
    print("usage: python -m tensorgrad_course.gradescope run --root /autograder", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
