"""Pending (engine / _tensor.py):
``y.data = t`` of another shape on a *non-leaf* ``y``, then a backward through ``y``'s node:
PyTorch's engine checks every node's gradients against the shapes the receiving node recorded
(``validate_outputs``) and sums a broadcast one down; minigrad checks only gradients that reach
a leaf's AccumulateGrad, so the non-leaf's node gets the new shape (NumPy ValueError here).

Found by the fuzzer once the earlier steering switches were turned on; the generator steers
around it with ``generate.DATA_OTHER_SHAPE_NON_LEAF = False``. Run (shows the first difference):
``PYTHONPATH=. python tests/fuzz/pending/01_data_non_leaf_other_shape.py``
"""

from tests.fuzz.program import check_program

PROGRAM = [('leaf', [2, 2, 2], 'float32', True, 'randn', 1),
 ('set_grad', 0, 0),
 ('op',
  'cross_entropy',
  [0],
  {'ignore_index': 0, 'reduction': 'mean', 'target': [0, 0, 0, 0], 'target_shape': [2, 2]},
  False),
 ('leaf', [2, 2], 'float32', False, 'randn', 2),
 ('set_data', 1, 2),
 ('op', 'neg', [2], {}, ('set', False)),
 ('op', 'sub', [3, 3], {}, ('set', False)),
 ('op', 'neg', [4], {}, ('set', False)),
 ('op', 'neg', [5], {}, True),
 ('set_grad', 6, 6),
 ('op', 'neg', [1], {}, False),
 ('op', 'neg', [7], {}, ('set', False)),
 ('backward', [7], 3, False, False, False, None)]

if __name__ == "__main__":
    check_program(PROGRAM)
