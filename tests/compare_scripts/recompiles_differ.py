"""The engines recompile differently: a list's bound method waiting on the stack at a graph break.

Dynamo guards the bound method `LOG.append` itself, a new object on every call, so it
recompiles the resume function each time (its reason: the cache line was invalidated);
Standin models the method by its list and name and reuses the resume function
(a documented difference, README "Where Standin differs from Dynamo").
"""
import torch

LOG = []


@torch.compile(backend="eager")
def f(x):
    y = x * 2
    LOG.append(y.sum().item())
    return y + 1


for _ in range(3):
    f(torch.ones(3))
    print(LOG)
    LOG.clear()
