"""One kernel message or one submitted file costs the grader a bounded amount of memory.

JSON made of millions of empty objects costs 30 to 50 times its size once parsed: a 30 MB kernel
message of ``{}`` took the grader 1.6 GB, a 22 MB notebook 660 MB (session-13 review, finding 6).
The grader counts the values on the bytes before it parses (:func:`.notebooks.json_items`) and
refuses more than :data:`.notebooks.MAX_JSON_ITEMS`; these tests measure the grader's peak memory
(``ru_maxrss`` of a fresh process) and hold it under the stated bound: the text's size twice plus
100 MB.
"""

import json
import subprocess
import sys

import nbformat
import pytest

from tensorgrad_course import kernel, notebooks, sandbox
from tensorgrad_course.kernel import Limits, kernel_env, run_notebook

MB = 2**20

MEASURE = '''
import resource, sys, json
from tensorgrad_course import kernel, notebooks
what = sys.argv[1]
body = b"[" + b"{}," * (10 * 2**20) + b"{}]"  # 30 MB, 10 million objects
if what == "notebook":
    body = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5, "junk": ' + body + b"}"
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if what == "message":
    out = kernel.safe_unpack(body)
    refused = isinstance(out, dict) and kernel.UNREADABLE in out
else:
    try:
        notebooks.parse_json(body)
        refused = False
    except notebooks.NotebookError:
        refused = True
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"size": len(body), "grew_kb": after - before, "refused": refused}))
'''


@pytest.mark.parametrize("what", ["message", "notebook"])
def test_a_text_of_millions_of_empty_objects_costs_a_bounded_amount_of_memory(what):
    done = subprocess.run([sys.executable, "-c", MEASURE, what], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["refused"], got
    bound = 2 * got["size"] + 100 * MB
    assert got["grew_kb"] * 1024 < bound, (got, bound)


def test_strings_hold_no_values():
    text = json.dumps({"text": "[{,}]" * (notebooks.MAX_JSON_ITEMS // 2), "n": [1, 2, 3]}).encode()
    assert notebooks.json_items(text) == 5  # the object, its list, the comma between its keys, two in the list
    assert kernel.safe_unpack(text)["n"] == [1, 2, 3]


@pytest.mark.skipif(sandbox.bwrap()[0] is None, reason="bubblewrap (bwrap) is not installed")
def test_a_kernel_that_sends_a_json_bomb_fails_that_cell_only():
    bomb = ('k = get_ipython().kernel\n'
            'k.session.send(k.iopub_socket, "stream", content=b"[" + b"{},"*(3 << 20) + b"{}]", '
            'parent=k.get_parent("shell"))\n')
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(bomb), nbformat.v4.new_code_cell("print(7)")])
    lim = Limits()
    scratch = kernel.new_scratch("tg-bomb-", lim)
    (scratch / "work").mkdir()
    result = run_notebook(nb, lim, scratch / "work", kernel_env(scratch, []))
    assert result.outcome == "completed", result.reason
    assert any("values" in why for why in result.unreadable_cells.get(0, [])), result.unreadable_cells
    assert "".join(o.get("text", "") for o in nb.cells[1].outputs) == "7\n"
