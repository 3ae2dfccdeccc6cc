"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and the single-step ``RNNCell``, ``LSTMCell``,
``GRUCell``.

Mirrors ``torch/nn/modules/rnn.py`` (the modules: parameters, checks, unbatched inputs, zero
initial states) and, for the computation, PyTorch's CPU implementation in
``aten/src/ATen/native/RNN.cpp`` (``SimpleCell``, ``LSTMCell``, ``GRUCell``, ``FullLayer``,
``FullBidirectionalLayer``, ``apply_layer_stack``, ``_rnn_impl``). That implementation is a
composition of ordinary ops, and minigrad runs the same ops in the same order, so the backward
graph is PyTorch's node for node:

- the input-to-hidden product of a whole layer is computed once, ``F.linear(x, w_ih, b_ih)``
  over all time steps (``ViewBackward0(AddmmBackward0(b_ih, ViewBackward0(x), TBackward0))``),
  then ``unbind(0)`` into steps (``UnbindBackward0``);
- each step adds ``F.linear(h, w_hh, b_hh)`` (``AddmmBackward0`` + ``AddBackward0``); LSTM and GRU
  cut the gates with ``unsafe_chunk`` (``UnsafeSplitBackward0``) and apply ``sigmoid``/``tanh``
  (``SigmoidBackward0``, ``TanhBackward0``, ``MulBackward0``, ``AddBackward0``, ``SubBackward0``);
  a projected LSTM (``proj_size > 0``) ends the step with ``matmul(h, w_hr.t())``
  (``MmBackward0``);
- the step outputs are stacked (``StackBackward0``); the two directions of a bidirectional layer
  are joined with ``cat`` on the last dim (``CatBackward0``); the initial states are split with
  ``unbind(0)`` and the final ones stacked; ``batch_first`` transposes the input
  (``TransposeBackward0``) and the output (in place for RNN and GRU: ``TransposeBackward1``,
  out of place for LSTM: ``TransposeBackward0``, as PyTorch); dropout between
  layers (training mode, ``dropout > 0``) is ``F.dropout`` (``MulBackward0``).

