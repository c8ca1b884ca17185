"""DebugController: the one place that holds the session and the position in a trace.

Widgets never talk to the engine or to each other; they emit signals that the
main window routes here, and show what this controller announces.  Everything
it exposes is plain data from `tracer.debug` (timelines of snapshots), so the
views never hold live VariableTrackers.
"""
from __future__ import annotations

import os

from PySide6.QtCore import QObject, Signal

from tracer.debug import (ConditionBreakpoint, LineBreakpoint, Navigator, OffsetBreakpoint, OpcodeBreakpoint,
                          Session, depth_exceeds, graph_break, guard_installed_on, top_is_tensor)
from tracer.exc import UserError


class DebugController(QObject):
    sig_session_loaded = Signal()  # a script ran: functions, timelines and entries are new
    sig_timeline_changed = Signal(object)  # Timeline
    sig_position_changed = Signal(object, object)  # Snapshot, previous Snapshot (or None)
    sig_breakpoints_changed = Signal(list)
    sig_log = Signal(str)
    sig_error = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.session: Session | None = None
        self.timeline = None
        self.navigator: Navigator | None = None
        self.breakpoints: list = []
        self._previous = None

    # ---- sessions ----------------------------------------------------------------------
    def open_script(self, path: str) -> bool:
        try:
            session = Session(path)
        except UserError as error:
            self.sig_error.emit(str(error))
            return False
        self.sig_log.emit(f"running {path} under Standin's tracer ...")
        session.run()
        self.session = session
        if session.stdout:
            self.sig_log.emit(session.stdout.rstrip())
        if session.error:
            self.sig_log.emit(f"the script raised {session.error}; showing what ran before it")
        self.sig_log.emit(f"{len(session.functions)} compiled function(s), {len(session.timelines)} trace(s)")
        self.sig_session_loaded.emit()
        if session.timelines:  # the first complete trace; a first attempt that restarted is one click away
            finals = [i for i, t in enumerate(session.timelines) if not t.outcome.startswith("restarting")]
            self.select_timeline(finals[0] if finals else 0)
        return True

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
        getattr(self.navigator, method)(*args)
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
        """From the breakpoints panel: kind is Opcode, Line, Tensor on top, Guard on, Graph break, Depth."""
        text = text.strip()
        try:
            bp = self._make_breakpoint(kind, text)
        except ValueError as error:
            self.sig_error.emit(str(error))
            return
        self.breakpoints.append(bp)
        self.sig_breakpoints_changed.emit(self.breakpoints)

    def _make_breakpoint(self, kind: str, text: str):
        kind = kind.lower()
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


__all__ = ["DebugController", "ConditionBreakpoint"]
