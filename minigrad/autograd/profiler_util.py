"""The profiler's results: events, their averages and the table
(``torch.autograd.profiler_util``).

Mirrors ``torch/autograd/profiler_util.py``: `FunctionEvent` (one recorded call),
`FunctionEventAvg` (the events of one name summed up) and `EventList` (a list of either, with
``key_averages()`` and ``table()``). The table has PyTorch's layout, without the device
(CUDA) columns, which minigrad cannot measure: its last line says so. Recording is in
`minigrad.autograd.profiler`.
"""

from __future__ import annotations

from collections import OrderedDict

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]


class FunctionEvent:
    """One recorded call (PyTorch's ``FunctionEvent``): ``name``, ``id`` (in start order),
    ``thread``, ``time_range`` (start and end, microseconds since the profile began),
    ``cpu_parent`` / ``cpu_children`` (the event it ran inside / those that ran inside it),
    ``input_shapes`` (with ``record_shapes``: one list per argument, ``[]`` for a non-tensor),
    ``sequence_nr`` (see below) and the derived ``cpu_time_total``, ``self_cpu_time_total``
    (microseconds, float).

    ``sequence_nr`` ties the two passes together, as in PyTorch: a forward op that recorded a
    node carries that node's sequence number (``node._sequence_nr()``), and so do the node's
    backward events; -1 for everything else (labels, ops that recorded no node,
    ``AccumulateGrad``). The constructor takes PyTorch's arguments; the device and memory
    ones are accepted and ignored.
    """

    count = 1
    is_async = False
    device_type = "CPU"
    self_device_time_total = 0.0  # (no device here: see the module docstring)
    device_time_total = 0.0

    def __init__(self, id, name, thread, start_us, end_us, overload_name=None,
                 fwd_thread=None, input_shapes=None, stack=None, scope=0, use_device=None,
                 cpu_memory_usage=0, device_memory_usage=0, is_async=False, is_remote=True,
                 sequence_nr=-1, node_id=-1, **ignored):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.time_range = (start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.sequence_nr = sequence_nr
        self.cpu_parent = None
        self.cpu_children = []

    def append_cpu_child(self, child) -> None:
        """Record ``child`` as an event that ran inside this one."""
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent) -> None:
        """Record ``parent`` as the event this one ran inside."""
        self.cpu_parent = parent

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.time_range[1] - self.time_range[0]

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    def __repr__(self) -> str:
        children = [c.id for c in self.cpu_children]
        return (f"<FunctionEvent id={self.id} name={self.name} "
                f"cpu_time={_format_time(self.cpu_time_total)} thread={self.thread} "
                f"input_shapes={self.input_shapes} cpu_children={children}>")


class FunctionEventAvg:
    """Events of one name (and, if grouped so, one list of input shapes) summed up (PyTorch's
    ``FunctionEventAvg``): ``key``, ``count``, ``cpu_time_total``, ``self_cpu_time_total``
    and ``cpu_time`` (the average of ``cpu_time_total`` per call), in microseconds."""

    is_async = False
    self_device_time_total = 0.0
    device_time_total = 0.0
    device_time = 0.0

    def __init__(self, key=None, input_shapes=None):
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_parent = None  # (an average ran inside nothing: see ``top_level_events_only``)

    def add(self, event) -> FunctionEventAvg:
        """Add one event (or another average, itself included) to the sums; the first one
        added names an unnamed average. Returns self."""
        if not isinstance(event, (FunctionEvent, FunctionEventAvg)):
            raise TypeError(f"expected a FunctionEvent or FunctionEventAvg, got "
                            f"{type(event).__name__}")
        if self.key is None:
            self.key = event.key
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time="
                f"{_format_time(self.self_cpu_time_total)} cpu_time="
                f"{_format_time(self.cpu_time)} input_shapes={self.input_shapes}>")


