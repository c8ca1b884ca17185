"""A pytest plugin for mutation runs (`-p mutation.warm`): one compile at start-up.

mutmut's fork server imports the tests once and forks a child per mutant; a child's first compile
would still import what tracing needs lazily (FakeTensorMode, ShapeEnv, Dynamo for the
differential cases), seconds each time. Compiling once here, before the fork, makes every
mutant's tests start warm. No mutant is active yet: this runs the engine as it is.
"""
from __future__ import annotations


def _skip_mutmut() -> None:
    """mutmut wraps every mutated function in a trampoline of its own package; under the frame hook
    (rewritten code calls the engine's helpers, e.g. the one advancing an outside iterator) the
    engine would trace that trampoline as user code. Skip mutmut's files, as Dynamo skips its own."""
    import os

    import mutmut

    from tracer import skip_rules
    mutmut_dir = os.path.dirname(os.path.abspath(mutmut.__file__)) + os.sep
    file_reason = skip_rules.file_reason

    def or_mutmut(filename: str) -> str | None:
        if os.path.abspath(filename).startswith(mutmut_dir):
            return "mutmut's trampolines, which a mutation run adds"
        return file_reason(filename)
    skip_rules.file_reason = or_mutmut


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
    _skip_mutmut()

    for dynamic in (False, True):
        tracer.compile(_warm, dynamic=dynamic)(torch.ones(3))
        torch.compile(_warm, backend="eager", dynamic=dynamic)(torch.ones(3))
    tracer.reset()
    torch._dynamo.reset()
