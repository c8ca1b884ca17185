"""The benchmark workloads: each a function (or module) and the arguments of one call.

A workload is built fresh by `make()`, so that tracer and Dynamo never share a
function object or a module instance (their caches hang off those objects).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

torch.manual_seed(0)


class Config:
    scale = 2.0


cfg = Config()


@dataclass
class Workload:
    name: str
    make: Callable[[], tuple[Callable, tuple]]  # -> (fn or module, args)
    quiet: bool = False  # prints: stdout goes to devnull while timing


# ---- 1. a global config -------------------------------------------------------------------
def make_global_config():
    def global_config(x, n):
        return x * cfg.scale + n
    return global_config, (torch.randn(8), 3)


# ---- 2. a 3-layer MLP ---------------------------------------------------------------------
class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 32)
        self.fc3 = torch.nn.Linear(32, 4)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return self.fc3(x)


def make_mlp():
    return MLP(), (torch.randn(2, 16),)


# ---- 3. a 10-step Python loop -------------------------------------------------------------
def make_loop():
    def loop10(x):
        for i in range(10):
            x = torch.sin(x) * 0.5 + i
        return x
    return loop10, (torch.randn(8),)


# ---- 4. three levels of inlined helpers -----------------------------------------------------
def _leaf(x, k):
    return x * k + 1


def _middle(x):
    return {"a": _leaf(x, 2), "b": _leaf(x, 3)}


def _outer(x):
    d = _middle(x)
    return [d["a"], d["b"], d["a"] - d["b"]]


def make_inline():
    def inline3(x):
        parts = _outer(x)
        return {"sum": parts[0] + parts[1], "items": parts}
    return inline3, (torch.randn(8),)


# ---- 5. a graph break -----------------------------------------------------------------------
def make_graph_break():
    def graph_break(x):
        y = x.sin() + 1
        print("graph break")
        return y.cos() * 2
    return graph_break, (torch.randn(8),)


# ---- 6. N Linear+ReLU layers ------------------------------------------------------------------
class Deep(torch.nn.Module):
    """A user module (not nn.Sequential, whose forward Dynamo wraps in a frame of its own)."""

    def __init__(self, n: int):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(n))
        self.act = torch.nn.ReLU()

    def forward(self, x):
        for layer in self.layers:
            x = self.act(layer(x))
        return x


def make_deep(n: int):
    def make():
        return Deep(n), (torch.randn(2, 8),)
    return make


# ---- 7. a long trace: 2,000 iterations of constant arithmetic and a few tensor ops ------------
def make_long_trace():
    def long_trace(x):
        acc = 0
        for i in range(2000):
            acc = (acc + i * 3) % 1009
            if i % 500 == 0:
                x = x + acc
        return x * acc
    return long_trace, (torch.randn(8),)


WORKLOADS = [
    Workload("global_config", make_global_config),
    Workload("mlp3", make_mlp),
    Workload("loop10", make_loop),
    Workload("inline3_dict_list", make_inline),
    Workload("graph_break", make_graph_break, quiet=True),
    Workload("linear_relu_50", make_deep(50)),
    Workload("long_trace_2000", make_long_trace),
]
QUICK = ["global_config", "mlp3"]
DEPTHS = [1, 10, 25, 50]  # compile-time growth with the number of layers
