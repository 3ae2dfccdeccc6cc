"""A zoo of small models for ``minigrad doctor``: healthy ones of the usual architectures, and
buggy ones with the classic mistakes (each bug's line is marked ``# BUG``).

Every factory takes the library (``torch``, or ``minigrad`` for the twins) and returns what a
``file.py:factory`` target returns: ``(model, input)``, ``(model, input, target, loss_fn)`` or
``(model, step)``. ``TWINS`` lists the factories that also build with minigrad (minigrad has no
BatchNorm, LayerNorm, RNNs, Embedding or transposed convolutions: the others are torch-only).
Shapes are tiny so the whole zoo runs in seconds.
"""

import numpy as np


def _seed(lib, seed=0):
    lib.manual_seed(seed)
    return np.random.default_rng(seed)


def _x(lib, *shape, seed=0):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def _tokens(lib, vocab, *shape):
    return lib.tensor(np.random.default_rng(0).integers(0, vocab, shape).astype(np.int64))


# ================================================================================ healthy
def mlp(lib):
    _seed(lib)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(),
                          nn.Linear(16, 3))
    return model, _x(lib, 8, 6)


def mlp_cross_entropy(lib):
    """A real loss from the factory: (model, input, target, loss_fn)."""
    model, x = mlp(lib)
    y = lib.tensor(np.arange(8, dtype=np.int64) % 3)
    return model, x, y, lib.nn.CrossEntropyLoss()


def cnn(lib):
    _seed(lib)
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                          nn.Linear(8 * 4 * 4, 5))
    return model, _x(lib, 2, 1, 8, 8)


def residual_cnn(lib):
    """Residual blocks without normalisation (a twin)."""
    _seed(lib)
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv1 = nn.Conv2d(c, c, 3, padding=1)
            self.conv2 = nn.Conv2d(c, c, 3, padding=1)
            self.act = nn.ReLU()

        def forward(self, x):
            return self.act(x + self.conv2(self.act(self.conv1(x))))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 4, 3, padding=1)
            self.blocks = nn.Sequential(Block(4), Block(4))
            self.head = nn.Linear(4, 3)

        def forward(self, x):
            h = self.blocks(self.stem(x))
            return self.head(lib.nn.functional.adaptive_avg_pool2d(h, 1).flatten(1))

    return Net(), _x(lib, 2, 3, 8, 8)


def resnet_bn(lib):
    """ResNet basic blocks with BatchNorm (torch only)."""
    _seed(lib)
    nn = lib.nn

    class Basic(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout)) if stride != 1 or cin != cout \
                else nn.Identity()

        def forward(self, x):
            h = lib.relu(self.bn1(self.conv1(x)))
            return lib.relu(self.bn2(self.conv2(h)) + self.down(x))

    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8),
                          nn.ReLU(), Basic(8, 8, 1), Basic(8, 16, 2), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(16, 4))
    return model, _x(lib, 4, 3, 8, 8)


