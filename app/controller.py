"""DebugController: the one place that holds the session and the position in a trace.

Widgets never talk to the engine or to each other; they emit signals that the
main window routes here, and show what this controller announces.  Everything
it exposes is plain data from `tracer.debug` (timelines of snapshots), so the
views never hold live VariableTrackers.  Work that can take seconds (running a
script, calling a function again) runs in a worker thread; the window polls it.
"""
from __future__ import annotations

import bisect
import os
import threading

from PySide6.QtCore import QEventLoop, QObject, QTimer, Signal

from tracer.debug import Breakpoint, LineBreakpoint, Navigator, OffsetBreakpoint, Session
from tracer.exc import UserError

from .models.source_lines import read_executable_lines
from .models.watch import WatchContext

POLL_MS = 40  # how often the window looks at a running script
BLOCKED_NOTICE_S = 2.0  # a stop not done by then: the script sits in a C call


def final_attempts(timelines) -> list:
    """The timelines that are the last attempt of their trace (a first attempt that restarted is not)."""
    last: dict = {}
    for timeline in timelines:
        key = (timeline.frame, timeline.compile_id)
        last[key] = max(last.get(key, 0), timeline.attempt)
    return [t for t in timelines if t.snapshots and t.attempt == last[(t.frame, t.compile_id)]]