A float32 or bfloat16 ``LSTM`` without ``proj_size``, with oneDNN
enabled (`minigrad.backends.mkldnn`, the default), takes PyTorch's oneDNN path instead
(`_mkldnn_lstm`, ``mkldnn_rnn`` in ``aten/src/ATen/native/mkldnn/RNN.cpp``): one fused
``MkldnnRnnLayerBackward0`` node per layer and direction (`minigrad._ops.rnn`), exactly
where PyTorch takes it (`_use_mkldnn`); float64, float16 with grad, ``proj_size`` (with
PyTorch's once-per-process warning), an input of no elements, ``RNN``/``GRU``/the cells and
``backends.mkldnn.flags(enabled=False)`` record the composition above.

Differences from PyTorch, all deliberate:

- PyTorch runs its cells with in-place ops on fresh intermediates (``gates.add_``,
  ``chunk.sigmoid_()``, ``mul_``); minigrad uses the out-of-place ops, which record the same
  node names and edges. The intermediates are never visible, so no ``_version`` differs.
- ``PackedSequence`` inputs are not supported (TypeError).
- Initial values come from minigrad's generator (`minigrad.manual_seed`), so a fresh module's
  weights differ from PyTorch's; copy them with ``load_state_dict`` to compare.
"""

from __future__ import annotations

import math
import numbers
import warnings

from ... import _creation, _dtype
from ..._ops import linalg as _linalg
from ..._ops import rnn as _rnn_ops
from ..._ops import shape as _shape
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...backends import mkldnn as _mkldnn
from .. import functional as F
from .. import init
from .linear import _empty_param
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


# ----------------------------------------------------------------------------- the computation
class _CellParams:
    """One layer-direction's weights (``CellParams`` in ``RNN.cpp``); biases and ``w_hr`` may
    be None."""

    def __init__(self, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
        self.w_ih, self.w_hh, self.b_ih, self.b_hh, self.w_hr = w_ih, w_hh, b_ih, b_hh, w_hr

    def linear_ih(self, x):
        return F.linear(x, self.w_ih, self.b_ih)

    def linear_hh(self, h):
        return F.linear(h, self.w_hh, self.b_hh)

    def matmul_hr(self, h):
        return h if self.w_hr is None else _linalg.matmul(h, self.w_hr.t())


def _tanh_cell(x, h, p, pre_computed):
    """h' = tanh(h @ w_hh.T + b_hh + x @ w_ih.T + b_ih) (``SimpleCell<tanh_f>``)."""
    hh = p.linear_hh(h)
    return (hh + (x if pre_computed else p.linear_ih(x))).tanh()


def _relu_cell(x, h, p, pre_computed):
    """h' = relu(h @ w_hh.T + b_hh + x @ w_ih.T + b_ih) (``SimpleCell<relu_f>``)."""
    hh = p.linear_hh(h)
    return (hh + (x if pre_computed else p.linear_ih(x))).relu()


def _lstm_cell(x, hidden, p, pre_computed):
    """One LSTM step (``LSTMCell`` in ``RNN.cpp``): gates i, f, g, o from one product,
    c' = f * c + i * g, h' = o * tanh(c') (then ``@ w_hr.T`` when projected)."""
    hx, cx = hidden
    hh = p.linear_hh(hx)
    gates = hh + (x if pre_computed else p.linear_ih(x))
    i, f, g, o = _shape.unsafe_chunk(gates, 4, 1)
    ingate, forgetgate, cellgate, outgate = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = forgetgate * cx + ingate * cellgate
    hy = outgate * cy.tanh()
    return p.matmul_hr(hy), cy


def _gru_cell(x, h, p, pre_computed):
    """One GRU step (``GRUCell`` in ``RNN.cpp``): r = sigmoid(hr + ir), z = sigmoid(hz + iz),
    n = tanh(in + hn * r), h' = (h - n) * z + n."""
    igates = _shape.unsafe_chunk(x if pre_computed else p.linear_ih(x), 3, 1)
    hgates = _shape.unsafe_chunk(p.linear_hh(h), 3, 1)
    reset_gate = (hgates[0] + igates[0]).sigmoid()
    input_gate = (hgates[1] + igates[1]).sigmoid()
    new_gate = (igates[2] + hgates[2] * reset_gate).tanh()
    return (h - new_gate) * input_gate + new_gate


def _as_output(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _run_steps(cell, steps, hidden, p):
    outputs = []
    for x in steps:
        hidden = cell(x, hidden, p, True)
        outputs.append(_as_output(hidden))
    return outputs, hidden


def _full_layer(cell, inputs, hidden, p):
    """``FullLayer`` on the CPU: the input product for all steps at once, then the steps."""
    outputs, hidden = _run_steps(cell, p.linear_ih(inputs).unbind(0), hidden, p)
    return _shape.stack(outputs, 0), hidden


def _full_layer_in_order(cell, inputs, hidden, p, reverse):
    """One direction of a layer as the composition: `_full_layer`, or (``reverse``) the steps
    taken from the last to the first, the outputs stacked back in time order (the reverse
    half of `_bidirectional_layer`). Used by the fused node's double backward."""
    if not reverse:
        return _full_layer(cell, inputs, hidden, p)
    steps = p.linear_ih(inputs).unbind(0)
    rev, hidden = _run_steps(cell, steps[::-1], hidden, p)
    return _shape.stack(rev[::-1], 0), hidden


def _bidirectional_layer(cell, inputs, hidden, params):
    """``FullBidirectionalLayer`` on the CPU: forward steps, then the reversed steps over the
    reversed step list; outputs joined on the last dim."""
    fw_out, fw_h = _full_layer(cell, inputs, hidden[0], params[0])
    steps = params[1].linear_ih(inputs).unbind(0)
    rev, rev_h = _run_steps(cell, steps[::-1], hidden[1], params[1])
    rev_out = _shape.stack(rev[::-1], 0)
    return _shape.cat([fw_out, rev_out], fw_out.ndim - 1), (fw_h, rev_h)


def _rnn_impl(cell, input, params, hiddens, num_layers, dropout, train, bidirectional, batch_first):
    """``_rnn_impl`` + ``apply_layer_stack``: layer after layer, dropout between layers.
    Returns the output (T, B, D*H) (or batch-first) and the final hidden per layer-direction.
    A batch-first output is transposed back in place (``TransposeBackward1``, ``_version`` 1)
    for RNN and GRU (``_rnn_impl_with_concat``), out of place (``TransposeBackward0``) for
    LSTM (``lstm`` in ``RNN.cpp``)."""
    if batch_first:
        input = input.transpose(0, 1)
    if input.shape[0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    finals, layer_input = [], input
    for layer in range(num_layers):
        if bidirectional:
            layer_input, (fw_h, rev_h) = _bidirectional_layer(
                cell,
                layer_input,
                hiddens[2 * layer : 2 * layer + 2],
                params[2 * layer : 2 * layer + 2],
            )
            finals += [fw_h, rev_h]
        else:
            layer_input, h = _full_layer(cell, layer_input, hiddens[layer], params[layer])
            finals.append(h)
        if dropout != 0 and train and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    if batch_first:
        layer_input = (
            layer_input.transpose(0, 1)
            if cell is _lstm_cell
            else _shape._transpose_fresh(layer_input, 0, 1)
        )
    return layer_input, finals


# ----------------------------------------------------------------------------- oneDNN's path
def _use_mkldnn(input) -> bool:
    """Whether PyTorch's CPU would run this LSTM through oneDNN (``use_mkldnn`` in
    ``RNN.cpp``): the switch `minigrad.backends.mkldnn` is on, the input is float32 or
    bfloat16, or float16 with grad mode off, and it has elements. (PyTorch also asks the CPU
    whether it has bfloat16/float16 instructions; minigrad answers yes, as this machine's
    AVX-512 CPU does.)"""
    if not _mkldnn.enabled or input.numel() == 0:
        return False
    dt = input.dtype
    if dt in (_dtype.float32, _dtype.bfloat16):
        return True
    return dt == _dtype.float16 and not grad_mode.is_grad_enabled()


_projections_warned = False


def _warn_projections_once() -> None:
    """PyTorch's ``TORCH_WARN_ONCE`` (once per process) when a projected LSTM would have
    taken oneDNN's path: it runs the composition instead."""
    global _projections_warned
    if not _projections_warned:
        _projections_warned = True
        warnings.warn(
            "LSTM with projections is not supported with oneDNN. Using default implementation.",
            UserWarning,
            stacklevel=4,
        )


def _mkldnn_lstm(
    input, hx, cx, weights, has_biases, num_layers, dropout, train, bidirectional, batch_first
):
    """``mkldnn_rnn`` (``aten/src/ATen/native/mkldnn/RNN.cpp``): the layers as fused ops.

    A batch-first input is transposed and made contiguous (``TransposeBackward0``,
    ``CloneBackward0``); the states of layer-direction k are ``hx[k]``, ``cx[k]``
    (``SelectBackward0``); each layer-direction is one `mkldnn_rnn_layer`
    (``MkldnnRnnLayerBackward0``; without bias, zeros of the weights' shapes stand in, as
    PyTorch's); the two directions are joined with ``cat`` on the last dim, dropout between
    layers (training mode) is ``F.dropout``; the final states are stacked
    (``StackBackward0``), the output transposed back (``TransposeBackward0``).
    ``weights``: per layer-direction ``[w_ih, w_hh, b_ih, b_hh]`` (without the biases when
    ``has_biases`` is False). Returns ``(output, hy, cy)``.
    """
    if batch_first:
        input = input.transpose(0, 1)
    input, hx, cx = input.contiguous(), hx.contiguous(), cx.contiguous()
    directions = 2 if bidirectional else 1
    hidden_size = hx.size(2)
    layer_input, hys, cys = input, [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            w = weights[index]
            if has_biases:
                b_ih, b_hh = w[2], w[3]
            else:
                b_ih = _creation.zeros(*w[0].shape, dtype=w[0].dtype)
                b_hh = _creation.zeros(*w[1].shape, dtype=w[1].dtype)
            out, hy, cy, _ = _rnn_ops.mkldnn_rnn_layer(
                layer_input,
                w[0],
                w[1],
                b_ih,
                b_hh,
                hx.select(0, index),
                cx.select(0, index),
                direction > 0,
                (),
                _rnn_ops.LSTM_MODE,
                hidden_size,
                num_layers,
                has_biases,
                bidirectional,
                batch_first,
                train,
            )
            outputs.append(out)
            hys.append(hy)
            cys.append(cy)
        layer_input = outputs[0] if directions == 1 else _shape.cat(outputs, -1)
        if dropout != 0 and train and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    output = layer_input.transpose(0, 1) if batch_first else layer_input
    return output, _shape.stack(hys, 0), _shape.stack(cys, 0)


# ----------------------------------------------------------------------------- modules
class RNNBase(Module):
    """Base class of ``RNN``, ``LSTM`` and ``GRU`` (``torch.nn.RNNBase``): builds the
    parameters ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}``
    (and ``weight_hr_l{k}`` when ``proj_size > 0``), with the suffix ``_reverse`` for the
    backward direction, all initialised from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).

    Shapes: ``weight_ih_l0`` (gates * hidden_size, input_size), later layers
    (gates * hidden_size, num_directions * real_hidden), ``weight_hh_l{k}``
    (gates * hidden_size, real_hidden), biases (gates * hidden_size,), ``weight_hr_l{k}``
    (proj_size, hidden_size); gates = 4 (LSTM), 3 (GRU), 1 (RNN); real_hidden = proj_size or
    hidden_size.

    Raises ValueError for a dropout outside [0, 1], non-positive sizes or layer counts, a
    proj_size that is negative or not smaller than hidden_size; TypeError for non-bool
    ``bias``/``batch_first`` or non-int sizes; warns (UserWarning) when ``dropout > 0`` with
    ``num_layers == 1``.
    """

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if (
            not isinstance(dropout, numbers.Number)
            or not 0 <= dropout <= 1
            or isinstance(dropout, bool)
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the "
                "probability of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so "
                "non-zero dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(
                f"batch_first should be of type bool, got: {type(batch_first).__name__}"
            )
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        gates = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}.get(mode)
        if gates is None:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = gates * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                shapes = [
                    ("weight_ih_l{}{}", (gate_size, layer_input)),
                    ("weight_hh_l{}{}", (gate_size, real_hidden)),
                ]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr_l{}{}", (proj_size, hidden_size)))
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n, _ in shapes]
                for name, (_, shape) in zip(names, shapes):
                    setattr(self, name, _empty_param(shape, dtype))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self) -> None:
        self._flat_weights = [
            getattr(self, n) if hasattr(self, n) else None for n in self._flat_weights_names
        ]

    def __setattr__(self, attr, value) -> None:
        if "_flat_weights_names" in self.__dict__ and attr in self._flat_weights_names:
            self._flat_weights[self._flat_weights_names.index(attr)] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self) -> None:
        """A no-op: PyTorch packs the weights into one buffer for cuDNN only."""

    def _apply(self, fn, recurse: bool = True):
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def reset_parameters(self) -> None:
        """Re-draw every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self) -> list:
        """The parameters grouped per layer and direction: ``[[w_ih, w_hh, b_ih, b_hh], ...]``."""
        return [[getattr(self, w) for w in weights] for weights in self._all_weights]

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ------------------------------------------------------------------ checks (PyTorch's)
    def check_input(self, input: Tensor, batch_sizes=None) -> None:
        """ValueError for a dtype other than the weights'; RuntimeError for a wrong rank or
        feature size."""
        wdt = self._flat_weights[0].dtype
        if input.dtype != wdt:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype "
                f"({wdt}). Convert input: input.to({wdt}), or convert model: "
                f"model.to({input.dtype})"
            )
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input: Tensor, batch_sizes=None) -> tuple:
        """(num_layers * num_directions, batch, proj_size or hidden_size)."""
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, size)

    def check_hidden_size(
        self, hx: Tensor, expected_hidden_size: tuple, msg: str = "Expected hidden size {}, got {}"
    ) -> None:
        """RuntimeError ``msg`` (expected size, actual size) when ``hx`` has another size."""
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes=None) -> None:
        """`check_input`, then the state's size."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        """``hx`` itself (PyTorch reorders it for a sorted PackedSequence, unsupported here)."""
        return hx

    # ------------------------------------------------------------------ shared forward parts
    def _cell_params(self) -> list:
        per = len(self._all_weights[0])
        out = []
        for k in range(len(self._all_weights)):
            w = self._flat_weights[k * per : (k + 1) * per]
            b = (w[2], w[3]) if self.bias else (None, None)
            out.append(_CellParams(w[0], w[1], *b, w[-1] if self.proj_size > 0 else None))
        return out

    def _prepare(self, input, name: str):
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}: expected a Tensor input (PackedSequence is not "
                f"supported), got {type(input).__name__}"
            )
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                + ("tensor instead" if name == "RNN" else "instead")
            )
        is_batched = input.dim() == 3
        if not is_batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        return input, is_batched

    def _zeros(self, input, size):
        batch = input.size(0) if self.batch_first else input.size(1)
        return _creation.zeros(
            self.num_layers * (2 if self.bidirectional else 1), batch, size, dtype=input.dtype
        )

    def _forward_single_state(self, input, hx, cell, name):
        """RNN and GRU: one state tensor (num_layers * num_directions, batch, hidden)."""
        input, is_batched = self._prepare(input, name)
        if hx is not None:
            if not is_batched:
                if hx.dim() != 2:
                    raise RuntimeError(
                        f"For unbatched 2-D input, hx should also be 2-D but "
                        f"got {hx.dim()}-D tensor"
                    )
                hx = hx.unsqueeze(1)
            elif hx.dim() != 3:
                raise RuntimeError(
                    f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
                )
        else:
            hx = self._zeros(input, self.hidden_size)
        self.check_forward_args(input, hx, None)
        output, finals = _rnn_impl(
            cell,
            input,
            self._cell_params(),
            hx.unbind(0),
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
            self.batch_first,
        )
        hidden = _shape.stack(finals, 0)
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    """Elman RNN (``torch.nn.RNN``): h_t = act(x_t @ W_ih.T + b_ih + h_{t-1} @ W_hh.T + b_hh),
    act = tanh or relu (``nonlinearity``).

    Args: ``input_size``, ``hidden_size``, ``num_layers=1``, ``nonlinearity='tanh'``,
    ``bias=True``, ``batch_first=False``, ``dropout=0.0``, ``bidirectional=False``,
    ``device``, ``dtype``. Input (T, B, input_size) (or (B, T, input_size) with
    ``batch_first``, or unbatched (T, input_size)); ``hx`` (D * num_layers, B, hidden_size)
    or (D * num_layers, hidden_size) for unbatched input, zeros when omitted. Returns
    ``(output, h_n)``: output (T, B, D * hidden_size), h_n like ``hx``.
    Raises ValueError for an unknown nonlinearity or a ``proj_size`` argument.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        cell = _tanh_cell if self.mode == "RNN_TANH" else _relu_cell
        return self._forward_single_state(input, hx, cell, "RNN")


class GRU(RNNBase):
    """Gated recurrent unit (``torch.nn.GRU``): per step r = sigmoid(W_ir x + b_ir + W_hr h +
    b_hr), z = sigmoid(W_iz x + b_iz + W_hz h + b_hz), n = tanh(W_in x + b_in + r * (W_hn h +
    b_hn)), h' = (1 - z) * n + z * h (gates stacked r, z, n in the weights).

    Args, shapes and returns as `RNN` (without ``nonlinearity``); ValueError for a
    ``proj_size`` argument.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single_state(input, hx, _gru_cell, "GRU")


