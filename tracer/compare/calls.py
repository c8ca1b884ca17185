"""Watch the calls a script makes to what torch.compile gave it: each output and the compiles it caused.

Both engines' runs hand the script an observed object instead of the compiled
one.  A function is wrapped; any other callable (Dynamo's OptimizedModule,
Standin's CompiledFunction) keeps its type and attributes and only gains a
`__call__` that records, so `isinstance(model, nn.Module)` and
`model.parameters()` still answer as before.
"""
from __future__ import annotations

import functools
import types

import torch

from .records import CallRecord
from .values import summarize

MAX_CALLS_PER_FUNCTION = 200


class CallLog:
    """The top-level calls of one run, in the order they returned."""

    def __init__(self, compile_ids_so_far=None):
        """`compile_ids_so_far()`: every compile id made so far, in any order (default: those of the
        Standin functions observed here, all their frames)."""
        self.compile_ids_so_far = compile_ids_so_far or self.standin_compile_ids
        self.calls: list[CallRecord] = []
        self.not_recorded = 0
        self.observed: list = []
        self._counts: dict[str, int] = {}

    def standin_compile_ids(self) -> list[str]:
        return [event.compile_id for compiled in self.observed for frame in compiled.all_frames()
                for event in frame.compile_events if event.kind in ("compile", "recompile")]

    def present(self, compiled, fn):
        """A `present` hook for tracer.script / Session: the script gets `compiled`, observed."""
        return self.observe(compiled, name_of(fn))

    def observe(self, compiled, name: str):
        """What the script receives from torch.compile: `compiled`, with its calls recorded."""
        log = self
        self.observed.append(compiled)

        def call(target, args, kwargs):
            log._counts[name] = index = log._counts.get(name, 0) + 1
            before = set(log.compile_ids_so_far())
            try:
                result = target(*args, **kwargs)
            except BaseException as error:
                log._add(name, index, before, error=f"{type(error).__name__}: {error}")
                raise
            log._add(name, index, before, result=result)
            return result

        if isinstance(compiled, types.FunctionType):
            @functools.wraps(compiled)
            def observed(*args, **kwargs):
                return call(compiled, args, kwargs)
            return observed
        base = type(compiled)

        def __call__(self, *args, **kwargs):
            return call(super(observed_class, self).__call__, args, kwargs)

        observed_class = type(base.__name__, (base,), {"__call__": __call__, "__module__": base.__module__,
                                                       "__qualname__": base.__qualname__})
        try:
            compiled.__class__ = observed_class
        except TypeError:  # a class whose instances cannot change type: wrap it in a function instead
            return functools.wraps(compiled)(lambda *args, **kwargs: call(compiled, args, kwargs))
        return compiled

    def _add(self, name: str, index: int, before: set, result=None, error: str | None = None) -> None:
        if index > MAX_CALLS_PER_FUNCTION:
            self.not_recorded += 1
            return
        made = [compile_id for compile_id in self.compile_ids_so_far() if compile_id not in before]
        output = None if error else summarize(result)
        self.calls.append(CallRecord(name, index, output, error, made))


def name_of(fn) -> str:
    """The name a compiled callable goes by in both engines' call records."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if isinstance(fn, torch.nn.Module):
        return type(fn).__qualname__
    return getattr(fn, "__qualname__", None) or type(fn).__qualname__