class DebugController(QObject):
    sig_session_loaded = Signal()  # a script ran: functions, timelines and entries are new
    sig_session_changed = Signal()  # the same session grew (a call from the guard editor traced)
    sig_timeline_changed = Signal(object)  # Timeline (None: the session has no trace to show)
    sig_position_changed = Signal(object, object)  # Snapshot, previous Snapshot (or None)
    sig_breakpoints_changed = Signal(list)
    sig_log = Signal(str)
    sig_status = Signal(str)  # a short message for the status bar
    sig_error = Signal(str)  # something the user asked for failed: status bar, log and a dialog
    sig_script_failed = Signal(str, str, int, str)  # (message, filename, line or 0, traceback)
    sig_script_stopped = Signal(str, str, int)  # (message, filename, line or 0): Stop ended it, not a failure
    sig_running = Signal(bool, str)  # a script started (True, its name) or finished (False, "")
    sig_progress = Signal(float)  # seconds the running script has run
    sig_run_finished = Signal()
    sig_call_finished = Signal(object)  # a CallOutcome, or a str saying why the call could not run

    def __init__(self, parent=None):
        super().__init__(parent)
        self.session: Session | None = None
        self.timeline = None
        self.navigator: Navigator | None = None
        self.breakpoints: list = []
        self._previous = None
        self.running: Session | None = None  # a script still running in its worker
        self._stop_asked_at: float | None = None
        self._lines: dict[str, set[int] | None] = {}  # filename -> executable lines
        self._call: tuple | None = None  # (thread, result holder) of a call running from the guard editor
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._check_running)
        self._call_poll = QTimer(self)
        self._call_poll.setInterval(POLL_MS)
        self._call_poll.timeout.connect(self._check_call)

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
        self.sig_status.emit(f"running {os.path.basename(path)} …")
        self.running = session.start()
        self.sig_running.emit(True, os.path.basename(path))
        self._poll.start()
        if wait:
            self.wait_for(self.sig_run_finished, lambda: self.running is None)
        return True

    def reload_script(self, wait: bool = False) -> bool:
        """Run the open script again (after editing it); its breakpoints stay."""
        if self.session is None:
            self.sig_error.emit("no script is open: File ▸ Open one first")
            return False
        self._lines.pop(self.session.path, None)
        return self.open_script(self.session.path, wait=wait)

    def wait_for(self, signal, done) -> None:
        """Run the event loop until `signal` fires (unless `done()` already holds)."""
        loop = QEventLoop()
        signal.connect(loop.quit)
        if not done():
            loop.exec()
        signal.disconnect(loop.quit)

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
        """Show the session that just finished, and say plainly how it went."""
        name = os.path.basename(session.path)
        if session.stdout:
            self.sig_log.emit(session.stdout.rstrip())
        self.session, self.timeline, self.navigator, self._previous = session, None, None, None
        self.sig_log.emit(f"{len(session.functions)} compiled function(s), {len(session.timelines)} trace(s)")
        self.sig_session_loaded.emit()
        finals = [i for i, t in enumerate(session.timelines) if t in final_attempts(session.timelines)]
        if finals:  # the first complete trace; a first attempt that restarted is one click away
            self.select_timeline(finals[0])
        else:
            self.sig_timeline_changed.emit(None)
        if session.stopped:
            self._say_stopped(session)
        elif session.error:
            at = session.error_at
            where = f" (line {at.line} of {os.path.basename(at.filename)})" \
                if at and at.line and f"line {at.line}" not in session.error else ""
            kept = "; showing what it traced before that" if session.timelines else ""
            self.sig_log.emit(f"the script raised {session.error}{where}{kept}")
            if at is not None:
                self.sig_log.emit(at.traceback.rstrip())
            self.sig_script_failed.emit(f"{name} raised {session.error}{where}", at.filename if at else session.path,
                                        (at.line or 0) if at else 0, at.traceback if at else "")
        elif not session.functions:
            self.sig_error.emit(f"{name} ran to its end, but no torch.compile call was seen: "
                                "nothing was traced (Standin debugs what torch.compile compiles)")
        else:
            self.sig_status.emit(f"{name}: {len(session.functions)} compiled function(s), "
                                 f"{len(session.timelines)} trace(s)")

    def _say_stopped(self, session: Session) -> None:
        """A stop the user asked for: said as a stop, with the line it was on; no error dialog."""
        at = session.error_at
        where = f" at line {at.line} of {os.path.basename(at.filename)}" if at and at.line else ""
        kept = f"showing the {len(session.timelines)} trace(s) it made" if session.timelines else "nothing was traced"
        message = f"{os.path.basename(session.path)} {session.stopped}{where}: {kept}"
        self.sig_log.emit(message)
        self.sig_script_stopped.emit(message, at.filename if at else session.path, (at.line or 0) if at else 0)

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

    def select_entry(self, frame_name: str, compile_id: str) -> None:
        """Open the trace that made a cache entry (its last attempt: the one that compiled)."""
        matches = [i for i, t in enumerate(self.timelines)
                   if t.frame == frame_name and t.compile_id == compile_id and t.snapshots]
        if not matches:
            self.sig_status.emit(f"[{compile_id}] of {frame_name} has no recorded trace")
            return
        self.select_timeline(matches[-1])

    # ---- calling again (the guard editor) --------------------------------------------------------
    def call_again(self, function, shapes=None, wait: bool = False) -> None:
        """Call a compiled function with its last arguments (tensors of new `shapes`, {"x": (6, 2)}, if
        given) in a worker; sig_call_finished answers."""
        session = self.session
        if session is None or self._call is not None:
            self.sig_call_finished.emit("a call is already running" if self._call else "no session")
            return
        result: dict = {}

        def run():
            try:
                result["outcome"] = session.call_again(function, shapes)
            except UserError as error:
                result["outcome"] = str(error)
            except Exception as error:  # noqa: BLE001 - a bug of ours must not take the window down: say it
                result["outcome"] = f"{type(error).__name__}: {error}"

        thread = threading.Thread(target=run, name="standin: call again", daemon=True)
        self._call = (thread, result)
        self.sig_status.emit(f"calling {function.fn.__qualname__} again …")
        thread.start()
        self._call_poll.start()
        if wait:
            self.wait_for(self.sig_call_finished, lambda: self._call is None)

    def _check_call(self) -> None:
        thread, result = self._call
        if thread.is_alive():
            return
        self._call_poll.stop()
        self._call = None
        outcome = result.get("outcome", "the call ended without an answer")
        if not isinstance(outcome, str):
            if outcome.stdout:
                self.sig_log.emit(outcome.stdout.rstrip())
            self.sig_log.emit(f"call again: {outcome}")
            self.sig_status.emit(str(outcome).splitlines()[0][:160])
            self._show_new_traces(outcome)
        else:
            self.sig_error.emit(f"cannot call again: {outcome}")
        self.sig_call_finished.emit(outcome)

    def _show_new_traces(self, outcome) -> None:
        self.sig_session_changed.emit()
        if outcome.timelines:
            finals = final_attempts(outcome.timelines)
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

    def restart(self) -> None:
        self.goto(0)

    def run_to_line(self, filename: str, line: int) -> None:
        """Run forwards to the line; a line the rest of the trace never reaches is said, not jumped over."""
        if self.navigator is None:
            return
        start = self.navigator.position
        if not any(s.frame.line == line and s.frame.filename == filename
                   for s in self.timeline.snapshots.walk(start + 1)):
            where = f"line {line} of {os.path.basename(filename)}"
            self.sig_status.emit(f"{where} is never reached after step {start + 1} of this trace")
            return
        self._move("run_to_line", filename, line)

    def run_to_offset(self, function: str, offset: int) -> None:
        self._move("run_to_offset", function, offset)

    def goto_guard(self, guard) -> None:
        """Go to the instruction that installed a guard: the step during which it was added."""
        if self.timeline is None:
            return
        guards = self.timeline.guards
        index = next((i for i, g in enumerate(guards) if g is guard), None)
        if index is None or getattr(guard, "kind", None) == "SHAPE_ENV":  # made at the end: go to its cause
            at = guard.installed_at
            if at is not None:
                self.goto_instruction(at.function, at.line, at.offset)
            return
        counts = [s.guard_count for s in self.timeline.snapshots]  # how many were installed before each step
        self.goto(max(0, bisect.bisect_right(counts, index) - 1))

    def goto_instruction(self, function: str, line: int | None, offset: int | None) -> None:
        """Jump to the first step at (function, offset), or at (function, line) without an offset."""
        if self.timeline is None:
            return
        for snapshot in self.timeline.snapshots:
            frame = snapshot.frame
            if frame.function == function and (frame.offset == offset or (offset is None and frame.line == line)):
                self.goto(snapshot.step)
                return

    # ---- what the current step holds, for the watch, hover and graph links -------------------------
    def watch_context(self) -> WatchContext | None:
        snapshot = self.snapshot
        if snapshot is None:
            return None
        module_globals = {}
        for function in (self.session.functions if self.session else []):
            if function.code.co_filename == snapshot.frame.filename:
                module_globals = function.fn.__globals__
                break
        return WatchContext(snapshot, self.timeline.guards[: self._guards_through(snapshot.step)],
                            self.timeline.nodes_at(snapshot.step), module_globals)

    def _guards_through(self, step: int) -> int:
        """How many guards exist once the instruction of `step` has run."""
        snapshots = self.timeline.snapshots
        return snapshots[step + 1].guard_count if step + 1 < len(snapshots) else len(self.timeline.guards)

    def guards_through_current(self) -> list:
        """The guards installed so far, including those the current instruction installs."""
        return self.timeline.guards[: self._guards_through(self.snapshot.step)] if self.snapshot else []

    def nodes_made_at(self, step: int) -> list[str]:
        """Names of the graph nodes the instruction of `step` added (Compiler Explorer's link)."""
        snapshots = self.timeline.snapshots
        end = snapshots[step + 1].node_count if step + 1 < len(snapshots) else len(self.timeline.nodes)
        return [node.name for node in self.timeline.nodes[snapshots[step].node_count:end]]

    def step_of_node(self, name: str) -> int | None:
        """The step whose instruction added the node `name` to the graph."""
        if self.timeline is None:
            return None
        index = next((i for i, n in enumerate(self.timeline.nodes) if n.name == name), None)
        if index is None:
            return None
        counts = [s.node_count for s in self.timeline.snapshots]
        return max(0, bisect.bisect_right(counts, index) - 1)

    def nodes_of_line(self, filename: str, line: int) -> list[str]:
        """The graph nodes made by the instructions of a source line (a click on the line links them)."""
        if self.timeline is None:
            return []
        names = []
        for snapshot in self.timeline.snapshots:
            if snapshot.frame.line == line and snapshot.frame.filename == filename:
                names += self.nodes_made_at(snapshot.step)
        return names

    # ---- breakpoints ---------------------------------------------------------------------------
    def toggle_line_breakpoint(self, filename: str, line: int) -> None:
        for bp in self.breakpoints:
            if isinstance(bp, LineBreakpoint) and bp.filename == filename and bp.line == line:
                self.breakpoints.remove(bp)
                break
        else:
            if not self._can_stop_at(filename, line):
                return
            self.breakpoints.append(LineBreakpoint(filename=filename, line=line))
        self.sig_breakpoints_changed.emit(self.breakpoints)

    def _can_stop_at(self, filename: str, line: int) -> bool:
        if filename not in self._lines:
            self._lines[filename] = read_executable_lines(filename)
        lines = self._lines[filename]
        if lines is None or line in lines:
            return True
        self.sig_status.emit(f"line {line} of {os.path.basename(filename)} holds no code: "
                             "a breakpoint there would never stop")
        self.sig_breakpoints_changed.emit(self.breakpoints)  # the gutter takes its dot back
        return False

    def toggle_offset_breakpoint(self, function: str, offset: int) -> None:
        for bp in self.breakpoints:
            if isinstance(bp, OffsetBreakpoint) and bp.function == function and bp.offset == offset:
                self.breakpoints.remove(bp)
                break
        else:
            self.breakpoints.append(OffsetBreakpoint(function=function, offset=offset))
        self.sig_breakpoints_changed.emit(self.breakpoints)

    def add_breakpoint(self, kind: str, text: str) -> None:
        """From the breakpoints panel: a kind id of `tracer.debug.KINDS` and its text."""
        try:
            bp = Breakpoint.from_spec(kind, text, script=self.script_path)
        except ValueError as error:
            self.sig_error.emit(str(error))
            return
        if isinstance(bp, LineBreakpoint):
            if any(isinstance(b, LineBreakpoint) and (b.filename, b.line) == (bp.filename, bp.line)
                   for b in self.breakpoints) or not self._can_stop_at(bp.filename, bp.line):
                return
        self.breakpoints.append(bp)
        self.sig_breakpoints_changed.emit(self.breakpoints)

    def breakpoint_specs(self) -> list[tuple[str, str, bool]]:
        """Every breakpoint as (kind, text, enabled): what `restore_breakpoints` takes to remake it."""
        return [(*bp.to_spec(), bp.enabled) for bp in self.breakpoints]

    def restore_breakpoints(self, specs) -> None:
        """Remake saved breakpoints; one that no longer parses is skipped with a note in the log."""
        for kind, text, enabled in specs:
            try:
                bp = Breakpoint.from_spec(kind, text, script=self.script_path)
            except ValueError as error:
                self.sig_log.emit(f"a saved breakpoint was dropped ({kind} {text!r}): {error}")
                continue
            bp.enabled = enabled
            self.breakpoints.append(bp)
        self.sig_breakpoints_changed.emit(self.breakpoints)

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


__all__ = ["DebugController", "final_attempts"]
