"""Pending (found by the long fuzz profile, mixed theme, session 7; not triaged):
first difference: trace['final']['tensors'][14]['value']: values differ (max abs diff 7.37)

The CI profile does not draw it; the long one does. Run (shows the first difference):
``PYTHONPATH=. python tests/fuzz/pending/01_value_after_inference_div_on_select.py``
"""

from tests.fuzz.program import check_program

PROGRAM = [('leaf', [2, 2, 2], 'float64', False, 'randn', 1),
 ('leaf', [2], 'float32', False, 'randn', 2),
 ('leaf', [2, 2], 'float64', True, 'randn', 3),
 ('op', 'sub', [2, 2], {}, False),
 ('op', 'gelu', [1], {'approximate': 'none'}, True),
 ('op', 'add_scalar', [4], {'c': 2.0}, True),
 ('leaf', [4, 4], 'float64', True, 'randn', 4),
 ('retain_grad', 6),
 ('leaf', [], 'float64', True, 'ties', 5),
 ('leaf', [], 'float64', True, 'randn', 6),
 ('op', 'where', [7, 8], {'thr': 0.0}, False),
 ('leaf', [2, 3], 'float64', True, 'randn', 7),
 ('op', 'matmul', [5, 10], {}, False),
 ('grad', [2, 8], [8, 10], 8, False, True, False),
 ('op', 'div_scalar', [6], {'c': 0.5}, ('deco', 'inference')),
 ('op', 'select', [14], {'dim': -1, 'index': 1}, False),
 ('op', 'adaptive_avg_pool2d', [0], {'size': [2, 1]}, ('inference',)),
 ('leaf', [4], 'float32', True, 'randn', 9),
 ('inplace', 'div_', 14, [17], {}, False),
 ('op', 'argmax', [0], {'dim': -1, 'keepdim': True}, False),
 ('backward', [3, 10], 10, False, False, False, None)]

if __name__ == "__main__":
    check_program(PROGRAM)
