"""``InstanceNorm1d`` and ``InstanceNorm2d``. Mirrors ``torch/nn/modules/instancenorm.py``
(``_InstanceNorm`` on top of batch norm's ``_NormBase``).

Instance norm normalises each sample's channels on their own (statistics over the spatial dims
only). By default it has no affine parameters and tracks no running statistics; with
``track_running_stats=True`` eval mode uses them, as batch norm does.
"""

from __future__ import annotations

import warnings

from .. import functional as F
from .batchnorm import _NormBase


class _InstanceNorm(_NormBase):
    """The forward shared by the instance-norm layers (unbatched input is given a batch dim of
    one, as PyTorch's ``_handle_no_batch_input``)."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None,
                 dtype=None, *, bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _get_no_batch_dim(self) -> int:
        raise NotImplementedError

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.dim() == self._get_no_batch_dim():
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or unbatched (C, L) input
    (``torch.nn.InstanceNorm1d``). Args as `BatchNorm1d`, but ``affine=False`` and
    ``track_running_stats=False`` by default. ValueError for input that is not 2-D or 3-D."""

    def _get_no_batch_dim(self) -> int:
        return 2

    def _check_input_dim(self, input) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or unbatched (C, H, W) input
    (``torch.nn.InstanceNorm2d``). Args as `BatchNorm2d`, but ``affine=False`` and
    ``track_running_stats=False`` by default. ValueError for input that is not 3-D or 4-D."""

    def _get_no_batch_dim(self) -> int:
        return 3

    def _check_input_dim(self, input) -> None:
        if input.dim() not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")
