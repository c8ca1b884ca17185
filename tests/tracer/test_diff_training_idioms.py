"""Training-loop idioms: a parameter's .grad read or cleared in the graph, buffers updated in forward.

`p.grad` of a graph input is an input of its own (or None), guarded like any value
read; `p.grad = None` (zero_grad) and `self.count += 1` / `self.avg = ...` on
registered buffers are replayed after the graph.  Both broke the graph before (the SGD loop below ran
eagerly as a whole: a break inside a loop skips the frame).
"""
import torch
import torch.nn as nn

from differential import T, call, case, module_case, mutate_with, parametrize

CASES: list = []

NET = nn.Linear(3, 2)


def _grads(value):
    def set_grads(g):
        for p in g["NET"].parameters():
            p.grad = torch.full_like(p, value)
    return mutate_with(set_grads, f"every NET parameter's grad = {value}")


@case(CASES, call(T(3), mutate=_grads(1.0)), call(T(3)), call(T(3), mutate=_grads(2.0)), compiles="C..")
def grads_read_through_parameters(x):
    total = x.sum()
    for p in NET.parameters():
        total = total + (p.grad * 2).sum()
    return total


def _no_grad_on_weight(g):
    g["NET"].weight.grad = None


@case(CASES, call(T(3), mutate=_grads(1.0)), call(T(3), mutate=mutate_with(_no_grad_on_weight, "NET.weight.grad = None")),
      compiles="CC")
def a_missing_grad_is_none(x):
    g = NET.weight.grad
    return x * 2 if g is None else x + g.sum()


def _grads_state():
    return [None if p.grad is None else p.grad.tolist() for p in NET.parameters()]


@case(CASES, call(T(3), mutate=_grads(1.0)), call(T(3), mutate=_grads(1.0)), compiles="C.", state=_grads_state)
def zero_grad_then_forward(x):
    NET.zero_grad()
    return NET(x)


@case(CASES, call(T(3), mutate=_grads(1.0)), call(T(3), mutate=_grads(2.0)), compiles="C.", state=_grads_state)
def grads_set_to_none_by_hand(x):
    for p in NET.parameters():
        p.grad = None
    return x * 2


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def module_attribute_defaults(x):
    return x + hasattr(NET, "nothing_here") + getattr(NET, "scale", 3)


class RunningStats(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(1))
        self.register_buffer("avg", torch.zeros(4))

    def forward(self, x):
        self.count += 1
        self.avg = self.avg * 0.9 + x.mean(0) * 0.1
        return x * self.count + self.avg


STATS = RunningStats()
module_case(CASES, "buffers_updated_in_forward", STATS, call(T(2, 4)), call(T(2, 4)), compiles="C.",
            state=lambda: (STATS.count.tolist(), STATS.avg.tolist()))

test_training_idioms = parametrize(CASES)
