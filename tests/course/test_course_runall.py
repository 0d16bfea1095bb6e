"""Run All on every blank exercise, as a student's first click would: it runs to the end.

The answer cells still raise NotImplementedError and every check fails, yet each cell runs
(``build`` tags answer and check cells ``raises-exception``, which JupyterLab's Run All and
nbclient honour), and each task's check cell ends with one summary line: not attempted yet.
"""

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tensorgrad_course.notebooks import find_notebooks

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = sorted(find_notebooks(ROOT / "exercises"))  # exercises/zh/ too: its self-check speaks Chinese
NOT_ATTEMPTED = {False: r"\N{BALLOT X} [\w.]+: not attempted yet", True: r"\N{BALLOT X} 任务 \d+：尚未作答"}


def _text(output) -> str:
    if output.get("output_type") == "stream":
        return output.get("text", "")
    if output.get("output_type") == "error":
        return "\n".join(output.get("traceback", []))
    return ""


@pytest.mark.parametrize("path", EXERCISES, ids=[p.relative_to(ROOT / "exercises").with_suffix("").as_posix()
                                                  for p in EXERCISES])
def test_run_all_on_a_blank_exercise_runs_every_cell_and_sums_up_each_task(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert all(c.execution_count is not None for c in code), "Run All stopped early"
    checks = [c for c in code if c.metadata.get("nbgrader", {}).get("grade")]
    assert checks
    for cell in checks:
        lines = [line for o in cell.outputs for line in _text(o).splitlines() if line.strip()]
        summaries = [line for line in lines if re.fullmatch(NOT_ATTEMPTED[path.parent.name == "zh"], line)]
        assert len(summaries) == 1, (cell.metadata["nbgrader"]["grade_id"], lines)
        assert not any(line.startswith("\N{CHECK MARK}") for line in lines)
