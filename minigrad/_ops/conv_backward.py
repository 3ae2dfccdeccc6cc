"""Double backward of the convolutions: ``ConvolutionBackwardBackward0``.

Mirrors ``convolution_backward``'s entry in ``tools/autograd/derivatives.yaml`` and
``_convolution_double_backward`` in ``aten/src/ATen/native/Convolution.cpp``. Under
``create_graph=True``, ``ConvolutionBackward0`` returns its three gradients as the outputs of
one ``ConvolutionBackwardBackward0(grad_output, input, weight)`` node, as PyTorch does. The
gradients are bilinear: ``grad_input(g, weight)`` and ``grad_weight(g, input)`` are linear in
each argument, and ``grad_bias(g)`` is a sum, so, given the incoming ``ggI, ggW, ggb``:

* d/dgrad_output = conv(ggI, weight) + conv(input, ggW) + ggb (per channel): the forward
  convolution, applied to what came back;
* d/dinput = grad_input of a convolution with weight ``ggW`` at upstream ``grad_output``
  (the adjoint convolution of ``grad_output``, recorded as ``ConvolutionBackward0``, as
  PyTorch's);
* d/dweight = grad_weight of a convolution with input ``ggI`` at upstream ``grad_output``.

Each of these is a convolution or a convolution's backward again, recorded as such under
``create_graph``, so gradients of any order work. The same holds for transposed convolutions
(``transposed=True``: "conv" is then the transposed convolution). One difference in the graph
of a third derivative: PyTorch computes the d/dweight term as a convolution of transposed
tensors (stride and dilation swapped, one per group, ``TransposeBackward0``/``CatBackward0``/
``SliceBackward0`` around it); minigrad records it as one ``ConvolutionBackwardBackward0``
(a convolution's weight gradient), with the same values.
"""

from __future__ import annotations

from .._tensor import Tensor
from ..autograd.forward_ad import tangent_sum
from ..autograd.graph import Node, record
from ._jvp_util import zero_filled
from .conv import convolution_grads


def _forward(node, input: Tensor, weight: Tensor) -> Tensor:
    """The convolution ``node`` describes, without bias, of ``input`` with ``weight`` (through
    the public function, so that it records ``ConvolutionBackward0`` under create_graph)."""
    from ..nn import functional as F  # (lazily: functional imports the ops)

    saved = node._saved
    stride, padding, dilation = saved["stride"], saved["padding"], saved["dilation"]
    groups = saved["groups"]
    if saved["transposed"]:
        fn = getattr(F, f"conv_transpose{input.ndim - 2}d")
        return fn(input, weight, None, stride, padding, saved["output_padding"], groups,
                  dilation)
    fn = getattr(F, f"conv{input.ndim - 2}d")
    return fn(input, weight, None, stride, padding, dilation, groups)


def _input_grad(node, grad_output: Tensor, weight: Tensor, input_shape) -> Tensor:
    """grad_input of the convolution ``node`` describes, with ``weight``, at ``grad_output``,
    written as the adjoint convolution (recorded as ``ConvolutionBackward0``, as PyTorch's
    double backward does): a transposed convolution of ``grad_output`` for a plain
    convolution (``output_padding`` restoring the input's size), a plain one for a transposed
    convolution."""
    from ..nn import functional as F

    saved = node._saved
    k = len(input_shape) - 2
    stride, padding, dilation = (tuple(saved[n]) * k if len(saved[n]) == 1 else tuple(saved[n])
                                 for n in ("stride", "padding", "dilation"))
    groups = saved["groups"]
    if saved["transposed"]:
        return getattr(F, f"conv{k}d")(grad_output, weight, None, stride, padding, dilation,
                                       groups)
    natural = [(o - 1) * s - 2 * p + d * (kk - 1) + 1 for o, s, p, d, kk in
               zip(grad_output.shape[2:], stride, padding, dilation, weight.shape[2:])]
    output_padding = tuple(i - n for i, n in zip(input_shape[2:], natural))
    return getattr(F, f"conv_transpose{k}d")(grad_output, weight, None, stride, padding,
                                             output_padding, groups, dilation)


