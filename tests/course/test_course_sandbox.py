"""A hostile class: every attack on the grader from inside a kernel fails under the sandbox.

One batch (jobs=2) grades honest students next to attackers who know every path of the
grading run (the solutions, the output folder, the cache, the other submissions, the
grader's source): each attacker's answer cell tries one class of attack and, where the
attack would pay, uses what it got. The tests check that nothing it tried had an effect:
no points it did not earn, no file changed or created outside its scratch folder, no
hidden test's text in any report, no honest student harmed, no connection made.

``test_without_the_sandbox_the_same_theft_succeeds`` runs the theft with ``sandbox=False``:
it shows that the attacks are real (the tests can fail), and why ``--no-sandbox`` is
reported in every report.
"""

import hashlib
import json
import socket
import threading
from pathlib import Path

import pytest
from course_helpers import cell_by_id, two_set_course

from tensorgrad_course import expected as exp
from tensorgrad_course import reports, sandbox
from tensorgrad_course.grade import Submission, discover, grade_batch
from tensorgrad_course.kernel import Limits

pytestmark = pytest.mark.skipif(sandbox.bwrap()[0] is None, reason="bubblewrap (bwrap) is not installed")

LIMITS = Limits(cell_timeout=20, notebook_timeout=120, interrupt_grace=3)
PACKAGE = Path(exp.__file__).resolve().parent
HONEST = {"square": "def square(x):\n    return x * x", "mean": "def mean(xs):\n    return sum(xs) / len(xs)",
          "predict": "leaf = True"}
HONEST_NAMED = {"scale": "import numpy as np\ndef scale(v, k):\n    return np.asarray(v, dtype=float) * k",
                "predict": "leaf = True\ncount = 3", "double": "def double(x):\n    return 2 * x"}

STEAL = '''
import glob, os, re
paths = [{solution!r}, "/proc/1/root" + {solution!r}, "/proc/self/root" + {solution!r}]
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    for what in ("environ", "cmdline"):
        try:
            text = open(f"/proc/{{pid}}/{{what}}", "rb").read().decode(errors="replace")
        except OSError:
            continue
        paths += [m + "/basics.ipynb" for m in re.findall(r"(/[^\\0= ]*solutions)", text)]
    paths.append(f"/proc/{{pid}}/root" + {solution!r})
paths += [v for v in os.environ.values() if v.endswith(".ipynb")]
paths += glob.glob("/tmp/**/solutions/basics.ipynb", recursive=True)
stolen = None
for path in paths:
    try:
        stolen = open(path).read()
        break
    except OSError:
        pass
if stolen and "x * x" in stolen:
    def square(x):
        return x * x
else:
    def square(x):
        return 0
'''

LEAK = '''
def square(x):
    # Raise with the text of the test cell that calls us: the hidden tests are in it.
    import inspect
    ip = get_ipython()
    raise AssertionError(ip.user_ns["In"][-1] + " || " + "".join(
        inspect.getsource(f.frame) for f in inspect.stack()[1:3] if f.filename.startswith("<")))
'''

LEAK_NAMED = '''
def scale(v, k):
    raise ValueError(get_ipython().user_ns["In"][-1])
'''

WRITE = '''
import os
targets = {targets!r}
for path in targets:
    for attempt in (lambda: open(path, "w").write("pwned"), lambda: os.makedirs(path + ".d"),
                    lambda: os.rename(path, path + ".old"), lambda: os.remove(path)):
        try:
            attempt()
        except OSError:
            pass
def square(x):
    return 0
'''

KILL = '''
import os, signal, time
me = os.getpid()
def victims():
    found = set()
    for pid in [int(p) for p in os.listdir("/proc") if p.isdigit()]:
        try:
            cmd = open(f"/proc/{{pid}}/cmdline", "rb").read()
        except OSError:
            continue
        if pid != me and any(k in cmd for k in (b"tg-grade-", b"tg-solution-", b"_zygote")):
            found.add(pid)
    found.add(os.getppid())
    return found - {{0, 1, me}}
for _ in range(30):  # for 3 s, while the other worker grades the honest students
    for pid in victims():
        for sig in (signal.SIGKILL, signal.SIGSTOP):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
    time.sleep(0.1)
def square(x):
    return 0
'''

