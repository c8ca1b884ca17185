"""Sessions over real scripts: run an unmodified script under the engine and keep everything.

`Session(path).run()` executes the script with `torch.compile` routed to
`tracer.compile` and a Recorder attached to every compiled function
(`start()` does it in a worker thread that `stop()` can interrupt), then
offers what the app's panels and the guard editor need: the compiled frames,
their calls, cache entries, compile events and timelines; calling a function
again with its last arguments; editing a module global (undoably) and seeing
whether the next call hits the cache or recompiles, and why.
"""
from __future__ import annotations

import contextlib
import ctypes
import io
import os
import threading
import time
import traceback
from dataclasses import dataclass, field

from ..eval_frame import CompiledFunction, FrameNumbers, numbered_by
from ..exc import ScriptExit, ScriptStopped, UserError
from ..guards.whatif import Prediction, StateEditor, predict, reshaped
from ..script import run_script
from .recorder import Recorder, record
from .timeline import Timeline

STOP_GRACE_S = 2.0  # how long `run(timeout=...)` waits for a stopped script to unwind
RESTOP_INTERVAL_S = 0.25  # a stop that did not take is raised again this often


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


@dataclass(frozen=True)
class ScriptError:
    """Where the user's script failed: the innermost line of the user's own files, and the traceback."""

    filename: str
    line: int | None
    traceback: str  # the script's frames only (Standin's and runpy's are left out)


_OWN_DIRS = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))),)  # tracer/


def _script_error(error: BaseException, script: str) -> ScriptError:
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if not f.filename.startswith(_OWN_DIRS) and "runpy" not in os.path.basename(f.filename)]
    if isinstance(error, SyntaxError) and error.filename:
        filename, line = os.path.abspath(error.filename), error.lineno
    else:
        mine = [f for f in frames if os.path.abspath(f.filename) == script] or frames
        filename, line = (os.path.abspath(mine[-1].filename), mine[-1].lineno) if mine else (script, None)
    text = "".join(traceback.format_list(frames)) + "".join(traceback.format_exception_only(type(error), error))
    return ScriptError(filename, line, text)


