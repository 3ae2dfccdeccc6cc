"""bfloat16 without the optional package ml_dtypes: minigrad imports and every other dtype
works; ``minigrad.bfloat16`` prints and answers the dtype's questions, but making a tensor of
it raises ImportError saying to install ml_dtypes. Run in a subprocess where
``import ml_dtypes`` fails (so it runs whether or not the package is installed here)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r'''
import sys
sys.modules["ml_dtypes"] = None  # (import ml_dtypes now raises ImportError)
import minigrad as mg

bf = mg.bfloat16
print("repr", repr(bf), bf.is_floating_point, bf.itemsize, bf.is_signed)
print("promote", mg.promote_types(bf, mg.float16), mg.promote_types(bf, mg.int8),
      mg.promote_types(bf, mg.float64), mg.can_cast(bf, mg.int8))
print("others", (mg.ones(2, dtype=mg.int8) + mg.ones(2, dtype=mg.uint8)).dtype,
      mg.ones(2).half().dtype)

def fails(fn):
    try:
        fn()
    except ImportError as e:
        return "pip install ml_dtypes" in str(e)
    return "no error"

print("errors", fails(lambda: mg.zeros(2, dtype=bf)), fails(lambda: mg.ones(2).bfloat16()),
      fails(lambda: mg.nn.Linear(2, 2).bfloat16()), fails(lambda: mg.finfo(bf)),
      fails(lambda: mg.tensor([1.0]).to(bf)))
'''


def test_bfloat16_without_ml_dtypes():
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True,
                         text=True, env={"PYTHONPATH": str(ROOT), "PATH": ""}, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert lines["repr"] == "minigrad.bfloat16 True 2 True"
    assert lines["promote"] == "minigrad.float32 minigrad.bfloat16 minigrad.float64 False"
    assert lines["others"] == "minigrad.int16 minigrad.float16"
    assert lines["errors"] == "True True True True True"
