"""Differential fuzzing: random autograd programs run on minigrad and PyTorch must give the
same values, gradients, graphs, ``_version``s, hook calls and exception types.

Six themes run as separate tests, so pytest-xdist spreads them over the CPUs: ``mixed``,
``views`` (in-place ops on views, setitem), ``higher`` (autograd.grad and create_graph),
``function`` (random custom ``autograd.Function``s inside larger programs: see
``theme_function``), ``modules`` (module trees, every module hook, state_dict round trips:
``theme_modules``) and ``optim`` (optimizers over parameter groups, trained mid-program:
``theme_optim``). Every theme also draws grad-mode objects and ``.data`` / ``.grad`` /
``.requires_grad`` assignments.

Profiles (``MINIGRAD_FUZZ``): unset = the CI profile, one derandomised round per theme (the
same programs every run for one hypothesis version, which ``pyproject.toml`` pins): 2,000
examples for the first three themes (about 1,500 distinct programs each, 1.5 min on 2 cores),
as many examples as the target for the newer, heavier ones (``ROUNDS``);
``long`` = rounds with new seeds until 3,400 distinct programs per theme have matched;
``dev`` = one random round. ``MINIGRAD_FUZZ_EXAMPLES=n`` sets the distinct-program target.
``MINIGRAD_FUZZ_TRACE=prefix`` writes each program to ``prefix.<theme>.<pid>`` before running
it (a crash inside torch kills the worker before Hypothesis can report: the file then holds
the culprit). A failure prints the shrunk program: fix the difference and add the program to
``test_regressions.py``; ``python -m tests.fuzz.triage``
groups many failures at once. A difference that cannot be fixed at once is listed in
``generate.KNOWN_GAPS`` (the generator steers around it) or ``program.KNOWN_GAPS`` (the
comparison leaves it out), with its program in ``test_regressions.KNOWN`` (one now:
``group_norm_weight_grad_graph``). The boolean switches at the top of ``generate.py`` steer
around engine differences that are open (False, each with a script in ``tests/fuzz/pending/``;
none now), were fixed since (True), or are deliberate (``DATA_INFERENCE``: minigrad refuses
``.data =`` between an inference tensor and a normal one, see ``test_review.py``).
``tests/fuzz/pending/`` keeps programs nobody fixed yet (none now).
The op pool is ``program.OPS``, the ops of ``ops_more.py`` (scans, sorting, gather/scatter,
einsum, normalisations, embedding ...) included since session 9; ``MINIGRAD_FUZZ_OPS=base``
leaves those out (``generate.OP_POOL``).
"""

import os

import pytest
from hypothesis import HealthCheck, given, seed, settings

from .generate import THEMES, programs
from .program import check_program

PROFILE = os.environ.get("MINIGRAD_FUZZ", "ci")
# distinct programs per theme: Hypothesis repeats small programs, so runs go on (in rounds with
# different seeds) until this many *different* programs have matched PyTorch
TARGET = {"ci": 400, "dev": 300, "long": 3_400}[PROFILE]
TARGET = int(os.environ.get("MINIGRAD_FUZZ_EXAMPLES", TARGET))
ROUND = 2_000  # examples Hypothesis is asked for per round
# the newer themes' programs cost more (modules, optimizers, custom Function classes): a round
# asks for this many examples per distinct program wanted (CI: one round, < 1 min on one core)
ROUNDS = {"function": 1.0, "modules": 1.0, "optim": 1.0}
TRACE = os.environ.get("MINIGRAD_FUZZ_TRACE")  # file prefix: write each program before it runs
MAX_ROUNDS = 60


def _round(theme: str, n: int, round_seed: int, seen: set) -> None:
    @settings(max_examples=n, deadline=None, derandomize=PROFILE == "ci", database=None,
              suppress_health_check=list(HealthCheck), print_blob=True)
    @seed(round_seed)
    @given(programs(theme))
    def run(program):
        if TRACE:  # the program that crashes a worker (a fault inside torch) is the last line
            with open(f"{TRACE}.{theme}.{os.getpid()}", "w") as f:
                f.write(repr(program) + "\n")
        check_program(program)
        seen.add(repr(program))

    run()


@pytest.mark.parametrize("theme", list(THEMES))
def test_programs(theme, record_property):
    seen: set = set()
    n = ROUND if theme not in ROUNDS else max(50, int(ROUNDS[theme] * TARGET))
    for r in range(1 if PROFILE == "ci" else MAX_ROUNDS):
        _round(theme, n, r, seen)
        if len(seen) >= TARGET:
            break
    # distinct programs that ran and matched PyTorch (printed with -s, kept in JUnit XML)
    record_property("programs", len(seen))
    print(f"\n{theme}: {len(seen)} distinct programs matched PyTorch")
    assert len(seen) >= min(TARGET, 250), f"only {len(seen)} distinct programs were generated"
