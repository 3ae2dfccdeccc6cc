"""Parity: saved-tensor hooks — ``saved_tensors_hooks``, ``disable_saved_tensors_hooks``,
``save_on_cpu`` and ``SavedTensor.register_hooks`` — minigrad vs PyTorch.

Each scenario records a log of every pack and unpack call (what the hook received, in order),
the gradients, what ``node._saved_<name>`` returns while hooks own the value, and the errors,
and compares the two libraries. The behaviours follow what PyTorch's ``test/test_autograd.py``
checks for these APIs (our own tests of them).
"""

import gc
import weakref

import numpy as np

from minigrad.parity import assert_parity, node_name, to_numpy
from tests.parity.test_tensor_meta import err, mk

A = np.array([0.5, -1.0, 2.0], dtype=np.float32)
B = np.array([1.5, 0.25, -0.75], dtype=np.float32)
M1 = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2) / 3
M2 = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 4


def desc(t):
    """What a hook or reader sees of a tensor: plain data."""
    return (tuple(t.shape), t.requires_grad, t.is_leaf, node_name(t.grad_fn), t._version)


def logging_hooks(lib, log, tag=""):
    """(pack, unpack) that log what they get and pass the tensor through."""
    def pack(t):
        log.append(("pack" + tag, desc(t), lib.is_grad_enabled()))
        return t

    def unpack(t):
        log.append(("unpack" + tag, desc(t), lib.is_grad_enabled()))
        return t

    return pack, unpack


def test_pack_unpack_log_and_gradients(device):
    """Pack once per saved tensor when the op runs (inputs, outputs, matmul operands), with the
    tensor itself and grad mode off; unpack once per saved tensor per node run."""
    def scenario(lib, device):
        log = []
        a, b = mk(lib, device, A, True), mk(lib, device, B, True)
        m1, m2 = mk(lib, device, M1, True), mk(lib, device, M2, True)
        seen = []
        pack, unpack = logging_hooks(lib, log)

        def pack_id(t):
            seen.append(t is a or t is b or t is m1 or t is m2)
            return pack(t)

        with lib.autograd.graph.saved_tensors_hooks(pack_id, unpack):
            y = a * b
            e = y.exp()
            s = (e * a).sum() + (m1 @ m2).tanh().sum() + a.pow(2).sum()
        packs = list(log)
        log.clear()
        s.backward()
        return {"packs": packs, "same_object": seen, "unpacks": log,
                "grads": [to_numpy(t.grad) for t in (a, b, m1, m2)]}

    assert_parity(scenario, device=device)


def test_no_pack_without_graph(device):
    """Nothing is packed under no_grad or when no input requires grad; a constant operand is
    saved (and packed) only where the derivative needs it."""
    def scenario(lib, device):
        log = []
        a, c = mk(lib, device, A, True), mk(lib, device, B)
        with lib.autograd.graph.saved_tensors_hooks(*logging_hooks(lib, log)):
            with lib.no_grad():
                a * a
            c * c
            y = a * c
        return {"log": log, "saved": sorted(n for n in dir(y.grad_fn) if n.startswith("_saved_"))}

    assert_parity(scenario, device=device)


def test_saved_attribute_reads_unpack(device):
    """While hooks own the value, ``_saved_x`` calls unpack on each read and returns a new
    tensor with the saved history; ``_raw_saved_x`` is the SavedTensor; after backward both
    reads of the value fail."""
    def scenario(lib, device):
        log = []
        a, b = mk(lib, device, A, True), mk(lib, device, B, True)
        with lib.autograd.graph.saved_tensors_hooks(*logging_hooks(lib, log)):
            h = a * 2
            y = h * b
            e = y.exp()
        fn = y.grad_fn
        out = {
            "self": desc(fn._saved_self), "self_is_h": fn._saved_self is h,
            "other": desc(fn._saved_other), "other_is_b": fn._saved_other is b,
            "result": desc(e.grad_fn._saved_result), "result_is_e": e.grad_fn._saved_result is e,
            "result_value": to_numpy(e.grad_fn._saved_result),
            "raw": type(fn._raw_saved_self).__name__,
            "reads": list(log),
        }
        e.sum().backward()
        out["after"] = err(lambda: fn._saved_self, "backward through the graph a second time")
        out["raw_after"] = type(fn._raw_saved_self).__name__
        return out

    assert_parity(scenario, device=device)