POISON = '''
import glob, json, os
for path in glob.glob({cache!r} + "/*.json"):
    try:
        data = json.load(open(path))
        for task in data["tasks"].values():
            for test in task["tests"]:
                for value in test["values"]:
                    value["value"] = {{"type": "ndarray", "dtype": "float64", "shape": [2], "data": [0.0, 0.0],
                                      "repr": "array([0., 0.])"}}
        open(path, "w").write(json.dumps(data))
    except (OSError, ValueError, KeyError):
        pass
def scale(v, k):
    import numpy as np
    return np.zeros(2)
'''

PATCH = '''
import glob, os
for path in glob.glob({package!r} + "/*.py") + glob.glob({package!r} + "/../*.py"):
    try:
        with open(path, "a") as fh:
            fh.write("\\nGRADE = 100\\n")
    except OSError:
        pass
def square(x):
    return 0
'''

CONNECT = '''
import socket
reached = []
for address in ({address!r}, ("1.1.1.1", 80), ("8.8.8.8", 53)):
    try:
        socket.create_connection(address, timeout=2).close()
        reached.append(address)
    except OSError:
        pass
def square(x):
    return x * x if reached else 0
'''


def _tree_hash(root: Path) -> dict:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    basics, named = two_set_course(root)
    subs, out, cache = root / "submissions", root / "out", root / "out" / ".cache"

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(0.2)
    accepted = []

    def serve():
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                pass

    stop = threading.Event()
    threading.Thread(target=serve, daemon=True).start()

    marker = root / "outside" / "pwned"
    (root / "outside").mkdir()
    victim = subs / "zz_victim" / "basics.ipynb"
    attacks = {
        "a_steal": ("basics", {"square": STEAL.format(solution=str(root / "solutions" / "basics.ipynb"))}),
        "a_leak": ("basics", {"square": LEAK}),
        "a_leak_named": ("named", {"scale": LEAK_NAMED}),
        "a_write": ("basics", {"square": WRITE.format(targets=[
            str(marker), str(root / "solutions" / "basics.ipynb"), str(out / "summary.txt"), str(cache / "x.json"),
            str(victim), str(PACKAGE / "grade.py"), str(Path.home() / "tg-pwned"), "/tmp/tg-pwned"])}),
        "a_kill": ("basics", {"square": KILL}),
        "a_poison": ("named", {"scale": POISON.format(cache=str(cache))}),
        "a_patch": ("basics", {"square": PATCH.format(package=str(PACKAGE))}),
        "a_connect": ("basics", {"square": CONNECT.format(address=server.getsockname())}),
    }
    honest = {f"honest_{i}": "basics" for i in range(4)} | {"zz_victim": "basics", "honest_named": "named"}
    for student, (set_name, answers) in [*attacks.items(), *((s, (n, {})) for s, n in honest.items())]:
        nb = json.loads(json.dumps(basics if set_name == "basics" else named))
        defaults = HONEST if set_name == "basics" else HONEST_NAMED
        for gid, source in {**defaults, **answers}.items():
            cell_by_id(nb, gid)["source"] = source
        (subs / student).mkdir(parents=True)
        (subs / student / f"{set_name}.ipynb").write_text(json.dumps(nb))

    protected = {"solutions": root / "solutions", "submissions": subs, "package": PACKAGE}
    before = {name: _tree_hash(path) for name, path in protected.items()}
    library = exp.library_hash()
    exp.library_hash.cache_clear()
    # Expected values first (the cache the poisoner goes for), then the class.
    grade_batch(discover([subs / "honest_named"]), root / "solutions", root / "exercises", LIMITS, cache_dir=cache)
    cache_before = _tree_hash(cache)
    results = grade_batch(discover([subs]), root / "solutions", root / "exercises", LIMITS, jobs=2, cache_dir=cache)
    reports.write_reports(results, out, LIMITS)
    # A later shard, reading the same cache.
    later = grade_batch([Submission(s, str(subs / s / "named.ipynb")) for s in ("honest_named", "a_poison")],
                        root / "solutions", root / "exercises", LIMITS, cache_dir=cache)
    stop.set()
    exp.library_hash.cache_clear()
    return {
        "results": {r.student: r for r in results}, "later": {r.student: r for r in later}, "root": root,
        "out": out, "before": before, "after": {name: _tree_hash(path) for name, path in protected.items()},
        "cache_before": cache_before, "cache_after": _tree_hash(cache), "accepted": accepted, "marker": marker,
        "library": (library, exp.library_hash()), "honest": honest,
    }


