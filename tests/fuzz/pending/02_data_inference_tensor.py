"""Pending (engine / _tensor.py):
``x.data = t`` where ``t`` (or ``x``) is an inference tensor: PyTorch's set_data copies the
tensor's kind (is_inference) but keeps ``x``'s own version counter; minigrad keeps both of ``x``
(a first try that copied the kind made ``_version`` raise where PyTorch's reads 0).

Found by the fuzzer once the earlier steering switches were turned on; the generator steers
around it with ``generate.DATA_INFERENCE = False``. Run (shows the first difference):
``PYTHONPATH=. python tests/fuzz/pending/02_data_inference_tensor.py``
"""

from tests.fuzz.program import check_program

PROGRAM = [('leaf', [4], 'float32', True, 'randn', 1),
 ('leaf', [2], 'float32', False, 'randn', 2),
 ('op', 'gelu', [0], {'approximate': 'none'}, False),
 ('hook', 2, 'log'),
 ('op', 'radd_scalar', [2], {'c': -1.5}, ('inference',)),
 ('op', 'exp', [3], {}, ('inference',)),
 ('set_data', 1, 4),
 ('op', 'neg', [4], {}, True),
 ('hook', 5, 'log'),
 ('op', 'neg', [5], {}, ('set', False)),
 ('backward', [6], 3, False, False, True, [0]),
 ('op', 'neg', [1], {}, True),
 ('backward', [6], 4, False, False, False, [2])]

if __name__ == "__main__":
    check_program(PROGRAM)