class Session:
    def __init__(self, path: str, argv: list[str] | None = None, *, present=None):
        """`present(compiled, fn)`: what torch.compile hands the script (default: the CompiledFunction)."""
        if os.path.isdir(path):
            raise UserError(f"{path} is a directory, not a script")
        if not os.path.isfile(path):
            raise UserError(f"no such script: {path}")
        self.path = os.path.abspath(path)
        self.argv = list(argv or [])
        self.present = present
        self.exit_status: int | None = None  # the status of the script's sys.exit(n) / os._exit(n)
        self.exit_how: str | None = None  # which of the two, and where: "os._exit(3) at train.py:12"
        self.recorder = Recorder()
        self.functions: list[CompiledFunction] = []
        self.error: str | None = None
        self.error_at: ScriptError | None = None  # where it failed, with the line and the traceback
        self.stopped: str | None = None  # "stopped by the user after 2.0 s" when a stop ended it (error says so too)
        self.frame_numbers = FrameNumbers()  # [0/0] is this script's first frame, as in a fresh process
        self._editors: dict[int, StateEditor] = {}
        self._stdout = io.StringIO()
        self._thread: threading.Thread | None = None
        self._finished = threading.Event()
        self._lock = threading.Lock()
        self._in_script = False
        self._stop_requested = False
        self._stop_reason = "by the user"
        self._started = 0.0

    # ---- running ----------------------------------------------------------------------
    def run(self, timeout: float | None = None) -> "Session":
        """Run the script to its end in this thread; with a timeout, in a worker that is stopped then."""
        if timeout is None:
            self._execute()
            return self
        self.start()
        try:
            finished = self.wait(timeout)
        except KeyboardInterrupt:  # Ctrl+C while waiting stops the script like Stop does
            finished = False
            timeout = None
        if not finished:
            self.stop("by the user" if timeout is None else f"at the {timeout:g} s timeout")
            self.wait(STOP_GRACE_S)
        return self

    def start(self) -> "Session":
        """Run the script in a worker thread and return at once: the caller stays responsive."""
        if self._thread is not None:
            raise UserError("this session has already run its script")
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._execute_in_worker, name=f"standin: {self.path}", daemon=True)
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread is not None and not self._finished.is_set()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._started if self._started else 0.0

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a started script; True once it has finished."""
        return self._finished.wait(timeout) if self._thread is not None else True

    def stop(self, why: str = "by the user") -> bool:
        """Stop a running script at its next Python instruction; what it recorded so far is kept.

        The stop is an exception raised inside the script's thread.  A script blocked
        inside one C call (a long `time.sleep`, a socket read) stops when that call returns.
        """
        with self._lock:
            if not self.running or self._stop_requested:
                return False
            self._stop_requested = True
            self._stop_reason = why
        threading.Thread(target=self._keep_stopping, name="standin: stop", daemon=True).start()
        return True

    def _keep_stopping(self) -> None:
        """Raise ScriptStopped in the script's thread until it ends: an exception that lands in a
        finalizer or a weakref callback is printed and ignored by Python, so once is not enough."""
        while True:
            with self._lock:
                if self._in_script:
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread.ident),
                                                               ctypes.py_object(ScriptStopped))
            if self._finished.wait(RESTOP_INTERVAL_S):
                return

    def _execute_in_worker(self) -> None:
        try:
            self._execute()
        except ScriptStopped:  # the stop arrived after the script itself had finished
            if self.error is None:
                self._mark_stopped()
        finally:
            self._finished.set()

    def _execute(self) -> None:
        recorder = self.recorder

        def on_compiled(compiled: CompiledFunction) -> None:
            record(compiled, recorder)
            self.functions.append(compiled)

        self._started = self._started or time.monotonic()
        try:
            with contextlib.redirect_stdout(self._stdout), numbered_by(self.frame_numbers):
                with self._lock:
                    self._in_script = True
                try:
                    run_script(self.path, self.argv, on_compiled=on_compiled, present=self.present)
                finally:
                    with self._lock:
                        self._in_script = False
        except ScriptExit as exit_:
            self.exit_status, self.exit_how = exit_.status, exit_.how
        except ScriptStopped as error:
            self._mark_stopped()
            self.error_at = _script_error(error, self.path)
        except BaseException as error:  # noqa: BLE001 - the user's script failed: keep what ran
            self.error = f"{type(error).__name__}: {error}"
            self.error_at = _script_error(error, self.path)
        finally:
            self._finished.set()

    def _mark_stopped(self) -> None:
        """A stop ended the script: `stopped` says so for a window (a stop is not a failure there);
        `error` too, for the command line and the reports (the run is partial)."""
        self.stopped = f"stopped {self._stop_reason} after {self.elapsed:.1f} s"
        self.error = f"ScriptStopped: {self.stopped}"

    @property
    def stdout(self) -> str:
        """What the script printed (so far, while it runs)."""
        return self._stdout.getvalue()

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
                    if guard.source is not None and guard.source.is_global():
                        name = guard.source_name
                        if name not in names:
                            names.append(name)
        return names

    def predict(self, function: CompiledFunction, shapes: dict | None = None) -> Prediction:
        """Which entry the last call would run now; `shapes` ({"x": (6, 2)}) asks with new tensor shapes."""
        return predict(function, *self._last_call(function, shapes))

    def _last_call(self, function: CompiledFunction, shapes: dict | None) -> tuple[tuple, dict]:
        if function.last_call is None:
            raise UserError(f"{function.fn.__name__} has not been called yet")
        args, kwargs = function.last_call
        try:
            return reshaped(function, args, kwargs, shapes or {})
        except (TypeError, ValueError) as error:
            raise UserError(f"cannot give {function.fn.__qualname__} those shapes: {error}") from error

    def call_again(self, function: CompiledFunction, shapes: dict | None = None) -> CallOutcome:
        """Call with the last arguments (tensors of new `shapes` if given); report a hit or the recompile."""
        args, kwargs = self._last_call(function, shapes)
        frames_before = {id(f): len(f.compile_events) for f in function.all_frames()}
        timelines_before = len(self.recorder.timelines)
        calls_before = len(function.calls)
        outcome = CallOutcome(function.fn.__qualname__)
        buffer = io.StringIO()
        try:
            with contextlib.redirect_stdout(buffer), numbered_by(self.frame_numbers):
                outcome.result = function(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - the user's code raised: report it, keep the session
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
