"""Which frames the frame hook leaves alone, as Dynamo's do by default.

Under a compiled call every Python frame is offered to Standin.  These are run
as they are, each with the reason, and their code is not offered again:
torch's own Python files, the standard library, Standin's own code, a few
third-party libraries Dynamo also skips, generators and coroutines, frames
that Dynamo never compiles (`__setattr__`, exec'd module code, class bodies), and frames
with nothing torch in them (no tensor or module argument, no torch global).
Skipping a frame does not skip what it calls: each callee is offered in turn.
"""
from __future__ import annotations

import inspect
import os
import sysconfig
import types

import torch

_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_STDLIB = "the standard library"
_THIRD_PARTY = ("hypothesis", "networkx", "numpy", "tqdm", "pandas", "sklearn", "onnx", "onnxruntime",
                "tabulate", "tensorflow", "tensorrt", "tvm", "xarray")


def _package_dir(module) -> str:
    return os.path.dirname(os.path.abspath(module.__file__)) + os.sep


def _skipped_dirs() -> tuple[tuple[str, str], ...]:
    """(directory prefix, what lives there), most specific first."""
    tracer_dir = os.path.dirname(os.path.abspath(__file__)) + os.sep  # the package this module is in
    dirs = [(_package_dir(torch), "torch's own Python code"), (tracer_dir, "Standin's own code")]
    app = os.path.join(os.path.dirname(tracer_dir.rstrip(os.sep)), "app") + os.sep
    dirs.append((app, "Standin's own code"))
    site = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    for root in sorted(site):
        dirs += [(os.path.join(root, name) + os.sep, f"{name}, which Dynamo skips") for name in _THIRD_PARTY]
    dirs.append((_package_dir(os), _STDLIB))
    return tuple(dirs)


_DIRS: tuple | None = None


def _compiled_torch_file(path: str) -> bool:
    """torch.optim's files (but its LR schedulers) are compiled like user code, as Dynamo does,
    so an optimizer's `step()` under a compiled call makes its own graph."""
    optim = _package_dir(torch) + "optim" + os.sep
    return path.startswith(optim) and os.path.basename(path) != "lr_scheduler.py"


def file_reason(filename: str) -> str | None:
    """Why code from this file is never compiled, or None."""
    global _DIRS
    if filename.startswith("<frozen "):
        return "frozen standard-library code"
    if filename.startswith("<"):  # <string>, <stdin>, a notebook cell: user code
        return None
    if _DIRS is None:
        _DIRS = _skipped_dirs()
    path = os.path.abspath(filename)
    if _compiled_torch_file(path):
        return None
    for prefix, what in _DIRS:
        if path.startswith(prefix) and not (what == _STDLIB and "site-packages" in path[len(prefix):]):
            return f"{what} ({prefix})"
    return None


def code_reason(code: types.CodeType) -> str | None:
    """Why frames of this code are never compiled, whatever their values; None if they may be."""
    reason = file_reason(code.co_filename)
    if reason is not None:
        return f"frame is in {reason}"
    if code.co_flags & _GENERATOR_FLAGS:
        return "generators and coroutines are run as they are (Dynamo does not compile them)"
    if code.co_name == "__setattr__":
        return "__setattr__ frames are not compiled"
    if not code.co_flags & inspect.CO_OPTIMIZED:
        # a class body or module code: its names live in a namespace mapping, not in the frame's locals
        return "a class body or module code runs as it is (its names live in a namespace, not in locals)"
    if code.co_name == "<module>" and code.co_filename == "<string>":
        return "frame was made by exec()"
    return None


def frame_reason(frame) -> str | None:
    """Why this frame (a torch _PyInterpreterFrame about to run) is not compiled, or None."""
    code = frame.f_code
    reason = code_reason(code)
    if reason is not None:
        return reason
    if code.co_name == "<lambda>" and code.co_filename == "<string>" and not frame.f_builtins:
        return "frame is a namedtuple constructor"
    if not has_torch_in_frame(frame):
        return "no tensor-related objects found in frame"
    return None


def has_torch_in_frame(frame) -> bool:
    """A torch module among the globals the code names, or a tensor or module in its arguments."""
    f_globals = frame.f_globals
    for name in frame.f_code.co_names:
        value = f_globals.get(name)
        if isinstance(value, types.ModuleType) and (value is torch or value.__name__.startswith("torch.")):
            return True
    seen: dict[int, bool] = {}
    return any(_has_tensor(value, seen) for value in frame.f_locals.values())


def _has_tensor(value, seen: dict) -> bool:
    key = id(value)
    if key in seen:
        return seen[key]
    seen[key] = False
    if isinstance(value, (torch.Tensor, torch.nn.Module)) or (type(value) is type
                                                              and issubclass(value, torch.nn.Module)):
        found = True
    elif type(value) in (list, tuple):
        found = any(_has_tensor(v, seen) for v in value)
    elif type(value) is dict:
        found = any(_has_tensor(v, seen) for v in list(value.values()))
    elif isinstance(value, tuple) and hasattr(type(value), "_fields"):
        found = any(_has_tensor(getattr(value, f), seen) for f in type(value)._fields)
    else:
        found = False
    seen[key] = found
    return found