class LSTM(RNNBase):
    """Long short-term memory (``torch.nn.LSTM``): per step i, f, g, o = chunks of
    (W_ih x + b_ih + W_hh h + b_hh), c' = sigmoid(f) * c + sigmoid(i) * tanh(g),
    h' = sigmoid(o) * tanh(c') (then h' @ W_hr.T when ``proj_size > 0``).

    Args: as `RNN` without ``nonlinearity``, plus ``proj_size=0``. ``hx`` is a tuple
    ``(h_0, c_0)``: h_0 (D * num_layers, B, proj_size or hidden_size), c_0
    (D * num_layers, B, hidden_size) (without the batch dim for unbatched input); zeros when
    omitted. Returns ``(output, (h_n, c_n))``, output (T, B, D * (proj_size or hidden_size)).
    Raises RuntimeError for states of the wrong rank or size (``Expected hidden[0] size``).

    Graph: float32 and bfloat16 (float16 without grad mode), no ``proj_size``, oneDNN enabled
    (`minigrad.backends.mkldnn`, the default): one ``MkldnnRnnLayerBackward0`` per layer and
    direction, as PyTorch's CPU; otherwise the composition of ordinary ops (module docstring).
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes=None) -> tuple:
        """(num_layers * num_directions, batch, hidden_size), the size of ``c_0``."""
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden, batch_sizes=None) -> None:
        """`check_input`, then the sizes of ``h_0`` and ``c_0`` (``Expected hidden[i] size``)."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(
            hidden[0],
            self.get_expected_hidden_size(input, batch_sizes),
            "Expected hidden[0] size {}, got {}",
        )
        self.check_hidden_size(
            hidden[1],
            self.get_expected_cell_size(input, batch_sizes),
            "Expected hidden[1] size {}, got {}",
        )

    def forward(self, input, hx=None):
        input, is_batched = self._prepare(input, "LSTM")
        if hx is None:
            real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zeros(input, real_hidden), self._zeros(input, self.hidden_size))
        else:
            dims = (hx[0].dim(), hx[1].dim())
            if is_batched and dims != (3, 3):
                raise RuntimeError(
                    f"For batched 3-D input, hx and cx should also be 3-D but "
                    f"got ({dims[0]}-D, {dims[1]}-D) tensors"
                )
            if not is_batched:
                if dims != (2, 2):
                    raise RuntimeError(
                        f"For unbatched 2-D input, hx and cx should also be 2-D "
                        f"but got ({dims[0]}-D, {dims[1]}-D) tensors"
                    )
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        use_mkldnn = _use_mkldnn(input)
        if use_mkldnn and self.proj_size > 0:
            _warn_projections_once()
        if use_mkldnn and self.proj_size == 0:
            output, h_n, c_n = _mkldnn_lstm(
                input,
                hx[0],
                hx[1],
                self.all_weights,
                self.bias,
                self.num_layers,
                self.dropout,
                self.training,
                self.bidirectional,
                self.batch_first,
            )
            if not is_batched:
                output = output.squeeze(0 if self.batch_first else 1)
                h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
            return output, (h_n, c_n)
        hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
        output, finals = _rnn_impl(
            _lstm_cell,
            input,
            self._cell_params(),
            hiddens,
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
            self.batch_first,
        )
        h_n = _shape.stack([h for h, _ in finals], 0)
        c_n = _shape.stack([c for _, c in finals], 0)
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return output, (h_n, c_n)


