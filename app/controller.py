"""DebugController: the one place that holds the session and the position in a trace.

Widgets never talk to the engine or to each other; they emit signals that the
main window routes here, and show what this controller announces.  Everything
it exposes is plain data from `tracer.debug` (timelines of snapshots), so the
views never hold live VariableTrackers.
"""
from __future__ import annotations

import os

from PySide6.QtCore import QEventLoop, QObject, QTimer, Signal

from tracer.debug import (ConditionBreakpoint, LineBreakpoint, Navigator, OffsetBreakpoint, OpcodeBreakpoint,
                          Session, depth_exceeds, exception_handled, graph_break, guard_installed_on,
                          top_is_tensor)
from tracer.exc import UserError

POLL_MS = 40  # how often the window looks at a running script
BLOCKED_NOTICE_S = 2.0  # a stop not done by then: the script sits in a C call


class DebugController(QObject):
    sig_session_loaded = Signal()  # a script ran: functions, timelines and entries are new
    sig_timeline_changed = Signal(object)  # Timeline
    sig_position_changed = Signal(object, object)  # Snapshot, previous Snapshot (or None)
    sig_breakpoints_changed = Signal(list)
    sig_log = Signal(str)
    sig_error = Signal(str)
    sig_running = Signal(bool, str)  # a script started (True, its name) or finished (False, "")
    sig_progress = Signal(float)  # seconds the running script has run
    sig_run_finished = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.session: Session | None = None
        self.timeline = None
        self.navigator: Navigator | None = None
        self.breakpoints: list = []
        self._previous = None
        self.running: Session | None = None  # a script still running in its worker
        self._stop_asked_at: float | None = None
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._check_running)

    # ---- sessions ----------------------------------------------------------------------
    def open_script(self, path: str, wait: bool = False) -> bool:
        """Start running a script in a worker; the window stays live and the current session
        stays shown until the new one has finished.  With `wait`, return once it has."""
        if self.running is not None:
            self.sig_error.emit(f"{os.path.basename(self.running.path)} is still running: stop it first")
            return False
        try:
            session = Session(path)
        except UserError as error:
            self.sig_error.emit(str(error))
            return False
        self.sig_log.emit(f"running {path} under Standin's tracer ...")
        self.running = session.start()
        self.sig_running.emit(True, os.path.basename(path))
        self._poll.start()
        if wait:
            loop = QEventLoop()
            self.sig_run_finished.connect(loop.quit)
            if self.running is not None:
                loop.exec()
            self.sig_run_finished.disconnect(loop.quit)
        return True

    def stop_script(self) -> None:
        """Stop the running script; what it traced so far is kept and shown."""
        session = self.running
        if session is None:
            return
        if session.stop():
            self.sig_log.emit(f"stopping {os.path.basename(session.path)} ...")
            self._stop_asked_at = session.elapsed

    def _check_running(self) -> None:
        session = self.running
        if session is None:
            self._poll.stop()
            return
        if session.running:
            self.sig_progress.emit(session.elapsed)
            if self._stop_asked_at is not None and session.elapsed - self._stop_asked_at > BLOCKED_NOTICE_S:
                self.sig_log.emit("the script is blocked inside a C call (a sleep, a read); it stops "
                                  "when that call returns — the window and the current session are unaffected")
                self._stop_asked_at = None
            return
        self._poll.stop()
        self.running, self._stop_asked_at = None, None
        self.sig_running.emit(False, "")
        self._adopt(session)
        self.sig_run_finished.emit()

    def _adopt(self, session: Session) -> None:
        if session.stdout:
            self.sig_log.emit(session.stdout.rstrip())
        if session.error and not session.functions and self.session is not None:
            self.sig_log.emit(f"the script raised {session.error}; nothing was compiled, "
                              f"so {os.path.basename(self.session.path)} stays open")
            self.sig_error.emit(f"{os.path.basename(session.path)}: {session.error}")
            return
        if session.error:
            self.sig_log.emit(f"the script raised {session.error}; showing what ran before it")
        self.session = session
        self.sig_log.emit(f"{len(session.functions)} compiled function(s), {len(session.timelines)} trace(s)")
        self.sig_session_loaded.emit()
        if session.timelines:  # the first complete trace; a first attempt that restarted is one click away
            finals = [i for i, t in enumerate(session.timelines) if not t.outcome.startswith("restarting")]
            self.select_timeline(finals[0] if finals else 0)

    @property
    def script_path(self) -> str | None:
        return self.session.path if self.session else None

    @property
    def timelines(self) -> list:
        return self.session.timelines if self.session else []

    def select_timeline(self, index: int) -> None:
        timelines = self.timelines
        if not 0 <= index < len(timelines) or not timelines[index].snapshots:
            return
        self.timeline = timelines[index]
        self.navigator = Navigator(self.timeline, self.breakpoints)
        self._previous = None
        self.sig_timeline_changed.emit(self.timeline)
        self._announce()

    def refresh_after_call(self, outcome) -> None:
        """A call made from the guard editor may have traced: show the newest trace."""
        self.sig_session_loaded.emit()
        if outcome is not None and outcome.timelines:
            finals = [t for t in outcome.timelines if not t.outcome.startswith("restarting")]
            self.select_timeline(self.timelines.index((finals or outcome.timelines)[0]))

    # ---- position --------------------------------------------------------------------------
    @property
    def snapshot(self):
        if self.navigator is None:
            return None
        return self.timeline.snapshots[self.navigator.position]

    def _announce(self) -> None:
        snapshot = self.snapshot
        if snapshot is None:
            return
        previous, self._previous = self._previous, snapshot
        self.sig_position_changed.emit(snapshot, previous)
        for message in self.navigator.log:
            self.sig_log.emit(f"logpoint: {message}")
        self.navigator.log.clear()

    def _move(self, method: str, *args) -> None:
        if self.navigator is None:
            return
        hits = [bp.hits for bp in self.breakpoints]
        getattr(self.navigator, method)(*args)
        if hits != [bp.hits for bp in self.breakpoints]:  # a continue passed breakpoints: the panel counts them
            self.sig_breakpoints_changed.emit(self.breakpoints)
        self._announce()

    def step_into(self): self._move("step_into")
    def step_over(self): self._move("step_over")
    def step_out(self): self._move("step_out")
    def continue_(self): self._move("continue_")
    def step_back(self): self._move("step_back")
    def step_back_over(self): self._move("step_back_over")
    def step_back_out(self): self._move("step_back_out")
    def reverse_continue(self): self._move("reverse_continue")
    def goto(self, step: int): self._move("goto", step)
    def run_to_line(self, filename: str, line: int): self._move("run_to_line", filename, line)
    def run_to_offset(self, function: str, offset: int): self._move("run_to_offset", function, offset)

    def restart(self) -> None:
        self.goto(0)

    def goto_instruction(self, function: str, line: int | None, offset: int | None) -> None:
        """Jump to the first step at (function, offset), e.g. where a guard was installed."""
        if self.timeline is None:
            return
        for snapshot in self.timeline.snapshots:
            frame = snapshot.frame
            if frame.function == function and (frame.offset == offset or (offset is None and frame.line == line)):
                self.goto(snapshot.step + 1 if snapshot.step + 1 < len(self.timeline) else snapshot.step)
                return

    # ---- breakpoints ---------------------------------------------------------------------------
    def toggle_line_breakpoint(self, filename: str, line: int) -> None:
        for bp in self.breakpoints:
            if isinstance(bp, LineBreakpoint) and bp.filename == filename and bp.line == line:
                self.breakpoints.remove(bp)
                break
        else:
            self.breakpoints.append(LineBreakpoint(filename=filename, line=line))
        self.sig_breakpoints_changed.emit(self.breakpoints)

    def toggle_offset_breakpoint(self, function: str, offset: int) -> None:
        for bp in self.breakpoints:
            if isinstance(bp, OffsetBreakpoint) and bp.function == function and bp.offset == offset:
                self.breakpoints.remove(bp)
                break
        else:
            self.breakpoints.append(OffsetBreakpoint(function=function, offset=offset))
        self.sig_breakpoints_changed.emit(self.breakpoints)

    def add_breakpoint(self, kind: str, text: str) -> None:
        """From the breakpoints panel: kind is opcode, line, offset, top_is_tensor, guard_on, graph_break, depth."""
        text = text.strip()
        try:
            bp = self._make_breakpoint(kind, text)
        except ValueError as error:
            self.sig_error.emit(str(error))
            return
        self.breakpoints.append(bp)
        self.sig_breakpoints_changed.emit(self.breakpoints)

    def breakpoint_specs(self) -> list[tuple[str, str, bool]]:
        """Every breakpoint as (kind, text, enabled): what `add_breakpoint` would take to remake it."""
        return [(*spec_of(bp), bp.enabled) for bp in self.breakpoints]

    def restore_breakpoints(self, specs) -> None:
        """Remake saved breakpoints; one that no longer parses is skipped with a note in the log."""
        for kind, text, enabled in specs:
            try:
                bp = self._make_breakpoint(kind, text)
            except ValueError as error:
                self.sig_log.emit(f"a saved breakpoint was dropped ({kind} {text!r}): {error}")
                continue
            bp.enabled = enabled
            self.breakpoints.append(bp)
        self.sig_breakpoints_changed.emit(self.breakpoints)

    def _make_breakpoint(self, kind: str, text: str):
        kind = kind.lower()
        if kind.startswith("offset"):
            function, _, offset = text.rpartition(":")
            if not (function and offset.isdigit()):
                raise ValueError("an offset breakpoint is FUNCTION:OFFSET")
            return OffsetBreakpoint(function=function, offset=int(offset))
        if kind.startswith("opcode"):
            if not text.isupper():
                raise ValueError(f"an opcode name such as CALL or LOAD_ATTR, not {text!r}")
            return OpcodeBreakpoint(text)
        if kind.startswith("line"):
            filename, _, line = text.rpartition(":")
            if not line.isdigit():
                raise ValueError("a line breakpoint is FILE:LINE or LINE")
            return LineBreakpoint(filename=os.path.abspath(filename) if filename else (self.script_path or ""),
                                  line=int(line))
        if "tensor" in kind:
            return top_is_tensor()
        if "guard" in kind:
            return guard_installed_on(text or "*")
        if "break" in kind:
            return graph_break()
        if "exception" in kind:
            return exception_handled()
        if "depth" in kind:
            if not text.isdigit():
                raise ValueError("depth > N needs a number")
            return depth_exceeds(int(text))
        raise ValueError(f"unknown breakpoint kind {kind!r}")

    def set_breakpoint_enabled(self, index: int, enabled: bool) -> None:
        if 0 <= index < len(self.breakpoints):
            self.breakpoints[index].enabled = enabled
            self.sig_breakpoints_changed.emit(self.breakpoints)

    def remove_breakpoint(self, index: int) -> None:
        if 0 <= index < len(self.breakpoints):
            del self.breakpoints[index]
            self.sig_breakpoints_changed.emit(self.breakpoints)

    def line_breakpoints(self, filename: str) -> set[int]:
        return {bp.line for bp in self.breakpoints if isinstance(bp, LineBreakpoint) and bp.filename == filename}

    def offset_breakpoints(self, function: str) -> set[int]:
        return {bp.offset for bp in self.breakpoints if isinstance(bp, OffsetBreakpoint) and bp.function == function}


def spec_of(bp) -> tuple[str, str]:
    """(kind, text) of a breakpoint, in the words of the breakpoints panel."""
    if isinstance(bp, OpcodeBreakpoint):
        return "opcode", bp.opname
    if isinstance(bp, LineBreakpoint):
        return "line", f"{bp.filename}:{bp.line}"
    if isinstance(bp, OffsetBreakpoint):
        return "offset", f"{bp.function}:{bp.offset}"
    text = bp.describe()
    for prefix, kind in (("guard installed on ", "guard_on"), ("inlining depth > ", "depth")):
        if text.startswith(prefix):
            return kind, text[len(prefix):]
    return {"top of stack is a tensor": "top_is_tensor", "graph break": "graph_break",
            "exception handled": "exception_handled"}.get(text, text), ""


__all__ = ["DebugController", "ConditionBreakpoint", "spec_of"]
