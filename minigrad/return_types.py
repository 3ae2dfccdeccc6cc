"""The named tuples that ops with several results return (``torch.return_types``): ``sort``,
``topk``, ``kthvalue``, ``median``, ``mode``, ``max``, ``min``, each with fields ``values`` and
``indices``, printed as PyTorch prints them (``minigrad.return_types.sort(values=...,
indices=...)``, one field a line)."""

from __future__ import annotations

from collections import namedtuple


def _return_type(name: str, fields=("values", "indices")):
    """A tuple subclass named ``name`` whose fields are ``fields`` (PyTorch's structseq)."""
    base = namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"minigrad.return_types.{name}(\n{body})"

    cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__,
                               "__module__": __name__, "n_fields": len(fields),
                               "__doc__": f"``({', '.join(fields)})`` of ``{name}``."})
    return cls


sort = _return_type("sort")
topk = _return_type("topk")
kthvalue = _return_type("kthvalue")
median = _return_type("median")
nanmedian = _return_type("nanmedian")
mode = _return_type("mode")
max = _return_type("max")  # noqa: A001  (PyTorch's name)
min = _return_type("min")  # noqa: A001
linalg_svd = _return_type("linalg_svd", ("U", "S", "Vh"))

__all__ = ["sort", "topk", "kthvalue", "median", "nanmedian", "mode", "max", "min", "linalg_svd"]
