"""Pending (found with the ops of ``ops_more.py`` joined to the families,
``MINIGRAD_FUZZ_OPS=more``, session 8). Until it is fixed the new ops stay opt-in.

Eight signatures came up (six in the CI profile, two in the long profile); seven were fixed in
session 8 and moved to ``tests/fuzz/test_regressions.py``: ``op:batch_norm`` and
``op:group_norm`` (inputs of no elements: ``batch_norm_empty_*``, ``group_norm_empty_batch``),
the two ``inplace:sub_`` ones (an in-place op on a view after ``view.data = y``:
``inplace_on_*_after_set_data``), ``op:scatter_add`` (``scatter_result_is_contiguous``),
``inplace:setitem`` (``matmul_1d_2d_no_grad_result_is_no_view``) and the bce-with-logits dtype
(``bce_logits_loss_has_target_dtype``). Left: the entry below (see its comment).

Run (the programs name their ops, so no switch is needed):
``PYTHONPATH=. python tests/fuzz/pending/05_ci_profile_with_more_ops.py``
"""

from tests.fuzz.program import check_program

PROGRAMS = [
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