def mobilenet_like(lib):
    """MobileNetV3-small-like: depthwise convs, squeeze-excite, Hardswish, and convolutions
    *with* biases right before training-mode BatchNorm (their gradient is ~0 by
    construction, not vanishing). Torch only."""
    _seed(lib)
    nn = lib.nn

    class SE(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.fc1 = nn.Conv2d(c, c // 2, 1)
            self.fc2 = nn.Conv2d(c // 2, c, 1)

        def forward(self, x):
            s = lib.nn.functional.adaptive_avg_pool2d(x, 1)
            return x * lib.nn.functional.hardsigmoid(self.fc2(lib.relu(self.fc1(s))))

    def inverted(cin, cexp, cout):
        return nn.Sequential(
            nn.Conv2d(cin, cexp, 1), nn.BatchNorm2d(cexp), nn.Hardswish(),
            nn.Conv2d(cexp, cexp, 3, padding=1, groups=cexp), nn.BatchNorm2d(cexp),
            nn.Hardswish(), SE(cexp), nn.Conv2d(cexp, cout, 1), nn.BatchNorm2d(cout))

    model = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.Hardswish(),
                          inverted(8, 16, 8), inverted(8, 24, 12), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(12, 16), nn.Hardswish(), nn.Linear(16, 5))
    return model, _x(lib, 4, 3, 16, 16)


def unet(lib):
    """A two-level U-Net: conv-BN-ReLU, max-pool, transposed conv, skip concatenation."""
    _seed(lib)
    nn = lib.nn

    def double(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout),
                             nn.ReLU(), nn.Conv2d(cout, cout, 3, padding=1),
                             nn.BatchNorm2d(cout), nn.ReLU())

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.down1, self.down2 = double(1, 4), double(4, 8)
            self.pool = nn.MaxPool2d(2)
            self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
            self.dec = double(8, 4)
            self.out = nn.Conv2d(4, 2, 1)

        def forward(self, x):
            d1 = self.down1(x)
            d2 = self.down2(self.pool(d1))
            return self.out(self.dec(lib.cat([self.up(d2), d1], 1)))

    return UNet(), _x(lib, 2, 1, 8, 8)


def lstm_classifier(lib):
    """Embedding, a 2-layer LSTM (tuple output with a nested (h, c)), a linear head."""
    _seed(lib)
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(20, 8)
            self.lstm = nn.LSTM(8, 12, num_layers=2, batch_first=True)
            self.head = nn.Linear(12, 3)

        def forward(self, tokens):
            out, (h, c) = self.lstm(self.embed(tokens))
            return self.head(h[-1])

    return Net(), _tokens(lib, 20, 4, 7)


def gru_tagger(lib):
    """A bidirectional GRU tagging every token."""
    _seed(lib)
    nn = lib.nn

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(20, 8)
            self.gru = nn.GRU(8, 6, batch_first=True, bidirectional=True)
            self.tags = nn.Linear(12, 4)

        def forward(self, tokens):
            return self.tags(self.gru(self.embed(tokens))[0])

    return Tagger(), _tokens(lib, 20, 3, 5)


def tiny_gpt(lib):
    """A one-block GPT: token + position embeddings, LayerNorm, causal self-attention, GELU
    MLP, the output layer tied to the token embedding."""
    _seed(lib)
    nn = lib.nn
    F = lib.nn.functional

    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
            t = x.shape[1]
            att = q @ k.transpose(1, 2) / q.shape[-1] ** 0.5
            mask = lib.ones(t, t).tril() == 0
            att = F.softmax(att.masked_fill(mask, float("-inf")), dim=-1)
            x = x + self.proj(att @ v)
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self, vocab=24, d=16, t=8):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(t, d)
            self.block, self.ln = Block(d), nn.LayerNorm(d)
            self.lm_head = nn.Linear(d, vocab, bias=False)
            self.lm_head.weight = self.tok.weight  # weight tying

        def forward(self, idx):
            x = self.tok(idx) + self.pos(lib.arange(idx.shape[1]))
            return self.lm_head(self.ln(self.block(x)))

    return GPT(), _tokens(lib, 24, 2, 8)


def autoencoder(lib):
    _seed(lib)
    nn = lib.nn

    class AE(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(12, 6), nn.ReLU(), nn.Linear(6, 3))
            self.decoder = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 12),
                                         nn.Sigmoid())

        def forward(self, x):
            return self.decoder(self.encoder(x))

    x = _x(lib, 8, 12)
    return AE(), x, lib.sigmoid(x), lib.nn.MSELoss()


def gan_generator(lib):
    """DCGAN-style generator: transposed convolutions, BatchNorm, Tanh output."""
    _seed(lib)
    nn = lib.nn
    model = nn.Sequential(
        nn.ConvTranspose2d(8, 16, 4, 1, 0, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        nn.ConvTranspose2d(16, 8, 4, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
        nn.ConvTranspose2d(8, 1, 4, 2, 1, bias=False), nn.Tanh())
    return model, _x(lib, 4, 8, 1, 1)


def dict_output(lib):
    """``forward`` returns a dict (a full backward hook never fires for one)."""
    _seed(lib)
    nn = lib.nn

    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(6, 10), nn.ReLU())
            self.cls = nn.Linear(10, 3)
            self.box = nn.Linear(10, 4)

        def forward(self, x):
            h = self.body(x)
            return {"logits": self.cls(h), "boxes": self.box(h)}

    return TwoHeads(), _x(lib, 5, 6)


def tuple_output(lib):
    _seed(lib)
    nn = lib.nn

    class Split(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(6, 8)
            self.a, self.b = nn.Linear(8, 2), nn.Linear(8, 3)

        def forward(self, x):
            h = lib.tanh(self.body(x))
            return self.a(h), [self.b(h)]

    return Split(), _x(lib, 5, 6)


def weight_tying(lib):
    """One layer used twice, and a parameter shared by two modules."""
    _seed(lib)
    nn = lib.nn

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.shared = nn.Linear(8, 8)
            self.enc = nn.Linear(6, 8, bias=False)
            self.dec = nn.Linear(8, 6, bias=False)
            self.dec.weight = nn.Parameter(self.enc.weight.detach().clone())
            self.enc.weight = self.dec.weight  # now literally the same Parameter, (8, 6)

        def forward(self, x):
            h = self.shared(lib.relu(self.shared(lib.relu(x @ self.enc.weight.t()))))
            return h @ self.enc.weight

    return Tied(), _x(lib, 4, 6)


def buffers_and_scalar(lib):
    """A registered buffer (running scale) and a 0-dim learnable temperature."""
    _seed(lib)
    nn = lib.nn

    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 4)
            self.register_buffer("mean", lib.zeros(6))
            self.temperature = nn.Parameter(lib.tensor(2.0))

        def forward(self, x):
            return self.fc(x - self.mean) / self.temperature

    return Scaled(), _x(lib, 5, 6)


def frozen_backbone(lib):
    """Transfer learning: a frozen pretrained body (requires_grad_(False)), a new head."""
    _seed(lib)
    nn = lib.nn
    backbone = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten())
    backbone.requires_grad_(False)
    return nn.Sequential(backbone, nn.Linear(4 * 6 * 6, 3)), _x(lib, 2, 1, 8, 8)


