"""Fitting a cubic to sin(x), in the spirit of PyTorch's "Learning PyTorch with Examples"
(written anew): with tensors and manual gradients, with autograd, with a custom
autograd.Function, with nn + optim, and with a custom nn.Module. Few steps, losses printed
with 4 decimals (float32 sums in another order stay equal at that precision)."""

import math

import torch

dtype = torch.float


def show(a, b, c, d):
    """The fitted cubic, 4 decimals ("-0.0000" and "0.0000" alike: float32 noise near 0)."""
    f = [f"{v:.4f}".replace("-0.0000", "0.0000") for v in (a, b, c, d)]
    return f"y = {f[0]} + {f[1]} x + {f[2]} x^2 + {f[3]} x^3"


device = torch.device("cpu")

x = torch.linspace(-math.pi, math.pi, 200, device=device, dtype=dtype)
y = torch.sin(x)

a = torch.zeros((), device=device, dtype=dtype)
b = torch.full((), 0.5, device=device, dtype=dtype)
c = torch.zeros((), device=device, dtype=dtype)
d = torch.full((), -0.1, device=device, dtype=dtype)
learning_rate = 1e-5
for t in range(60):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    if t % 20 == 19:
        print(t, f"{loss:.4f}")
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d
print("Result:", show(a.item(), b.item(), c.item(), d.item()))

a = torch.zeros((), dtype=dtype, requires_grad=True)
b = torch.full((), 0.5, dtype=dtype, requires_grad=True)
c = torch.zeros((), dtype=dtype, requires_grad=True)
d = torch.full((), -0.1, dtype=dtype, requires_grad=True)
for t in range(60):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 20 == 19:
        print(t, f"{loss.item():.4f}")
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= learning_rate * p.grad
            p.grad = None
print("Result:", show(a.item(), b.item(), c.item(), d.item()))


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
P3 = LegendrePolynomial3.apply
for t in range(60):
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 20 == 19:
        print(t, f"{loss.item():.4f}")
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= 5e-6 * p.grad
            p.grad = None
print(type(y_pred.grad_fn).__name__, y_pred.grad_fn.next_functions[1][0].name())

p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape, xx.dtype)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.5, 0.0, -0.1]]))
    model[0].bias.fill_(0.0)
loss_fn = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6, momentum=0.9)
for t in range(60):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 20 == 19:
        print(t, f"{loss.item():.4f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
linear_layer = model[0]
print("Result:", show(linear_layer.bias.item(), *linear_layer.weight[0].tolist()))


class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.zeros(()))
        self.b = torch.nn.Parameter(torch.full((), 0.5))
        self.c = torch.nn.Parameter(torch.zeros(()))
        self.d = torch.nn.Parameter(torch.full((), -0.1))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return show(self.a.item(), self.b.item(), self.c.item(), self.d.item())


model = Polynomial3().to(device)
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(60):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 20 == 19:
        print(t, f"{loss.item():.4f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"Result: {model.string()}")
print(sorted(n for n, _ in model.named_parameters()))