def test_retain_graph_packs_once_unpacks_per_backward(device):
    def scenario(lib, device):
        log = []
        a = mk(lib, device, A, True)
        with lib.autograd.graph.saved_tensors_hooks(*logging_hooks(lib, log)):
            s = (a.sin() * a).sum()
        out = {"packs": list(log)}
        for i in range(2):
            log.clear()
            s.backward(retain_graph=i == 0)
            out[f"unpacks{i}"] = list(log)
        out["grad"] = to_numpy(a.grad)
        out["third"] = err(lambda: s.backward(), "backward through the graph a second time")
        return out

    assert_parity(scenario, device=device)


def test_nesting_innermost_applies(device):
    def scenario(lib, device):
        log = []
        a = mk(lib, device, A, True)
        hooks = lib.autograd.graph.saved_tensors_hooks
        with hooks(*logging_hooks(lib, log, "_outer")):
            x = a.exp()
            with hooks(*logging_hooks(lib, log, "_inner")):
                y = a.sin()
            z = a.cos()
        w = a.tanh()  # no hooks any more
        (x + y + z + w).sum().backward()
        return {"log": log, "grad": to_numpy(a.grad)}

    assert_parity(scenario, device=device)


def test_hooks_that_change_values(device):
    """What unpack returns is what backward uses: packing to NumPy and back (as saving to
    disk), and a pack that scales its tensor (a different value reaches the formula)."""
    def scenario(lib, device):
        a, b = mk(lib, device, A, True), mk(lib, device, B, True)
        dev = a.device

        def to_disk(t):
            return t.detach().cpu().numpy().copy()

        def from_disk(arr):
            return lib.from_numpy(arr).to(dev)

        with lib.autograd.graph.saved_tensors_hooks(to_disk, from_disk):
            (a * b).exp().sum().backward()
        g1 = [to_numpy(a.grad), to_numpy(b.grad)]
        a.grad = b.grad = None
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 10, lambda t: t):
            y = a * b
        packed = desc(y.grad_fn._saved_self)
        y.sum().backward()
        return {"disk": g1, "scaled": [to_numpy(a.grad), to_numpy(b.grad)], "packed": packed}

    assert_parity(scenario, device=device)


def test_no_version_check_with_hooks(device):
    """The hooks own the value, so an in-place change after saving is not detected (without
    hooks it is the version error); an identity pack sees the change."""
    def scenario(lib, device):
        a = mk(lib, device, A, True)
        h = a * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            s = (h * h).sum()
        with lib.no_grad():
            h.mul_(3)
        s.backward()
        h2 = a * 1
        s2 = (h2 * h2).sum()
        with lib.no_grad():
            h2.mul_(3)
        return {"grad": to_numpy(a.grad), "without": err(lambda: s2.backward(),
                                                         "modified by an inplace operation")}

    assert_parity(scenario, device=device)


def test_hook_errors(device):
    def scenario(lib, device):
        hooks = lib.autograd.graph.saved_tensors_hooks
        a = mk(lib, device, A, True)
        h = a * 1

        def inplace_pack(t):
            t.add_(1)
            return t

        def bad_pack():
            with hooks(inplace_pack, lambda t: t):
                h * h

        with hooks(lambda t: t, lambda t: 1.5):
            y = (a * a).sum()
        return {
            "inplace_pack": err(bad_pack, "pack hook is modifying its input in place",
                                "cannot be modified by in-place operations"),
            "non_tensor_unpack": err(lambda: y.backward(retain_graph=True),
                                     "unpack_hook expected to be a Tensor",
                                     "result of type float"),
            "non_tensor_read": err(lambda: y.grad_fn.next_functions[0][0]._saved_self,
                                   "unpack_hook expected to be a Tensor"),
            "stack_popped": (a * a).sum().backward() is None,  # the failed block left no hooks
        }

    assert_parity(scenario, device=device)


def test_create_graph_through_hooks(device):
    """Double backward: unpack runs with grad mode on and the unpacked tensors carry history,
    so second-order gradients are right."""
    def scenario(lib, device):
        log = []
        a = mk(lib, device, A, True)
        with lib.autograd.graph.saved_tensors_hooks(*logging_hooks(lib, log)):
            y = (a * a * a).sum()
        (g,) = lib.autograd.grad(y, a, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), a)
        return {"log": log, "g": to_numpy(g), "gg": to_numpy(gg), "g_fn": node_name(g.grad_fn)}

    assert_parity(scenario, device=device)


