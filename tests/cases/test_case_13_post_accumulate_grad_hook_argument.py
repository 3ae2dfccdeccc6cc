"""Case 13 (pytorch/pytorch#187268): ``register_hook`` receives the gradient before
accumulation; ``register_post_accumulate_grad_hook`` receives the parameter itself with
``.grad`` already accumulated; returning a new tensor from it is an error (after the
accumulation); registering on a non-leaf or a no-grad tensor raises. Same script on both
libraries, everything it prints compared."""

import pytest

from minigrad.parity import assert_parity, to_numpy

torch = pytest.importorskip("torch")


def scenario(lib, device):
    printed = []
    lin = lib.nn.Linear(2, 1, bias=False)
    lin = lin.to(device) if lib is torch else lin

    def t(values):
        v = lib.tensor(values)
        return v.to(device) if lib is torch else v

    with lib.no_grad():
        lin.weight.copy_(t([[1.0, -1.0]]))
    w = lin.weight

    def post_acc(arg):
        printed.append(("post-accumulate hook", arg is w, to_numpy(arg.grad), to_numpy(arg)))

    def grad_hook(g):
        printed.append(("register_hook receives", to_numpy(g)))

    w.register_hook(grad_hook)
    h = w.register_post_accumulate_grad_hook(post_acc)
    x = t([[3.0, 4.0]])
    for _ in range(2):
        lin(x).sum().backward()
        printed.append(("w.grad after", to_numpy(w.grad)))
    h.remove()
    w.register_post_accumulate_grad_hook(lambda p: p * 0.5)
    try:
        lin(x).sum().backward()
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        printed.append(("hook returning a tensor", type(e).__name__, str(e).splitlines()[0]))
    printed.append(("w.grad after the failed backward", to_numpy(w.grad)))
    y = lin(x)
    for name, tensor in (("non-leaf", y), ("no-grad", x)):
        try:
            tensor.register_post_accumulate_grad_hook(lambda t: None)
        except Exception as e:  # noqa: BLE001
            printed.append((name, type(e).__name__, str(e).splitlines()[0]))
    return printed


def test_case_13(device):
    mg, _ = assert_parity(scenario, device=device)
    assert mg[-4][1:] == ("RuntimeError", "Tensor post accumulate grad hooks should return None.")
