"""Pending (found by the long fuzz profile, function theme, session 8; not fixed yet):
first difference: trace['steps'][4][0]['layout'][0][0]: 2 (minigrad) != 1 (torch)

``x.t() - x`` (a square x): PyTorch's TensorIterator lays the output out as its *first*
operand that tells two dims apart (here the transposed one: strides (1, 2)); minigrad's
binary ops take NumPy's ``order="K"`` result, which falls back to C order when the operands
disagree (strides (2, 1)). Every NumPy-computed elementwise op with two or more operands
(add, sub, mul, div, pow, maximum, where, comparisons ... and the backward formulas built
from them) is concerned; ``clamp`` with tensor bounds already uses ``_util.empty_for``
(TensorIterator's layout), which is the fix to apply in ``pointwise._binary``'s callers when
an operand is not C-contiguous (keeping the all-contiguous fast path). The fix changes
``.grad`` layouts (and so AccumulateGrad's steal/copy and ``_version``s): rerun the parity
suite and the CI fuzz profile after it.

Run (shows the first difference):
``PYTHONPATH=. python tests/fuzz/pending/04_layout_of_binary_op_on_transposed_and_contiguous.py``
"""

from tests.fuzz.program import check_program

PROGRAM = [('leaf', [2, 2], 'float32', False, 'randn', 1),
 ('op', 't', [0], {}, ('set', False)),
 ('leaf', [2, 3], 'float32', True, 'randn', 2),
 ('inplace', 'relu_', 2, [], {}, ('inference',)),
 ('op', 'sub', [1, 0], {}, ('inference',)),
 ('backward', [2], 3, False, False, False, [2])]

if __name__ == "__main__":
    check_program(PROGRAM)
