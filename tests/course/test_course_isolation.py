"""One kernel leaves nothing for the next: every place a sandboxed kernel can write is its own.

In the default sandbox mode ("nested") one fork server, in one bubblewrap sandbox, forks every
kernel of a grading process. Whatever a kernel could write outside its scratch folder and its
/tmp (the sandbox's root tmpfs: ``/``, ``/etc``, ``/root``; its ``/dev`` and ``/dev/shm``) would be
there for every later student: an IPython config in ``/etc/ipython`` runs in their kernels. These
tests write everywhere, through Python and through libc (which raises no audit event), and
check that the write fails or stays private; then grade the three attacks of the session-13
review (copy a later student's answers, zero every later student, kill every later kernel) on
the real set 03 and check that the honest students behind them get full marks.
"""

import json
from pathlib import Path

import nbformat
import pytest
from course_helpers import answered, read_json, with_answers

from tensorgrad_course import kernel, sandbox
from tensorgrad_course.grade import Submission, grade_batch
from tensorgrad_course.kernel import Limits, kernel_env, run_notebook

pytestmark = pytest.mark.skipif(sandbox.bwrap()[0] is None, reason="bubblewrap (bwrap) is not installed")

ROOT = Path(__file__).resolve().parents[2]
SET = "03_exercises_chain_rule"
PLACES = ("/", "/etc", "/root", "/dev", "/dev/shm", "/tmp")
SHARED = ("/", "/etc", "/root", "/dev")  # the fork server's: no kernel may write there

WRITE_EVERYWHERE = '''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
wrote = {}
for folder in %r:
    base = folder.rstrip("/")
    try:
        with open(base + "/tg-py", "w") as fh:
            fh.write("planted")
        wrote[folder + " python"] = True
    except OSError:
        wrote[folder + " python"] = False
    fd = libc.open((base + "/tg-libc").encode(), 0o1 | 0o100 | 0o1000, 0o644)  # O_WRONLY|O_CREAT|O_TRUNC
    wrote[folder + " libc"] = fd >= 0 and libc.write(fd, b"planted", 7) == 7
    if fd >= 0:
        libc.close(fd)
    libc.mkdir((base + "/tg-dir").encode(), 0o755)
print(repr(wrote))
''' % (PLACES,)

LOOK = '''
import os
print(repr(sorted(p for f in %r for p in (f.rstrip("/") + "/tg-py", f.rstrip("/") + "/tg-libc",
                                          f.rstrip("/") + "/tg-dir") if os.path.exists(p))))
''' % (PLACES,)


def run(sources, **limits):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    lim = Limits(**limits)
    scratch = kernel.new_scratch("tg-isolation-", lim)
    (scratch / "work").mkdir()
    result = run_notebook(nb, lim, scratch / "work", kernel_env(scratch, []))
    printed = "".join(o.get("text", "") for c in nb.cells for o in c.outputs if o.get("name") == "stdout")
    return result, printed


def test_a_kernel_writes_nowhere_shared_and_the_next_kernel_sees_nothing():
    first, printed = run([WRITE_EVERYWHERE])
    assert first.outcome == "completed", first.reason
    wrote = eval(printed.strip().splitlines()[-1])  # (a dict of bools this test printed)
    assert [k for k, ok in wrote.items() if ok and k.split()[0] in SHARED] == [], wrote
    server = kernel._Zygote._current
    later, seen = run([LOOK])
    assert later.outcome == "completed", later.reason
    if sandbox.mode()[0] == "nested":
        assert kernel._Zygote._current is server  # the same fork server started both kernels
    assert eval(seen.strip()) == [], seen


def test_an_ipython_config_planted_anywhere_runs_in_no_later_kernel():
    plant = '''
import ctypes, os
libc = ctypes.CDLL(None)
for folder in ("/etc/ipython", "/usr/local/etc/ipython", os.path.join(__import__("sys").prefix, "etc", "ipython")):
    libc.mkdir(os.path.dirname(folder).encode(), 0o755)
    libc.mkdir(folder.encode(), 0o755)
    text = b'c.InteractiveShellApp.exec_lines = ["import os; os._exit(3)"]\\n'
    fd = libc.open((folder + "/ipython_kernel_config.py").encode(), 0o1 | 0o100 | 0o1000, 0o644)
    if fd >= 0:
        libc.write(fd, text, len(text)); libc.close(fd)
'''
    first, _ = run([plant])
    assert first.outcome == "completed", first.reason
    later, printed = run(["print('alive')"])
    assert later.outcome == "completed" and printed == "alive\n", (later.reason, printed)
    assert later.retried == ""  # it started at once, no retry needed