def score(result, gid):
    return {t.grade_id: t.points for t in result.tasks}[gid]


def test_every_submission_is_graded(hostile):
    results = hostile["results"]
    assert all(r.status in ("graded", "kernel_died") for r in results.values()), {
        s: (r.status, r.reason) for s, r in results.items()}


def test_reading_the_solutions_through_proc_or_any_path_fails(hostile):
    r = hostile["results"]["a_steal"]
    assert (r.status, score(r, "test_square")) == ("graded", 0), r.tasks


def test_hidden_tests_never_reach_a_report(hostile):
    r, n = hostile["results"]["a_leak"], hostile["results"]["a_leak_named"]
    assert score(r, "test_square") == 0 and score(n, "test_scale") == 0
    written = "\n".join(p.read_text() for p in hostile["out"].rglob("*") if p.is_file() and ".cache" not in p.parts)
    # (Test cells are not kept in the input history: In[-1] is now the attacker's own cell, never a test.)
    for secret in ("square(-2)", "HIDDEN TESTS", "scale([1, -2], -0.5))", "t = check("):
        assert secret not in written, secret
    hidden = {t.name: t for t in n.tasks[0].tests}["a negative factor"]
    assert hidden.message == "your code raised ValueError in this hidden test"


def test_nothing_outside_the_scratch_folder_is_written(hostile):
    assert hostile["before"] == hostile["after"]  # solutions, every submission, the grader's source
    assert not hostile["marker"].exists() and not Path("/tmp/tg-pwned").exists()
    assert not (Path.home() / "tg-pwned").exists() and not (hostile["out"] / ".cache" / "x.json").exists()
    victim = hostile["results"]["zz_victim"]
    assert (victim.status, victim.score) == ("graded", victim.max_score)  # graded after the writer, unharmed


def test_killing_other_kernels_harms_nobody(hostile):
    for student in hostile["honest"]:
        r = hostile["results"][student]
        assert (r.status, r.score) == ("graded", r.max_score), (student, r.reason, r.tasks)
    assert hostile["results"]["a_kill"].status == "graded"


def test_the_cache_cannot_be_poisoned_for_this_run_or_a_later_shard(hostile):
    before, after = hostile["cache_before"], hostile["cache_after"]
    assert before and {path: after.get(path) for path in before} == before
    for results in (hostile["results"], hostile["later"]):
        assert score(results["a_poison"], "test_scale") == 0
        assert results["honest_named"].score == results["honest_named"].max_score


def test_the_grader_cannot_be_patched(hostile):
    before, after = hostile["library"]
    assert before == after
    assert score(hostile["results"]["a_patch"], "test_square") == 0


def test_no_connection_leaves_the_sandbox(hostile):
    assert hostile["accepted"] == []
    assert score(hostile["results"]["a_connect"], "test_square") == 0


def test_every_report_names_the_sandbox(hostile):
    report = json.loads((hostile["out"] / "report.json").read_text())
    assert report["environment"]["sandbox"].startswith("bubblewrap")
    assert report["limits"]["sandbox"] is True
    assert "without a sandbox" not in (hostile["out"] / "summary.txt").read_text()


def test_without_the_sandbox_the_same_theft_succeeds(hostile, tmp_path):
    """The control: the attack is real, so the tests above can fail."""
    root = hostile["root"]
    unsafe = Limits(cell_timeout=20, notebook_timeout=120, interrupt_grace=3, sandbox=False)
    (r,) = grade_batch(discover([root / "submissions" / "a_steal"]), root / "solutions", root / "exercises", unsafe,
                       cache_dir=tmp_path / "cache")
    assert score(r, "test_square") == 2
    reports.write_reports([r], tmp_path / "out", unsafe)
    assert "WARNING: graded without a sandbox" in (tmp_path / "out" / "summary.txt").read_text()
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["environment"]["sandbox"].startswith("none (--no-sandbox)")
    gradescope = json.loads((tmp_path / "out" / "gradescope" / r.student / "results.json").read_text())
    assert "graded without a sandbox" in gradescope["output"]


