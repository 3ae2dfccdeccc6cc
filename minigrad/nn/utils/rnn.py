"""``minigrad.nn.utils.rnn``: padding a list of variable-length sequences into one tensor.

Mirrors ``torch.nn.utils.rnn.pad_sequence``. ``PackedSequence`` and the ``pack_*`` functions
are not mirrored (minigrad's RNNs take padded tensors only).
"""

from __future__ import annotations

from ..._tensor import Tensor


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of different lengths into one tensor, padding the short ones
    (``torch.nn.utils.rnn.pad_sequence``).

    Args:
        sequences: tensors of shape ``(L_i, *)`` with the same trailing dims (a list, a tuple,
            or anything iterable: a tensor gives its rows).
        batch_first: output ``(B, L_max, *)`` instead of ``(L_max, B, *)``.
        padding_value: value of the padded positions (cast to the output dtype).
        padding_side: ``"right"`` pads after each sequence, ``"left"`` before it.

    Returns:
        A tensor of the first sequence's dtype, filled with ``padding_value`` (``fill_``); each
        sequence is copied into its slot in place (``_version`` ends at ``1 + len``), so the
        graph is a chain of ``CopySlices`` nodes (one per sequence), each with the ``copy_``
        of that sequence as its second input, as in PyTorch.

    Raises:
        RuntimeError: an empty list, a ``padding_side`` other than left/right, or trailing
            dims that do not match.
    """
    from ..._creation import empty

    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(seq.shape[0] for seq in sequences)
    leading = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    # empty + fill_ + one copy_ per sequence: _version ends at 1 + len(sequences), as PyTorch's
    out = empty(leading + tuple(sequences[0].shape[1:]), dtype=sequences[0].dtype)
    out.fill_(padding_value)
    for i, seq in enumerate(sequences):
        length = seq.shape[0]
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, i).copy_(seq)
    return out


__all__ = ["pad_sequence"]
