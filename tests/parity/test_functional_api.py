"""Parity: ``autograd.functional`` (vjp, jvp, jacobian, hessian, vhp, hvp) — minigrad vs PyTorch.

Values, the tensor-or-tuple structure of every result, ``requires_grad`` and graphs with
``create_graph``, gradients flowing back to the caller's tensors, and the errors of
``strict=True`` and of bad arguments (type and key phrases). float64 throughout.
The behaviours follow PyTorch's ``test/test_autograd.py`` (TestAutogradFunctional) and
``torch/autograd/functional.py``.
"""

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, node_name, to_numpy
from tests.parity.test_tensor_meta import err, mk

RNG = np.random.default_rng(18)
X = RNG.standard_normal((2, 3)) * 0.7
Y = RNG.standard_normal(3) * 0.7
V2 = RNG.standard_normal(2)
V23 = RNG.standard_normal((2, 3))
V3 = RNG.standard_normal(3)


def shape_of(res):
    """A result as plain data, keeping its structure: a tensor is ``("T", values,
    requires_grad, grad_fn name)``, a tuple is ``("tuple", [...])``."""
    if isinstance(res, tuple):
        return ("tuple", [shape_of(r) for r in res])
    if res is None:
        return None
    return ("T", to_numpy(res), res.requires_grad, node_name(res.grad_fn))


def leaves(lib, device, requires_grad=True):
    return mk(lib, device, X, requires_grad), mk(lib, device, Y, requires_grad)


def reducer(a):
    return a.exp().sum(dim=1)


def mixed(a, b):
    return (a * b).sin().sum() + (a ** 3).sum() * b.tanh().sum()


def polynomial(a, b):
    """Second derivatives recorded with PyTorch's very nodes (see test_higher_order)."""
    return (a * b).sin().sum() + (a ** 3).sum() * b.sum()


def two_out(a, b):
    return a.tanh() * b, (a @ b).exp()


# ------------------------------------------------------------------------------ vjp / jvp
@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp_structures(create_graph, device):
    def scenario(lib, device):
        F = lib.autograd.functional
        x, y = leaves(lib, device)
        out = {
            "tensor_tensor": F.vjp(reducer, x, mk(lib, device, V2), create_graph=create_graph),
            "tuple_in": F.vjp(lambda a, b: a * b, (x, y), mk(lib, device, V23),
                              create_graph=create_graph),
            "tuple_out": F.vjp(two_out, (x, y), (mk(lib, device, V23), mk(lib, device, V2)),
                               create_graph=create_graph),
            "one_tuple_in": F.vjp(lambda a: a.sum(), (x,), create_graph=create_graph),
            "scalar_default_v": F.vjp(lambda a: (a ** 2).sum(), x, create_graph=create_graph),
            "unused_input": F.vjp(lambda a, b: a * 2, (x, y), mk(lib, device, V23),
                                  create_graph=create_graph),
            "no_grad_inputs": F.vjp(reducer, x.detach(), mk(lib, device, V2),
                                    create_graph=create_graph),
        }
        return {k: shape_of(v) for k, v in out.items()}

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("create_graph", [False, True])
def test_jvp_structures(create_graph, device):
    def scenario(lib, device):
        F = lib.autograd.functional
        x, y = leaves(lib, device)
        out = {
            "tensor_tensor": F.jvp(reducer, x, mk(lib, device, V23), create_graph=create_graph),
            "tuple_in": F.jvp(lambda a, b: a * b, (x, y), (mk(lib, device, V23),
                              mk(lib, device, V3)), create_graph=create_graph),
            "tuple_out": F.jvp(two_out, (x, y), (mk(lib, device, V23), mk(lib, device, V3)),
                               create_graph=create_graph),
            "scalar_default_v": F.jvp(lambda a: a.exp() * 3, x[0, 0], create_graph=create_graph),
            "unused_input": F.jvp(lambda a, b: a.sin(), (x, y), (mk(lib, device, V23),
                                  mk(lib, device, V3)), create_graph=create_graph),
        }
        return {k: shape_of(v) for k, v in out.items()}

    assert_parity(scenario, device=device)


