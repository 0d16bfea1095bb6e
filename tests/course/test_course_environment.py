"""Any environment: what the grader's own Python imports from, a sandboxed kernel imports from too.

A venv that reaches packages through a ``.pth`` file (editable installs, conda's extra folders)
or through PYTHONPATH used to kill every sandboxed kernel, and the grader then blamed the
instructor's solution. Now every folder of the grader's import path at start is bound
read-only into the sandbox, and a kernel that cannot start is reported as an environment
problem with its reason and what to do.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from course_helpers import NAMED, answered, read_json

from tensorgrad_course import expected as exp
from tensorgrad_course import generate, sandbox
from tensorgrad_course.exercise_set import load_exercise_sets
from tensorgrad_course.kernel import Limits, RunResult

GRADE = textwrap.dedent('''
    import json, site, sys
    site.addsitedir(sys.argv[1])  # a site folder whose .pth file adds another folder, as a venv's would
    from tensorgrad_course import sandbox
    if sys.argv[3] == "control":
        sandbox._START_PATH = tuple(p for p in sandbox._START_PATH if "helpers" not in p)
    from tensorgrad_course.grade import discover, grade_batch
    from tensorgrad_course.kernel import Limits
    root = sys.argv[2]
    try:
        (r,) = grade_batch(discover([root + "/subs"]), __import__("pathlib").Path(root + "/solutions"),
                           __import__("pathlib").Path(root + "/exercises"), Limits(cell_timeout=20, notebook_timeout=60))
        print(json.dumps({"status": r.status, "score": r.score, "reason": r.reason}))
    except Exception as exc:
        print(json.dumps({"error": type(exc).__name__, "message": str(exc)}))
''')


@pytest.fixture
def course_with_helpers(tmp_path):
    """named, whose setup cell imports a module from PYTHONPATH and one that a .pth file adds."""
    (tmp_path / "pp-helpers").mkdir()
    (tmp_path / "pp-helpers" / "pp_helper.py").write_text("VALUE = 1\n")
    (tmp_path / "pth-helpers").mkdir()
    (tmp_path / "pth-helpers" / "pth_helper.py").write_text("VALUE = 2\n")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "extra.pth").write_text(str(tmp_path / "pth-helpers") + "\n")
    nb = read_json(NAMED)
    (setup,) = [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]) == "import numpy as np"]
    setup["source"] = "import numpy as np\nimport pp_helper, pth_helper\nassert pp_helper.VALUE + pth_helper.VALUE == 3"
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "named.ipynb").write_text(json.dumps(nb))
    generate.build(tmp_path / "solutions", tmp_path / "exercises")
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "ann.ipynb").write_text(json.dumps(answered(nb, read_json(tmp_path / "exercises" /
                                                                                   "named.ipynb"))))
    return tmp_path


def _grade(root, mode: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "pp-helpers"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", GRADE, str(root / "site"), str(root), mode], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(sandbox.bwrap()[0] is None, reason="bubblewrap (bwrap) is not installed")
def test_modules_from_pythonpath_and_pth_files_import_in_a_sandboxed_kernel(course_with_helpers):
    result = _grade(course_with_helpers, "grade")
    assert result == {"status": "graded", "score": 6.0, "reason": ""}, result


@pytest.mark.skipif(sandbox.bwrap()[0] is None, reason="bubblewrap (bwrap) is not installed")
def test_control_without_the_import_path_the_solution_seems_to_fail(course_with_helpers):
    result = _grade(course_with_helpers, "control")
    assert result.get("error") == "SolutionError" and "No module named 'pp_helper'" in result["message"], result


def test_a_kernel_that_cannot_start_is_an_environment_problem(tmp_path, monkeypatch):
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "named.ipynb").write_bytes(NAMED.read_bytes())  # (named tests: a solution run)
    generate.build(tmp_path / "solutions", tmp_path / "exercises")
    (exset,) = load_exercise_sets(tmp_path / "solutions", tmp_path / "exercises").values()
    dead = RunResult(outcome="kernel_died", stopped_at=-1,
                     reason="the kernel did not start: Kernel died before replying to kernel_info")
    monkeypatch.setattr(exp, "run_notebook", lambda *a, **k: dead)
    with pytest.raises(exp.KernelStartError) as caught:
        exp.compute(exset, Limits(sandbox=False))
    message = str(caught.value)
    assert "no grading kernel could start in this environment" in message and "What to do" in message
    assert "does not pass its own tests" not in message
