"""Pending (found by the CI profile with the ops of ``ops_more.py`` joined to the families,
``MINIGRAD_FUZZ_OPS=more``, mixed and views themes, session 8; not triaged: no time left).

With those ops the derandomised CI programs change; these six signatures came up, and two more in
the long profile (the last two entries) (the two
``sub_``/``setitem`` ones fail on the code before session 8 too: older gaps the new program
stream reaches, not regressions). Until they are fixed the new ops stay opt-in. Each entry:
the signature, the first difference, the (unshrunk, smallest seen) program.

Fixed and removed since: ``op:batch_norm`` and ``op:group_norm`` (inputs of no elements; see
``batch_norm_empty_*`` and ``group_norm_empty_batch`` in ``tests/fuzz/test_regressions.py``),
the two ``inplace:sub_`` ones (an in-place op on a view after ``view.data = y``; see
``inplace_on_*_after_set_data`` there).

Run (the programs name their ops, so no switch is needed):
``PYTHONPATH=. python tests/fuzz/pending/05_ci_profile_with_more_ops.py``
"""

from tests.fuzz.program import check_program

PROGRAMS = [
    # op:scatter_add | trace['steps'][][]['layout'][][]: # (minigrad) != # (torch)
    # trace['steps'][7][0]['layout'][0][0]: 1 (minigrad) != 2 (torch)
    [('leaf', [2, 2], 'float64', True, 'pos', 1),
     ('inplace', 'relu_', 0, [], {}, ('deco', 'no_grad')),
     ('backward', [0], 2, False, True, True, [0]),
     ('inplace', 'sigmoid_', 0, [], {}, False),
     ('inplace', 'add_', 0, [0], {}, False),
     ('op', 'mT', [0], {}, False),
     ('leaf', [3, 2], 'float64', True, 'randn', 3),
     ('op', 'scatter_add', [1, 2], {'dim': -2, 'index': [[0, 1], [0, 1], [0, 0]]}, False),
     ('inplace', 'clamp_', 3, [], {'max': 0.5, 'min': -0.5}, True),
     ('leaf', [2], 'float64', True, 'ties', 4),
     ('op', 'mv', [0, 4], {}, False),
     ('op', 'log', [1], {}, False),
     ('leaf', [2, 2, 1], 'float64', True, 'randn', 5),
     ('leaf', [2, 2, 1], 'float64', False, 'pos', 6),
     ('op', 'scatter_add', [7, 8], {'dim': -1, 'index': [[[0], [0]], [[0], [0]]]}, False),
     ('backward', [0, 5], 7, False, False, False, [3])],
    # inplace:setitem | trace['steps'][]: ('error', 'RuntimeError', None) (minigrad) != {'value'
    # trace['steps'][14]: ('error', 'RuntimeError', None) (minigrad) != {'value': array([-1.1129
    [('leaf', [3, 2, 4], 'float32', False, 'ties', 1),
     ('leaf', [], 'float32', False, 'randn', 2),
     ('inplace', 'clamp_', 0, [], {'max': None, 'min': 0.0}, False),
     ('leaf', [2], 'float32', True, 'randn', 3),
     ('op', 'narrow', [2], {'dim': -1, 'length': 0, 'start': -2}, True),
     ('detach', 3),
     ('leaf', [1], 'float32', True, 'randn', 4),
     ('leaf', [4, 1], 'float32', False, 'pos', 5),
     ('op', 'linear', [5, 6], {}, ('set', False)),
     ('leaf', [4, 4], 'float32', True, 'randn', 6),
     ('op', 'index_select', [8], {'dim': 0, 'index': [2, 0]}, False),
     ('leaf', [1], 'float32', True, 'randn', 7),
     ('inplace', 'mul_', 8, [10], {}, False),
     ('op', 'select', [7], {'dim': 0, 'index': 1}, True),
     ('inplace', 'setitem', 7, [5], {'index': (-3, None)}, False),
     ('set_data', 11, 2),
     ('backward', [1], 8, True, False, False, None)],
    # views long profile: bce_logits of a float64 input and a float32 target (dtype float64 in
    #  minigrad, float32 in PyTorch)
    [('leaf', [2], 'float32', True, 'randn', 1),
     ('inplace', 'pow_', 0, [], {'c': 2}, ('inference',)),
     ('backward', [0], 2, False, False, True, [0]),
     ('op', 'neg', [0], {}, ('set', False)),
     ('leaf', [], 'float32', False, 'randn', 3),
     ('op', 'neg', [2], {}, ('set', False)),
     ('leaf', [], 'float32', False, 'randn', 4),
     ('op', 'neg', [4], {}, ('set', False)),
     ('leaf', [], 'float32', False, 'randn', 5),
     ('op', 'neg', [6], {}, ('set', False)),
     ('hook', 7, 'log'),
     ('leaf', [], 'float32', False, 'randn', 6),
     ('set_grad_none', 8),
     ('leaf', [], 'float64', False, 'randn', 7),
     ('leaf', [], 'float32', False, 'randn', 8),
     ('op', 'bce_logits', [9, 10], {'reduction': 'mean'}, ('inference',)),
     ('backward', [0], 9, False, False, False, [0])],
    # higher long profile: cosine_similarity under inference mode, then ceil of it (a value di
    # ffers)
    [('leaf', [2, 2, 2], 'float32', False, 'randn', 1),
     ('leaf', [2], 'float64', True, 'randn', 2),
     ('leaf', [3], 'float32', False, 'randn', 3),
     ('op', 'cosine_similarity', [2, 2], {'dim': 0}, ('inference',)),
     ('grad', [1], [3], 4, False, False, False),
     ('op', 'sum', [3], {'dim': 'all'}, ('set', False)),
     ('op', 'neg', [5], {}, ('set', False)),
     ('leaf', [], 'float32', False, 'randn', 5),
     ('op', 'neg', [7], {}, ('inference',)),
     ('leaf', [], 'float64', False, 'randn', 6),
     ('op', 'neg', [9], {}, ('inference',)),
     ('grad', [10], [10], 7, False, False, False),
     ('op', 'ceil', [3], {}, ('set', False)),
     ('leaf', [], 'float32', False, 'randn', 8),
     ('op', 'neg', [13], {}, ('set', False)),
     ('backward', [14], 9, True, False, False, None)],
]

if __name__ == "__main__":
    for program in PROGRAMS:
        try:
            check_program(program)
            print("matches now")
        except AssertionError as e:
            print(str(e).split("\n")[0])
