"""Differential fuzzing: random autograd programs run on minigrad and PyTorch must give the
same values, gradients, graphs, ``_version``s, hook calls and exception types.

Three themes (``mixed``, ``views`` — in-place ops on views, setitem —, ``higher`` — autograd.grad
and create_graph) run as separate tests, so pytest-xdist spreads them over the CPUs.

Profiles (``MINIGRAD_FUZZ``): unset = the CI profile, 400 derandomised programs per theme
(1,200 in all, the same every run; about 15 s on 2 cores — at 2,000 per theme the ``mixed``
theme still finds an open ``_version`` difference, see issue 8's note); ``long`` = 10,000
random programs per theme (30,000 in all, a few minutes); ``dev`` = 300 random programs per theme.
``MINIGRAD_FUZZ_EXAMPLES=n`` overrides the count. A failure prints the shrunk program: fix the
difference and add the program to ``test_regressions.py``; ``python -m tests.fuzz.triage``
groups many failures at once. Differences owned by other issues are listed in
``generate.KNOWN_GAPS`` / ``program.KNOWN_GAPS`` (with tests in ``test_regressions.KNOWN``).
"""

import os

import pytest
from hypothesis import HealthCheck, given, settings

from .generate import THEMES, programs
from .program import check_program

PROFILE = os.environ.get("MINIGRAD_FUZZ", "ci")
EXAMPLES = {"ci": 400, "dev": 300, "long": 10_000}[PROFILE]
EXAMPLES = int(os.environ.get("MINIGRAD_FUZZ_EXAMPLES", EXAMPLES))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=PROFILE == "ci",
                database=None if PROFILE == "ci" else settings.default.database,
                suppress_health_check=list(HealthCheck), print_blob=True)


@pytest.mark.parametrize("theme", list(THEMES))
def test_programs(theme):
    @FUZZ
    @given(programs(theme))
    def run(program):
        check_program(program)

    run()
