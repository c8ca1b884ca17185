"""Moving over a recorded timeline as a debugger does, forwards and backwards.

Step into, over (stay at this inlining depth), out (back to the caller),
continue to the next breakpoint, run to a line or an instruction — and each
the other way round.  Positions are snapshot indices; every move returns the
new position (unchanged when there is nowhere to go).
"""
from __future__ import annotations

from .breakpoints import Breakpoint
from .timeline import Timeline


class Navigator:
    def __init__(self, timeline: Timeline, breakpoints: list[Breakpoint] | None = None):
        self.timeline = timeline
        self.breakpoints = breakpoints if breakpoints is not None else []
        self.position = 0
        self.log: list[str] = []  # messages of logpoints passed on the way

    # ---- primitives ----------------------------------------------------------------
    def _snapshots(self):
        return self.timeline.snapshots

    def _go(self, position: int) -> int:
        if 0 <= position < len(self._snapshots()):
            self.position = position
        return self.position

    def _scan(self, start: int, step: int, stop) -> int:
        """The first snapshot from start on (step 1: forwards, -1: backwards) where stop holds, or the end."""
        snapshots = self._snapshots()
        for snapshot in snapshots.walk(start, step):
            if stop(snapshot):
                return self._go(snapshot.step)
        return self._go(len(snapshots) - 1 if step > 0 else 0)

    # ---- forwards --------------------------------------------------------------------
    def step_into(self) -> int:
        return self._go(self.position + 1)

    def step_over(self) -> int:
        depth = self._snapshots()[self.position].depth
        return self._scan(self.position + 1, 1, lambda s: s.depth <= depth)

    def step_out(self) -> int:
        depth = self._snapshots()[self.position].depth
        return self._scan(self.position + 1, 1, lambda s: s.depth < depth)

    def continue_(self) -> int:
        return self._scan(self.position + 1, 1, self._hits_breakpoint)

    def run_to_line(self, filename: str, line: int) -> int:
        return self._scan(self.position + 1, 1, lambda s: s.frame.line == line and s.frame.filename == filename)

    def run_to_offset(self, function: str, offset: int) -> int:
        return self._scan(self.position + 1, 1, lambda s: s.frame.offset == offset and s.frame.function == function)

    # ---- backwards -----------------------------------------------------------------------
    def step_back(self) -> int:
        return self._go(self.position - 1)

    def step_back_over(self) -> int:
        depth = self._snapshots()[self.position].depth
        return self._scan(self.position - 1, -1, lambda s: s.depth <= depth)

    def step_back_out(self) -> int:
        depth = self._snapshots()[self.position].depth
        return self._scan(self.position - 1, -1, lambda s: s.depth < depth)

    def reverse_continue(self) -> int:
        return self._scan(self.position - 1, -1, self._hits_breakpoint)

    def goto(self, position: int) -> int:
        return self._go(position)

    # ---- breakpoints -----------------------------------------------------------------------
    def _hits_breakpoint(self, snapshot) -> bool:
        stop = False
        for bp in self.breakpoints:
            if not bp.enabled or not bp.matches(snapshot, self.timeline):
                continue
            bp.hits += 1
            if bp.hits % bp.hit_count:
                continue
            if bp.log_message is not None:
                self.log.append(bp.message(snapshot))
            else:
                stop = True
        return stop
