"""Tensors, in the spirit of PyTorch's "Learn the Basics: Tensors" (written anew): creating
tensors, their attributes, the device idiom, indexing, joining, arithmetic, in-place ops and
the NumPy bridge. Random values are only described (shape, dtype, range), never printed."""

import numpy as np
import torch

data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
print(x_data)

np_array = np.array(data)
x_np = torch.from_numpy(np_array)
print(x_np)

x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \n {x_ones} \n")
x_rand = torch.rand_like(x_data, dtype=torch.float)
print(f"Random Tensor: shape {tuple(x_rand.shape)}, in [0, 1): "
      f"{bool(((x_rand >= 0) & (x_rand < 1)).all())}")

shape = (2, 3,)
rand_tensor = torch.rand(shape)
ones_tensor = torch.ones(shape)
zeros_tensor = torch.zeros(shape)
print(f"Random Tensor: {rand_tensor.shape} {rand_tensor.dtype}")
print(f"Ones Tensor: \n {ones_tensor} \n")
print(f"Zeros Tensor: \n {zeros_tensor}")

tensor = torch.rand(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Using {device} device")
tensor = tensor.to(device)
print(f"Device tensor is stored on: {tensor.device}")
if torch.cuda.is_available():
    tensor = tensor.to("cuda")

tensor = torch.ones(4, 4)
print(f"First row: {tensor[0]}")
print(f"First column: {tensor[:, 0]}")
print(f"Last column: {tensor[..., -1]}")
tensor[:, 1] = 0
print(tensor)

t1 = torch.cat([tensor, tensor, tensor], dim=1)
print(t1)
print(torch.stack([tensor[0], tensor[1]]).shape)

y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
print(y1)
print(torch.equal(y1, y2))

z1 = tensor * tensor
z2 = tensor.mul(tensor)
print(z1)
print(torch.equal(z1, z2))

agg = tensor.sum()
agg_item = agg.item()
print(agg_item, type(agg_item))

print(f"{tensor} \n")
tensor.add_(5)
print(tensor)

t = torch.ones(5)
print(f"t: {t}")
n = t.numpy()
print(f"n: {n}")
t.add_(1)
print(f"t: {t}")
print(f"n: {n}")

n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
print(f"t: {t}")
print(f"n: {n}")

a = torch.arange(6).reshape(2, 3)
print(a, a.dtype)
print(a.float().mean(), a.max(), a.argmax(), a.view(3, 2))
print(torch.linspace(0, 1, steps=5))
print(torch.zeros(2, 2, dtype=torch.float64))
print(torch.full((2, 2), 7))
print(torch.eye(3))
print(a[range(2), torch.tensor([0, 2])])
print(x_data.new_zeros(2), x_data.new_ones((1, 2)), x_data.new_full((2,), 9))
print(torch.is_tensor(a), torch.numel(a), torch.is_floating_point(a))
