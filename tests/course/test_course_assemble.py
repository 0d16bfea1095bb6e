"""Matching, assembling and scoring without a kernel (fast): the grader's bookkeeping."""

import copy
import json
import shutil
import types
from pathlib import Path

import pytest
from course_helpers import BASICS, cell_by_id, read_json

from tensorgrad_course import assemble as asm
from tensorgrad_course import generate, grade, guard, identify
from tensorgrad_course.errors import UsageError
from tensorgrad_course.exercise_set import load_exercise_sets
from tensorgrad_course.kernel import CellResult, RunResult

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def built(course):
    generate.build(course / "solutions", course / "exercises")
    sets = load_exercise_sets(course / "solutions", course / "exercises")
    release = read_json(course / "exercises" / "basics.ipynb")
    return sets["basics"], release


def cells_of(nb):
    return asm.submitted_cells(nb)


def test_exercise_set_tasks_points_and_answers(built):
    exset, _ = built
    assert [(t.grade_id, t.points, t.answers, t.hidden) for t in exset.tasks] == [
        ("test_square", 2.0, ("square",), True),
        ("test_mean", 1.0, ("mean",), False),
        ("test_predict", 1.0, ("predict",), False),
    ]
    assert exset.max_score == 4
    assert exset.release_locked == ["intro", "setup", "test_square", "test_mean", "test_predict"]
    assert exset.stubs["square"] == "def square(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()"


def test_honest_release_has_no_findings(built):
    exset, release = built
    assert asm.integrity_findings(exset, cells_of(release)) == []


def test_the_old_module_name_is_read_as_the_new_one():
    assert asm.current_imports("from tensorgrad.course import check\nimport tensorgrad.course.values as V") == (
        "from tensorgrad_course import check\nimport tensorgrad_course.values as V")
    assert asm.current_imports("tensorgrad.courses = my_tensorgrad.course") == "tensorgrad.courses = my_tensorgrad.course"


def test_assembled_notebook_uses_instructor_tests_and_student_answers(built):
    exset, release = built
    student = copy.deepcopy(release)
    cell_by_id(student, "square")["source"] = "def square(x):\n    return x + x"
    cell_by_id(student, "test_square")["source"] = "assert True"  # weakened test
    assembly = asm.assemble(exset, cells_of(student))
    sources = [c.source for c in assembly.notebook.cells]
    protected = guard.protected_folders(str(exset.source_path), exset.name)
    assert sources[0] == guard.setup_source(exset.uses_checks, exset.imports, protected)
    assert protected == (str(exset.source_path.parent.parent),)  # the course folder: solutions, class, output
    assert "def square(x):\n    return x + x" in sources
    assert "assert True" not in sources
    (test_index,) = assembly.indexes(asm.TEST_CELL, "test_square")
    assert "square(-2) == 4" in sources[test_index]  # hidden tests included
    assert sources[test_index - 1] == guard.check_source(None)
    assert sources[test_index + 1] == guard.check_source(None)  # and again after it (assemble.GUARD_AFTER)
    assert [f.kind for f in assembly.findings] == ["edited"]
    assert assembly.findings[0].tampering and assembly.findings[0].grade_id == "test_square"


def test_deleted_duplicated_retyped_cells_are_handled_and_reported(built):
    exset, release = built
    student = copy.deepcopy(release)
    cells = student["cells"]
    square = cell_by_id(student, "square")
    cells.insert(cells.index(square) + 1, dict(square, source="def square(x):\n    return x * x"))
    cell_by_id(student, "mean")["cell_type"] = "markdown"
    cell_by_id(student, "mean")["source"] = "def mean(xs):\n    return sum(xs) / len(xs)"
    cells.remove(cell_by_id(student, "predict"))
    cells.remove(cell_by_id(student, "test_mean"))
    assembly = asm.assemble(exset, cells_of(student))
    kinds = {(f.kind, f.grade_id, f.tampering) for f in assembly.findings}
    assert kinds == {
        ("duplicated", "square", False),
        ("retyped", "mean", False),
        ("deleted", "predict", False),
        ("deleted", "test_mean", True),
    }
    assert len(assembly.indexes(asm.ANSWER_CELL, "square")) == 2
    (mean_index,) = assembly.indexes(asm.ANSWER_CELL, "mean")
    assert assembly.notebook.cells[mean_index].cell_type == "code"  # run as the instructor's type
    (predict_index,) = assembly.indexes(asm.ANSWER_CELL, "predict")
    assert assembly.notebook.cells[predict_index].source == exset.stubs["predict"]  # never the solution
    assert assembly.missing_answers == {"predict"} and assembly.retyped_answers == {"mean"}
    assert len(assembly.indexes(asm.TEST_CELL, "test_mean")) == 1  # the instructor's test still runs


