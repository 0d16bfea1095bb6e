"""`tensorgrad.autograd.profiler`: where the time of a forward and backward pass goes.

    with tensorgrad.autograd.profiler.profile() as prof:
        with tensorgrad.autograd.profiler.record_function("my_block"):
            y = (x * 2).sum()
        y.backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total"))

The table has PyTorch's layout and PyTorch's names for what tensorgrad records: each forward
operation as `aten::<name>` (`aten::mul`, `aten::sum`), each backward step as
`autograd::engine::evaluate_function: MulBackward0` around the rule itself (`MulBackward0`)
and the operations the rule runs, and every leaf's `tensorgrad::autograd::AccumulateGrad`.
PyTorch lists more rows (its operations call smaller ones: `aten::empty_strided`,
`aten::copy_`, ...), and the times differ.

How times are taken: a backward step and a `record_function` block are timed from start to
end; a forward operation is recorded when it has computed its result, and is given the time
since the previous event began or ended in the same block (so the Python code between two
operations counts towards the second one).
"""

import re
import time

from ..core import instruments

_active = None  # the profile being recorded, or None


class _Event:
    __slots__ = ("name", "start", "end", "children")

    def __init__(self, name, start, end=None):
        self.name, self.start, self.end, self.children = name, start, end, []

    @property
    def total(self):
        return self.end - self.start

    @property
    def self_time(self):
        return self.total - sum(child.total for child in self.children)


class profile:  # noqa: N801  (PyTorch's name; used like no_grad)
    """Record the operations run inside the `with` block (CPU only: other options are
    accepted and change nothing, since tensorgrad has no other device)."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        self.enabled = enabled
        self._roots = []
        self._open = []  # the events now running, innermost last
        self._mark = None  # when the last event began or ended

    def __enter__(self):
        global _active
        if self.enabled:
            if _active is not None:
                raise RuntimeError("Profiler is already enabled on this thread")
            _active = self
            self._mark = time.perf_counter()
            self._plugged = instruments.plug_in(on_operation=_operation_recorded,
                                                around_node=_backward_step)
        return self

    def __exit__(self, *exc_info):
        global _active
        if self.enabled:
            _active = None
            instruments.unplug(self._plugged)
        return False

    # -- recording --------------------------------------------------------------------------------
    def _begin(self, name):
        now = time.perf_counter()
        event = _Event(name, now)
        (self._open[-1].children if self._open else self._roots).append(event)
        self._open.append(event)
        self._mark = now
        return event

    def _end(self, event):
        event.end = self._mark = time.perf_counter()
        if self._open and self._open[-1] is event:
            self._open.pop()

    def _operation(self, name):
        now = time.perf_counter()
        event = _Event(name, self._mark, now)
        (self._open[-1].children if self._open else self._roots).append(event)
        self._mark = now

    # -- what PyTorch's profile offers --------------------------------------------------------------
    def events(self):
        """Every recorded event, parents before their children."""
        found, stack = [], list(reversed(self._roots))
        while stack:
            event = stack.pop()
            found.append(event)
            stack.extend(reversed(event.children))
        return found

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """One row per event name: calls counted, times added up."""
        rows = {}
        for event in self.events():
            row = rows.get(event.name)
            if row is None:
                row = rows[event.name] = EventAverage(event.name)
            row.count += 1
            row.self_cpu_time_total += event.self_time * 1e6
            row.cpu_time_total += event.total * 1e6
        return EventList(rows.values())

    def table(self, sort_by=None, row_limit=100, **options):
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit)


class record_function:  # noqa: N801
    """`with record_function("name"):` the block appears as one row of the table."""

    def __init__(self, name, args=None):
        self.name = name
        self._event = None

    def __enter__(self):
        if _active is not None:
            self._event = _active._begin(self.name)
        return self

    def __exit__(self, *exc_info):
        if self._event is not None and _active is not None:
            _active._end(self._event)
        return False


class EventAverage:
    """One row of key_averages(): an event name, its number of calls and its times (in µs)."""

    def __init__(self, key):
        self.key = key
        self.count = 0
        self.self_cpu_time_total = 0.0
        self.cpu_time_total = 0.0

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} count={self.count}>")


class EventList(list):
    """The rows of key_averages(), with PyTorch's `table()`."""

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55, header=None,
              top_level_events_only=False, **options):
        rows = list(self)
        if not rows:
            return ""
        if sort_by is not None:
            rows.sort(key=lambda row: getattr(row, sort_by), reverse=True)
        width = min(max(len(row.key) for row in rows) + 4, max_name_column_width)
        headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                   "# of Calls"]
        widths = [width] + [12] * (len(headers) - 1)
        line = "".join("-" * w + "  " for w in widths)

        def formatted(values):
            return "".join(f"{value:>{w}}  " for value, w in zip(values, widths))

        total = sum(row.self_cpu_time_total for row in rows)
        lines = [line, formatted(headers), line]
        for row in rows[:row_limit]:
            name = row.key
            if len(name) >= max_name_column_width - 3:
                name = name[:max_name_column_width - 3] + "..."
            lines.append(formatted([
                name, _format_share(row.self_cpu_time_total, total),
                _format_time(row.self_cpu_time_total), _format_share(row.cpu_time_total, total),
                _format_time(row.cpu_time_total), _format_time(row.cpu_time), row.count]))
        lines += [line, f"Self CPU time total: {_format_time(total)}"]
        return "\n".join(lines) + "\n"


def _format_time(microseconds):
    if microseconds >= 1e6:
        return f"{microseconds / 1e6:.3f}s"
    if microseconds >= 1e3:
        return f"{microseconds / 1e3:.3f}ms"
    return f"{microseconds:.3f}us"


def _format_share(part, whole):
    return "NaN" if whole == 0 else f"{part * 100.0 / whole:.2f}%"


# -- the names PyTorch gives tensorgrad's operations ---------------------------------------------
_ATEN_NAMES = {"ToCopy": "_to_copy", "UnsafeView": "_unsafe_view", "ReshapeAlias": "_reshape_alias",
               "Log1P": "log1p", "Expm1": "expm1", "CopySlices": "copy_",
               "IndexPutIntoZeros": "index_put_", "Softmax": "_softmax",
               "LogSoftmax": "_log_softmax", "SoftmaxBackwardData": "_softmax_backward_data",
               "LogSoftmaxBackwardData": "_log_softmax_backward_data",
               "CopyBackwards": "copy_", "Zero": "zero_", "Fill": "fill_"}


def _aten_name(node_class):
    """`aten::mul` for MulBackward0: the forward operation's name, in PyTorch's snake case."""
    op = node_class.op_name()
    name = _ATEN_NAMES.get(op) or re.sub(r"(?<!^)(?=[A-Z])", "_", op).lower()
    return "aten::" + name


def _operation_recorded(node_class, result, inputs, saved, attributes):
    """Called by `record` for every operation while a profile is active."""
    _active._operation(_aten_name(node_class))


def _backward_step(node, run):
    """Run `run()` (one node's rule) inside the two events PyTorch shows for it."""
    outer = _active._begin(f"autograd::engine::evaluate_function: {node.name()}")
    inner = _active._begin(node.name())
    try:
        return run()
    finally:
        _active._end(inner)
        _active._end(outer)


__all__ = ["profile", "record_function"]