@pytest.mark.parametrize("folder", ["/dev/shm", "/tmp"])
def test_filling_dev_shm_or_tmp_is_the_disk_limit(folder):
    fill = (f"for i in range(8):\n    open('{folder}/fill%d' % i, 'wb').write(b'x' * (10 << 20))\n"
            "import time; time.sleep(3)")
    result, _ = run([fill], disk_mb=40)
    assert result.limit and "the disk limit" in result.limit and "/dev/shm" in result.limit, result.reason
    many = f"import os\nfor i in range(3000):\n    open('{folder}/f%d' % i, 'w').close()\nimport time; time.sleep(3)"
    result, _ = run([many], disk_files=1000)
    assert result.limit and "1000 files" in result.limit, result.reason


def test_a_kernel_that_dies_at_start_up_is_started_again_in_a_fresh_sandbox(monkeypatch):
    calls = []
    real = kernel.LimitedKernelManager._async_launch_kernel

    async def first_dies(self, kernel_cmd, **kw):
        calls.append(1)
        if len(calls) == 1:  # the first kernel gets too little memory to start
            self.launcher_args = ["--memory-mb", "40", *self.launcher_args[2:]]
        return await real(self, kernel_cmd, **kw)

    monkeypatch.setattr(kernel.LimitedKernelManager, "_async_launch_kernel", first_dies)
    result, printed = run(["print(6 * 7)"])
    assert len(calls) == 2 and result.outcome == "completed" and printed == "42\n", (calls, result.reason)
    assert result.retried.startswith("the kernel did not start")


# --------------------------------------------------------- the review's three attacks, on set 03

#: Student A plants an IPython config that copies every later student's answer cells to /etc/tgl
#: (through libc: no audit event); student C's cells only read them back.
PLANT_COPY = r"""
import ctypes
libc = ctypes.CDLL(None)
def put(path, text):
    fd = libc.open(path.encode(), 0o1 | 0o100 | 0o1000, 0o644)  # O_WRONLY|O_CREAT|O_TRUNC
    data = text.encode(); libc.write(fd, data, len(data)); libc.close(fd)
libc.mkdir(b"/etc/ipython", 0o755); libc.mkdir(b"/etc/tgl", 0o777)
put("/etc/ipython/tg_hook.py", '''
import ctypes as _c
_libc = _c.CDLL(None)
_MARKS = {"task1": "du_dx =", "task2": "paths_x", "task3": "def grads_by_hand", "task4": "a_grad", "task5": "def sin_chain_grad"}
def _tg_leak(info, _libc=_libc, _MARKS=_MARKS):
    s = info.raw_cell or ""
    if "check(" in s or "tensorgrad grader" in s or "/etc/tgl" in s:
        return
    for gid, mark in _MARKS.items():
        if mark in s:
            fd = _libc.open(("/etc/tgl/" + gid).encode(), 0o1 | 0o100 | 0o1000, 0o644)
            b = s.encode(); _libc.write(fd, b, len(b)); _libc.close(fd)
get_ipython().events.register("pre_run_cell", _tg_leak)
del _tg_leak
''')
put("/etc/ipython/ipython_kernel_config.py",
    'c.InteractiveShellApp.exec_lines = ["exec(open(\'/etc/ipython/tg_hook.py\').read())"]\n')
du_dx = dy_du = dy_dx = 0.0
"""

#: Student A's config makes every later kernel submit None for every value.
PLANT_ZERO = '''
import ctypes
libc = ctypes.CDLL(None)
libc.mkdir(b"/etc/ipython", 0o755)
text = ('c.InteractiveShellApp.exec_lines = ["import tensorgrad_course.values as _v; '
        '_v.encode = lambda value, _depth=0: {\\'type\\': \\'none\\', \\'repr\\': \\'None\\'}; del _v"]\\n').encode()
fd = libc.open(b"/etc/ipython/ipython_kernel_config.py", 0o1 | 0o100 | 0o1000, 0o644)
libc.write(fd, text, len(text)); libc.close(fd)
du_dx = dy_du = dy_dx = 0.0
'''

