"""Golden files: the canonical DOT of each toy network, so a change to the drawing is a diff.

``tests/viz/golden/<toy>.txt`` holds three drawings of the minigrad graph (ids renamed): the
default one, ``show_saved=True, show_attrs=True``, and ``modules=`` clusters. These files exist
only to catch unintended changes (parity with torchviz is checked live elsewhere). After an
intended change, regenerate them with::

    MINIGRAD_REGEN_GOLDEN=1 python -m pytest tests/viz/test_golden.py

and review the diff before committing.
"""

import difflib
import os
from pathlib import Path

import pytest

import minigrad
from minigrad import toy_models
from minigrad.viz import make_dot

from ._dot import canonical_source

GOLDEN = Path(__file__).parent / "golden"
REGEN = os.environ.get("MINIGRAD_REGEN_GOLDEN") == "1"


def drawings(name: str) -> str:
    r = toy_models.run(name, minigrad, track=True)
    out, params = r["output"], r["params"]
    parts = [("make_dot(y, params)", make_dot(out, params=params)),
             ("make_dot(y, params, show_saved=True, show_attrs=True)",
              make_dot(out, params=params, show_saved=True, show_attrs=True)),
             ("make_dot(y, params, modules=tracker)",
              make_dot(out, params=params, modules=r["tracker"]))]
    return "".join(f"# {title}\n{canonical_source(dot)}\n" for title, dot in parts)


@pytest.mark.parametrize("name", list(toy_models.TOY_MODELS))
def test_golden_drawing(name):
    path = GOLDEN / f"{name}.txt"
    text = drawings(name)
    if REGEN:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} missing: run with MINIGRAD_REGEN_GOLDEN=1 to create it"
    expected = path.read_text(encoding="utf-8")
    diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                        str(path), "now"))
    assert text == expected, (f"the drawing of {name!r} changed (MINIGRAD_REGEN_GOLDEN=1 "
                              f"regenerates it if intended):\n{diff}")