# ----------------------------------------------------------------------------- cells
class RNNCellBase(Module):
    """Base of the single-step cells (``torch.nn.RNNCellBase``): ``weight_ih``
    (num_chunks * hidden_size, input_size), ``weight_hh`` (num_chunks * hidden_size,
    hidden_size), ``bias_ih``/``bias_hh`` (num_chunks * hidden_size,) or None, initialised
    from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = _empty_param((num_chunks * hidden_size, input_size), dtype)
        self.weight_hh = _empty_param((num_chunks * hidden_size, hidden_size), dtype)
        if bias:
            self.bias_ih = _empty_param((num_chunks * hidden_size,), dtype)
            self.bias_hh = _empty_param((num_chunks * hidden_size,), dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Re-draw every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _params(self) -> _CellParams:
        return _CellParams(self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)

    def _check(self, input, hx, labels) -> None:
        """The checks of ``RNN.cpp`` (``check_rnn_cell_forward_input``/``_hidden``)."""
        if input.size(1) != self.weight_ih.size(1):
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.size(1)} "
                f"expected {self.weight_ih.size(1)}"
            )
        for h, label in zip(hx, labels):
            if input.size(0) != h.size(0):
                raise RuntimeError(
                    f"Input batch size {input.size(0)} doesn't match "
                    f"hidden{label} batch size {h.size(0)}"
                )
            if h.size(1) != self.weight_hh.size(1):
                raise RuntimeError(
                    f"hidden{label} has inconsistent hidden_size: got "
                    f"{h.size(1)}, expected {self.weight_hh.size(1)}"
                )

    def _single(self, input, hx, name, step):
        """RNNCell and GRUCell: one state tensor, batched (B, H) or unbatched (H,)."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        self._check(input, (hx,), ("0",))
        ret = step(input, hx, self._params(), False)
        return ret if is_batched else ret.squeeze(0)