def test_custom_function_save_for_backward(device):
    """``ctx.save_for_backward`` packs each tensor after forward (an input and an output);
    every read of ``ctx.saved_tensors`` unpacks them again."""
    def scenario(lib, device):
        log = []

        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                out = x * x * x * k
                ctx.save_for_backward(x, out)
                return out

            @staticmethod
            def backward(ctx, g):
                x, out = ctx.saved_tensors
                log.append(("in backward", desc(x), desc(out)))
                x, _ = ctx.saved_tensors
                return g * 3 * x * x, None

        a = mk(lib, device, A, True)
        with lib.autograd.graph.saved_tensors_hooks(*logging_hooks(lib, log)):
            y = Cube.apply(a, 2.0)
        y.sum().backward()
        return {"log": log, "grad": to_numpy(a.grad)}

    assert_parity(scenario, device=device)


def test_packed_value_freed_with_graph(device):
    """What pack returned lives as long as the graph: freed by backward (without
    ``retain_graph``), or when the graph is dropped."""
    def scenario(lib, device):
        class Box:
            def __init__(self, t):
                self.t = t

        refs = []

        def pack(t):
            # (detached: a box holding the output itself would make a reference cycle through
            # its grad_fn, which PyTorch's garbage collector cannot see into)
            box = Box(t.detach())
            refs.append(weakref.ref(box))
            return box

        a = mk(lib, device, A, True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda box: box.t):
            s = (a.exp() * a).sum()
        alive = [r() is not None for r in refs]
        s.backward(retain_graph=True)
        kept = [r() is not None for r in refs]
        s.backward()
        gc.collect()
        freed = [r() is not None for r in refs]
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda box: box.t):
            s2 = (a.exp() * a).sum()
        del s2
        gc.collect()
        return {"alive": alive, "kept": kept, "freed": freed,
                "dropped": [r() is not None for r in refs[len(freed):]]}

    assert_parity(scenario, device=device)


def test_disable_saved_tensors_hooks(device):
    def scenario(lib, device):
        g = lib.autograd.graph
        out = {}
        pack, unpack = (lambda t: t), (lambda t: t)

        def enter_hooks():
            with g.saved_tensors_hooks(pack, unpack):
                pass

        with g.disable_saved_tensors_hooks("hooks are off here: save outside this block"):
            out["inside"] = err(enter_hooks)
            out["save_on_cpu"] = err(lambda: g.save_on_cpu().__enter__())
            with g.disable_saved_tensors_hooks("inner message"):
                out["nested"] = err(enter_hooks)
            out["restored"] = err(enter_hooks)
        out["after"] = err(enter_hooks)

        def disable_inside_hooks():
            with g.saved_tensors_hooks(pack, unpack):
                with g.disable_saved_tensors_hooks("cannot disable: hooks are set"):
                    pass

        out["disable_inside_hooks"] = err(disable_inside_hooks)
        out["usable_again"] = err(enter_hooks)
        return out

    assert_parity(scenario, device=device)


def test_save_on_cpu(device):
    """Gradients as without it; ``_saved_x`` comes back with its history. With
    ``pin_memory=True`` the saved value is a copy: an in-place change after the forward is not
    seen by backward (and not detected)."""
    def scenario(lib, device):
        g = lib.autograd.graph
        a, b = mk(lib, device, A, True), mk(lib, device, B, True)
        with g.save_on_cpu():
            y = (a * b).exp()
        saved = desc(y.grad_fn._saved_result)
        y.sum().backward()
        grads = [to_numpy(a.grad), to_numpy(b.grad)]
        a.grad = None
        h = a * 1
        with g.save_on_cpu(pin_memory=True):
            s = (h * h).sum()
        with lib.no_grad():
            h.mul_(5)
        s.backward()
        return {"saved": saved, "grads": grads, "pinned_copy": to_numpy(a.grad),
                "is_hooks": isinstance(g.save_on_cpu(), g.saved_tensors_hooks)}

    assert_parity(scenario, device=device)


