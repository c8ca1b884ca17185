"""Breakpoints over recorded snapshots: on an opcode, an offset, a line, or a condition.

Each has an optional hit count (stop on the Nth hit) and can be a logpoint,
which records a message (formatted with `{opname}`, `{line}`, `{offset}`,
`{function}`, `{depth}`, `{top}`) instead of stopping.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

from .views import Snapshot


@dataclass
class Breakpoint:
    enabled: bool = field(default=True, kw_only=True)
    hit_count: int = field(default=1, kw_only=True)  # stop on every Nth hit
    log_message: str | None = field(default=None, kw_only=True)  # a logpoint when set
    hits: int = field(default=0, kw_only=True)

    def matches(self, snapshot: Snapshot, timeline) -> bool:
        raise NotImplementedError(type(self).__name__)

    def describe(self) -> str:
        raise NotImplementedError(type(self).__name__)

    def message(self, snapshot: Snapshot) -> str:
        frame = snapshot.frame
        top = frame.stack[-1].text if frame.stack else ""
        return (self.log_message or "").format(opname=frame.opname, line=frame.line, offset=frame.offset,
                                               function=frame.function, depth=frame.depth, top=top)


@dataclass
class OpcodeBreakpoint(Breakpoint):
    opname: str = "CALL"

    def matches(self, snapshot, timeline) -> bool:
        return snapshot.frame.opname == self.opname

    def describe(self) -> str:
        return f"every {self.opname}"


@dataclass
class OffsetBreakpoint(Breakpoint):
    function: str = ""
    offset: int = 0
    filename: str | None = None

    def matches(self, snapshot, timeline) -> bool:
        frame = snapshot.frame
        return (frame.offset == self.offset and frame.function == self.function
                and (self.filename is None or frame.filename == self.filename))

    def describe(self) -> str:
        return f"{self.function} @ offset {self.offset}"


@dataclass
class LineBreakpoint(Breakpoint):
    filename: str = ""
    line: int = 0

    def matches(self, snapshot, timeline) -> bool:
        frame = snapshot.frame
        if frame.line != self.line or frame.filename != self.filename:
            return False
        # stop once per visit of the line: on its first instruction
        prev = timeline.snapshots[snapshot.step - 1].frame if snapshot.step else None
        return prev is None or prev.line != frame.line or prev.function != frame.function \
            or prev.depth != frame.depth

    def describe(self) -> str:
        return f"{self.filename}:{self.line}"


@dataclass
class ConditionBreakpoint(Breakpoint):
    """A predicate over the snapshot; build one with the helpers below."""

    predicate: object = None
    text: str = "condition"

    def matches(self, snapshot, timeline) -> bool:
        return bool(self.predicate(snapshot, timeline))

    def describe(self) -> str:
        return self.text


def top_is_tensor() -> ConditionBreakpoint:
    return ConditionBreakpoint(predicate=lambda s, t: bool(s.frame.stack) and s.frame.stack[-1].kind == "TensorVariable",
                               text="top of stack is a tensor")


def guard_installed_on(pattern: str) -> ConditionBreakpoint:
    """Stops at the step after a guard whose source matches `pattern` (fnmatch, e.g. "G['cfg']*")."""
    def predicate(snapshot, timeline):
        start = timeline.snapshots[snapshot.step - 1].guard_count if snapshot.step else 0
        return any(fnmatch.fnmatchcase(g.source_name, pattern) for g in timeline.guards[start:snapshot.guard_count])
    return ConditionBreakpoint(predicate=predicate, text=f"guard installed on {pattern}")


def _has_event(snapshot: Snapshot, prefix: str) -> bool:
    """Whether one of the snapshot's events (one per line) is of this kind."""
    return bool(snapshot.event) and any(line.startswith(prefix) for line in snapshot.event.splitlines())


def graph_break() -> ConditionBreakpoint:
    """Stops at the instruction that breaks the graph (the last step of a trace that breaks)."""
    return ConditionBreakpoint(predicate=lambda s, t: _has_event(s, "graph break"), text="graph break")


def exception_handled() -> ConditionBreakpoint:
    """Stops at the first step of an except/finally block entered by an exception the trace raised."""
    return ConditionBreakpoint(predicate=lambda s, t: _has_event(s, "exception"), text="exception handled")


def depth_exceeds(n: int) -> ConditionBreakpoint:
    return ConditionBreakpoint(predicate=lambda s, t: s.depth > n, text=f"inlining depth > {n}")