class RNNCell(RNNCellBase):
    """One Elman RNN step (``torch.nn.RNNCell``): h' = act(x @ W_ih.T + b_ih + h @ W_hh.T +
    b_hh). Args: ``input_size``, ``hidden_size``, ``bias=True``, ``nonlinearity='tanh'``
    ('relu'), ``device``, ``dtype``. Input (B, input_size) or (input_size,); ``hx`` (B,
    hidden_size) or (hidden_size,), zeros when omitted; returns h' shaped like ``hx``.
    ValueError for a wrong rank; RuntimeError for inconsistent sizes or an unknown
    nonlinearity."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device=None,
        dtype=None,
    ):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        step = _tanh_cell if self.nonlinearity == "tanh" else _relu_cell
        return self._single(input, hx, "RNNCell", step)


class GRUCell(RNNCellBase):
    """One GRU step (``torch.nn.GRUCell``); formulas as `GRU`. Args: ``input_size``,
    ``hidden_size``, ``bias=True``, ``device``, ``dtype``; shapes and errors as `RNNCell`."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, dtype=dtype)

    def forward(self, input, hx=None):
        return self._single(input, hx, "GRUCell", _gru_cell)


class LSTMCell(RNNCellBase):
    """One LSTM step (``torch.nn.LSTMCell``); formulas as `LSTM`. Args: ``input_size``,
    ``hidden_size``, ``bias=True``, ``device``, ``dtype``. Input (B, input_size) or
    (input_size,); ``hx`` a tuple ``(h, c)`` of (B, hidden_size) or (hidden_size,), zeros when
    omitted; returns ``(h', c')``. ValueError for a wrong rank; RuntimeError for inconsistent
    sizes."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(
                        f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead"
                    )
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        self._check(input, hx, ("0", "1"))
        h, c = _lstm_cell(input, (hx[0], hx[1]), self._params(), False)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))
