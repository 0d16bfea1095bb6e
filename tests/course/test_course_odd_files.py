"""A batch with every kind of odd file name and odd notebook JSON: none of them stops it.

File names are anyone's bytes: not UTF-8, 255 bytes long (the most a name may have), with
control characters, or two names that differ only in characters a safe file name drops (and
one that *is* another's safe name). Notebook JSON is anyone's too: a list where an object
belongs, at every level the grader reads. The batch must grade everyone else, exit 0 and
write every report as for a clean batch; each odd notebook gets one row that says what is
wrong with it; and every student gets results files of their own (as many Gradescope
results files as students, as many JSON files as submissions).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from course_helpers import BASICS, cell_by_id

from tensorgrad_course import generate, reports
from tensorgrad_course.cli import main

HONEST = {"square": "def square(x):\n    return x * x", "mean": "def mean(xs):\n    return sum(xs) / len(xs)",
          "predict": "leaf = True"}

#: Student folders (as bytes) that each hold an honest basics.ipynb.
ODD_NAMES = [
    b"caf\xe9",  # Latin-1, not UTF-8
    b"nonutf\xff\xfe",
    b"y" * 255,  # the longest name a folder may have
    b"tab\there",
    b"bell\x07and\x1bescape",
    b"a b", b"a?b", b"a*b", b"a:b",  # differ only in what the safe name drops
    b"ann",
]


def _odd_json(nb: dict) -> dict[str, bytes]:
    """file stem -> bytes of a notebook whose JSON has an odd shape somewhere the grader reads."""
    def changed(edit) -> bytes:
        copy = json.loads(json.dumps(nb))
        edit(copy)
        return json.dumps(copy).encode()

    answer = next(i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("solution"))
    return {
        "meta_list": changed(lambda n: n["cells"][answer].__setitem__("metadata", ["not", "a", "dict"])),
        "nbgrader_list": changed(lambda n: n["cells"][answer]["metadata"].__setitem__("nbgrader", ["x"])),
        "grade_id_list": changed(lambda n: n["cells"][answer]["metadata"]["nbgrader"].__setitem__("grade_id", [1])),
        "notebook_meta_list": changed(lambda n: n.__setitem__("metadata", [1, 2])),
        "tensorgrad_meta_str": changed(lambda n: n["metadata"].__setitem__("tensorgrad", "basics")),
        "cell_is_list": changed(lambda n: n["cells"].__setitem__(0, ["cell"])),
        "cell_is_null": changed(lambda n: n["cells"].append(None)),
        "source_dict": changed(lambda n: n["cells"][answer].__setitem__("source", {"a": 1})),
        "source_numbers": changed(lambda n: n["cells"][answer].__setitem__("source", [1, 2])),
        "outputs_dict": changed(lambda n: n["cells"][answer].__setitem__("outputs", {})),
        "cells_dict": changed(lambda n: n.__setitem__("cells", {})),
        "json_list": b"[1, 2, 3]",
        "json_broken": json.dumps(nb).encode()[:-40],
        "json_deep": b'{"cells": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    }


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("odd")
    (root / "solutions").mkdir()
    shutil.copy(BASICS, root / "solutions" / "basics.ipynb")
    generate.build(root / "solutions", root / "exercises")
    nb = json.loads((root / "exercises" / "basics.ipynb").read_text())
    for gid, source in HONEST.items():
        cell_by_id(nb, gid)["source"] = source
    honest = json.dumps(nb).encode()
    klass = os.fsencode(root / "class")
    os.makedirs(klass)
    names = [*ODD_NAMES, os.fsencode(reports.safe_name("a b"))]  # a name that is another's safe name
    for name in names:
        os.makedirs(os.path.join(klass, name))
        with open(os.path.join(klass, name, b"basics.ipynb"), "wb") as fh:
            fh.write(honest)
    with open(os.path.join(klass, b"x" * 249 + b".ipynb"), "wb") as fh:  # a 255-byte file name
        fh.write(honest)
    odd = _odd_json(nb)
    for stem, data in odd.items():
        os.makedirs(os.path.join(klass, os.fsencode(stem)))
        with open(os.path.join(klass, os.fsencode(stem), b"basics.ipynb"), "wb") as fh:
            fh.write(data)
    out = root / "out"
    code = main(["grade", "--solutions", str(root / "solutions"), "--exercises", str(root / "exercises"),
                 "--out", str(out), "--jobs", "2", "--no-progress", os.fsdecode(klass)])
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return {"code": code, "out": out, "report": report, "honest": len(names) + 1, "odd": odd,
            "by_student": {s["submission"]["student"]: s for s in report["submissions"]}}


def test_the_batch_ends_as_a_clean_batch_does(batch):
    assert batch["code"] == 0
    counts = batch["report"]["counts"]
    assert counts == {"graded": batch["honest"], "invalid_notebook": len(batch["odd"])}, counts
    assert (batch["out"] / "summary.txt").is_file() and list((batch["out"] / "csv").glob("*.csv"))


def test_every_honest_student_is_graded_in_full(batch):
    graded = [s for s in batch["report"]["submissions"] if s["status"] == "graded"]
    assert len(graded) == batch["honest"] and all(s["score"] == s["max_score"] == 4 for s in graded), graded


@pytest.mark.parametrize("stem", sorted(_odd_json(json.loads(BASICS.read_text()))))
def test_each_odd_notebook_gets_one_clear_row(batch, stem):
    row = batch["by_student"][stem]
    assert row["status"] == "invalid_notebook" and row["score"] == 0, row
    assert row["reason"].startswith("not a notebook"), row["reason"]
    assert "could not read" not in row["reason"]  # (said what is wrong, not only that something is)


def test_odd_names_keep_students_apart(batch):
    students = set(batch["by_student"])
    assert len(students) == len(batch["report"]["submissions"])
    assert any(s.startswith("caf\\xe9-") for s in students) and "a b" in students and "a?b" in students
    assert all(s.isprintable() or "\t" in s or "\x07" in s for s in students)


def test_as_many_results_files_as_students(batch):
    out = batch["out"]
    students = len(batch["by_student"])
    gradescope = list((out / "gradescope").glob("*/results.json"))
    assert len(gradescope) == students
    assert len(list((out / "json").glob("*/*.json"))) == students  # one submission each
    assert all(len(p.parent.name.encode()) < 200 for p in gradescope)
    for path in gradescope:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert len([t for t in data["tests"] if t.get("max_score")]) >= 1
