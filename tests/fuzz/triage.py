"""Fuzz triage: run many programs, group the mismatches by signature, shrink one per group.

``python -m tests.fuzz.triage [N] [theme ...]`` runs N random programs per theme (no pytest),
groups failures by a signature (the kind of step where the traces first differ and the shape
of the difference), then asks Hypothesis to shrink one program per signature and prints it,
ready to paste into ``test_regressions.py``.
"""

from __future__ import annotations

import os
import re
import sys
import time

from hypothesis import HealthCheck, Phase, given, settings

from .generate import THEMES, programs
from .program import check_program

LOG = os.environ.get("MINIGRAD_FUZZ_LOG")


def signature(program, err: AssertionError) -> str:
    """What kind of mismatch ``err`` is, without the numbers that vary between programs."""
    first = str(err).split("\n")[0]
    m = re.match(r"trace\['steps'\]\[(\d+)\]", first)
    where = "final"
    if m:
        s = program[int(m.group(1))]
        where = s[0] + (":" + s[1] if s[0] in ("op", "inplace") else "")
    first = re.sub(r"\[\d+\]", "[]", first)
    first = re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "#", first)
    first = re.sub(r"\(max abs diff.*", "", first)
    return f"{where} | {first[:160]}"


def collect(theme: str, n: int, found: dict) -> None:
    @settings(max_examples=n, deadline=None, phases=[Phase.generate], database=None,
              suppress_health_check=list(HealthCheck))
    @given(programs(theme))
    def run(program):
        if LOG:
            with open(LOG, "w") as f:  # the program a native crash happened in
                f.write(repr(program))
        try:
            check_program(program)
        except AssertionError as e:
            sig = signature(program, e)
            if sig not in found or len(program) < len(found[sig][0]):
                found[sig] = (program, str(e), theme)

    run()


def shrink(theme: str, sig: str, n: int = 2000):
    """A small program of ``theme`` whose mismatch has signature ``sig`` (or None)."""
    box = []

    @settings(max_examples=n, deadline=None, database=None, report_multiple_bugs=False,
              phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
    @given(programs(theme))
    def run(program):
        try:
            check_program(program)
        except AssertionError as e:
            if signature(program, e) == sig:
                box[:] = [program, str(e)]
                raise

    try:
        run()
    except AssertionError:
        return box
    return None


def main(argv) -> int:
    do_shrink = "--shrink" in argv
    argv = [a for a in argv if a != "--shrink"]
    n = int(argv[0]) if argv else 200
    themes = argv[1:] or list(THEMES)
    found: dict = {}
    for theme in themes:
        t = time.time()
        before = len(found)
        collect(theme, n, found)
        print(f"{theme}: {n} programs in {time.time() - t:.0f}s, {len(found) - before} new "
              "signatures", flush=True)
    for sig, (program, msg, theme) in sorted(found.items()):
        if do_shrink:
            program, msg = shrink(theme, sig) or (program, msg)
        print("=" * 100)
        print(sig)
        print(msg[:1500])
        print("program =", program)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
