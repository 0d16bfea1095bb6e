"""Every student has one row per set, and no set counts twice (session-13 review, findings 9 and 10).

- Two copies of one set in a student's folder (``03...ipynb`` and Jupyter's ``03...-Copy1.ipynb``),
  or a file ``grace.ipynb`` next to a folder ``grace/``: ``grade --format gradescope`` wrote one
  results.json scoring 24 of a 12-point set. One copy counts (chosen as the autograder chooses);
  the other is listed in the results' output; the maxima add up to the set's points exactly.
- A student folder holding only a Jupyter checkpoint or a ``__MACOSX`` copy, or a hidden file in
  the class folder, gave no row at all: the instructor read "did not submit".
"""

import json
import math
import os
from pathlib import Path

from course_helpers import answered, read_json, two_set_course

from tensorgrad_course.cli import main
from tensorgrad_course.grade import discover


def _grade(root: Path, subs: Path, out: Path) -> int:
    return main(["grade", "--solutions", str(root / "solutions"), "--exercises", str(root / "exercises"),
                 str(subs), "--out", str(out), "--no-progress", "--jobs", "1"])


def test_two_copies_of_a_set_count_once_in_the_gradescope_report(tmp_path):
    basics, _ = two_set_course(tmp_path)
    honest = answered(read_json(tmp_path / "solutions" / "basics.ipynb"), basics)
    subs = tmp_path / "subs"
    (subs / "zed").mkdir(parents=True)
    (subs / "zed" / "basics.ipynb").write_text(json.dumps(honest))
    (subs / "zed" / "basics-Copy1.ipynb").write_text(json.dumps(honest))
    (subs / "grace").mkdir()
    (subs / "grace" / "basics.ipynb").write_text(json.dumps(honest))
    (subs / "grace.ipynb").write_text(json.dumps(honest))
    os.utime(subs / "grace.ipynb", (1, 1))  # older: the folder's copy is the one counted
    assert _grade(tmp_path, subs, tmp_path / "out") == 0
    points = read_json(tmp_path / "out" / "report.json")["submissions"][0]["max_score"]
    for student in ("zed", "grace"):
        results = read_json(tmp_path / "out" / "gradescope" / student / "results.json")
        maxima = [t["max_score"] for t in results["tests"]]
        assert results["score"] == points and sum(maxima) == points and math.fsum(maxima) == points, results
        assert "not counted, another copy of the same set was" in results["output"], results


def test_maxima_add_up_exactly_whatever_the_split():
    from tensorgrad_course.reports import exact_maxima

    set03 = [(2, [2 / 3] * 3), (2, [1, 1]), (3, [0.6] * 5), (2, [1, 1]), (3, [0.6] * 5)]
    for total, tasks in [(12, set03), (4, [(4, [4 / 3] * 3)]), (1, [(1, [0.1] * 10)]), (13, [(12, [12 / 7] * 7), (1, [1 / 3] * 3)])]:
        split = exact_maxima(total, tasks)
        flat = [m for part in split for m in part]
        assert sum(flat) == total and math.fsum(flat) == total, (total, split)
        assert all(sum(part) == p for part, (p, _) in zip(split, tasks)), split
        shares = [s for _, part in tasks for s in part]
        assert all(abs(m - s) < 0.001 for m, s in zip(flat, shares)), (flat, shares)


def test_a_student_with_only_skipped_files_still_gets_a_row(tmp_path):
    basics, _ = two_set_course(tmp_path)
    subs = tmp_path / "subs"
    text = json.dumps(basics)
    for rel in ("ann/basics.ipynb", "dave/.ipynb_checkpoints/basics-checkpoint.ipynb",
                "erin/__MACOSX/basics.ipynb", ".hidden_frank.ipynb", "__MACOSX/._ann", ".DS_Store"):
        (subs / rel).parent.mkdir(parents=True, exist_ok=True)
        (subs / rel).write_text(text)
    (subs / "gus").mkdir()
    found = {s.student: s for s in discover([subs])}
    assert sorted(found) == [".hidden_frank", "ann", "dave", "erin", "gus"], sorted(found)
    assert _grade(tmp_path, subs, tmp_path / "out") == 0
    rows = {r["submission"]["student"]: r for r in read_json(tmp_path / "out" / "report.json")["submissions"]}
    assert sorted(rows) == [".hidden_frank", "ann", "dave", "erin", "gus"], sorted(rows)
    assert "only files the grader skips" in rows["dave"]["reason"] and "checkpoint" in rows["dave"]["reason"]
    assert "only files the grader skips" in rows["erin"]["reason"]
    assert "the folder is empty" in rows["gus"]["reason"]
    summary = (tmp_path / "out" / "summary.txt").read_text()
    assert "dave" in summary and "erin" in summary


def test_grade_warns_when_the_released_exercises_give_predictions_away(tmp_path, capsys):
    """The default build's fingerprints let anyone hash guessed predictions offline (finding 11):
    the course's own exercises/ carry them, an edition built with --graded not."""
    from tensorgrad_course import generate

    root = Path(__file__).resolve().parents[2]
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "ann.ipynb").write_bytes((root / "exercises" / "03_exercises_chain_rule.ipynb").read_bytes())
    assert main(["grade", "--solutions", str(root / "solutions"), "--exercises", str(root / "exercises"), str(subs),
                 "--out", str(tmp_path / "out"), "--no-progress", "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    assert "carry self-study fingerprints" in err and "03_exercises_chain_rule.ipynb" in err, err
    (tmp_path / "fixture").mkdir()
    basics, _ = two_set_course(tmp_path / "fixture")
    generate.build(tmp_path / "fixture" / "solutions", tmp_path / "fixture" / "exercises", feedback=False)  # --graded
    (subs / "ann.ipynb").write_text(json.dumps(basics))
    assert _grade(tmp_path / "fixture", subs, tmp_path / "out2") == 0
    assert "fingerprints" not in capsys.readouterr().err
