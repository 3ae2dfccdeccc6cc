"""``minigrad.debug``: find out why a model does not learn, for minigrad AND torch models.

* `GradientFlowMonitor`: per-module and per-parameter gradient statistics and flags
  (None / zero / NaN / Inf / vanishing / exploding), as a table, a plot or CSV;
* `find_unregistered`: modules called in ``forward`` but not registered on the model,
  leaves in the graph that are not its parameters, parameters that got no gradient;
* `first_nonfinite`: the first node whose output (forward) or gradient (backward) was
  NaN/Inf, its module and the line of code that created it (anomaly detection);
* `explain_inplace_error`: which tensor, saved by which node, was modified by which in-place
  op(s), each with its line, and the fix;
* `minigrad.debug.doctor`: all of them in one report (``minigrad doctor``).

PyTorch is imported only when a torch model or tensor is given.
"""

from .anomaly import NonFiniteReport, first_nonfinite
from .inplace import InplaceExplanation, explain_inplace_error
from .monitor import GradientFlowMonitor, GradRecord
from .unregistered import Finding, find_unregistered

__all__ = ["GradientFlowMonitor", "GradRecord", "find_unregistered", "Finding",
           "first_nonfinite", "NonFiniteReport", "explain_inplace_error", "InplaceExplanation"]
