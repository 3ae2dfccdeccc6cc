"""Differential fuzzing: random autograd programs run on minigrad and PyTorch must give the
same values, gradients, graphs, ``_version``s, hook calls and exception types.

Profiles (``MINIGRAD_FUZZ``): unset = the CI profile (a fixed, derandomised set of programs per
theme, a minute or so on 2 cores); ``long`` = 3,400 random programs per theme (>= 10,000 in
all); ``dev`` = 300 random programs per theme. ``MINIGRAD_FUZZ_EXAMPLES=n`` overrides the
count. A failure prints the shrunk program: add it to ``test_regressions.py``.
"""

import os

import pytest
from hypothesis import HealthCheck, given, settings

from .generate import THEMES, programs
from .program import check_program

PROFILE = os.environ.get("MINIGRAD_FUZZ", "ci")
EXAMPLES = {"ci": 60, "dev": 300, "long": 3400}[PROFILE]
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
