"""Per-kernel limits an attacker got through (outside review s17): every output kind counts against
the one output cap; the disk limit counts what the kernel holds, named or not; the memory limit is
the whole process tree's."""

import json

import nbformat
import pytest

from tensorgrad_course import kernel
from tensorgrad_course.kernel import Limits, kernel_env, run_notebook


def run_cells(sources, **limits):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    scratch = kernel.new_scratch("tg-test-", Limits(**limits))
    work = scratch / "work"
    work.mkdir(parents=True)
    return nb, run_notebook(nb, Limits(**limits), work, kernel_env(scratch, []))


def kept_bytes(cell) -> int:
    return len(json.dumps(cell.outputs))


def test_error_messages_count_against_the_output_cap():
    send = ("k = get_ipython().kernel\nparent = k.get_parent('shell')\n"
            "for _ in range(40):\n"
            "    k.session.send(k.iopub_socket, 'error', {'ename': 'E', 'evalue': 'E' * 2**18, 'traceback': ['T' * 2**18]},"
            " parent=parent)\n")
    nb, result = run_cells([send, "print('after')"], output_cap=1_000_000)
    assert result.outcome == "completed"
    assert kept_bytes(nb.cells[0]) < 1_100_000  # 20 MB sent
    assert "[grader: output beyond 1000000 bytes dropped]" in json.dumps(nb.cells[0].outputs)
    assert "after" in json.dumps(nb.cells[1].outputs)


def message(kind, content, parent="p"):
    return {"msg_type": kind, "content": content, "parent_header": {"msg_id": parent}, "header": {},
            "metadata": {}, "buffers": []}


def test_widget_comm_state_counts_against_the_output_cap():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
    client = kernel._CappedClient(nb, output_cap=1_000_000)
    cell = nb.cells[0]
    for i in range(10):  # 10 output widgets of 300 kB of state each
        state = {"_model_module": "@jupyter-widgets/output", "_model_name": "OutputModel",
                 "_model_module_version": "1.0.0", "outputs": [], "msg_id": "", "junk": "W" * 300_000}
        client.process_message(message("comm_open", {"comm_id": f"c{i}", "target_name": "jupyter.widget",
                                                      "data": {"state": state, "buffer_paths": []}}), cell, 0)
        client.process_message(message("comm_msg", {"comm_id": f"c{i}",
                                                     "data": {"method": "update", "state": {"junk": "X" * 300_000}}}),
                               cell, 0)
    assert len(client.comm_objects) <= 2
    assert sum(client._output_used.values()) > 6_000_000  # all counted,
    assert "bytes dropped" in json.dumps(cell.outputs)  # and the drop said as for printed text


UNLINKED = {
    "held open": "import os, time\nf = open('big', 'wb')\nos.unlink('big')\nf.write(b'x' * (30 << 20))\n"
                 "f.flush()\ntime.sleep(4)",
    # (through libc: Python's mmap keeps a copy of the descriptor)
    "mapped only": "import ctypes, os, time\nf = open('big', 'w+b')\nos.unlink('big')\nf.write(b'x' * (30 << 20))\n"
                   "f.flush()\nlibc = ctypes.CDLL(None)\nlibc.mmap.restype = ctypes.c_void_p\n"
                   "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,"
                   " ctypes.c_long]\nassert libc.mmap(None, 30 << 20, 1, 1, f.fileno(), 0) not in (None, 2**64 - 1)\n"
                   "f.close()\ntime.sleep(4)",
}


@pytest.mark.parametrize("how", list(UNLINKED))
def test_files_deleted_while_open_count_against_the_disk_limit(how):
    _, result = run_cells([UNLINKED[how], "x = 1"], disk_mb=10, notebook_timeout=30)
    assert result.outcome == "kernel_died"
    assert "the disk limit" in result.limit and "deleted but kept open" in result.limit
    assert 1 not in result.cells


@pytest.fixture(params=["per_kernel", "no_proc"])
def one_bwrap_per_kernel(request, monkeypatch):
    if not kernel.SANDBOX_BY_DEFAULT or kernel.sandbox.mode()[0] is None:
        pytest.skip("no sandbox here")
    monkeypatch.setenv("TENSORGRAD_SANDBOX_MODE", request.param)
    kernel.sandbox.mode.cache_clear()  # (it reads TENSORGRAD_SANDBOX_MODE once)
    yield request.param
    monkeypatch.undo()
    kernel.sandbox.mode.cache_clear()


@pytest.mark.parametrize("folder", ["/tmp", "/dev/shm"])
def test_tmp_and_shm_count_against_the_disk_limit_with_one_bwrap_per_kernel(one_bwrap_per_kernel, folder):
    fill = f"import time\nopen('{folder}/big', 'wb').write(b'x' * (30 << 20))\ntime.sleep(4)"
    _, result = run_cells([fill, "x = 1"], disk_mb=10, notebook_timeout=30)
    assert "/tmp and /dev/shm (the disk limit)" in result.limit


def test_the_memory_limit_is_the_whole_process_trees():
    hog = ("import subprocess, sys, time\n"
           "code = 'import time; b = bytearray(300 << 20); time.sleep(30)'\n"
           "procs = [subprocess.Popen([sys.executable, '-c', code]) for _ in range(4)]\n"
           "time.sleep(8)\nprint('survived')")
    nb, result = run_cells([hog, "x = 1"], memory_mb=900, notebook_timeout=30)
    assert "survived" not in json.dumps(nb.cells[0].outputs)
    assert result.outcome == "kernel_died"
    assert "memory limit" in result.limit and "900 MB" in result.limit


def test_the_running_notebook_cannot_see_or_reach_the_kernel_started_ahead():
    """Each kernel has a network namespace of its own: the next student's kernel, started while this
    notebook runs, listens on a loopback this kernel does not share (outside review s17, S1)."""
    limits = Limits()
    if not (kernel.SANDBOX_BY_DEFAULT and kernel._prestarts(limits)):
        pytest.skip("kernels are started ahead only in the nested sandbox, with its fork server")
    probe = ("import os, socket, time\n"
             "own = get_ipython().kernel.iopub_thread._pipe_port\n"
             "def listening():\n"
             "    rows = [r.split() for r in open('/proc/net/tcp').read().splitlines()[1:]]\n"
             "    return [int(r[1].split(':')[1], 16) for r in rows if r[3] == '0A']\n"
             "end, others = time.monotonic() + 3, []\n"
             "while not others and time.monotonic() < end:\n"
             "    others = [p for p in listening() if p != own]\n"
             "    time.sleep(0.05)\n"
             "unix = [line for line in open('/proc/net/unix') if 'tg-' in line and os.environ['HOME'] not in line]\n"
             "print(own in listening(), others, len(unix))")
    kernel._drop_spare()
    scratch = kernel.new_scratch("tg-test-", limits)
    (scratch / "work").mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(probe)])
    try:
        result = run_notebook(nb, limits, scratch / "work", kernel_env(scratch, []), prestart="tg-test-")
        assert kernel._spare is not None  # (the next kernel was there to be found)
    finally:
        kernel._drop_spare()
    assert result.outcome == "completed", result
    assert "".join(o.get("text", "") for o in nb.cells[0].outputs).split("\n")[0] == "True [] 0"
