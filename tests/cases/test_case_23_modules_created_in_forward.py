"""Case 23 (pytorch/pytorch#1291): only modules assigned as attributes of a module are
registered. Layers built and applied inside ``forward`` give no parameters (the optimizer
refuses the empty list) and new random weights every call; assigned to ``self`` inside
``forward`` they appear after the first call and are replaced every call; built in
``__init__`` they are listed and trained. The script's logic is
``minigrad.parity.real_cases.case_23``, run on both libraries, everything it prints compared.

Beyond the one input, the kind (what registers a submodule or a parameter, and what an
unregistered one costs) is checked on a family of ways to hold layers: attribute, Python list,
tuple, dict, ``ModuleList``, ``ModuleDict``, ``Sequential``, ``setattr``, a plain tensor vs a
``Parameter``, a Python list of Parameters vs ``ParameterList``, a buffer, the same layer twice."""

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, graph_trace
from minigrad.parity.real_cases import case_23, normalise_message


def test_case_23(device):
    mg, _ = assert_parity(case_23, device=device)
    said = {p[0]: p[1:] for p in mg}
    assert said["InForward"][1] == 0 and said["InInit"][1] == 4
    assert said["SGD(InForward().parameters())"] == ("ValueError",
                                                     "optimizer got an empty parameter list")
    assert said["same input, two calls give different outputs"] == (True,)
    assert said["AssignedInForward: params before 1st call"] == (0,)
    assert said["AssignedInForward: params after 1st call"][0] == 2
    assert said["AssignedInForward: 2nd call replaced the weight object"] == (True,)
    assert said["InInit: head.weight changed by SGD step"] == (True,)


def holders(lib, on=lambda t: t):
    """name -> a module class holding two Linear(3, 3) layers (or parameters) one way. Every
    layer and tensor is put on the device by ``on`` when it is made: ``module.to(device)``
    would not move the unregistered ones (that is the case's point), and the forward pass
    would then mix devices."""
    nn = lib.nn

    def lin():
        return on(nn.Linear(3, 3))

    class Attr(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = lin(), lin()

        def forward(self, x):
            return self.b(self.a(x))

    class PyList(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = [lin(), lin()]

        def forward(self, x):
            for m in self.layers:
                x = m(x)
            return x

    class PyTuple(PyList):
        def __init__(self):
            super().__init__()
            self.layers = (lin(), lin())

    class PyDict(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = {"a": lin(), "b": lin()}

        def forward(self, x):
            return self.layers["b"](self.layers["a"](x))

    class ModList(PyList):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([lin(), lin()])

    class ModDict(PyDict):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleDict({"a": lin(), "b": lin()})

    class Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(lin(), lin())

        def forward(self, x):
            return self.body(x)

    class SetAttr(nn.Module):
        def __init__(self):
            super().__init__()
            for i in range(2):
                setattr(self, f"layer{i}", lin())

        def forward(self, x):
            return self.layer1(self.layer0(x))

    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lin()
            self.b = self.a

        def forward(self, x):
            return self.b(self.a(x))

    class TensorVsParameter(nn.Module):
        def __init__(self):
            super().__init__()
            self.w_tensor = on(lib.ones(3, 3)).requires_grad_()
            self.w_param = nn.Parameter(on(lib.ones(3, 3)))
            self.register_buffer("scale", on(lib.ones(3)))

        def forward(self, x):
            return x @ self.w_tensor @ self.w_param * self.scale

    class ParamList(nn.Module):
        def __init__(self):
            super().__init__()
            self.py = [nn.Parameter(on(lib.ones(3)))]
            self.pl = nn.ParameterList([nn.Parameter(on(lib.ones(3))),
                                        nn.Parameter(on(lib.ones(3)))])

        def forward(self, x):
            return x * self.py[0] * self.pl[0] * self.pl[1]

    return {c.__name__: c for c in (Attr, PyList, PyTuple, PyDict, ModList, ModDict, Seq,
                                    SetAttr, Twice, TensorVsParameter, ParamList)}


@pytest.mark.parametrize("holder", list(holders(minigrad)))
def test_what_registers_a_layer(holder, device):
    def scenario(lib, device):
        on = (lambda t: t.to(device)) if lib.__name__ == "torch" else (lambda t: t)
        m = holders(lib, on)[holder]()
        reached = []  # what module.apply() (hence .to(), .cuda(), .double()) reaches
        m.apply(lambda s: reached.append(type(s).__name__))
        x = on(lib.tensor(np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)))
        row = {"parameters": [tuple(p.shape) for p in m.parameters()],
               "named_parameters": [n for n, _ in m.named_parameters()],
               "children": [n for n, _ in m.named_children()],
               "modules": [type(s).__name__ for s in m.modules()],
               "state_dict": list(m.state_dict()),
               "buffers": [n for n, _ in m.named_buffers()], "apply() reaches": reached}
        try:
            opt = lib.optim.SGD(m.parameters(), lr=0.1)
        except ValueError as e:
            row["optimizer"] = normalise_message(e)
            opt = None
        y = m(x)
        row["graph"] = graph_trace(y)
        y.sum().backward()
        if opt is not None:
            before = [p.detach().clone() for p in m.parameters()]
            opt.step()
            row["every listed parameter trained"] = all(
                not lib.equal(b, p.detach()) for b, p in zip(before, m.parameters()))
        row["train flag reaches"] = [s.training for s in m.modules()]
        m.eval()
        row["eval flag reaches"] = [s.training for s in m.modules()]
        return row

    mg, _ = assert_parity(scenario, device=device)
    if holder in ("PyList", "PyTuple", "PyDict"):
        assert mg["parameters"] == [] and "optimizer" in mg
    elif holder == "Twice":
        assert len(mg["parameters"]) == 2 and mg["children"] == ["a"]
