"""Parity: ``autograd.gradcheck`` / ``gradgradcheck`` give the same outcome (True, False, or the
same exception type and message gist) as PyTorch's on correct and deliberately wrong custom
Functions and on built-in ops (float64 inputs, PyTorch's default tolerances).
"""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity

A = np.array([[0.5, -1.0], [2.0, 0.3]])
B = np.array([[1.5, 0.2], [-0.7, 1.1]])


def _functions(lib):
    class Good(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * x * y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return 2 * x * y * g, x * x * g

    class WrongFactor(Good):
        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return x * y * g, x * x * g  # d/dx is missing the factor 2

    class WrongSecondInput(Good):
        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return 2 * x * y * g, x * g

    class IgnoresGradOutput(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 0 + 2

    class Bias(IgnoresGradOutput):
        @staticmethod
        def backward(ctx, g):
            return g * 2 + 1e-9  # right Jacobian, but zero grad_output gives nonzero

    class NoneUnsafe(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 if g2 is None else g1 * 2 + g2 * 3  # fails when g1 is None

    class DetachedBackward(lib.autograd.Function):
        """Correct first derivative, computed from a detached tensor: wrong second one."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x.detach() ** 2 * g

    class Once(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return {"good": Good, "wrong_factor": WrongFactor, "wrong_second": WrongSecondInput,
            "ignores_grad_output": IgnoresGradOutput, "bias": Bias, "none_unsafe": NoneUnsafe,
            "detached_backward": DetachedBackward, "once": Once}


def _outcome(fn):
    """True/False, or (exception type, first line of its message) — random grad_outputs in
    gradgradcheck make the printed Jacobians differ, so only the first line is compared."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).split("\n")[0]


CASES = {
    "good": (lambda F: F["good"].apply, 2),
    "wrong_factor": (lambda F: F["wrong_factor"].apply, 2),
    "wrong_second_input": (lambda F: F["wrong_second"].apply, 2),
    "ignores_grad_output": (lambda F: F["ignores_grad_output"].apply, 1),
    "not_multiplied_by_grad_output": (lambda F: F["bias"].apply, 1),
    "undefined_output_grad": (lambda F: (lambda a: F["none_unsafe"].apply(a)[0]), 1),
    "detached_backward": (lambda F: F["detached_backward"].apply, 1),
    "once_differentiable": (lambda F: F["once"].apply, 1),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("check", ["gradcheck", "gradgradcheck"])
def test_custom_functions(case, check):
    def scenario(lib):
        lib.manual_seed(0)
        fn = CASES[case][0](_functions(lib))
        n = CASES[case][1]
        inputs = tuple(lib.tensor(a, requires_grad=True) for a in (A, B)[:n])
        run = getattr(lib.autograd, check)
        return {"raise": _outcome(lambda: run(fn, inputs)),
                "no_raise": _outcome(lambda: run(fn, inputs, raise_exception=False))}

    assert_parity(scenario)


def test_mismatch_message_and_error_type():
    def scenario(lib):
        F = _functions(lib)
        x, y = (lib.tensor(a, requires_grad=True) for a in (A, B))
        try:
            lib.autograd.gradcheck(F["wrong_factor"].apply, (x, y))
        except RuntimeError as e:  # GradcheckError is a RuntimeError
            msg = str(e).replace("torch", "minigrad")
            return type(e).__name__, msg
        return None

    assert_parity(scenario)


OPS = {
    "matmul_tanh": (lambda a, b: (a @ b).tanh(), 2),
    "reductions": (lambda a, b: ((a * b).sum(0) + a.mean(1) * b.amax(1)), 2),
    "softmax": (lambda a, b: a.softmax(1) * b, 2),
    "log_softmax": (lambda a, b: a.log_softmax(0), 1),
    "mse": (lambda a, b: ((a - b) ** 2).mean() + ((a * b - 1) ** 2).sum(), 2),
    "pointwise": (lambda a, b: a.exp() * b.sigmoid() / (1 + a * a), 2),
    "views_and_inplace": (lambda a, b: (a * 1).t().mul_(b).reshape(4), 2),
    "two_outputs": (lambda a, b: (a * b, a - b), 2),
}


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("check", ["gradcheck", "gradgradcheck"])
def test_builtin_ops(op, check):
    def scenario(lib):
        lib.manual_seed(0)
        fn, n = OPS[op]
        inputs = tuple(lib.tensor(a, requires_grad=True) for a in (A, B)[:n])
        return _outcome(lambda: getattr(lib.autograd, check)(fn, inputs))

    assert_parity(scenario)


def test_input_checks():
    def scenario(lib):
        x = lib.tensor(A, requires_grad=True)
        out = {"no_input_requires_grad": _outcome(
            lambda: lib.autograd.gradcheck(lambda a: a * 2, (lib.tensor(A),)))}
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            f32 = lib.tensor(np.array([1.0, 2.0], np.float32), requires_grad=True)
            out["float32"] = _outcome(lambda: lib.autograd.gradcheck(lambda a: a * 2, (f32,)))
            out["warnings"] = [str(m.message) for m in w]
        out["non_tensor_args"] = _outcome(lambda: lib.autograd.gradcheck(
            lambda a, k, b: a * k + b, (x, 3.0, lib.tensor(B))))
        out["no_differentiable_output"] = _outcome(lambda: lib.autograd.gradcheck(
            lambda a: (a > 0).double(), (x,)))
        out["grad_outputs_given"] = _outcome(lambda: lib.autograd.gradgradcheck(
            lambda a: a ** 3, (x,), (lib.tensor(B, requires_grad=True),)))
        return out

    assert_parity(scenario)
