"""A pytest plugin for mutation runs (`-p mutation.warm`): one compile at start-up.

mutmut's fork server imports the tests once and forks a child per mutant; a child's first compile
would still import what tracing needs lazily (FakeTensorMode, ShapeEnv, Dynamo for the
differential cases), seconds each time. Compiling once here, before the fork, makes every
mutant's tests start warm. No mutant is active yet: this runs the engine as it is.
"""
from __future__ import annotations


def _warm(x):
    y = x.sin() + 1
    print(end="")  # a graph break: a resume function is compiled too
    return y * x.shape[0]


_warmed = False  # pytest configures again in each mutant's child: warm once, in the fork server


def pytest_configure(config) -> None:
    global _warmed
    if _warmed:
        return
    _warmed = True
    import torch
    import torch._dynamo

    import tracer

    for dynamic in (False, True):
        tracer.compile(_warm, dynamic=dynamic)(torch.ones(3))
        torch.compile(_warm, backend="eager", dynamic=dynamic)(torch.ones(3))
    tracer.reset()
    torch._dynamo.reset()
