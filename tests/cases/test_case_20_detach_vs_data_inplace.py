"""Case 20 (pytorch/pytorch#6990): ``detach()`` shares the version counter with its source,
``.data`` does not. Zeroing sigmoid's saved output through ``detach()`` is caught at backward
(the version error names 'output 0 of Sigmoid'); through ``.data`` it goes unnoticed and the
gradient is silently wrong. The script's logic is ``minigrad.parity.real_cases.case_20``, run
on both libraries, everything it prints compared.

Beyond the one input, the kind (saved tensors are version-checked through every alias that
shares the counter, and only those) is checked on a family: ops that save their output, their
input or both, modified through ``detach()``, ``.data``, a view of ``detach()``, ``no_grad``
and directly, the modified tensor being the output, a non-leaf input or a leaf input."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy
from minigrad.parity.real_cases import case_20, normalise_message


def test_case_20(device):
    mg, _ = assert_parity(case_20, device=device)
    assert mg[1][3:] == (1, 1) and mg[4][3:] == (0, 1)
    assert mg[2][1] == "RuntimeError" and "output 0 of Sigmoid, is at version 1" in mg[2][2]
    assert mg[5][1] == [0.0, 0.0, 0.0] and mg[6][1] == [0.1966, 0.105, 0.0452]


# op -> (function, what it saves)
OPS = {
    "sigmoid": (lambda t: t.sigmoid(), "result"),
    "exp": (lambda t: t.exp(), "result"),
    "tanh": (lambda t: t.tanh(), "result"),
    "relu": (lambda t: t.relu(), "result"),
    "sqrt": (lambda t: t.sqrt(), "result"),
    "sin": (lambda t: t.sin(), "self"),
    "log": (lambda t: t.log(), "self"),
    "pow 3": (lambda t: t ** 3, "self"),
    "mul by itself": (lambda t: t * t, "self, other"),
    "softmax": (lambda t: t.softmax(0), "result"),
    "dot with itself": (lambda t: t @ t, "self, tensor"),
}
ROUTES = {
    "detach()": lambda t: t.detach().mul_(0.5),
    ".data": lambda t: t.data.mul_(0.5),
    "view of detach()": lambda t: t.detach().view(-1)[:1].mul_(0.5),
    "no_grad in place": None,  # filled in the scenario (needs lib.no_grad)
    ".data = ...": lambda t: setattr(t, "data", t.detach() * 0.5),
}
TARGETS = ["output", "non-leaf input", "leaf input"]


@pytest.mark.parametrize("target", TARGETS)
def test_saved_tensor_version_checks_through_aliases(target, device):
    def scenario(lib, device):
        out = {}
        for op, (fn, _) in OPS.items():
            for route, modify in ROUTES.items():
                a = lib.tensor(np.array([0.5, 1.0, 2.0], np.float32))
                a = (a.to(device) if lib.__name__ == "torch" else a).requires_grad_()
                x = a if target == "leaf input" else a * 1
                y = fn(x)
                t = y if target == "output" else x
                if modify is None:
                    with lib.no_grad():
                        t.mul_(0.5)
                elif target == "leaf input" and route == ".data = ...":
                    a.data = a.detach() * 0.5
                else:
                    modify(t)
                row = [t._version, y._version, x._version, a._version]
                try:
                    y.sum().backward()
                    row.append(to_numpy(a.grad))
                except RuntimeError as e:
                    row.append(normalise_message(e))
                out[f"{op} via {route}"] = row
        return out

    mg, _ = assert_parity(scenario, device=device)
    errors = [k for k, v in mg.items() if isinstance(v[-1], str)]
    assert errors and len(errors) < len(mg)  # some aliases are caught, some are not
    assert not any(".data" in k for k in errors)  # .data never shares the version counter


def test_detach_and_data_metadata(device):
    """What each alias is: requires_grad, is_leaf, grad_fn, _base, shared storage, and which
    version counter moves when either side is modified in place."""

    def scenario(lib, device):
        a = lib.tensor(np.array([0.5, 1.0, 2.0], np.float32))
        a = (a.to(device) if lib.__name__ == "torch" else a).requires_grad_()
        out = {}
        for src_name in ("leaf", "non-leaf", "view"):
            src = {"leaf": a, "non-leaf": a * 2, "view": (a * 2)[1:]}[src_name]
            for alias_name in ("detach()", ".data"):
                alias = src.detach() if alias_name == "detach()" else src.data
                row = [alias.requires_grad, alias.is_leaf, alias.grad_fn, alias._is_view(),
                       alias.data_ptr() == src.data_ptr(), alias is src]
                v0 = (src._version, alias._version)
                alias.add_(0.0)
                row.append((v0, src._version, alias._version))
                with lib.no_grad():
                    src.add_(0.0)
                row.append((src._version, alias._version))
                out[f"{alias_name} of {src_name}"] = row
        return out

    mg, _ = assert_parity(scenario, device=device)
    for src in ("leaf", "non-leaf", "view"):
        (s0, a0), s1, a1 = mg[f"detach() of {src}"][-2]
        assert s1 == a1 == s0 + 1  # one shared counter
        (s0, a0), s1, a1 = mg[f".data of {src}"][-2]
        assert (s1, a1) == (s0, a0 + 1)  # a counter of its own
