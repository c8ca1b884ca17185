"""Run a user's unmodified script with `torch.compile` routed to `tracer.compile`."""
from __future__ import annotations

import os
import runpy
import sys
from contextlib import contextmanager

import torch

from .eval_frame import CompiledFunction, compile as tracer_compile
from .exc import UserError


@contextmanager
def routed_torch_compile(collected: list[CompiledFunction], on_compiled=None):
    """While active, torch.compile(fn, ...) returns a tracer CompiledFunction with the script's own
    fullgraph= and dynamic= (None, torch's default, is automatic dynamic)."""
    original = torch.compile

    def standin_compile(model=None, *, fullgraph=False, dynamic=None, backend="eager", mode=None,
                        options=None, disable=False, **unused):
        def wrap(fn):
            if disable:
                return fn
            chosen = backend if (backend == "eager" or callable(backend)) else "eager"
            compiled = tracer_compile(fn, backend=chosen, fullgraph=fullgraph, dynamic=dynamic)
            collected.append(compiled)
            if on_compiled is not None:
                on_compiled(compiled)
            return compiled
        return wrap if model is None else wrap(model)

    torch.compile = standin_compile
    try:
        yield
    finally:
        torch.compile = original


def run_script(path: str, argv: list[str] | None = None, on_compiled=None) -> tuple[dict, list[CompiledFunction]]:
    """Execute `path` as __main__; return its globals and every function it compiled."""
    if not os.path.isfile(path):
        raise UserError(f"no such script: {path}")
    collected: list[CompiledFunction] = []
    old_argv, old_path = sys.argv, list(sys.path)
    sys.argv = [path] + list(argv or [])
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        with routed_torch_compile(collected, on_compiled):
            module_globals = runpy.run_path(path, run_name="__main__")
    finally:
        sys.argv, sys.path[:] = old_argv, old_path
    return module_globals, collected