def test_a_kernel_sees_the_library_and_the_grader_read_only_and_nothing_else_of_the_checkout():
    """The library and the course tooling are two packages (tensorgrad/, course/tensorgrad_course/):
    a sandboxed process imports both and can change neither; the rest of the checkout is not there."""
    import subprocess
    import sys

    from tensorgrad_course import library

    checkout = library.package_dir().parent
    probe = (
        "import os, sys, tensorgrad, tensorgrad_course\n"
        "from tensorgrad_course import check\n"
        "for module in (tensorgrad, tensorgrad_course):\n"
        "    try:\n"
        "        open(module.__file__, 'a')\n"
        "        print('writable', module.__name__)\n"
        "    except OSError:\n"
        "        pass\n"
        "print('seen', *sorted(p for p in sys.argv[1:] if os.path.exists(p)))\n"
    )
    outside = [checkout / "solutions", checkout / "README.md", checkout / "course" / "pyproject.toml"]
    path, _ = sandbox.bwrap()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(library.import_roots()), "HOME": "/tmp"}
    done = subprocess.run([path, *sandbox.bwrap_argv(None, env=env, per_kernel=True), sys.executable, "-c", probe,
                           *map(str, outside)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["seen"]
    assert all(p.exists() for p in outside)  # there outside the sandbox


@pytest.mark.parametrize("student", ["a_steal", "a_write", "a_patch", "a_connect"])
def test_blocked_attacks_that_leave_a_trace_are_reported(hostile, student):
    """Last round these 8 attacks were blocked and none reported; those that try something the
    sandbox blocks (reads through /proc, writes outside, a connection) now get an 'attempted' finding.
    (The poisoner finds no cache to write to, the killer no process to signal, the leaks read only
    their own kernel: nothing is blocked, so nothing is reported; their scores are 0 all the same.)"""
    r = hostile["results"][student]
    assert any(f["kind"] == "attempted" and f["tampering"] for f in r.integrity), r.integrity
    for honest in hostile["honest"]:
        assert not any(f["kind"] == "attempted" for f in hostile["results"][honest].integrity), honest


@pytest.mark.parametrize("proc", [True, False], ids=["per_kernel", "no_proc"])
def test_a_sandbox_of_its_own_leaves_the_machines_settings_read_only(proc):
    """The fallbacks (one bwrap per kernel) as the nested sandbox (test_course_kernel): a kernel
    of a grader running as root writes no global setting in /proc/sys, even one it cannot harm,
    and makes no user namespace of its own (where bwrap can refuse it: 0.8 and later)."""
    import subprocess
    import sys

    probe = ("import ctypes, os\n"
             "try:\n"
             "    value = open('/proc/sys/vm/swappiness').read()\n"
             "except OSError:\n"
             "    print('no /proc')\n"
             "else:\n"
             "    try:\n"
             "        fd = os.open('/proc/sys/vm/swappiness', os.O_WRONLY)\n"
             "        os.write(fd, value.encode())\n"
             "        print('written')\n"
             "    except OSError as exc:\n"
             "        print(exc.strerror)\n"
             "print('unshared' if ctypes.CDLL(None).unshare(0x10000000) == 0 else 'refused')\n")
    path, _ = sandbox.bwrap()
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}
    done = subprocess.run([path, *sandbox.bwrap_argv(None, env=env, per_kernel=True, proc=proc), sys.executable,
                           "-I", "-c", probe], capture_output=True, text=True, timeout=60)
    setting, user_namespace = done.stdout.splitlines()
    assert setting == ("Read-only file system" if proc else "no /proc"), done.stderr
    assert user_namespace == ("refused" if sandbox._no_user_namespaces(path) else "unshared")
