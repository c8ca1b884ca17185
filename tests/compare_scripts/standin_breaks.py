"""Standin breaks the graph where Dynamo traces through: struct.pack() of constants.

Dynamo folds it at trace time; Standin does not yet, so it breaks (resuming after
the call) where Dynamo makes one graph. If Standin learns it, pick another
construct Standin does not trace (tests/tracer/test_compare.py says which row).
"""
import struct

import torch


@torch.compile(backend="eager")
def f(x):
    y = x.sin()
    size = len(struct.pack("<i", 7))
    return y * size + 1


print(f(torch.ones(3)))