class EventList(list):
    """A list of `FunctionEvent`s or `FunctionEventAvg`s (PyTorch's ``EventList``)."""

    def key_averages(self, group_by_input_shape: bool = False) -> EventList:
        """One `FunctionEventAvg` per event name (per name and input shapes with
        ``group_by_input_shape``), in the order each first appears."""
        groups: OrderedDict = OrderedDict()
        for e in self:
            shapes = str(e.input_shapes) if group_by_input_shape else None
            key = (e.key, shapes)
            if key not in groups:
                groups[key] = FunctionEventAvg(e.key, e.input_shapes if group_by_input_shape
                                               else None)
            groups[key].add(e)
        return EventList(groups.values())

    @property
    def self_cpu_time_total(self) -> float:
        """Sum of the events' self CPU times, microseconds."""
        return sum(e.self_cpu_time_total for e in self)

    def total_average(self) -> FunctionEventAvg:
        """All events summed into one `FunctionEventAvg` with key ``"Total"``."""
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        return total

    def table(self, sort_by=None, row_limit: int = 100, max_name_column_width: int = 55,
              header=None, top_level_events_only: bool = False, time_unit=None,
              **ignored) -> str:
        """The events as PyTorch's text table: ``Name``, ``Self CPU %``, ``Self CPU``,
        ``CPU total %``, ``CPU total``, ``CPU time avg``, ``# of Calls`` (plus ``Input Shapes``
        when the events carry shapes), then ``Self CPU time total``. The device (CUDA) columns
        are left out, and a last line says so.

        Args:
            sort_by: an attribute of the events to sort by, largest first
                (``"self_cpu_time_total"``, ``"cpu_time_total"``, ``"cpu_time"``,
                ``"count"``; ``"cuda_time_total"``/``"device_time_total"`` are all zero here);
                None keeps the order.
            row_limit: at most this many rows. ``max_name_column_width``: longer names are
                cut with ``...``. ``header``: a line printed above the table.
            top_level_events_only: only events that ran inside no other event.
            time_unit: ``"s"``, ``"ms"`` or ``"us"`` for every time (default: each its own).

        Raises:
            AttributeError: ``sort_by`` is not an attribute of the events (as PyTorch).
        """
        return _build_table(self, sort_by, row_limit, max_name_column_width, header,
                            top_level_events_only, time_unit)

    def export_chrome_trace(self, path) -> None:
        """Write the events to ``path`` as a Chrome trace (see `profile.export_chrome_trace`)."""
        import json
        import os

        trace = [{"name": e.name, "ph": "X", "cat": "cpu_op", "ts": e.time_range[0],
                  "dur": e.cpu_time_total, "pid": os.getpid(), "tid": e.thread,
                  "args": {"Sequence number": e.sequence_nr,
                           **({"Input Dims": e.input_shapes} if e.input_shapes else {})}}
                 for e in self if isinstance(e, FunctionEvent)]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace}, f)

    def __str__(self) -> str:
        return self.table()


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_unit(us: float, unit) -> str:
    scale = {"s": 1e6, "ms": 1e3, "us": 1.0}.get(unit)
    return _format_time(us) if scale is None else f"{us / scale:.3f}{unit}"


def _share(us: float, total: float) -> str:
    return "NaN" if total == 0 else f"{us * 100.0 / total:.2f}%"


_NO_DEVICE_NOTE = ("(minigrad runs on NumPy: PyTorch's CUDA/device time columns are left out)")


def _build_table(events, sort_by, row_limit, name_width, header, top_only, unit) -> str:
    """PyTorch's layout: a right-aligned name column (the longest name + 4, at most
    ``name_width``), numeric columns 12 wide, two spaces after each column."""
    if not events:
        return ""
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device")
        events = sorted(events, key=lambda e: getattr(e, attr), reverse=True)
    shapes = any(getattr(e, "input_shapes", None) for e in events)
    name_w = min(max(len(e.key) for e in events) + 4, name_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
               "# of Calls"]
    widths = [name_w] + [12] * 6
    if shapes:
        headers.append("Input Shapes")
        widths.append(min(max(len(str(e.input_shapes)) for e in events) + 4, 80))
    row = "".join("{:>" + str(w) + "}  " for w in widths)
    sep = "".join("-" * w + "  " for w in widths)
    total = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * (len(sep) - 2), header]
    if top_only:
        lines += ["=" * (len(sep) - 2), "This report only display top-level ops statistics"]
    lines += [sep, row.format(*headers), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_only and getattr(e, "cpu_parent", None) is not None:
            continue
        shown += 1
        name = e.key if len(e.key) < name_width - 3 else e.key[:name_width - 3] + "..."
        values = [name, _share(e.self_cpu_time_total, total),
                  _format_unit(e.self_cpu_time_total, unit),
                  _share(e.cpu_time_total, total), _format_unit(e.cpu_time_total, unit),
                  _format_unit(e.cpu_time, unit), e.count]
        if shapes:
            values.append(str(e.input_shapes)[:widths[-1]])
        lines.append(row.format(*values))
    lines += [sep, f"Self CPU time total: {_format_unit(total, unit)}", _NO_DEVICE_NOTE]
    return "\n".join(lines) + "\n"


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from .._namespace import public_dir

    return public_dir(globals())