def frozen_embedding(lib):
    """Pretrained word vectors, frozen (Embedding.from_pretrained(freeze=True))."""
    _seed(lib)
    nn = lib.nn

    class Bag(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding.from_pretrained(lib.randn(30, 8), freeze=True)
            self.head = nn.Linear(8, 2)

        def forward(self, tokens):
            return self.head(self.embed(tokens).mean(1))

    return Bag(), _tokens(lib, 30, 4, 6)


def squeeze_excite(lib):
    """Conv + squeeze-and-excitation gating with a sigmoid (a twin)."""
    _seed(lib)
    nn = lib.nn
    F = lib.nn.functional

    class SENet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.squeeze = nn.Linear(8, 2)
            self.excite = nn.Linear(2, 8)
            self.head = nn.Linear(8, 4)

        def forward(self, x):
            h = F.relu(self.conv(x))
            s = F.adaptive_avg_pool2d(h, 1).flatten(1)
            gate = lib.sigmoid(self.excite(F.relu(self.squeeze(s))))
            h = h * gate.reshape(gate.shape[0], 8, 1, 1)
            return self.head(F.adaptive_avg_pool2d(h, 1).flatten(1))

    return SENet(), _x(lib, 2, 3, 6, 6)


def self_attention(lib):
    """Single-head self-attention with a residual and a classifier (a twin)."""
    _seed(lib)
    nn = lib.nn

    class Attn(nn.Module):
        def __init__(self, d=8):
            super().__init__()
            self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
            self.out = nn.Linear(d, 3)

        def forward(self, x):
            att = lib.softmax(self.q(x) @ self.k(x).transpose(1, 2) / 8 ** 0.5, -1)
            return self.out((x + att @ self.v(x)).mean(1))

    return Attn(), _x(lib, 2, 5, 8)


def step_callable(lib):
    """The factory gives ``step(model) -> loss`` instead of an input."""
    model, x, y, loss_fn = mlp_cross_entropy(lib)
    return model, lambda m: loss_fn(m(x), y)


# ================================================================================ buggy
def seq_in_forward(lib):
    _seed(lib)
    nn = lib.nn

    class Stuck(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            body = nn.Sequential(nn.Linear(6, 8), nn.ReLU())  # BUG
            return self.head(body(x))

    return Stuck(), _x(lib, 4, 6)


def recreated_submodule(lib):
    _seed(lib)
    nn = lib.nn

    class Fresh(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            self.body = nn.Linear(6, 8)  # BUG
            return self.head(lib.relu(self.body(x)))

    return Fresh(), _x(lib, 4, 6)


def plain_list(lib):
    _seed(lib)
    nn = lib.nn

    class Listed(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Linear(6, 6), nn.Linear(6, 6)]  # BUG
            self.head = nn.Linear(6, 2)

        def forward(self, x):
            for layer in self.layers:
                x = lib.relu(layer(x))
            return self.head(x)

    return Listed(), _x(lib, 4, 6)


def plain_dict(lib):
    _seed(lib)
    nn = lib.nn

    class Dicted(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = {"a": nn.Linear(6, 2), "b": nn.Linear(6, 2)}  # BUG

        def forward(self, x):
            return self.heads["a"](x) + self.heads["b"](x)

    return Dicted(), _x(lib, 4, 6)


def plain_tensor(lib):
    _seed(lib)
    nn = lib.nn

    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 3)
            self.scale = lib.ones(3, requires_grad=True)  # BUG

        def forward(self, x):
            return self.fc(x) * self.scale

    return Scaled(), _x(lib, 4, 6)


def detached(lib):
    _seed(lib)
    nn = lib.nn

    class Detached(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            h = self.body(x).detach()  # BUG
            return self.head(h)

    return Detached(), _x(lib, 4, 6)


def no_grad_in_forward(lib):
    _seed(lib)
    nn = lib.nn

    class Frozen(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            with lib.no_grad():  # BUG
                h = self.body(x)
            return self.head(h)

    return Frozen(), _x(lib, 4, 6)


def numpy_round_trip(lib):
    _seed(lib)
    nn = lib.nn

    class Rounded(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(6, 8)
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            h = self.body(x).detach().numpy()  # BUG
            h = lib.tensor(np.maximum(h, 0))
            return self.head(h)

    return Rounded(), _x(lib, 4, 6)


def unused_module(lib):
    _seed(lib)
    nn = lib.nn

    class Forgot(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(6, 8)
            self.fc2 = nn.Linear(8, 8)  # BUG: defined, never called
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            return self.head(lib.relu(self.fc1(x)))

    return Forgot(), _x(lib, 4, 6)


def dead_relu(lib):
    _seed(lib)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    with lib.no_grad():
        model[0].bias.fill_(-50.0)  # BUG: every pre-activation negative
    return model, _x(lib, 4, 6)


def _nan_model(lib, fn_name):
    _seed(lib)
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 8)
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            h = self.fc(x)
            if fn_name == "log":
                z = lib.log(lib.relu(h))  # BUG: log(0) = -inf
            elif fn_name == "sqrt":
                z = lib.sqrt(h)  # BUG: sqrt of negative numbers
            elif fn_name == "div":
                z = h / (h - h)  # BUG: division by zero
            else:
                z = lib.exp(h * 200)  # BUG: exp overflows
            return self.head(z)

    return Net(), _x(lib, 4, 6)


def log_of_relu(lib):
    return _nan_model(lib, "log")


def sqrt_of_negative(lib):
    return _nan_model(lib, "sqrt")


def division_by_zero(lib):
    return _nan_model(lib, "div")


def exp_overflow(lib):
    return _nan_model(lib, "exp")


def exploding(lib):
    """Ten layers with weights 5x too large: the gradient grows layer by layer."""
    _seed(lib)
    nn = lib.nn
    layers = [nn.Linear(8, 8) for _ in range(10)]
    with lib.no_grad():
        for layer in layers:
            layer.weight.mul_(8.0)  # BUG
    return nn.Sequential(*layers), _x(lib, 4, 8)


def vanishing_sigmoids(lib):
    """Twelve sigmoid layers with tiny weights: the first layers get almost nothing."""
    _seed(lib)
    nn = lib.nn
    layers = []
    for _ in range(12):
        layers += [nn.Linear(8, 8), nn.Sigmoid()]
    model = nn.Sequential(*layers, nn.Linear(8, 2))
    with lib.no_grad():
        for p in model.parameters():
            p.mul_(0.05)  # BUG
    return model, _x(lib, 4, 8)


def inplace_after_sigmoid(lib):
    _seed(lib)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(6, 8), nn.Sigmoid(), nn.ReLU(inplace=True),  # BUG
                          nn.Linear(8, 3))
    return model, _x(lib, 4, 6)


def nan_in_loss(lib):
    """The bug is in the user's loss (only visible with a real loss)."""
    model, x = mlp(lib)

    def loss_fn(out, target):
        return lib.log(out - target).mean()  # BUG: log of negative differences

    return model, x, lib.zeros(8, 3), loss_fn


HEALTHY = [mlp, mlp_cross_entropy, cnn, residual_cnn, resnet_bn, mobilenet_like, unet,
           lstm_classifier, gru_tagger, tiny_gpt, autoencoder, gan_generator, dict_output,
           tuple_output, weight_tying, buffers_and_scalar, frozen_backbone, frozen_embedding,
           squeeze_excite, self_attention, step_callable]

# factory -> what the report must say (the mechanism); "# BUG" lines must be named too where
# the finding has a location
BUGGY = {
    seq_in_forward: "is created inside forward() on every call",
    recreated_submodule: "is assigned inside forward()",
    plain_list: "kept in a plain Python list",
    plain_dict: "kept in a plain Python dict",
    plain_tensor: "is not a registered parameter",
    detached: "the graph is cut by .detach()",
    no_grad_in_forward: "the graph is cut by an op under no_grad",
    numpy_round_trip: "the graph is cut by a NumPy round trip",
    unused_module: "is defined but never called in forward()",
    dead_relu: "dead ReLUs",
    log_of_relu: "first made by LogBackward0",
    sqrt_of_negative: "first made by SqrtBackward0",
    division_by_zero: "first made by DivBackward0",
    exp_overflow: "first made by ExpBackward0",
    exploding: "exploding gradient",
    vanishing_sigmoids: "vanishing gradient: weights' gradients below 1e-7 of the weights",
    inplace_after_sigmoid: "in-place error: a tensor saved by SigmoidBackward0 was modified in "
                           "place by relu in '2'",
    nan_in_loss: "first made by LogBackward0",
}

TWINS = {mlp, mlp_cross_entropy, cnn, residual_cnn, autoencoder, dict_output, tuple_output,
         weight_tying, buffers_and_scalar, frozen_backbone, squeeze_excite, self_attention,
         step_callable, *BUGGY}
