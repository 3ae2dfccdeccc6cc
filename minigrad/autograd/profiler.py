"""A minimal profiler: which ops ran in the forward, which nodes ran in the backward, how often
and for how long (``torch.autograd.profiler``).

Mirrors ``torch/autograd/profiler.py`` (``profile``, ``record_function``) and
``torch/autograd/profiler_util.py`` (``EventList``, ``FunctionEvent``, ``FunctionEventAvg``,
the table). It exists so that a learner can *see* the backward nodes run; it is not a
performance tool (each recorded event costs a few microseconds of Python).

```python
from minigrad.autograd import profiler
with profiler.profile() as prof:
    with profiler.record_function("forward"):
        loss = (x * w).sum()
    loss.backward()
print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
```

What is recorded, and under which names (PyTorch's):

- **forward ops**: ``aten::<op>`` for each call of an op entry point: a ``Tensor`` method or
  operator (``x * y`` is ``aten::mul``, ``x.sum()`` ``aten::sum``), a function of the
  ``minigrad`` namespace (``minigrad.randn``: ``aten::randn``) or of ``minigrad.nn.functional``
  (``F.linear``: ``aten::linear``, ``F.cross_entropy``: ``aten::cross_entropy_loss``). A custom
  ``Function``'s ``apply`` is an event named after its class (``MyFn``). Ops call each other
  through these entry points only in places, so an op's inner events are fewer than
  PyTorch's (PyTorch also shows dispatcher-level ops such as ``aten::empty`` or
  ``aten::_to_copy`` that minigrad does not have); ``x[i]`` (``aten::select``/``aten::slice``
  in PyTorch) is not recorded. The entry points are wrapped while a profile is recording and
  put back when it ends, so a function imported by name (``from minigrad import mul``) before
  the profile started is not seen.
- **backward nodes**: for every node the engine runs, an event
  ``autograd::engine::evaluate_function: <node name>`` (the whole step: tensor hooks, the
  node's hooks, the node, handing its gradients on) with the node's own event ``<node name>``
  (``MulBackward0``, ``torch::autograd::AccumulateGrad``) inside it, and inside that the ops the
  derivative formula ran, as in PyTorch.
- **labels** of ``record_function(name)`` blocks or decorated functions.

Times are CPU wall-clock times of the calling thread (``time.perf_counter_ns``), in
microseconds as PyTorch's. Self time is an event's time minus its children's.

Left out (minigrad runs on NumPy only): the CUDA / device columns and times (``use_cuda``,
``use_device`` are accepted and measure nothing), memory columns (``profile_memory``), FLOPs
(``with_flops``), source locations (``with_stack``), ``export_chrome_trace`` and kineto's
traces. ``record_shapes=True`` records the shapes of tensor arguments, shown by
``key_averages(group_by_input_shape=True)``. Deliberate difference: a ``profile`` inside
another one raises RuntimeError (in PyTorch the inner one takes over and the outer one ends up
with no events).

Cost when no profile is active: nothing is wrapped, ``record_function`` does one attribute
read, and the engine reads one module-level attribute (``engine._profile``) per node.
"""

from __future__ import annotations

import functools
import threading
import time
import types
from collections import OrderedDict

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]

_active = None  # the profile that is recording, or None

# forward names that differ from the entry point's name (the rest are "aten::" + the name)
_TENSOR_OPERATORS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
    "__rsub__": "rsub", "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul",
    "__imul__": "mul_", "__truediv__": "div", "__rtruediv__": "div", "__itruediv__": "div_",
    "__matmul__": "matmul", "__rmatmul__": "matmul", "__pow__": "pow", "__rpow__": "pow",
    "__neg__": "neg", "__abs__": "abs", "__mod__": "remainder", "__floordiv__": "floor_divide",
    "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
    "__ge__": "ge", "__and__": "bitwise_and", "__or__": "bitwise_or", "__xor__": "bitwise_xor",
    "__invert__": "bitwise_not",
}
_CONVERSIONS = ("float", "double", "half", "bfloat16", "int", "long", "short", "bool", "byte",
                "char", "type_as", "to")
_PYTORCH_NAMES = {"cross_entropy": "cross_entropy_loss", "nll_loss": "nll_loss_nd",
                  **{c: "to" for c in _CONVERSIONS}}
# Tensor methods defined in minigrad/_tensor.py that PyTorch's profiler shows as ops
_TENSOR_CORE_OPS = ("detach", "detach_", "item")
# functions that are no op of their own in PyTorch (Python code, or a tensor constructor)
_NOT_OPS = {"tensor", "as_tensor", "from_numpy", "multi_head_attention_forward", "normalize",
            "interpolate"}


