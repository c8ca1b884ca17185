"""A script whose process dies (SIGSEGV) under one engine only: the comparison reports it, not fatal."""
import os
import signal

import torch


@torch.compile(backend="eager")
def f(x):
    return x * 3


print(f(torch.ones(2)))
if not type(f).__module__.startswith("tracer"):
    os.kill(os.getpid(), signal.SIGSEGV)
