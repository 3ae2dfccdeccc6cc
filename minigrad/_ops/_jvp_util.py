"""A helper for forward-AD formulas of several inputs (issue 23).

PyTorch evaluates a formula with a zero tensor for each input that has no tangent, so a term
whose tangent is zero still makes the result require grad when its primal factor does (a
conv's tangent with only the bias dual requires grad when the weight does). minigrad's
formulas leave such terms out; `zero_filled` puts zeros in where that changes
``requires_grad`` (grad mode on and some primal requiring grad) and nowhere else, so the cost
is paid only when the tangent is to be differentiated (reverse over forward).
"""

from __future__ import annotations

from ..autograd import grad_mode


def zero_filled(inputs, tangents) -> tuple:
    """``tangents`` with ``zeros_like(primal)`` for the missing ones of given (not None)
    inputs, when grad mode is on and some input requires grad; ``tangents`` unchanged
    otherwise (the zeros would change nothing)."""
    if not grad_mode.is_grad_enabled() or not any(
        p is not None and p.requires_grad for p in inputs
    ):
        return tuple(tangents)
    from .._creation import zeros_like

    return tuple(
        t if t is not None or p is None else zeros_like(p) for p, t in zip(inputs, tangents)
    )
