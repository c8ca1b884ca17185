"""Differential cases: nn.Modules -- compiling a module (torch.compile(net) vs
tracer.compile(net)), calling modules from a function, containers (Sequential,
ModuleList, ModuleDict), module attributes that change between calls, torch layers
in eval mode, and buffers updated in place."""
import torch
import torch.nn as nn

from differential import T, call, case, module_case, mutate_with, parametrize, set_attr

CASES: list = []


def _init(m: nn.Module) -> nn.Module:
    """Deterministic parameters (the harness restores them before every run)."""
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape))
    return m


class MLP(nn.Module):
    def __init__(self, d_in=4, d_hidden=8, d_out=3):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


MLP_NET = _init(MLP())
module_case(CASES, "mlp_three_layers", MLP_NET, call(T(2, 4)), call(T(2, 4)), call(T(5, 4)),
            compiles="C.C", same_placeholders=True)

SEQ = _init(nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 2)))
module_case(CASES, "sequential_mlp", SEQ, call(T(3, 4)), call(T(3, 4)), compiles="C.",
            same_placeholders=True)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        return self.proj(self.norm(x))


class Config:
    def __init__(self):
        self.residual = True
        self.scale = 0.5


class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.blocks = nn.ModuleList([Block(4) for _ in range(3)])
        self.head = nn.Linear(4, 2)
        self.use_head = True

    def forward(self, x):
        for blk in self.blocks:
            y = blk(x) * self.cfg.scale
            x = x + y if self.cfg.residual else y
        if self.use_head:
            return self.head(x)
        return x


NET_CFG = Config()
NET = _init(Net(NET_CFG))
module_case(CASES, "custom_module_submodules_and_config", NET, call(T(2, 4)), call(T(2, 4)),
            call(T(2, 4), mutate=set_attr("NET_CFG.residual", False)), call(T(2, 4)),
            call(T(2, 4), mutate=set_attr("NET.use_head", False)), compiles="C.C.C",
            same_placeholders=True)


class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.gate = 1.0

    def forward(self, x):
        y = self.fc(x)
        if self.training:
            y = y * 0.5
        return y * self.gate


GATED = _init(Gated())
module_case(CASES, "training_flag_and_attribute_change", GATED, call(T(2, 3)), call(T(2, 3)),
            call(T(2, 3), mutate=mutate_with(lambda g: g["GATED"].eval(), "GATED.eval()")),
            call(T(2, 3)), call(T(2, 3), mutate=set_attr("GATED.gate", 2.0)),
            call(T(2, 3), mutate=mutate_with(lambda g: g["GATED"].train(), "GATED.train()")),
            compiles="C.C.CC")


class Towers(nn.Module):
    def __init__(self):
        super().__init__()
        self.towers = nn.ModuleDict({"a": nn.Linear(3, 2), "b": nn.Linear(3, 2), "c": nn.Linear(3, 2)})
        self.layers = nn.ModuleList([nn.Linear(3, 3), nn.Linear(3, 3)])

    def forward(self, x):
        x = self.layers[0](x) + self.layers[-1](x)
        outs = {}
        for name, tower in self.towers.items():
            outs[name] = tower(x)
        return outs, self.towers["b"](x) * len(self.layers), "c" in self.towers


TOWERS = _init(Towers())
module_case(CASES, "moduledict_and_modulelist_indexing", TOWERS, call(T(2, 3)), call(T(2, 3)),
            compiles="C.", same_placeholders=True)


class Vision(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.drop = nn.Dropout(0.5)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        x = self.drop(torch.relu(self.bn(self.conv(x))))
        return self.fc(self.pool(x).flatten(1))


VISION = _init(Vision()).eval()
with torch.no_grad():
    VISION.bn.running_mean.copy_(T(4))
    VISION.bn.running_var.copy_(T(4).abs() + 0.5)
module_case(CASES, "conv_batchnorm_dropout_eval", VISION, call(T(2, 2, 5, 5)), call(T(2, 2, 5, 5)),
            compiles="C.", same_placeholders=True)


BN_TRAIN = _init(nn.BatchNorm1d(3))
module_case(CASES, "batchnorm_train_updates_running_stats", BN_TRAIN, call(T(4, 3)), call(T(4, 3)),
            compiles="C.",
            state=lambda: (BN_TRAIN.running_mean, BN_TRAIN.running_var, BN_TRAIN.num_batches_tracked))


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.register_buffer("calls", torch.zeros(()))
        self.register_buffer("ema", torch.zeros(3))

    def forward(self, x):
        self.calls.add_(1)
        self.ema.mul_(0.9).add_(x.mean(0) * 0.1)
        return self.lin(x) + self.ema


COUNTER = _init(Counter())
module_case(CASES, "buffer_updated_in_place", COUNTER, call(T(2, 3)), call(T(2, 3)), call(T(2, 3)),
            compiles="C..", state=lambda: (COUNTER.calls, COUNTER.ema))


class Affine(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(T(3, 3))
        self.bias = nn.Parameter(T(3))
        self.scale = 2

    def forward(self, x):
        return (x @ self.weight + self.bias) * self.scale


AFFINE = Affine()
module_case(CASES, "raw_parameters", AFFINE, call(T(2, 3)), call(T(2, 3)),
            call(T(2, 3), mutate=set_attr("AFFINE.scale", 3)), compiles="C.C", same_placeholders=True)


# ---- modules called from a function ----------------------------------------------------


@case(CASES, call(T(2, 4)), call(T(2, 4)), compiles="C.", same_placeholders=True)
def function_calls_global_module(x):
    return MLP_NET(x).softmax(-1), SEQ(x).sum()


@case(CASES, call(MLP_NET, T(2, 4)), call(MLP_NET, T(2, 4)), call(SEQ, T(2, 4)), compiles="C.C")
def module_as_argument(m, x):
    return m(x) * 2


@case(CASES, call(T(2, 4)), call(T(2, 4)), compiles="C.")
def sequential_slicing(x):
    first_two = SEQ[:2]
    return first_two(x), SEQ[-1](SEQ[2](first_two(x))), len(SEQ)


@case(CASES, call(T(2, 4)), call(T(2, 4)), compiles="C.")
def sequential_indexing(x):
    h = SEQ[1](SEQ[0](x))
    return SEQ[-1](SEQ[3](SEQ[2](h))), len(SEQ), SEQ[0].out_features


@case(CASES, call(T(2, 4)), call(T(2, 4)),
      call(T(2, 4), mutate=mutate_with(lambda g: setattr(g["MLP_NET"], "act", nn.Tanh()),
                                       "MLP_NET.act = nn.Tanh()")), compiles="C.C")
def submodule_swapped(x):
    return MLP_NET(x)


@case(CASES, call(T(2, 4)), call(T(2, 4)), compiles="C.")
def iterate_parameters(x):
    total = x.sum()
    for name, p in MLP_NET.named_parameters():
        total = total + p.sum() if name.endswith("weight") else total - p.mean()
    return total


LN = _init(nn.LayerNorm(4))


@case(CASES, call(T(2, 4)), call(T(2, 4)), compiles="C.")
def layernorm_and_functional(x):
    return torch.nn.functional.gelu(LN(x)), LN.weight.shape, LN.eps


test_modules = parametrize(CASES)