def test_jvp_is_the_double_backward_trick(device):
    """jvp equals J @ v computed from the full Jacobian, in both libraries."""
    def scenario(lib, device):
        F = lib.autograd.functional
        x = mk(lib, device, X)
        v = mk(lib, device, V23)
        _, jv = F.jvp(reducer, x, v)
        jac = F.jacobian(reducer, x)
        return to_numpy(jv), np.allclose(to_numpy(jv), np.einsum("oij,ij->o", to_numpy(jac),
                                                                  V23))

    a, _ = assert_parity(scenario, device=device)
    assert a[1]


def test_create_graph_graphs_and_gradients_to_the_caller(device):
    """With create_graph the results hang under the caller's graph (the inputs are passed to
    ``func`` as views: ``ViewBackward0``) and can be differentiated again."""
    def scenario(lib, device):
        F = lib.autograd.functional
        x, y = leaves(lib, device)
        ones2, ones23 = mk(lib, device, np.ones(2)), mk(lib, device, np.ones((2, 3)))
        out = {}
        fo, r = F.vjp(reducer, x, ones2, create_graph=True)
        out["vjp"] = [graph_trace(fo), graph_trace(r)]
        fo, r = F.jvp(reducer, x, ones23, create_graph=True)
        out["jvp"] = [graph_trace(fo), graph_trace(r)]
        out["jacobian"] = graph_trace(F.jacobian(reducer, x, create_graph=True))
        h = F.hessian(polynomial, (x, y), create_graph=True)
        out["hessian"] = [[graph_trace(e) for e in row] for row in h]
        # (vhp of ``polynomial`` sums two gradients of ``a * b`` in the other order than
        # PyTorch: an AddBackward0 with its inputs swapped, so a one-input function here)
        _, r = F.vhp(lambda a: a.sin().sum() * 2 + (a ** 3).sum(), x, ones23,
                     create_graph=True)
        out["vhp"] = graph_trace(r)
        _, r = F.vhp(polynomial, (x, y), (ones23, mk(lib, device, V3)), create_graph=True)
        (r[0].sum() + r[1].sum()).backward()
        out["grads"] = [to_numpy(x.grad), to_numpy(y.grad)]
        return out

    assert_parity(scenario, device=device)


def test_hvp_create_graph_gradients(device):
    """hvp's third backward pass builds a deeper graph of backward formulas, partly of other
    nodes than PyTorch's (see test_higher_order): values, requires_grad and the last node are
    compared, and the gradient of the result."""
    def scenario(lib, device):
        F = lib.autograd.functional
        x, y = leaves(lib, device)
        fo, r = F.hvp(mixed, (x, y), (mk(lib, device, V23), mk(lib, device, V3)),
                      create_graph=True)
        (r[0].sum() * 2 + r[1].sum()).backward()
        return shape_of(fo), shape_of(r), to_numpy(x.grad), to_numpy(y.grad)

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------------------ jacobian
@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_structures(create_graph, device):
    def scenario(lib, device):
        F = lib.autograd.functional
        x, y = leaves(lib, device)
        out = {
            "tensor_tensor": F.jacobian(reducer, x, create_graph=create_graph),
            "tuple_in": F.jacobian(lambda a, b: a * b, (x, y), create_graph=create_graph),
            "tuple_out": F.jacobian(lambda a: (a.sin(), a.sum()), x, create_graph=create_graph),
            "tuple_tuple": F.jacobian(two_out, (x, y), create_graph=create_graph),
            "one_tuple_in": F.jacobian(reducer, (x,), create_graph=create_graph),
            "unused_input": F.jacobian(lambda a, b: a.cos(), (x, y), create_graph=create_graph),
            "linear": F.jacobian(lambda a: a * 3, x, create_graph=create_graph),
            "scalar": F.jacobian(lambda a: (a ** 2).sum(), x, create_graph=create_graph),
            "no_grad_input": F.jacobian(reducer, x.detach(), create_graph=create_graph),
        }
        return {k: shape_of(v) for k, v in out.items()}

    assert_parity(scenario, device=device)


