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


# -- a working copy made when the exercise sets were named like their lessons (issue 27) ---------

OLD_SET, NEW_SET = "03_chain_rule.ipynb", "03_exercises_chain_rule.ipynb"


def sha256(data: bytes) -> str:
    import hashlib
    return hashlib.sha256(data).hexdigest()


def test_lab_renames_a_working_copy_of_the_sets_made_under_their_old_names_and_keeps_the_work(tmp_path):
    """my-work/ made by ./run lab when set 03 was exercises/03_chain_rule.ipynb: the learner
    answered set 03 (English) and left set 04 and the Chinese set 03 untouched, with set 03 open
    in JupyterLab. ./run lab renames the copies (the learner's answers with them), updates the
    untouched ones to the shipped sets, keeps the open tab on set 03, and says so once."""
    work, home = tmp_path / "work", tmp_path / "home"
    home.mkdir()
    shipped = json.loads((ROOT / "exercises" / NEW_SET).read_text(encoding="utf-8"))
    old = {  # (folder, old name) -> the bytes ./run copied then (the sets of before the rename)
        ("exercises", OLD_SET): json.dumps({**shipped, "metadata": {"tensorgrad": {"exercise_set": "03_chain_rule"}}}),
        ("exercises", "04_scalar_backward.ipynb"): '{"cells": [], "old": "set 04 as shipped before"}',
        ("exercises/zh", OLD_SET): '{"cells": [], "old": "zh set 03 as shipped before"}',
    }
    for (folder, name), text in old.items():
        copy = work / folder / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(text, encoding="utf-8")
        stamp = work / ".shipped" / folder / f"{name}.sha256"
        stamp.parent.mkdir(parents=True, exist_ok=True)
        digest = sha256(text.encode())
        stamp.write_text(f"{digest}\n{digest}\n", encoding="utf-8")
    answered = json.loads(old[("exercises", OLD_SET)])
    answered["cells"][0]["source"] = "my answers to set 03"
    (work / "exercises" / OLD_SET).write_text(json.dumps(answered), encoding="utf-8")
    workspace = work / ".workspaces" / "default-37a8.jupyterlab-workspace"
    workspace.parent.mkdir(parents=True)
    workspace.write_text(json.dumps({"data": {
        "layout-restorer:data": {"main": {"dock": {"widgets": [f"notebook:exercises/{OLD_SET}"]}}},
        f"notebook:exercises/{OLD_SET}": {"data": {"path": f"exercises/{OLD_SET}", "factory": "Notebook"}}},
        "metadata": {"id": "default"}}), encoding="utf-8")

    result = run(["lab", "--version"], work, home)  # prepares the working copy, starts no server
    assert result.returncode == 0, result.stdout + result.stderr
    said = [line for line in result.stdout.splitlines() if "names of their own" in line]
    assert len(said) == 1 and "renamed your 3 copies" in said[0], result.stdout
    # the learner's answers, under the new name; none of the sets is left under its old name
    mine = json.loads((work / "exercises" / NEW_SET).read_text(encoding="utf-8"))
    assert mine["cells"][0]["source"] == "my answers to set 03"
    assert f"note: exercises/{NEW_SET} changed in the course" in result.stdout
    assert not [p.name for p in (work / "exercises").rglob("*.ipynb") if "_exercises_" not in p.name]
    # the untouched copies are now the shipped sets
    for folder, name in (("exercises", "04_exercises_scalar_backward.ipynb"), ("exercises/zh", NEW_SET)):
        copy = json.loads((work / folder / name).read_text(encoding="utf-8"))
        copy["metadata"].get("language_info", {}).pop("version", None)
        assert copy == json.loads((ROOT / folder / name).read_text(encoding="utf-8")), f"{folder}/{name}"
    # the open tab follows the renamed set
    tabs = json.loads(workspace.read_text(encoding="utf-8"))["data"]
    assert tabs["layout-restorer:data"]["main"]["dock"]["widgets"] == [f"notebook:exercises/{NEW_SET}"]
    assert tabs[f"notebook:exercises/{NEW_SET}"]["data"]["path"] == f"exercises/{NEW_SET}"
    # said once: the next start has nothing to rename, and the learner's copy is kept as it is
    again = run(["lab", "--version"], work, home)
    assert again.returncode == 0 and "names of their own" not in again.stdout, again.stdout
    assert json.loads((work / "exercises" / NEW_SET).read_text(encoding="utf-8")) == mine


def test_reset_takes_a_sets_number_its_name_or_its_old_name(tmp_path):
    names = ("exercises/03", "exercises/03_exercises_chain_rule", "exercises/03_chain_rule.ipynb",
             "exercises/zh/03_chain_rule")
    result = run(["reset", *names], tmp_path / "work", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    reset = [line for line in result.stdout.splitlines() if "to the shipped version" in line]
    assert reset == [f"[run] reset {name.rsplit('/', 1)[0]}/{NEW_SET} to the shipped version" for name in names]
