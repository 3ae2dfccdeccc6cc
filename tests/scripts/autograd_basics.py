"""Automatic differentiation, in the spirit of PyTorch's "Learn the Basics: Autograd"
(written anew): a one-layer network, its graph, gradients, no_grad, detach, and a
non-scalar output's vector-Jacobian product."""

import numpy as np
import torch

x = torch.ones(5)
y = torch.zeros(3)
w = torch.tensor(np.linspace(-1.0, 1.0, 15).reshape(5, 3), dtype=torch.float32,
                 requires_grad=True)
b = torch.tensor([0.1, -0.2, 0.3], requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.mse_loss(torch.sigmoid(z), y)

print(f"Gradient function for z = {z.grad_fn}".split(" object")[0])
print(f"Gradient function for loss = {type(loss.grad_fn).__name__}")
print([type(f).__name__ if f is not None else None for f, _ in z.grad_fn.next_functions])

loss.backward()
print(w.grad)
print(b.grad)
print(f"{loss.item():.6f}")

z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)

z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad, z_det.is_leaf)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

a = torch.tensor([2.0, 3.0], requires_grad=True)
q = 3 * a ** 3 - a ** 2
q.backward(gradient=torch.tensor([1.0, 1.0]))
print(a.grad, a.grad == 9 * a ** 2 - 2 * a)
print(a.grad_fn, a.is_leaf, q.is_leaf, q.grad_fn.name())