def test_jacobian_leaves_inputs_and_grad_mode_alone(device):
    """The caller's tensors get no ``.grad``, and the grad mode is restored (also under
    no_grad, where the Jacobian is still computed)."""
    def scenario(lib, device):
        F = lib.autograd.functional
        x, _ = leaves(lib, device)
        with lib.no_grad():
            j = F.jacobian(reducer, x)
            mode = lib.is_grad_enabled()
            _, r = F.vjp(reducer, x, mk(lib, device, V2), create_graph=True)
        return shape_of(j), mode, x.grad is None, shape_of(r)

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------------------ second order
@pytest.mark.parametrize("create_graph", [False, True])
def test_hessian_vhp_hvp(create_graph, device):
    def scenario(lib, device):
        F = lib.autograd.functional
        x, y = leaves(lib, device)
        vx, vy = mk(lib, device, V23), mk(lib, device, V3)

        def cube(a):
            return (a ** 3).sum()

        out = {
            "hessian_tensor": F.hessian(cube, x, create_graph=create_graph),
            "hessian_tuple": F.hessian(mixed, (x, y), create_graph=create_graph),
            "hessian_one_tuple": F.hessian(cube, (x,), create_graph=create_graph),
            "hessian_unused": F.hessian(lambda a, b: (a ** 3).sum(), (x, y),
                                        create_graph=create_graph),
            "vhp_tensor": F.vhp(cube, x, vx, create_graph=create_graph),
            "vhp_tuple": F.vhp(mixed, (x, y), (vx, vy), create_graph=create_graph),
            "vhp_scalar_default_v": F.vhp(lambda a: a.exp() * 2, x[0, 1],
                                          create_graph=create_graph),
            "hvp_tensor": F.hvp(cube, x, vx, create_graph=create_graph),
            "hvp_tuple": F.hvp(mixed, (x, y), (vx, vy), create_graph=create_graph),
            "hvp_unused": F.hvp(lambda a, b: (a ** 3).sum(), (x, y), (vx, vy),
                                create_graph=create_graph),
        }
        return {k: shape_of(v) for k, v in out.items()}

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------------------ errors
def test_strict_errors(device):
    def scenario(lib, device):
        F = lib.autograd.functional
        x, y = leaves(lib, device)
        vx, vy, v2 = mk(lib, device, V23), mk(lib, device, V3), mk(lib, device, V2)

        def const(a):
            return lib.ones(2, dtype=lib.float64)

        cases = {
            "vjp_output_no_grad": lambda: F.vjp(const, x, v2, strict=True),
            "vjp_unused": lambda: F.vjp(lambda a, b: a * 2, (x, y), vx, strict=True),
            "vjp_linear_create_graph": lambda: F.vjp(lambda a: a * 2, x, vx, strict=True,
                                                     create_graph=True),
            "jvp_output_no_grad": lambda: F.jvp(const, x, vx, strict=True),
            "jvp_unused": lambda: F.jvp(lambda a, b: a * 2, (x, y), (vx, vy), strict=True),
            "jacobian_output_no_grad": lambda: F.jacobian(const, x, strict=True),
            "jacobian_unused": lambda: F.jacobian(lambda a, b: a * 2, (x, y), strict=True),
            "jacobian_linear_create_graph": lambda: F.jacobian(lambda a: a * 2, x, strict=True,
                                                               create_graph=True),
            "hessian_linear": lambda: F.hessian(lambda a: a.sum(), x, strict=True),
            # (no error: the second backward's formulas keep the saved input, so even a
            # constant Hessian comes out requiring grad — in PyTorch as here)
            "no_error_hessian_quadratic_create_graph": lambda: F.hessian(
                lambda a: (a ** 2).sum(), x, strict=True, create_graph=True),
            "vhp_linear": lambda: F.vhp(lambda a: (a * 2).sum(), x, vx, strict=True),
            "vhp_unused": lambda: F.vhp(lambda a, b: (a ** 3).sum(), (x, y), (vx, vy),
                                        strict=True),
            "no_error_vhp_quadratic_create_graph": lambda: F.vhp(lambda a: (a ** 2).sum(), x, vx,
                                                        strict=True, create_graph=True),
            "hvp_linear": lambda: F.hvp(lambda a: (a * 2).sum(), x, vx, strict=True),
            "no_error_hvp_quadratic_create_graph": lambda: F.hvp(lambda a: (a ** 2).sum(), x, vx,
                                                        strict=True, create_graph=True),
        }
        out = {k: err(fn) for k, fn in cases.items()}
        # strict=True passes where everything depends on everything
        out["ok"] = shape_of(F.hvp(mixed, (x, y), (vx, vy), strict=True))
        out["ok_jac"] = shape_of(F.jacobian(two_out, (x, y), strict=True, create_graph=True))
        return out

    a, _ = assert_parity(scenario, device=device)
    raised = {k: v and v[0] for k, v in a.items() if not k.startswith(("ok", "no_error"))}
    assert set(raised.values()) == {"RuntimeError"}, [k for k, v in raised.items() if not v]


