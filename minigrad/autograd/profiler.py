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

``record_shapes=True`` records the shapes of tensor arguments, shown by
``key_averages(group_by_input_shape=True)``; ``sequence_nr`` links a forward op to the
backward events of the node it recorded; ``export_chrome_trace(path)`` writes the events as a
Chrome trace.

Left out (minigrad runs on NumPy only): the CUDA / device columns and times (``use_cuda``,
``use_device`` are accepted and measure nothing), memory columns (``profile_memory``), FLOPs
(``with_flops``), source locations (``with_stack``), kineto's own traces. Deliberate
difference: a ``profile`` inside another one raises RuntimeError (in PyTorch the inner one
takes over and the outer one ends up with no events).

Cost when no profile is active: nothing is wrapped, ``record_function`` does one attribute
read, and the engine reads one module-level attribute (``engine._profile``) per node.
"""

from __future__ import annotations

import functools
import threading
import time
import types

from .profiler_util import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["profile", "record_function", "EventList", "FunctionEvent"]

_active = None  # the profile that is recording, or None


def _profiler_enabled() -> bool:
    """True while a profile is recording (PyTorch's ``torch.autograd._profiler_enabled``)."""
    return _active is not None

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


# ----------------------------------------------------------------------------- recording
class profile:  # noqa: N801 - PyTorch's name
    """Record the ops, backward nodes and ``record_function`` blocks run inside a ``with``
    block (``torch.autograd.profiler.profile``).

    Args:
        enabled: False makes the block record nothing: ``with profile(enabled=False) as p``
            binds None (as PyTorch), and the profile's results raise AttributeError.
        record_shapes: keep the shapes of each event's tensor arguments.

    ``use_cuda``, ``use_device``, ``profile_memory``, ``with_flops``, ``with_stack``,
    ``with_modules``, ``use_kineto``, ``use_cpu``, ``experimental_config`` and ``acc_events``
    are accepted for PyTorch's signature; minigrad measures CPU time only (see the module
    docstring).

    After the block: ``function_events`` (an `EventList` in start order), `key_averages`,
    `table` (every event), `total_average`, ``self_cpu_time_total``, `export_chrome_trace`;
    ``str(prof)`` is the table.

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
        self._stacks: dict = {}  # thread id -> open events, in the order they were opened
        self._t0 = 0
        self._clock = 0  # counts begins and ends (see _link)

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
        for stack in self._stacks.values():  # events left open (by an exception)
            while stack:
                ev = stack.pop()
                ev.time_range = (ev.time_range[0], self._now())
                ev._ticks = (ev._ticks[0], self._tick())
        self._link()
        self._function_events = EventList(self._events)
        return False

    def _node_seq(self, node) -> int:
        """A backward event's ``sequence_nr``: its node's (-1 for ``AccumulateGrad``)."""
        from .graph import AccumulateGrad

        return -1 if type(node) is AccumulateGrad else node._sequence_nr()

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

    def _begin(self, name: str, args=(), kwargs=None, sequence_nr: int = -1):
        """Open an event on this thread; returns it. (Which event ran inside which is worked
        out when the profile ends, from the order events began and ended: see `_link`.)"""
        tid = threading.get_ident()
        shapes = _shapes(args, kwargs) if self.record_shapes else []
        now = self._now()
        ev = FunctionEvent(len(self._events), name, tid, now, now, input_shapes=shapes,
                           sequence_nr=sequence_nr)
        ev._ticks = (self._tick(), None)
        self._events.append(ev)
        self._stacks.setdefault(tid, []).append(ev)
        return ev

    def _end(self, ev=None) -> None:
        """Close ``ev`` (default: the last event this thread opened and has not closed). A
        label may be closed while one opened after it is still open (PyTorch allows it)."""
        stack = self._stacks.get(threading.get_ident())
        if not stack:
            return
        if ev is None or stack[-1] is ev:
            ev = stack.pop()
        elif ev in stack:
            stack.remove(ev)
        else:
            return
        ev.time_range = (ev.time_range[0], self._now())
        ev._ticks = (ev._ticks[0], self._tick())

    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def _link(self) -> None:
        """Parents and children, per thread, as PyTorch works them out: an event runs inside
        the latest earlier one that is still open when it begins and closes after it ends.
        (Begin/end order is counted, so events of equal times are told apart.)"""
        open_by_thread: dict = {}
        for ev in self._events:  # (in the order they began)
            stack = open_by_thread.setdefault(ev.thread, [])
            begin, end = ev._ticks
            while stack and (stack[-1]._ticks[1] < begin or stack[-1]._ticks[1] < end):
                stack.pop()
            if stack:
                ev.set_cpu_parent(stack[-1])
                stack[-1].append_cpu_child(ev)
            stack.append(ev)

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
        """The table of every recorded event, not averaged (``function_events.table``, as
        PyTorch's; ``str(prof)`` is the same). See `EventList.table`."""
        return self._finished_events("table").table(sort_by=sort_by, row_limit=row_limit,
                                                    **kwargs)

    def export_chrome_trace(self, path) -> None:
        """Write the events as a Chrome trace (JSON, ``"ph": "X"`` complete events with
        microsecond ``ts`` and ``dur``), readable in ``chrome://tracing`` or Perfetto."""
        self._finished_events("export_chrome_trace").export_chrome_trace(path)

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
        self._recording = None  # (profile, event) while open

    def __enter__(self):
        prof = _active
        if prof is not None:
            self._recording = (prof, prof._begin(self.name))
        return self

    def __exit__(self, *exc):
        recording, self._recording = self._recording, None
        if recording is not None:
            prof, ev = recording
            prof._end(ev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def labelled(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return labelled


def _shapes(args, kwargs=None) -> list:
    from .._tensor import Tensor

    values = list(args) + list((kwargs or {}).values())
    return [list(a.shape) if isinstance(a, Tensor) else [] for a in values]


def _grad_fns(args) -> set:
    """The nodes the tensor arguments of a call have (or are about to have: a tensor's
    ``grad_fn``) before it runs, by id."""
    from .._tensor import Tensor

    return {id(a._grad_fn) for a in args if isinstance(a, Tensor) and a._grad_fn is not None}


def _new_node_seq(prof, result, before: set, ev) -> int:
    """The sequence number of the node the call recorded for ``result`` (the first tensor of a
    tuple), -1 if it recorded none or an op called inside it did."""
    from .._tensor import Tensor

    if isinstance(result, (tuple, list)):
        result = next((r for r in result if isinstance(r, Tensor)), None)
    node = result._grad_fn if isinstance(result, Tensor) else None
    if node is None or id(node) in before:
        return -1
    seq = node._sequence_nr()
    if any(e.sequence_nr == seq for e in prof._events[ev.id + 1:]):  # (begun inside ev)
        return -1
    return seq


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
        before = _grad_fns(args)  # (an in-place op gives its input a new node)
        ev = prof._begin(name, args, kwargs)
        try:
            result = fn(*args, **kwargs)
            ev.sequence_nr = _new_node_seq(prof, result, before, ev)
            return result
        finally:
            prof._end(ev)

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
        before = _grad_fns(args)
        ev = prof._begin(cls.__name__, args, kwargs)
        try:
            result = apply(cls, *args, **kwargs)
            ev.sequence_nr = _new_node_seq(prof, result, before, ev)
            return result
        finally:
            prof._end(ev)

    return recorded


def _uninstall() -> None:
    while _installed:
        owner, attr, original = _installed.pop()
        setattr(owner, attr, original)


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from .._namespace import public_dir

    return public_dir(globals())