#: Student A's config kills every later kernel at start-up.
PLANT_KILL = '''
import ctypes
libc = ctypes.CDLL(None)
libc.mkdir(b"/etc/ipython", 0o755)
text = b'c.InteractiveShellApp.exec_lines = ["import os; os._exit(1)"]\\n'
fd = libc.open(b"/etc/ipython/ipython_kernel_config.py", 0o1 | 0o100 | 0o1000, 0o644)
libc.write(fd, text, len(text)); libc.close(fd)
du_dx = dy_du = dy_dx = 0.0
'''


@pytest.fixture(scope="module")
def set03():
    solution = read_json(ROOT / "solutions" / f"{SET}.ipynb")
    release = read_json(ROOT / "exercises" / f"{SET}.ipynb")
    return answered(solution, release), release


@pytest.mark.parametrize("attack", ["copy", "zero", "kill"])
def test_an_attacker_before_them_changes_no_later_students_grade(attack, set03, tmp_path):
    honest, release = set03
    copier = with_answers(release, {f"task{i}": f'exec(open("/etc/tgl/task{i}").read())' for i in range(1, 6)})
    plant = {"copy": PLANT_COPY, "zero": PLANT_ZERO, "kill": PLANT_KILL}[attack]
    notebooks = {"a1_attacker": with_answers(release, {"task1": plant}), "b2_honest": honest,
                 "c3_honest": honest, "d4_copier": copier}
    subs = []
    for student, nb in notebooks.items():
        path = tmp_path / "subs" / f"{student}.ipynb"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(nb))
        subs.append(Submission(student, str(path)))
    results = {r.student: r for r in grade_batch(subs, ROOT / "solutions", ROOT / "exercises",
                                                 Limits(cell_timeout=60, notebook_timeout=300), jobs=1)}
    for student in ("b2_honest", "c3_honest"):
        r = results[student]
        assert (r.status, r.score, r.max_score) == ("graded", 12, 12), (student, r.status, r.reason, r.integrity)
        assert not [f for f in r.integrity if f.get("tampering")], (student, r.integrity)
    assert results["d4_copier"].score == 0, results["d4_copier"].tasks
    assert results["a1_attacker"].score == 0


# ------------------------------------------------ the guard's snapshot starts from a known-good state

PATCH_BEFORE_SETUP = '''
import tensorgrad_course.values as _v
_v.encode = lambda value, _depth=0: {"type": "none", "repr": "None"}
'''


def test_a_patch_in_place_before_the_guards_setup_is_restored_and_reported():
    from tensorgrad_course import guard

    cells = [PATCH_BEFORE_SETUP, guard.setup_source(uses_checks=True), guard.check_source("n0nce"),
             "import tensorgrad_course.values as v\nprint(v.encode(1.5)['type'])"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in cells])
    lim = Limits()
    scratch = kernel.new_scratch("tg-isolation-", lim)
    (scratch / "work").mkdir()
    result = run_notebook(nb, lim, scratch / "work", kernel_env(scratch, []))
    check = result.cells[2]
    assert check.status == "error" and check.ename == "GraderGuard", check
    assert "tensorgrad_course.values.encode" in check.evalue, check.evalue
    if sandbox.mode()[0] == "nested":  # the fork server's copy is known-good: put back, not only reported
        printed = "".join(o.get("text", "") for o in nb.cells[3].outputs)
        assert printed.strip() == "float", printed


LAZY_NUMBER = '''
class _Lazy(int):
    def __repr__(self):
        return "text of my choosing"
leaf = True
count = _Lazy(3)
'''


def test_a_number_of_a_class_of_its_own_is_reported_and_read_as_its_plain_number(tmp_path):
    from course_helpers import two_set_course

    _, named = two_set_course(tmp_path)
    nb = with_answers(named, {"predict": LAZY_NUMBER})
    (tmp_path / "lazy.ipynb").write_text(json.dumps(nb))
    (r,) = grade_batch([Submission("lazy", str(tmp_path / "lazy.ipynb"))], tmp_path / "solutions",
                       tmp_path / "exercises", Limits(cell_timeout=30, notebook_timeout=120))
    odd = [f for f in r.integrity if f["kind"] == "number_subclass"]
    assert odd and "_Lazy" in odd[0]["detail"], r.integrity
    assert "text of my choosing" not in json.dumps(r.to_dict()), r.to_dict()
