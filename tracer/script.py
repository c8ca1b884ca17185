"""Run a user's unmodified script with `torch.compile` routed to `tracer.compile`.

Also what every runner of a user's script shares (Standin's sessions, the real-
Dynamo side of `standin compare`): the script runs as `__main__` with its own
argv and its folder on sys.path, and its exits are caught so that what ran is
kept.  `sys.exit(3)` ends the script with status 3.  `os._exit(3)` would end
the whole process on the spot, losing every report; while a script runs here it
ends the script instead (with status 3, like sys.exit: its `finally` blocks
run, which the real os._exit would skip).
"""
from __future__ import annotations

import os
import runpy
import sys
import threading
import traceback
from contextlib import contextmanager

import torch

from .eval_frame import CompiledFunction, compile as tracer_compile
from .exc import ScriptExit, UserError


@contextmanager
def routed_torch_compile(collected: list[CompiledFunction], on_compiled=None, present=None):
    """While active, torch.compile(fn, ...) returns a tracer CompiledFunction with the script's own
    fullgraph= and dynamic= (None, torch's default, is automatic dynamic).

    `present(compiled, fn)`, when given, is what the script receives instead (an observed wrapper).
    """
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
            return compiled if present is None else present(compiled, fn)
        return wrap if model is None else wrap(model)

    torch.compile = standin_compile
    try:
        yield
    finally:
        torch.compile = original


def exit_status(code) -> int:
    """The process status `sys.exit(code)` gives: None is 0, an int itself, anything else 1."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def where_called() -> str:
    """`script.py:12` for the innermost frame of the user's script that called us."""
    for frame in reversed(traceback.extract_stack()[:-2]):
        if os.path.abspath(frame.filename) != os.path.abspath(__file__):
            return f"{os.path.basename(frame.filename)}:{frame.lineno}"
    return "?"


@contextmanager
def exits_caught():
    """While active, os._exit(n) in this thread of this process raises ScriptExit(n) instead.

    Other threads, and forked children (multiprocessing ends them with os._exit), exit for real.
    """
    real_exit = os._exit
    pid, thread = os.getpid(), threading.get_ident()

    def script_exit(status):
        if os.getpid() == pid and threading.get_ident() == thread:
            raise ScriptExit(status, f"os._exit({status}) at {where_called()}")
        real_exit(status)

    os._exit = script_exit
    try:
        yield
    finally:
        os._exit = real_exit


def run_as_main(path: str, argv: list[str] | None = None) -> dict:
    """Execute `path` as __main__ with its argv and folder on sys.path; return its globals.

    Raises ScriptExit for the script's `sys.exit(n)` or `os._exit(n)`, whatever n is.
    """
    if os.path.isdir(path):
        raise UserError(f"{path} is a directory, not a script")
    if not os.path.isfile(path):
        raise UserError(f"no such script: {path}")
    old_argv, old_path, old_cwd = sys.argv, list(sys.path), os.getcwd()
    sys.argv = [path] + list(argv or [])
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        with exits_caught():
            try:
                return runpy.run_path(path, run_name="__main__")
            except SystemExit as exit_:
                if exit_.code is not None and not isinstance(exit_.code, int):
                    print(exit_.code, file=sys.stderr)  # as Python does for sys.exit("message")
                raise ScriptExit(exit_status(exit_.code), f"sys.exit({exit_.code!r})") from None
    finally:
        sys.argv, sys.path[:] = old_argv, old_path
        if os.getcwd() != old_cwd and os.path.isdir(old_cwd):
            os.chdir(old_cwd)  # a script that chdirs does not move its runner


def run_script(path: str, argv: list[str] | None = None, on_compiled=None,
               present=None) -> tuple[dict, list[CompiledFunction]]:
    """Execute `path` as __main__ under Standin; return its globals and every function it compiled."""
    collected: list[CompiledFunction] = []
    with routed_torch_compile(collected, on_compiled, present):
        module_globals = run_as_main(path, argv)
    return module_globals, collected
