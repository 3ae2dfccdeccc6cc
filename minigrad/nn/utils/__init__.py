"""``minigrad.nn.utils``: gradient clipping, parameter/vector conversion and ``skip_init``.

Mirrors ``torch/nn/utils/__init__.py`` (the parts for dense CPU tensors): ``clip_grad.py``,
``convert_parameters.py`` and ``init.py``; ``rnn.py`` (``pad_sequence``).
"""

from . import clip_grad, convert_parameters, init, rnn
from .clip_grad import (
    _clip_grads_with_norm_ as clip_grads_with_norm_,
    _get_total_norm as get_total_norm,
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .init import skip_init

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "vector_to_parameters", "skip_init"]


def __dir__():
    """`dir()` lists the public names (`__all__`) and the submodules."""
    from ..._namespace import public_dir

    return public_dir(globals())
