"""Backend switches (``torch.backends``): only `minigrad.backends.mkldnn` so far, which
chooses between the fused LSTM layer and the composition of ordinary ops."""

from . import mkldnn

__all__ = ["mkldnn"]
