"""The learner's environment without a browser (issue 14): `./run reset` and a clone-local home.

`./run lab` serves a working copy (TENSORGRAD_WORK, default my-work/); `./run reset NAME` puts a
notebook of it back as shipped and keeps the learner's version in .backup/. Everything Jupyter,
IPython and matplotlib write goes into the clone, never into $HOME. tests/test_browser.py checks
the rest in JupyterLab itself.
"""

import json
import os
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LESSON = "03_chain_rule.ipynb"


def run(args, work, home):
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    env.update(TENSORGRAD_WORK=str(work), HOME=str(home))
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR",
                 "MPLCONFIGDIR", "XDG_CACHE_HOME"):
        env.pop(name, None)
    return subprocess.run([str(ROOT / "run"), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def test_reset_puts_a_lesson_back_and_keeps_the_learners_copy(tmp_path):
    work, home = tmp_path / "work", tmp_path / "home"
    home.mkdir()
    mine = work / "lessons" / LESSON
    mine.parent.mkdir(parents=True)
    mine.write_text('{"edited": "by the learner"}', encoding="utf-8")
    result = run(["reset", "03"], work, home)
    assert result.returncode == 0, result.stdout + result.stderr
    # as shipped, but for the language_info.version its kernel reports (JupyterLab would write it
    # on opening and mark the untouched lesson modified: tools/kernel_metadata.py)
    copy = json.loads(mine.read_text(encoding="utf-8"))
    assert copy["metadata"]["language_info"].pop("version") == platform.python_version()
    assert copy == json.loads((ROOT / "lessons" / LESSON).read_text(encoding="utf-8"))
    kept = list((work / ".backup" / "lessons").glob("03_chain_rule-*.ipynb"))
    assert len(kept) == 1 and "by the learner" in kept[0].read_text(encoding="utf-8")
    # the reset copy is trusted, in the clone's own Jupyter data folder
    assert (ROOT / ".jupyter" / "data" / "nbsignatures.db").exists()
    assert not any(home.iterdir()), f"./run wrote into $HOME: {sorted(home.rglob('*'))}"


def test_reset_refuses_what_it_cannot_name(tmp_path):
    result = run(["reset", "99"], tmp_path / "work", tmp_path)
    assert result.returncode != 0
    assert "no notebook in lessons/ starts with '99'" in result.stderr
    result = run(["reset", "solutions/01"], tmp_path / "work", tmp_path)
    assert result.returncode != 0 and "only lessons/ and exercises/" in result.stderr
