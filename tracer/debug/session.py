"""Sessions over real scripts: run an unmodified script under the engine and keep everything.

`Session(path).run()` executes the script with `torch.compile` routed to
`tracer.compile` and a Recorder attached to every compiled function, then
offers what the app's panels and the guard editor need: the compiled frames,
their calls, cache entries, compile events and timelines; calling a function
again with its last arguments; editing a module global (undoably) and seeing
whether the next call hits the cache or recompiles, and why.
"""
from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass, field

from ..eval_frame import CompiledFunction
from ..exc import UserError
from ..guards.whatif import Prediction, StateEditor, predict
from ..script import run_script
from .recorder import Recorder, Timeline, record


@dataclass
class CallOutcome:
    function: str
    result: object = None
    compiled: bool = False  # the call traced a new entry
    hit: str | None = None  # compile id of the entry that served it
    events: list = field(default_factory=list)  # compile events it produced, across frames
    timelines: list[Timeline] = field(default_factory=list)  # what its traces recorded
    stdout: str = ""
    error: str | None = None

    def __str__(self) -> str:
        if self.error:
            return f"{self.function}: raised {self.error}"
        if self.compiled:
            return f"{self.function}: recompiled — " + "; ".join(str(e) for e in self.events)
        return f"{self.function}: cache hit on [{self.hit}]"


class Session:
    def __init__(self, path: str, argv: list[str] | None = None):
        if not os.path.isfile(path):
            raise UserError(f"no such script: {path}")
        self.path = os.path.abspath(path)
        self.argv = list(argv or [])
        self.recorder = Recorder()
        self.functions: list[CompiledFunction] = []
        self.stdout = ""
        self.error: str | None = None
        self._editors: dict[int, StateEditor] = {}

    # ---- running ----------------------------------------------------------------------
    def run(self) -> "Session":
        buffer = io.StringIO()
        recorder = self.recorder

        def on_compiled(compiled: CompiledFunction) -> None:
            record(compiled, recorder)
            self.functions.append(compiled)

        try:
            with contextlib.redirect_stdout(buffer):
                run_script(self.path, self.argv, on_compiled=on_compiled)
        except SystemExit:
            pass
        except BaseException as error:  # the user's script failed: keep what ran
            self.error = f"{type(error).__name__}: {error}"
        self.stdout = buffer.getvalue()
        return self

    @property
    def timelines(self) -> list[Timeline]:
        return self.recorder.timelines

    def frames(self, function: CompiledFunction) -> list[CompiledFunction]:
        return function.all_frames()

    def find(self, name: str) -> CompiledFunction:
        for function in self.functions:
            if function.fn.__name__ == name or function.fn.__qualname__ == name:
                return function
        raise UserError(f"no compiled function named {name!r} in {os.path.basename(self.path)}")

    # ---- the guard editor's back end -----------------------------------------------------------
    def globals_of(self, function: CompiledFunction) -> dict:
        return function.fn.__globals__

    def editor(self, function: CompiledFunction) -> StateEditor:
        key = id(function.fn.__globals__)
        if key not in self._editors:
            self._editors[key] = StateEditor(function.fn.__globals__)
        return self._editors[key]

    def guarded_globals(self, function: CompiledFunction) -> list[str]:
        """Globals (and attribute paths under them) that the function's guards read."""
        names = []
        for frame in function.all_frames():
            for entry in frame.cache_entries:
                for guard in entry.guards:
                    root = guard.source.root() if guard.source is not None else None
                    if root is not None and type(root).__name__ == "GlobalSource":
                        name = guard.source_name
                        if name not in names:
                            names.append(name)
        return names

    def predict(self, function: CompiledFunction) -> Prediction:
        if function.last_call is None:
            raise UserError(f"{function.fn.__name__} has not been called yet")
        args, kwargs = function.last_call
        return predict(function, args, kwargs)

    def call_again(self, function: CompiledFunction) -> CallOutcome:
        """Call with the last arguments; report a hit or the recompile and its reason."""
        if function.last_call is None:
            raise UserError(f"{function.fn.__name__} has not been called yet")
        args, kwargs = function.last_call
        frames_before = {id(f): len(f.compile_events) for f in function.all_frames()}
        timelines_before = len(self.recorder.timelines)
        calls_before = len(function.calls)
        outcome = CallOutcome(function.fn.__qualname__)
        buffer = io.StringIO()
        try:
            with contextlib.redirect_stdout(buffer):
                outcome.result = function(*args, **kwargs)
        except Exception as error:  # the user's code raised: report it, keep the session
            outcome.error = f"{type(error).__name__}: {error}"
        outcome.stdout = buffer.getvalue()
        for frame in function.all_frames():
            new = frame.compile_events[frames_before.get(id(frame), 0):]
            outcome.events.extend(new)
        outcome.timelines = self.recorder.timelines[timelines_before:]
        outcome.compiled = any(e.kind in ("compile", "recompile") for e in outcome.events)
        calls = list(function.calls)[calls_before:] if len(function.calls) > calls_before else list(function.calls)[-1:]
        outcome.hit = calls[0] if calls and not outcome.compiled else None
        return outcome