# ----------------------------------------------------------------------------- events
class FunctionEvent:
    """One recorded call (PyTorch's ``FunctionEvent``): ``name``, ``id`` (in start order),
    ``thread``, ``time_range`` (start and end in microseconds since the profile began),
    ``cpu_parent`` / ``cpu_children`` (the events it ran inside / that ran inside it),
    ``input_shapes`` (with ``record_shapes``: a list per argument, ``[]`` for a non-tensor) and
    the derived ``cpu_time_total``, ``self_cpu_time_total`` (microseconds, float)."""

    count = 1
    is_async = False
    device_type = "CPU"
    self_device_time_total = 0.0  # (no device here: see the module docstring)
    device_time_total = 0.0

    def __init__(self, id, name, thread, start_us, input_shapes, parent):
        self.id = id
        self.name = name
        self.thread = thread
        self.time_range = (start_us, start_us)
        self.input_shapes = input_shapes
        self.cpu_parent = parent
        self.cpu_children = []

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

    def __init__(self, key, input_shapes=None):
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0

    def add(self, event) -> FunctionEventAvg:
        """Add one event (or another average) to the sums; returns self."""
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


NO_DEVICE_NOTE = ("(minigrad runs on NumPy: PyTorch's CUDA/device time columns are left out)")


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
    lines += [sep, f"Self CPU time total: {_format_unit(total, unit)}", NO_DEVICE_NOTE]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- recording
class profile:  # noqa: N801 - PyTorch's name
    """Record the ops, backward nodes and ``record_function`` blocks run inside a ``with``
    block (``torch.autograd.profiler.profile``).

    Args:
        enabled: False makes the block record nothing: ``with profile(enabled=False) as p``
            binds None (as PyTorch), and the profile's results raise AttributeError.
        record_shapes: keep the shapes of each event's tensor arguments.
        use_cuda, use_device, profile_memory, with_flops, with_stack, with_modules,
            use_kineto, use_cpu, experimental_config, acc_events: accepted for PyTorch's
            signature; minigrad measures CPU time only (see the module docstring).

    After the block: ``function_events`` (an `EventList` in start order), `key_averages`,
    `table`, `total_average`, ``self_cpu_time_total``; ``str(prof)`` is the table.

    Raises:
        RuntimeError: the same profile entered twice ("not reentrant", as PyTorch), or a
            profile entered while another one is recording (minigrad's profiles do not nest).
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None,
                 record_shapes: bool = False, with_flops: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config=None, acc_events: bool = False, **ignored):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.use_device = None
        self.entered = False
        self._function_events = None
        self._events: list = []
        self._stacks: dict = {}  # thread id -> open events, innermost last
        self._t0 = 0

    def __enter__(self):
        global _active
        if not self.enabled:  # (``with profile(enabled=False) as p`` gives None, as PyTorch)
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        if _active is not None:
            raise RuntimeError("a minigrad profile is already recording: minigrad's profiles "
                               "do not nest (end the other one first)")
        self.entered = True
        self._t0 = time.perf_counter_ns()
        _active = self
        _install()
        _set_engine_profile(self)
        return self

    def __exit__(self, *exc):
        global _active
        if not self.enabled:
            return False
        if _active is self:
            _set_engine_profile(None)
            _uninstall()
            _active = None
        now = self._now()
        for stack in self._stacks.values():  # events left open by an exception
            while stack:
                ev = stack.pop()
                ev.time_range = (ev.time_range[0], now)
        self._function_events = EventList(self._events)
        return False

    @property
    def function_events(self):
        """The recorded `FunctionEvent`s in start order (an `EventList`), None before the
        block has ended. AttributeError for a disabled profile (as PyTorch's)."""
        if not self.enabled:
            raise AttributeError("a disabled profile (enabled=False) has no function_events")
        return self._function_events

    # -- what the wrappers, record_function and the engine call
    def _now(self) -> float:
        return (time.perf_counter_ns() - self._t0) / 1000.0

    def _begin(self, name: str, args=()) -> None:
        tid = threading.get_ident()
        stack = self._stacks.setdefault(tid, [])
        parent = stack[-1] if stack else None
        shapes = _shapes(args) if self.record_shapes else []
        ev = FunctionEvent(len(self._events), name, tid, self._now(), shapes, parent)
        if parent is not None:
            parent.cpu_children.append(ev)
        self._events.append(ev)
        stack.append(ev)

    def _end(self) -> None:
        stack = self._stacks.get(threading.get_ident())
        if stack:
            ev = stack.pop()
            ev.time_range = (ev.time_range[0], self._now())

    def _depth(self) -> int:
        return len(self._stacks.get(threading.get_ident(), ()))

    def _unwind(self, depth: int) -> None:
        """End the events opened since the stack had ``depth`` entries (a backward that
        raised leaves its node's events open)."""
        while self._depth() > depth:
            self._end()

    # -- results
    def _finished_events(self, what: str) -> EventList:
        """The recorded events; an empty list before the block has ended (as PyTorch). A
        disabled profile has none: AttributeError, as PyTorch's ``None.<what>``."""
        if not self.enabled:
            raise AttributeError(f"a disabled profile (enabled=False) has no {what}")
        return self._function_events if self._function_events is not None else EventList()

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     **ignored) -> EventList:
        """The events averaged per name (see `EventList.key_averages`)."""
        return self._finished_events("key_averages").key_averages(group_by_input_shape)

    def table(self, sort_by=None, row_limit: int = 100, **kwargs) -> str:
        """``key_averages().table(...)`` (see `EventList.table`)."""
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self) -> FunctionEventAvg:
        """All events summed into one `FunctionEventAvg`."""
        return self._finished_events("total_average").total_average()

    @property
    def self_cpu_time_total(self) -> float:
        """Sum of the events' self CPU times, microseconds."""
        return self._finished_events("self_cpu_time_total").self_cpu_time_total

    def __str__(self) -> str:
        if not self.enabled or self._function_events is None:
            return "<unfinished minigrad.autograd.profile>"
        return str(self._function_events)  # (every event: not averaged)

    __repr__ = __str__