def test_whitespace_only_changes_to_a_test_cell_are_not_tampering(built):
    exset, release = built
    student = copy.deepcopy(release)
    cell = cell_by_id(student, "test_mean")
    cell["source"] = "\n" + source_text(cell).replace("\n", "   \n") + "\n\n"
    assert asm.integrity_findings(exset, cells_of(student)) == []


def source_text(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


# ------------------------------------------------------------------- matching


def test_a_single_set_matches_by_name_or_by_grade_ids(built):
    exset, release = built
    sets = {"basics": exset}
    plain = {"cells": [{"cell_type": "code", "source": "", "metadata": {}}]}
    assert identify.identify("x/basics.ipynb", plain, set(), sets).exset is exset
    assert identify.identify("x/alice.ipynb", plain, {"square"}, sets).how == "grade ids"
    match = identify.identify("x/alice.ipynb", plain, {"nope"}, sets)
    assert match.exset is None and "names no set" in match.problem


def test_the_build_writes_the_sets_name_and_course_unique_cell_ids(built):
    exset, release = built
    assert release["metadata"]["tensorgrad"] == {"exercise_set": "basics"}
    assert exset.unique_ids == exset.cell_ids and {c["id"] for c in release["cells"]} <= exset.cell_ids


def test_ids_shared_by_two_sets_are_renamed_in_the_student_versions(course):
    shutil.copy(course / "solutions" / "basics.ipynb", course / "solutions" / "copy_of_basics.ipynb")
    generate.build(course / "solutions", course / "exercises")
    a, b = (read_json(course / "exercises" / f"{n}.ipynb") for n in ("basics", "copy_of_basics"))
    assert not {c["id"] for c in a["cells"]} & {c["id"] for c in b["cells"]}
    sets = load_exercise_sets(course / "solutions", course / "exercises")
    for name, nb in (("basics", a), ("copy_of_basics", b)):
        assert identify.identify("renamed.ipynb", nb, set(), sets).exset is sets[name]
        del nb["metadata"]["tensorgrad"]
        assert identify.identify("renamed.ipynb", nb, set(), sets).how == "cell ids"


@pytest.mark.parametrize("file_name", [
    "03_exercises_chain_rule.ipynb", "03_exercises_chain_rule-Copy1.ipynb",
    "03_exercises_chain_rule (1).ipynb", "exercises_chain_rule.ipynb",
    "smithjane_12345_678901_03_exercises_chain_rule.ipynb",
    "smithjane_LATE_12345_678901_03_exercises_chain_rule-1.ipynb",
    "Jane Smith_12345_assignsubmission_file_03_exercises_chain_rule.ipynb",
    "03_Exercises_Chain_Rule - Copy.ipynb", "03_exercises_chain_rule.ipynb.json",
    # the set's earlier name, from before sets were named apart from their lessons
    "03_chain_rule.ipynb", "03_chain_rule-Copy1.ipynb", "03_chain_rule (1).ipynb", "chain_rule.ipynb",
    "smithjane_12345_678901_03_chain_rule.ipynb", "smithjane_LATE_12345_678901_03_chain_rule-1.ipynb",
    "Jane Smith_12345_assignsubmission_file_03_chain_rule.ipynb", "03_Chain_Rule - Copy.ipynb",
    "03_chain_rule.ipynb.json",
])
def test_file_names_from_course_sites_name_their_set(file_name):
    sets = {n: types.SimpleNamespace(short_name=n) for n in
            ("01_exercises_computation_graphs", "03_exercises_chain_rule", "04_exercises_scalar_backward",
             "05_exercises_vector_backward", "training", "pre_training")}
    assert identify.set_names_in(file_name, sets) == ["03_exercises_chain_rule"]
    assert identify.set_names_in("my_pre_training.ipynb", sets) == ["pre_training"]
    assert identify.set_names_in("backward.ipynb", sets) == []
    assert identify.set_names_in("04_scalar_backward_and_05_exercises_vector_backward.ipynb", sets) == [
        "04_exercises_scalar_backward", "05_exercises_vector_backward"]


def test_a_submission_of_a_set_under_its_earlier_name_is_still_matched():
    """A student who downloaded set 03 before the sets were renamed hands in
    ``03_chain_rule.ipynb``, whose metadata names ``03_chain_rule``: it is the set
    ``03_exercises_chain_rule``, by its metadata, by its cells (their ids did not change), and
    by its file name alone; the Chinese edition's earlier name ``zh/03_chain_rule`` likewise."""
    sets = load_exercise_sets(ROOT / "solutions", ROOT / "exercises")
    for edition in ("", "zh/"):
        path = ROOT / "exercises" / f"{edition}03_exercises_chain_rule.ipynb"
        submitted = read_json(path)
        submitted["metadata"]["tensorgrad"]["exercise_set"] = f"{edition}03_chain_rule"
        wanted = sets[f"{edition}03_exercises_chain_rule"]
        match = identify.identify("alice/03_chain_rule.ipynb", submitted, set(), sets)
        assert (match.exset, match.how) == (wanted, "metadata")
        del submitted["metadata"]["tensorgrad"]
        match = identify.identify("alice/03_chain_rule.ipynb", submitted, set(), sets)
        assert (match.exset, match.how) == (wanted, "cell ids")
        for cell in submitted["cells"]:
            del cell["id"]
        submitted["nbformat_minor"] = 4
        match = identify.identify("alice/03_chain_rule.ipynb", submitted, set(), sets)
        assert (match.exset, match.how) == (wanted, "file name")
    # the metadata of another set's earlier name is not taken for this one
    submitted = read_json(ROOT / "exercises" / "03_exercises_chain_rule.ipynb")
    submitted["metadata"]["tensorgrad"]["exercise_set"] = "04_scalar_backward"
    assert identify.identify("x.ipynb", submitted, set(), sets).exset is None


@pytest.mark.parametrize("name, data, words", [
    ("a.ipynb", b"", "empty file (0 bytes)"),
    ("a.ipynb", b"\n  \n", "empty file"),
    ("a.pdf", b"%PDF-1.7 ...", "a PDF, not a notebook"),
    ("a.py", b"import tensorgrad\n", "a Python script (.py), not a notebook"),
    ("a.zip", b"PK\x03\x04....", "a zip archive"),
    ("a.txt", b"my answers", "a .txt file, not a notebook"),
])
def test_files_that_are_not_notebooks_get_a_reason(name, data, words):
    assert words in identify.not_a_notebook(name, data)
    assert "upload" in identify.not_a_notebook(name, data) or "unpack" in identify.not_a_notebook(name, data)


def test_contradicting_or_ambiguous_evidence_is_unmatched(course):
    shutil.copy(course / "solutions" / "basics.ipynb", course / "solutions" / "other.ipynb")
    generate.build(course / "solutions", course / "exercises")
    sets = load_exercise_sets(course / "solutions", course / "exercises")
    a, b = (read_json(course / "exercises" / f"{n}.ipynb") for n in ("basics", "other"))
    forged = copy.deepcopy(b)
    forged["metadata"]["tensorgrad"]["exercise_set"] = "basics"
    match = identify.identify("basics.ipynb", forged, set(), sets)
    assert match.exset is None and "metadata names exercise set 'basics' but its cells are those of 'other'" in match.problem
    mixed = copy.deepcopy(a)
    del mixed["metadata"]["tensorgrad"]
    mixed["cells"] += b["cells"]
    match = identify.identify("basics.ipynb", mixed, set(), sets)
    assert match.exset is None and "several exercise sets" in match.problem
    bare = {"cells": [], "metadata": {}}
    assert "fits several" in identify.identify("basics_other.ipynb", bare, set(), sets).problem
    unknown = {"cells": [], "metadata": {"tensorgrad": {"exercise_set": "gone"}}}
    match = identify.identify("x.ipynb", unknown, set(), sets)
    assert match.exset is None and "'gone', which is not in the solutions" in match.problem


def test_discover_files_and_folders(tmp_path):
    (tmp_path / "flat").mkdir()
    (tmp_path / "flat" / "alice.ipynb").write_text("{}")
    (tmp_path / "nested" / "bob").mkdir(parents=True)
    (tmp_path / "nested" / "bob" / "basics.ipynb").write_text("{}")
    (tmp_path / "nested" / "bob" / ".ipynb_checkpoints").mkdir()
    (tmp_path / "nested" / "bob" / ".ipynb_checkpoints" / "basics-checkpoint.ipynb").write_text("{}")
    (tmp_path / "carol.json").write_text("{}")
    (tmp_path / "flat" / "dave.py").write_text("x = 1")
    (tmp_path / "flat" / ".DS_Store").write_text("")
    (tmp_path / "flat" / "__MACOSX").mkdir()
    (tmp_path / "flat" / "__MACOSX" / "._alice.ipynb").write_text("")
    subs = grade.discover([tmp_path / "flat", tmp_path / "nested", tmp_path / "carol.json", tmp_path / "flat"])
    assert [(s.student, s.path.split("/")[-1]) for s in subs] == [
        ("alice", "alice.ipynb"), ("bob", "basics.ipynb"), ("carol", "carol.json"), ("dave", "dave.py"),
    ]
    with pytest.raises(UsageError, match="submission not found"):
        grade.discover([tmp_path / "missing.ipynb"])


# -------------------------------------------------------------------- scoring


def run_with(assembly, outcomes, **kw):
    """A RunResult where every code cell is ok except those given by (role, grade_id)."""
    cells = {}
    for index, (cell_role, gid) in enumerate(assembly.roles):
        if assembly.notebook.cells[index].cell_type == "code":
            cells[index] = outcomes.get((cell_role, gid), CellResult("ok"))
    for index in list(cells):
        if kw.get("stopped_at") is not None and index >= kw["stopped_at"]:
            del cells[index]
    return RunResult(cells=cells, **kw)


def test_statuses_from_execute_replies(built):
    exset, release = built
    assembly = asm.assemble(exset, cells_of(release))
    run = run_with(assembly, {
        ("test", "test_square"): CellResult("error", "AssertionError", "square(3) should be 9"),
        ("answer", "mean"): CellResult("error", "NotImplementedError", ""),
        ("test", "test_mean"): CellResult("error", "NameError", "name 'mean' is not defined"),
        ("test", "test_predict"): CellResult("error", "ValueError", "bad"),
    })
    results = {t.grade_id: t for t in grade.score(exset, assembly, run)}
    # test_square has hidden tests: its assertion's message could give their values away.
    assert (results["test_square"].status, results["test_square"].reason) == ("failed", "the test stopped with AssertionError (hidden tests show no details)")
    assert results["test_mean"].status == "not_attempted"
    assert "still raises NotImplementedError" in results["test_mean"].reason
    assert (results["test_predict"].status, results["test_predict"].reason) == ("error", 'ValueError: "bad"')
    assert all(t.points == 0 for t in results.values())


def test_tasks_not_reached_after_a_dead_kernel(built):
    exset, release = built
    assembly = asm.assemble(exset, cells_of(release))
    (stop,) = assembly.indexes(asm.ANSWER_CELL, "mean")
    run = run_with(assembly, {}, outcome="kernel_died", reason="the kernel exited with code 1", stopped_at=stop)
    results = {t.grade_id: t for t in grade.score(exset, assembly, run)}
    assert results["test_square"].status == "passed" and results["test_square"].points == 2
    for gid in ("test_mean", "test_predict"):
        assert results[gid].status == "error" and results[gid].points == 0
        assert results[gid].reason == "not run: the kernel exited with code 1 (at your answer cell 'mean')"


def test_manual_cells_are_listed_but_not_scored(tmp_path):
    from course_helpers import answer, graded, make_notebook, nbg
    import nbformat

    manual = nbformat.v4.new_markdown_cell("### BEGIN SOLUTION\nx\n### END SOLUTION",
                                           metadata=nbg("essay", solution=True, grade=True, points=3))
    make_notebook([answer("a", "x = 1"), graded("t", "assert x == 1"), manual], tmp_path / "s" / "m.ipynb")
    exset = load_exercise_sets(tmp_path / "s", None)["m"]
    assert exset.manual == [("essay", 3.0)] and exset.max_score == 1
    assembly = asm.assemble(exset, [])
    results = grade.score(exset, assembly, run_with(assembly, {}))
    assert [(t.grade_id, t.status) for t in results] == [("t", "passed"), ("essay", "manual")]


def test_fixture_is_plain_python():
    assert "tensorgrad" not in json.dumps(read_json(BASICS))


def test_a_file_name_that_fits_both_editions_of_a_set_goes_by_the_notebooks_language():
    sets = {n: types.SimpleNamespace(short_name=n.split("/")[-1], all_ids=set(), unique_ids=frozenset(), name=n)
            for n in ("03_exercises_chain_rule", "zh/03_exercises_chain_rule", "04_exercises_scalar_backward")}
    assert identify.set_names_in("smithjane_1_2_03_chain_rule.ipynb", sets) == [
        "03_exercises_chain_rule", "zh/03_exercises_chain_rule"]

    def notebook(text):  # nbformat 4.4 and stripped: no metadata, no cell ids
        return {"cells": [{"cell_type": "markdown", "source": text}], "metadata": {}}

    chinese = notebook("## 任务 1：先求局部导数，再相乘（代码，2 分）\n\n取 $y = \\sin(x^2)$，拆成两步。")
    english = notebook("## Task 1: Local derivatives, then multiply (code, 2 points)")
    name = "smithjane_1_2_03_chain_rule.ipynb"
    assert identify.identify(name, chinese, set(), sets).exset is sets["zh/03_exercises_chain_rule"]
    assert identify.identify(name, english, set(), sets).exset is sets["03_exercises_chain_rule"]
    # unreadable (invalid JSON): the English edition, whose tasks and points the editions share
    assert identify.set_by_name(name, sets) is sets["03_exercises_chain_rule"]
    # two different sets are still not told apart by language
    assert identify.identify("03_chain_rule_04_exercises_scalar_backward.ipynb", chinese, set(), sets).exset is None
