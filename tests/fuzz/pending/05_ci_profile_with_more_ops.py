"""Pending (found by the CI profile with the ops of ``ops_more.py`` joined to the families,
``MINIGRAD_FUZZ_OPS=more``, mixed and views themes, session 8; not triaged: no time left).

With those ops the derandomised CI programs change; these six signatures came up, and two more in
the long profile (the last two entries) (the two
``sub_``/``setitem`` ones fail on the code before session 8 too: older gaps the new program
stream reaches, not regressions). Until they are fixed the new ops stay opt-in. Each entry:
the signature, the first difference, the (unshrunk, smallest seen) program.

Run (the programs name their ops, so no switch is needed):
``PYTHONPATH=. python tests/fuzz/pending/05_ci_profile_with_more_ops.py``
"""

from tests.fuzz.program import check_program

PROGRAMS = [
    # op:batch_norm | trace['steps'][][]: 'RuntimeError' (minigrad) != 'IndexError' (torch)
    # trace['steps'][11][1]: 'RuntimeError' (minigrad) != 'IndexError' (torch)
    [('leaf', [4, 1, 1], 'float64', True, 'pos', 1),
     ('leaf', [1, 0, 3], 'float32', True, 'randn', 2),
     ('inplace', 'clamp_', 0, [], {'max': -1.0, 'min': 1.0}, False),
     ('inplace', 'iadd', 0, [0], {}, False),
     ('leaf', [1, 1], 'float64', True, 'ties', 3),
     ('op', 'layer_norm', [0, 2, 2], {'shape': [1, 1]}, ('set', True)),
     ('hook', 3, 'scale'),
     ('op', 'view', [0], {'shape': [4]}, False),
     ('retain_grad', 3),
     ('post_hook', 0),
     ('leaf', [0], 'float64', False, 'pos', 4),
     ('op', 'batch_norm', [1, 5], {}, False),
     ('hook', 0, 'log'),
     ('backward', [0, 4], 5, False, False, False, None)],
    # inplace:sub_ | trace['steps'][]: ('error', 'RuntimeError', 'a view') (minigrad) != {'value
    # trace['steps'][15]: ('error', 'RuntimeError', 'a view') (minigrad) != {'value': array([[ 0
    [('leaf', [4, 3, 1], 'float64', True, 'randn', 1),
     ('leaf', [], 'float64', True, 'randn', 2),
     ('op', 'min_dim', [1], {'dim': -1, 'keepdim': False, 'n_out': 2}, ('inference',)),
     ('inplace', 'imul', 0, [2], {}, False),
     ('op', 'expm1', [2], {}, False),
     ('backward', [0], 3, False, False, False, [1]),
     ('hook', 0, 'log'),
     ('leaf', [2, 1], 'float64', False, 'pos', 4),
     ('leaf', [2], 'float64', True, 'ties', 5),
     ('op', 'linear', [0, 5, 6], {}, False),
     ('inplace', 'exp_', 5, [], {}, False),
     ('op', 'pow_scalar', [7], {'c': 0.5}, False),
     ('op', 'sub_scalar', [1], {'c': -1.5}, False),
     ('leaf', [3, 1], 'float64', True, 'randn', 6),
     ('set_data', 7, 10),
     ('inplace', 'sub_', 7, [], {'c': 0.5}, False),
     ('op', 'logsumexp', [5], {'dim': -2, 'keepdim': False}, False),
     ('backward', [9], 7, False, False, False, None)],
    # inplace:sub_ | trace['steps'][]: ('error', 'RuntimeError', 'a view') (minigrad) != {'value
    # trace['steps'][15]: ('error', 'RuntimeError', 'a view') (minigrad) != {'value': array([[0.
    [('leaf', [4, 3, 1], 'float64', True, 'randn', 1),
     ('leaf', [], 'float64', True, 'randn', 2),
     ('op', 'min_dim', [1], {'dim': -1, 'keepdim': False, 'n_out': 2}, ('inference',)),
     ('inplace', 'imul', 0, [2], {}, False),
     ('op', 'expm1', [2], {}, False),
     ('backward', [0], 3, False, False, False, [1]),
     ('hook', 0, 'log'),
     ('leaf', [2, 1], 'float64', False, 'pos', 4),
     ('leaf', [2], 'float64', True, 'ties', 5),
     ('op', 'linear', [0, 5, 6], {}, False),
     ('inplace', 'exp_', 5, [], {}, False),
     ('op', 'pow_scalar', [7], {'c': 0.5}, False),
     ('op', 'sub_scalar', [1], {'c': -1.5}, False),
     ('leaf', [2, 1], 'float64', True, 'randn', 6),
     ('set_data', 7, 10),
     ('inplace', 'sub_', 7, [], {'c': 0.5}, False),
     ('op', 'logsumexp', [5], {'dim': -2, 'keepdim': False}, False),
     ('backward', [9], 7, False, False, False, None)],
    # op:group_norm | trace['steps'][]: length # (minigrad) != # (torch)
    # trace['steps'][14]: length 2 (minigrad) != 1 (torch)
    [('leaf', [4], 'float64', True, 'ties', 1),
     ('leaf', [1, 1], 'float64', True, 'randn', 2),
     ('inplace', 'masked_fill_', 1, [], {'thr': 0.0, 'value': 0.0}, False),
     ('leaf', [3], 'float64', True, 'randn', 3),
     ('retain_grad', 2),
     ('retain_grad', 1),
     ('leaf', [1], 'float32', True, 'randn', 4),
     ('op', 'div', [2, 3], {}, True),
     ('leaf', [2, 4], 'float64', True, 'randn', 5),
     ('leaf', [2, 1, 3, 1], 'float64', True, 'randn', 6),
     ('inplace',
      'setitem',
      5,
      [6],
      {'index': (slice(None, -1, 1), slice(None, -1, None), None)},
      False),
     ('op', 'rpow_scalar', [6], {'c': 2}, ('set', True)),
     ('leaf', [0, 0, 2, 4], 'float64', True, 'ties', 7),
     ('leaf', [0], 'float64', True, 'ties', 8),
     ('op', 'group_norm', [8, 9, 9], {'groups': 2}, False),
     ('inplace', 'imul', 5, [5], {}, False),
     ('backward', [5, 8], 9, False, False, False, None)],
    # (entries 5-7 fixed, session 8: scatter layout, setitem on a no_grad 1-D @ 2-D result,
    # bce_logits dtype; see test_regressions.py)
    # higher long profile: cosine_similarity under inference mode, then ceil of it (a value di
    # ffers). Triaged (session 8): not an engine bug to fix here; cosine_similarity(x, x) is
    # 1 give or take an ulp in either library (the 2-norms round differently: for 1-D float64
    # inputs of up to 7 elements, PyTorch's matched squares summed by fused multiply-adds in
    # 4 lanes, NumPy sums in order), and ceil turns the ulp into a whole step.
    # The generator fix (round/floor/ceil pick only unmodified leaf-step tensors or ones clear
    # of their steps: commit a177b87 on wt-p5b, reverted) shifts the derandomised CI stream,
    # which then reaches two older gaps (on main too): dot(x, 0-D inference tensor) checks
    # the dims before the inference-tensor save error, and a 'dirty' custom Function after a
    # failed 0-D matmul leaves version 2 (PyTorch 3); fix those, then re-apply the commit.
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
