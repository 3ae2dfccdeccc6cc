"""Devices, honestly: ``minigrad.device``, the default device, and the "no GPU here" errors.

Mirrors ``torch.device`` (``c10/core/Device.cpp``: the parsing of ``"cuda:1"``, its errors) and
``torch.set_default_device`` / ``torch.get_default_device`` (``torch/__init__.py``). minigrad
computes with NumPy on the CPU, so ``"cpu"`` is the only device a tensor can be on. Asking for
``"cuda"`` raises what a CPU-only build of PyTorch raises (AssertionError "Torch not compiled
with CUDA enabled"; RuntimeError for a bare accelerator index such as ``device=0``), with a
message saying why and where a GPU does help: the parity suite can run PyTorch's side there.
"""

from __future__ import annotations

import re

# the device types PyTorch's parser knows, in the order its error message lists them
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")
_PATTERN = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")

NO_CUDA = (
    "Torch not compiled with CUDA enabled: minigrad computes with NumPy on the CPU, so 'cpu' is "
    "its only device. Write device = torch.device('cuda' if torch.cuda.is_available() else "
    "'cpu') to run the same code on both; the parity suite can run PyTorch's side on a GPU "
    "(tests parametrised over device) while minigrad's stays on NumPy.")
NO_ACCELERATOR = (
    "Cannot access accelerator device when none is available: minigrad computes with NumPy on "
    "the CPU (an integer device means an accelerator); use 'cpu'. The parity suite can run "
    "PyTorch's side on a GPU.")


def _invalid_combination(got: str) -> TypeError:
    return TypeError(f"device() received an invalid combination of arguments - got ({got}), but "
                     "expected one of:\n * (minigrad.device device)\n * (str type, int index = -1)"
                     "\n")


class device:
    """Where a tensor lives (``torch.device``): a ``type`` (``'cpu'``, ``'cuda'`` ...) and an
    optional ``index``.

    Built from a string (``"cpu"``, ``"cuda:1"``), a type and an index (``device("cuda", 1)``),
    another device, or an int (an accelerator index: RuntimeError here, as in a CPU-only
    PyTorch). Any device PyTorch can name can be *described*; only ``'cpu'`` can hold tensors.
    Equal when type and index are; hashable; prints as ``device(type='cuda', index=1)``, and
    ``str()`` gives ``'cuda:1'``. As a context manager it sets the default device.

    Raises:
        RuntimeError: a malformed string (``"Invalid device string: 'cuda:x'"``), an unknown
            type (``"Expected one of cpu, cuda, ... device type at start of device string"``),
            a negative index, or an index given twice.
        TypeError: arguments of the wrong types.
    """

    __slots__ = ("_type", "_index", "_previous")

    def __init__(self, type=None, index=None):  # noqa: A002  (PyTorch's argument names)
        if isinstance(type, device) and index is None:
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            raise RuntimeError(NO_ACCELERATOR)
        if not isinstance(type, str):
            if index is None:
                raise _invalid_combination("" if type is None and index is None
                                           else _tname(type))
            raise TypeError(f"device(): argument 'type' (position 1) must be str, not "
                            f"{_tname(type)}")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                            f"{_tname(index)}")
        self._type, parsed = _parse(type)
        if index is not None:
            if parsed is not None:
                raise RuntimeError("type (string) must not include an index because index was "
                                   f"passed explicitly: {type}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
            parsed = index
        self._index = parsed

    @property
    def type(self) -> str:
        """The device type: ``'cpu'``, ``'cuda'``, ..."""
        return self._type

    @property
    def index(self) -> int | None:
        """The device index, or None when the string named none."""
        return self._index

    def __eq__(self, other) -> bool:
        return (isinstance(other, device) and self._type == other._type
                and self._index == other._index)

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __reduce__(self):
        return (device, (str(self),))

    def __enter__(self):
        self._previous = _default
        set_default_device(self)
        return self

    def __exit__(self, *exc) -> None:
        set_default_device(self._previous)


def _tname(value) -> str:
    return type(value).__name__


def _parse(text: str):
    """``(type, index or None)`` of a device string, with PyTorch's errors."""
    if not text:
        raise RuntimeError("Device string must not be empty")
    match = _PATTERN.fullmatch(text)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    kind, index = match.group(1), match.group(2)
    if kind not in DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of "
                           f"device string: {kind}")
    return kind, None if index is None else int(index)


CPU = device("cpu")


def check_device(value, argument: str = "device") -> None:
    """Accept a ``device=`` argument that means the CPU (None, ``"cpu"``, ``"cpu:0"``, a cpu
    `device`); refuse every other one as a CPU-only PyTorch does.

    Raises:
        AssertionError: a CUDA device (PyTorch's "Torch not compiled with CUDA enabled").
        RuntimeError: an integer (an accelerator index), a malformed string, or another type
            of device minigrad cannot hold tensors on (``'meta'``, ``'mps'`` ...).
        TypeError: ``value`` is not a device, string or int.
    """
    if value is None or value is CPU or value == "cpu":
        return
    if isinstance(value, (str, device)) or (isinstance(value, int)
                                            and not isinstance(value, bool)):
        dev = device(value)
    else:
        raise TypeError(f"argument '{argument}' must be minigrad.device, not {_tname(value)}")
    if dev.type == "cpu":
        return
    if dev.type == "cuda":
        raise AssertionError(NO_CUDA)
    raise RuntimeError(f"minigrad computes with NumPy on the CPU: tensors cannot be on device "
                       f"'{dev}'; use 'cpu'.")


def is_device(value) -> bool:
    """True for what ``Tensor.to`` reads as a device: a `device`, a string, an int."""
    return isinstance(value, (device, str)) or (isinstance(value, int)
                                                and not isinstance(value, bool))


_default = None  # the default device: None means the CPU, as torch's unset default


def set_default_device(device) -> None:  # noqa: F811  (PyTorch's argument name)
    """Set the device factories use when given none (``torch.set_default_device``).

    Only the CPU is possible: ``None``, ``"cpu"`` or a cpu `device`. A CUDA device raises
    AssertionError (as a CPU-only PyTorch does when a tensor is next made), other devices
    RuntimeError."""
    global _default
    check_device(device)
    _default = None if device is None else globals()["device"](device)


def get_default_device():
    """The default device (``torch.get_default_device``): ``device(type='cpu')``."""
    return CPU if _default is None else _default
