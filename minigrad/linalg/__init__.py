"""``minigrad.linalg``: the ``torch.linalg`` functions minigrad has.

Mirrors ``torch/linalg/__init__.py`` (whose functions are ATen ops); the implementations live
in ``minigrad/_ops``.
"""

from .._ops.reduction_more import linalg_norm as norm
from .._ops.reduction_more import matrix_norm, vector_norm
from .._ops.linalg_more import linalg_cross as cross
from .._ops.svd import svd, svdvals
from .._ops.transform import linalg_diagonal as diagonal

__all__ = ["cross", "diagonal", "matrix_norm", "norm", "vector_norm", "svd", "svdvals"]

from .._ops.out import add_linalg_out_forms as _add_linalg_out_forms  # noqa: E402

_add_linalg_out_forms(globals())  # out= on those PyTorch gives one


def __dir__():
    """`dir()` lists the public names (`__all__`)."""
    from .._namespace import public_dir

    return public_dir(globals())
