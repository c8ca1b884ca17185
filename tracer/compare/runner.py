"""Run the two sides of a comparison, each in a child process of its own, side by side.

Why children for both engines: each starts from a fresh interpreter (the same
imports, the same random state, no cache or patched `torch.compile` left over
from the other); a crash in either (a segfault in generated code, an abort in
torch) is reported in that engine's column instead of ending the comparison;
and Stop is immediate even while a script sits in a C call.  The price is one
more start of Python and torch per side, paid in parallel.

`CompareRun(script, argv).start()` returns at once; `.running`, `.wait(s)`,
`.stop()` as a Session's; `.result()` is the Comparison once both finished.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

from .child import DEFAULT_SEED, SEED_VARIABLE
from .diff import Comparison, compare
from .records import RunRecord, failed_run

ENGINES = ("standin", "dynamo")
STOP_GRACE_S = 5.0  # after SIGINT, how long a side may take to write what it has before it is killed
STDERR_TAIL = 4000  # characters of a crashed side's stderr kept
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class SideProcess:
    """One engine's child process and the record it leaves."""

    def __init__(self, engine: str, script: str, argv: list[str], workdir: str, seed: int = DEFAULT_SEED):
        self.engine, self.script, self.argv = engine, script, list(argv)
        self.out = os.path.join(workdir, f"{engine}.json")
        self.stderr_path = os.path.join(workdir, f"{engine}.stderr")
        self.stopped: str | None = None
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH")) if p))
        env.pop("TORCH_LOGS", None)  # the Dynamo side sets the logs it reads; a user's setting would flood stderr
        env[SEED_VARIABLE] = str(seed)
        with open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tracer.compare.child", engine, self.out, script, *self.argv],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr, env=env)

    def interrupt(self, why: str) -> None:
        if self.process.poll() is None:
            self.stopped = why
            self.process.send_signal(signal.SIGINT)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()

    def record(self) -> RunRecord:
        """What the side recorded, or why it has no record (it crashed, or was killed)."""
        code = self.process.wait()
        if os.path.isfile(self.out):
            try:
                with open(self.out, encoding="utf-8") as handle:
                    record = RunRecord.loads(handle.read())
            except (OSError, ValueError, TypeError) as error:
                return failed_run(self.engine, self.script, self.argv,
                                  f"left an unreadable record ({type(error).__name__}: {error})", self._stderr_tail())
            if self.stopped and record.error and record.error.startswith("KeyboardInterrupt"):
                record.error = f"ScriptStopped: stopped {self.stopped}"
            return record
        tail = self._stderr_tail()
        if self.stopped:
            why = f"stopped {self.stopped} before it could record anything"
        elif code < 0:
            why = f"killed by {_signal_name(-code)}"
        else:
            why = f"exited with status {code} without a record"
        return failed_run(self.engine, self.script, self.argv, why, tail)

    def _stderr_tail(self) -> str:
        try:
            with open(self.stderr_path, encoding="utf-8", errors="replace") as handle:
                return handle.read()[-STDERR_TAIL:]
        except OSError:
            return ""


class CompareRun:
    """Both engines on one script, in parallel child processes (see the module docstring)."""

    def __init__(self, script: str, argv: list[str] | None = None, timeout: float | None = None,
                 engines: tuple[str, ...] = ENGINES, seed: int = DEFAULT_SEED):
        """`engines=("dynamo",)` runs the oracle alone, for a Standin run made in this process (seeded
        with `tracer.compare.child.seed_everything(seed)` first, as each child seeds itself)."""
        self.seed = seed
        self.script = os.path.abspath(script)
        self.argv = list(argv or [])
        self.timeout = timeout
        self.engines = engines
        self.sides: list[SideProcess] = []
        self.records: dict[str, RunRecord] = {}  # engine -> its record, once the run has finished
        self._workdir = tempfile.TemporaryDirectory(prefix="standin-compare-")
        self._finished = threading.Event()
        self._started = 0.0

    def start(self) -> "CompareRun":
        self._started = time.monotonic()
        self.sides = [SideProcess(engine, self.script, self.argv, self._workdir.name, self.seed)
                      for engine in self.engines]
        threading.Thread(target=self._watch, name="standin: compare", daemon=True).start()
        return self

    def run(self) -> Comparison:
        """Start, wait for both sides (Ctrl+C stops them) and compare."""
        self.start()
        try:
            self.wait()
        except KeyboardInterrupt:
            self.stop("by the user")
            self.wait()
        return self.result()

    @property
    def running(self) -> bool:
        return bool(self.sides) and not self._finished.is_set()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._started if self._started else 0.0

    def wait(self, timeout: float | None = None) -> bool:
        return self._finished.wait(timeout)

    def stop(self, why: str = "by the user") -> None:
        """Ask both sides to stop (what they recorded is kept); kill what is still there after a grace."""
        for side in self.sides:
            side.interrupt(why)
        threading.Thread(target=self._kill_after_grace, daemon=True).start()

    def _kill_after_grace(self) -> None:
        if not self._finished.wait(STOP_GRACE_S):
            for side in self.sides:
                side.kill()

    def _watch(self) -> None:
        deadline = None if self.timeout is None else self._started + self.timeout
        try:
            while any(side.process.poll() is None for side in self.sides):
                if deadline is not None and time.monotonic() > deadline:
                    self.stop(f"at the {self.timeout:g} s timeout")
                    deadline = None
                time.sleep(0.05)
            self.records = {side.engine: side.record() for side in self.sides}
        finally:
            self._finished.set()
            self._workdir.cleanup()

    def result(self, standin: RunRecord | None = None) -> Comparison:
        """The comparison of the finished run (with `standin`, that record instead of a Standin child's)."""
        if not self._finished.is_set():
            raise RuntimeError("the comparison is still running")
        return compare(standin or self.records["standin"], self.records["dynamo"])


def compare_script(script: str, argv: list[str] | None = None, timeout: float | None = None) -> Comparison:
    """Run SCRIPT under Standin and under real torch.compile, and compare (blocking)."""
    return CompareRun(script, argv, timeout).run()