def test_register_hooks_on_saved_tensor(device):
    """Per-tensor hooks: pack runs at once on a detached alias (not the tensor itself);
    unpack at each read and backward; its value is what backward uses."""
    def scenario(lib, device):
        log = []
        a = mk(lib, device, A, True)
        y = a.pow(2)
        raw = y.grad_fn._raw_saved_self
        seen = []

        def pack(t):
            seen.append(t is a)
            log.append(("pack", desc(t)))
            return t * 10

        def unpack(t):
            log.append(("unpack", desc(t)))
            return t

        raw.register_hooks(pack, unpack)
        read = desc(y.grad_fn._saved_self)
        e = a.exp()  # an output saved as _saved_result
        e.grad_fn._raw_saved_result.register_hooks(*logging_hooks(lib, log, "_result"))
        (y.sum() + e.sum()).backward()
        return {"log": log, "seen": seen, "read": read, "grad": to_numpy(a.grad)}

    assert_parity(scenario, device=device)


def test_register_hooks_errors(device):
    def scenario(lib, device):
        a = mk(lib, device, A, True)
        y = a.pow(2)
        raw = y.grad_fn._raw_saved_self
        ok = (lambda t: t), (lambda t: t)
        out = {"non_callable_pack": err(lambda: raw.register_hooks(1, ok[1]),
                                        "register_hooks(): incompatible function arguments"),
               "non_callable_unpack": err(lambda: raw.register_hooks(ok[0], "s"),
                                          "register_hooks(): incompatible function arguments"),
               "one_hook": err(lambda: raw.register_hooks(ok[0]))[0]}
        raw.register_hooks(*ok)
        out["twice"] = err(lambda: raw.register_hooks(*ok), "hooks have already been set",
                           "only one pair of hooks is allowed at a time")
        z = a.pow(3)
        with lib.autograd.graph.saved_tensors_hooks(*ok):
            w = a.pow(4)
        out["after_default_hooks"] = err(lambda: w.grad_fn._raw_saved_self.register_hooks(*ok),
                                         "hooks have already been set")
        z.sum().backward()
        out["after_backward"] = err(lambda: z.grad_fn._raw_saved_self.register_hooks(*ok),
                                    "after it has been freed", "retain_graph=True")
        # no version check once hooks own the value
        h = a * 1
        q = h.pow(2)
        q.grad_fn._raw_saved_self.register_hooks(*ok)
        with lib.no_grad():
            h.mul_(2)
        a.grad = None
        q.sum().backward()
        out["unchecked_grad"] = to_numpy(a.grad)
        return out

    assert_parity(scenario, device=device)


def test_every_saved_tensor_unpacked_once_per_node_run(device):
    """A node unpacks all it saved before computing, even what the requested gradients do
    not need (``inputs=`` asks for one input of a product)."""
    def scenario(lib, device):
        log = []
        a, b = mk(lib, device, A, True), mk(lib, device, B, True)
        with lib.autograd.graph.saved_tensors_hooks(*logging_hooks(lib, log)):
            s = (a * b).sum()
        log.clear()
        s.backward(inputs=[a])
        return {"log": log, "a": to_numpy(a.grad), "b": to_numpy(b.grad)}

    assert_parity(scenario, device=device)


def test_inplace_ops_pack_what_pytorch_saves(device):
    """An in-place op packs a clone of ``self`` (not ``self``, which it then overwrites) and,
    for a saved output, ``self`` after the write (version 1); gradients stay right even with
    identity hooks."""
    def scenario(lib, device):
        log = []

        def pack(t):
            log.append(("pack", desc(t), to_numpy(t)))
            return t

        def unpack(t):
            log.append(("unpack", desc(t), to_numpy(t)))
            return t

        x, w = mk(lib, device, A, True), mk(lib, device, B, True)
        y = x * 1
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y.mul_(w)
            z = y * 1
            z.exp_()
            y[0:2].mul_(2)
        (z.sum() + y.sum()).backward()
        return {"log": log, "grads": [to_numpy(x.grad), to_numpy(w.grad)]}

    assert_parity(scenario, device=device)


def test_hooks_are_per_thread(device):
    """The open blocks belong to the thread that opened them: an op run in another thread
    meanwhile saves its tensors plainly."""
    import threading

    def scenario(lib, device):
        log = []
        a = mk(lib, device, A, True)
        out = {}

        def other_thread():
            y = a.exp()
            out["other_thread_saved"] = desc(y.grad_fn._saved_result)

        with lib.autograd.graph.saved_tensors_hooks(*logging_hooks(lib, log)):
            worker = threading.Thread(target=other_thread)
            worker.start()
            worker.join()
            a.sin()
        out["log"] = log
        return out

    assert_parity(scenario, device=device)
