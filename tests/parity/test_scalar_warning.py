"""Parity: ``float(t)`` on a tensor that requires grad warns once per process, as PyTorch does.

PyTorch's warning is TORCH_WARN_ONCE, so it can only be compared in a fresh interpreter: each
library runs the same script in its own subprocess and reports which calls warned.
"""

import json
import os
import pathlib
import subprocess
import sys

SCRIPT = r"""
import json, sys, warnings
lib = __import__(sys.argv[1])
x = lib.tensor([1.5], requires_grad=True)
calls = [
    ("item", lambda: x.item()),
    ("int", lambda: int(x)),
    ("float under no_grad", None),
    ("float of detach", lambda: float(x.detach())),
    ("float of a non-leaf", lambda: float(x * 2)),
    ("float again", lambda: float(x)),
    ("complex", lambda: complex(x)),
]
out = []
for name, call in calls:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        if name == "float under no_grad":
            with lib.no_grad():
                float(x)
        else:
            call()
    out.append([name, [(m.category.__name__,
                        str(m.message).split(" (Triggered internally")[0]) for m in w]])
print(json.dumps(out))
"""

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run(lib):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", SCRIPT, lib], capture_output=True, text=True,
                          env=env, check=True, timeout=120)
    return json.loads(done.stdout)


def test_float_of_requires_grad_warns_once_per_process():
    mg, pt = run("minigrad"), run("torch")
    assert mg == pt
    warned = [name for name, ws in pt if ws]
    assert warned == ["float of a non-leaf"]     # the first float() with grad on; then never
    assert pt[4][1][0][0] == "UserWarning"
