"""Data and training, in the spirit of PyTorch's "Learn the Basics" (Datasets & DataLoaders,
Build the Neural Network, Optimization), written anew on synthetic data from NumPy: a custom
Dataset, TensorDataset, DataLoader, random_split, a small nn.Module with the device idiom,
CrossEntropyLoss and SGD, a train loop and a test loop, saving and loading a state_dict."""

import io

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split

rng = np.random.default_rng(0)
features = rng.standard_normal((96, 1, 4, 4)).astype(np.float32)
labels = (features.reshape(96, -1).sum(axis=1) > 0).astype(np.int64) + (
    features[:, 0, 0, 0] > 1).astype(np.int64)

training_data = TensorDataset(torch.tensor(features[:64]), torch.tensor(labels[:64]))
test_data = TensorDataset(torch.from_numpy(features[64:]), torch.from_numpy(labels[64:]))
print(len(training_data), len(test_data))
sample, label = training_data[3]
print(sample.shape, sample.dtype, label, label.dtype)


class Squares(Dataset):
    """A custom map-style dataset: ``(i, i * i)``."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        return torch.tensor([float(idx)]), idx * idx


for xb, yb in DataLoader(Squares(5), batch_size=2):
    print(xb, yb)

generator = torch.Generator().manual_seed(42)
part_a, part_b = random_split(range(10), [0.7, 0.3], generator=generator)
print(len(part_a), len(part_b), sorted(list(part_a) + list(part_b)))

train_dataloader = DataLoader(training_data, batch_size=16)
test_dataloader = DataLoader(test_data, batch_size=16)
shuffled = DataLoader(training_data, batch_size=16, shuffle=True)
seen = torch.cat([yb for _, yb in shuffled])
print(len(shuffled), seen.shape, int(seen.sum()) == int(training_data.tensors[1].sum()))

train_features, train_labels = next(iter(train_dataloader))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()}")

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Using {device} device")


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(16, 12),
            nn.ReLU(),
            nn.Linear(12, 12),
            nn.ReLU(),
            nn.Linear(12, 3),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork().to(device)
print(model)
init = np.random.default_rng(1)
with torch.no_grad():
    for param in model.parameters():
        param.copy_(torch.tensor(init.uniform(-0.4, 0.4, tuple(param.shape)).astype(np.float32)))
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | requires_grad: {param.requires_grad}")

X = torch.tensor(features[:3]).to(device)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
print(torch.allclose(pred_probab.sum(dim=1), torch.ones(3)))  # (1 within float32 rounding)

learning_rate = 1e-1
batch_size = 16
epochs = 3
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 2 == 0:
            loss, current = loss.item(), batch * batch_size + len(X)
            print(f"loss: {loss:>7.4f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8.4f} \n")


for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")

buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
buffer.seek(0)
model2 = NeuralNetwork()
model2.load_state_dict(torch.load(buffer, weights_only=True))
model2.eval()
print(torch.allclose(model2(X), model(X)))
