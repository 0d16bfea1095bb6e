"""Per-kernel limits an attacker got through (outside review s17): every output kind counts against
the one output cap; the disk limit counts what the kernel holds, named or not; the memory limit is
the whole process tree's."""

import json

import nbformat

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