class ConvolutionBackwardBackward0(Node):
    """(grad_input, grad_weight, grad_bias) = convolution_backward(grad_output, input, weight).

    dz/dgrad_output = conv(ggI, weight) + conv(input, ggW) + ggb broadcast over (N, *spatial);
    dz/dinput = convolution_backward(grad_output, input, ggW)'s grad_input (the adjoint
    convolution of grad_output with ggW);
    dz/dweight = convolution_backward(grad_output, ggI, weight)'s grad_weight
    (``ggI, ggW, ggb``: the gradients of the three outputs; a missing one contributes nothing).
    Saves: dilation, grad_output, groups, input, output_padding, padding, stride, transposed,
    weight.
    """

    materialize_grads = False  # (an output that got no gradient adds no term: no zeros made)

    def __init__(self, node, grad_output, input, weight):
        Node.__init__(self)
        self._save("dilation", node._saved["dilation"])
        self._save("grad_output", grad_output)
        self._save("groups", node._saved["groups"])
        self._save("input", input)
        self._save("output_padding", node._saved["output_padding"])
        self._save("padding", node._saved["padding"])
        self._save("stride", node._saved["stride"])
        self._save("transposed", node._saved["transposed"])
        self._save("weight", weight)
        # (the geometry in the 2-D form `convolution_grads` computes with)
        self._stride, self._padding, self._dilation = node._stride, node._padding, node._dilation

    def backward(self, ggi, ggw, ggb):
        g, x, w = self._get("grad_output"), self._get("input"), self._get("weight")
        nf = self.next_functions
        gg = gx = gw = None
        if nf[0][0] is not None:
            terms = []
            if ggi is not None:
                terms.append(_forward(self, ggi, w))
            if ggw is not None:
                terms.append(_forward(self, x, ggw))
            if ggb is not None:
                terms.append(ggb.reshape((1, -1) + (1,) * (g.ndim - 2)).expand(g.shape))
            for term in terms:
                gg = term if gg is None else gg + term
        if nf[1][0] is not None and ggw is not None:
            gx = _input_grad(self, g, ggw, x.shape)
        if nf[2][0] is not None and ggi is not None:
            gw = convolution_backward(self, g, ggi, w, (False, True, False))[1]
        return gg, gx, gw

    @staticmethod
    def jvp(inputs, tangents, outputs, node, grad_output, input, weight):
        """Forward AD of convolution_backward (bilinear in each pair), PyTorch's formulas:
        dgrad_input = grad_input(grad_output, weight_t) + grad_input(grad_output_t, weight);
        dgrad_weight = grad_weight(grad_output, input_t) + grad_weight(grad_output_t, input);
        dgrad_bias = grad_output_t summed over every dim but 1. A missing tangent's term is
        left out; an output that was not computed gets none."""
        given = [t is not None for t in tangents]  # (each output's formula runs when one of
        tg, tx, tw = zero_filled(inputs, tangents)  # its own tangents is given, as PyTorch's)

        def part(i, g, x, w):
            mask = tuple(j == i for j in range(3))
            return convolution_backward(node, g, x, w, mask)[i]

        gi = gw = gb = None
        if outputs[0] is not None and (given[0] or given[2]):
            gi = tangent_sum(None if tw is None else part(0, grad_output, input, tw),
                             None if tg is None else part(0, tg, input, weight))
        if outputs[1] is not None and (given[0] or given[1]):
            gw = tangent_sum(None if tx is None else part(1, grad_output, tx, weight),
                             None if tg is None else part(1, tg, input, weight))
        if len(outputs) > 2 and outputs[2] is not None and given[0]:
            gb = tg.sum((0,) + tuple(range(2, tg.ndim)))
        return gi, gw, gb


def convolution_backward(node, grad_output: Tensor, input: Tensor, weight: Tensor,
                         mask) -> tuple:
    """``(grad_input, grad_weight, grad_bias)`` of the convolution ``node`` describes
    (``torch.ops.aten.convolution_backward``), each None where ``mask`` says it is not
    needed; recorded as one ``ConvolutionBackwardBackward0`` when grad mode is on."""
    outs = convolution_grads(node, grad_output, input, weight, mask)
    double = record(ConvolutionBackwardBackward0, list(outs), (grad_output, input, weight),
                    node, grad_output, input, weight)
    if double is not None:  # one slot per output, as PyTorch's three (record skips the Nones)
        double._out_meta = tuple(((), None) if o is None else (o._data.shape, o._data.dtype)
                                 for o in outs)
    return outs