def test_bad_arguments(device):
    def scenario(lib, device):
        F = lib.autograd.functional
        x, y = leaves(lib, device)
        vx, v2 = mk(lib, device, V23), mk(lib, device, V2)
        cases = {
            "input_not_tensor": lambda: F.vjp(reducer, 3.0, v2),
            "input_tuple_entry": lambda: F.jacobian(reducer, (x, 2)),
            "input_list": lambda: F.jvp(reducer, [x], vx),
            "output_not_tensor": lambda: F.vjp(lambda a: 2, x, v2),
            "output_tuple_entry": lambda: F.jacobian(lambda a: (a, None), x),
            "v_not_tensor": lambda: F.vjp(reducer, x, [1.0, 2.0]),
            "v_missing": lambda: F.vjp(reducer, x),
            "v_missing_jvp": lambda: F.jvp(reducer, x),
            "v_missing_vhp": lambda: F.vhp(lambda a: a.sum(), x),
            "v_size": lambda: F.vjp(reducer, x, vx),
            "v_size_tuple": lambda: F.jvp(lambda a, b: a * b, (x, y), (vx, vx)),
            "v_length": lambda: F.jvp(lambda a, b: a * b, (x, y), (vx,)),
            "v_length_single": lambda: F.vjp(reducer, x, (v2, v2)),
            "hessian_tuple_out": lambda: F.hessian(lambda a: (a.sum(),), x),
            "hessian_not_scalar": lambda: F.hessian(lambda a: a * 2, x),
            "vhp_tuple_out": lambda: F.vhp(lambda a: (a.sum(),), x, vx),
            "hvp_not_scalar": lambda: F.hvp(lambda a: a * 2, x, vx),
            "bad_strategy": lambda: F.jacobian(reducer, x, strategy="backward"),
            "bad_outer_strategy": lambda: F.hessian(mixed, (x, y), outer_jacobian_strategy="x"),
            "forward_create_graph": lambda: F.jacobian(reducer, x, create_graph=True,
                                                       strategy="forward-mode"),
            "forward_strict": lambda: F.jacobian(reducer, x, strict=True,
                                                 strategy="forward-mode"),
            "forward_not_vectorized": lambda: F.jacobian(reducer, x, strategy="forward-mode"),
            "strict_vectorize": lambda: F.jacobian(reducer, x, strict=True, vectorize=True),
        }
        return {k: err(fn) for k, fn in cases.items()}

    assert_parity(scenario, device=device)


def _vectorized(lib):
    """vectorize=True (PyTorch: vmap; minigrad: the same rows one by one) gives what the
    default path gives, with or without create_graph."""
    F = lib.autograd.functional
    x = lib.tensor(X)
    cube = lambda a: (a ** 3).sum()  # noqa: E731
    return {"jac": to_numpy(F.jacobian(reducer, x, vectorize=True)),
            "jac_default": to_numpy(F.jacobian(reducer, x)),
            "jac_graph": F.jacobian(reducer, x, vectorize=True, create_graph=True).requires_grad,
            "hess": to_numpy(F.hessian(cube, x, vectorize=True)),
            "hess_rg": F.hessian(cube, x, vectorize=True).requires_grad}


def test_vectorize_is_the_row_loop():
    assert_parity(_vectorized, rtol=1e-12, atol=1e-12)