class record_function:  # noqa: N801 - PyTorch's name
    """Label a block of code (``with record_function("name"):``) or every call of a function
    (``@record_function("name")``) in the profile that is recording
    (``torch.autograd.profiler.record_function``); outside a profile it does nothing.
    ``args`` (a string) is accepted and not shown, as in PyTorch's table."""

    def __init__(self, name: str, args=None):
        self.name = name
        self.args = args
        self._recording = None

    def __enter__(self):
        prof = _active
        if prof is not None:
            prof._begin(self.name)
            self._recording = prof
        return self

    def __exit__(self, *exc):
        prof, self._recording = self._recording, None
        if prof is not None:
            prof._end()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def labelled(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return labelled


def _shapes(args) -> list:
    from .._tensor import Tensor

    return [list(a.shape) if isinstance(a, Tensor) else [] for a in args]


def _set_engine_profile(prof) -> None:
    from . import engine

    engine._profile = prof


# ----------------------------------------------------------------------------- the op wrappers
_installed: list = []  # (owner, attribute, original value) to put back


def _op_wrapper(fn, name):
    """``fn`` recorded as event ``name`` while a profile is active."""

    @functools.wraps(fn)
    def recorded(*args, **kwargs):
        prof = _active
        if prof is None:  # (a wrapper kept by someone after the profile ended)
            return fn(*args, **kwargs)
        prof._begin(name, args)
        try:
            return fn(*args, **kwargs)
        finally:
            prof._end()

    return recorded


def _is_op(fn) -> bool:
    module = getattr(fn, "__module__", None) or ""
    return isinstance(fn, types.FunctionType) and module.startswith(
        ("minigrad._ops", "minigrad._creation", "minigrad._random", "minigrad.nn.functional"))


def _targets():
    """``(owner, attribute, function, event name)`` for every op entry point."""
    import minigrad
    import minigrad.nn.functional as F

    from .._tensor import Tensor
    from .function import Function

    for attr, fn in list(vars(Tensor).items()):
        if attr in _TENSOR_OPERATORS:
            name = _TENSOR_OPERATORS[attr]
        elif attr.startswith("_") or not (_is_op(fn) or attr in _TENSOR_CORE_OPS):
            continue
        else:
            name = _PYTORCH_NAMES.get(attr, attr)
        if isinstance(fn, types.FunctionType):
            yield Tensor, attr, fn, "aten::" + name
    for namespace in (minigrad, F):
        for attr, fn in list(vars(namespace).items()):
            if not attr.startswith("_") and attr not in _NOT_OPS and _is_op(fn):
                yield namespace, attr, fn, "aten::" + _PYTORCH_NAMES.get(attr, attr)
    yield Function, "apply", None, None


def _install() -> None:
    from .function import Function

    for owner, attr, fn, name in _targets():
        if owner is Function:
            original = vars(Function)["apply"]
            _installed.append((Function, "apply", original))
            Function.apply = classmethod(_apply_wrapper(original.__func__))
            continue
        _installed.append((owner, attr, fn))
        setattr(owner, attr, _op_wrapper(fn, name))


def _apply_wrapper(apply):
    """``Function.apply`` recorded as an event named after the custom Function's class."""

    @functools.wraps(apply)
    def recorded(cls, *args, **kwargs):
        prof = _active
        if prof is None:
            return apply(cls, *args, **kwargs)
        prof._begin(cls.__name__, args)
        try:
            return apply(cls, *args, **kwargs)
        finally:
            prof._end()

    return recorded


def _uninstall() -> None:
    while _installed:
        owner, attr, original = _installed.pop()
        setattr(owner, attr, original)
