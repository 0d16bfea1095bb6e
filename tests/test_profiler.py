"""autograd.profiler: PyTorch's table layout and names; every operation counted once.

Times differ from PyTorch's (and between runs), so the tests compare names, counts and layout.
The rows tensorgrad shows are a subset of torch's: torch also lists the smaller operations its
operations call (aten::empty_strided, aten::copy_, ...)."""

import pytest

from parity import lib  # noqa: F401  (lib is a fixture)


def profiled(lib):
    x = lib.ones(3, 3, requires_grad=True)
    profiler = lib.autograd.profiler
    with profiler.profile() as prof:
        with profiler.record_function("my_block"):
            y = (x * 2).sum()
        y.backward()
    return prof


def test_names_and_counts_as_pytorch(lib):
    counts = {row.key.replace("torch::", "tensorgrad::"): row.count
              for row in profiled(lib).key_averages()}
    expected = {"my_block": 1, "aten::mul": 2, "aten::sum": 1, "aten::expand": 1,
                "autograd::engine::evaluate_function: SumBackward0": 1, "SumBackward0": 1,
                "autograd::engine::evaluate_function: MulBackward0": 1, "MulBackward0": 1,
                "autograd::engine::evaluate_function: tensorgrad::autograd::AccumulateGrad": 1,
                "tensorgrad::autograd::AccumulateGrad": 1}
    assert {key: counts.get(key) for key in expected} == expected


def test_table_layout(lib):
    table = profiled(lib).key_averages().table(sort_by="self_cpu_time_total")
    lines = table.splitlines()
    assert lines[0] == lines[2] == lines[-2] == "-" * 55 + "  " + ("-" * 12 + "  ") * 6
    assert lines[1] == (" " * 51 + "Name    Self CPU %      Self CPU   CPU total %     CPU total  "
                        "CPU time avg    # of Calls  ")
    assert lines[-1].startswith("Self CPU time total: ")
    names = [line[:55].strip() for line in lines[3:-2]]
    assert "my_block" in names and "aten::mul" in names
    assert "autograd::engine::evaluate_function: " + (
        "torch" if lib.__name__ == "torch" else "tensorgrad")[:4] in "".join(names)


def test_nothing_recorded_outside_and_no_nesting():
    import tensorgrad as tg

    prof = profiled(tg)
    before = len(prof.events())
    (tg.ones(2, requires_grad=True) * 2).sum().backward()
    assert len(prof.events()) == before
    with tg.autograd.profiler.profile():
        with pytest.raises(RuntimeError, match="^Profiler is already enabled on this thread$"):
            with tg.autograd.profiler.profile():
                pass
