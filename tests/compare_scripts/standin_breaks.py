"""Standin breaks the graph where Dynamo traces through: str.partition() and complex() of constants.

Dynamo folds both at trace time; Standin does not yet, so it breaks (resuming after
the call) where Dynamo makes one graph. If Standin learns both, pick another
construct Standin does not trace (tests/tracer/test_compare.py says which row).
"""
import torch


@torch.compile(backend="eager")
def f(x):
    y = x.sin()
    head, _, tail = "scale,2".partition(",")
    z = complex(1, 2).imag
    return y * int(tail) + z


print(f(torch.ones(3)))
