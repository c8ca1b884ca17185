"""Breakpoints over recorded snapshots: on an opcode, an offset, a line, or a condition.

Each has an optional hit count (stop on the Nth hit) and can be a logpoint,
which records a message (formatted with `{opname}`, `{line}`, `{offset}`,
`{function}`, `{depth}`, `{top}`) instead of stopping.

Every kind is defined once, here: its id (`kind`), the words a person picks it
by (`KINDS`: label and what its text means), how it writes itself as a
(kind, text) spec and how a spec is read back (`from_spec`). The app's panel,
its controller and the saved settings all go through these.
"""
from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple

from .views import Snapshot


class BreakpointKind(NamedTuple):
    """How a person asks for a kind: its id, a label, and a hint for its text (None: it takes none)."""

    id: str
    label: str
    hint: str | None


@dataclass
class Breakpoint:
    kind: ClassVar[str] = ""
    enabled: bool = field(default=True, kw_only=True)
    hit_count: int = field(default=1, kw_only=True)  # stop on every Nth hit
    log_message: str | None = field(default=None, kw_only=True)  # a logpoint when set
    hits: int = field(default=0, kw_only=True)

    def matches(self, snapshot: Snapshot, timeline) -> bool:
        raise NotImplementedError(type(self).__name__)

    def describe(self) -> str:
        raise NotImplementedError(type(self).__name__)

    def text(self) -> str:
        """The kind's argument as a person types it (empty for kinds that take none)."""
        return ""

    def to_spec(self) -> tuple[str, str]:
        """(kind, text): what `Breakpoint.from_spec` takes to make this breakpoint again."""
        return self.kind, self.text()

    @staticmethod
    def from_spec(kind: str, text: str = "", *, script: str | None = None) -> "Breakpoint":
        """A breakpoint from its (kind, text); `script` is the file a bare line number means.

        Raises ValueError, in words a person can act on, for an unknown kind or a text it cannot take.
        """
        maker = _MAKERS.get(kind)
        if maker is None:
            raise ValueError(f"unknown breakpoint kind {kind!r} (one of {', '.join(_MAKERS)})")
        return maker(text.strip(), script)

    def message(self, snapshot: Snapshot) -> str:
        frame = snapshot.frame
        top = frame.stack[-1].text if frame.stack else ""
        return (self.log_message or "").format(opname=frame.opname, line=frame.line, offset=frame.offset,
                                               function=frame.function, depth=frame.depth, top=top)


@dataclass
class OpcodeBreakpoint(Breakpoint):
    kind: ClassVar[str] = "opcode"
    opname: str = "CALL"

    def matches(self, snapshot, timeline) -> bool:
        return snapshot.frame.opname == self.opname

    def describe(self) -> str:
        return f"every {self.opname}"

    def text(self) -> str:
        return self.opname


@dataclass
class OffsetBreakpoint(Breakpoint):
    kind: ClassVar[str] = "offset"
    function: str = ""
    offset: int = 0
    filename: str | None = None

    def matches(self, snapshot, timeline) -> bool:
        frame = snapshot.frame
        return (frame.offset == self.offset and frame.function == self.function
                and (self.filename is None or frame.filename == self.filename))

    def describe(self) -> str:
        return f"{self.function} @ offset {self.offset}"

    def text(self) -> str:
        return f"{self.function}:{self.offset}"


@dataclass
class LineBreakpoint(Breakpoint):
    kind: ClassVar[str] = "line"
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

    def text(self) -> str:
        return f"{self.filename}:{self.line}"


@dataclass
class ConditionBreakpoint(Breakpoint):
    """A predicate over the snapshot. The named conditions below are kinds of their own;
    a ConditionBreakpoint made with any other predicate works but cannot be saved as a spec."""

    kind: ClassVar[str] = "condition"
    predicate: object = None
    label: str = "condition"

    def matches(self, snapshot, timeline) -> bool:
        return bool(self.predicate(snapshot, timeline))

    def describe(self) -> str:
        return self.label

    def to_spec(self) -> tuple[str, str]:
        raise ValueError(f"the condition {self.label!r} is a Python predicate: it has no spec")


def _has_event(snapshot: Snapshot, kind: str) -> bool:
    """Whether one of the events just before the snapshot is of this kind."""
    return kind in snapshot.event_kinds


@dataclass
class TopIsTensorBreakpoint(Breakpoint):
    kind: ClassVar[str] = "top_is_tensor"

    def matches(self, snapshot, timeline) -> bool:
        stack = snapshot.frame.stack
        return bool(stack) and stack[-1].kind == "TensorVariable"

    def describe(self) -> str:
        return "top of stack is a tensor"


@dataclass
class GuardInstalledBreakpoint(Breakpoint):
    """Stops at the step after a guard whose source matches `pattern` (`*` and `?` as in fnmatch, brackets
    literal, e.g. "G['cfg']*")."""

    kind: ClassVar[str] = "guard_on"
    pattern: str = "*"

    def matches(self, snapshot, timeline) -> bool:
        start = timeline.snapshots[snapshot.step - 1].guard_count if snapshot.step else 0
        pattern = _source_pattern(self.pattern)
        return any(fnmatch.fnmatchcase(g.source_name, pattern)
                   for g in timeline.guards[start:snapshot.guard_count])

    def describe(self) -> str:
        return f"guard installed on {self.pattern}"

    def text(self) -> str:
        return self.pattern


def _source_pattern(pattern: str) -> str:
    """`pattern` for fnmatch with its brackets literal: every source name has some (G['cfg'], L['x'][0]),
    and fnmatch would read `['cfg']` as one character of a set, so that G['cfg']* matched no guard."""
    return pattern.replace("[", "[[]")


@dataclass
class GraphBreakBreakpoint(Breakpoint):
    """Stops at the instruction that breaks the graph (the last step of a trace that breaks)."""

    kind: ClassVar[str] = "graph_break"

    def matches(self, snapshot, timeline) -> bool:
        return _has_event(snapshot, "graph_break")

    def describe(self) -> str:
        return "graph break"


@dataclass
class ExceptionHandledBreakpoint(Breakpoint):
    """Stops at the first step of an except/finally block entered by an exception the trace raised."""

    kind: ClassVar[str] = "exception_handled"

    def matches(self, snapshot, timeline) -> bool:
        return _has_event(snapshot, "exception")

    def describe(self) -> str:
        return "exception handled"


@dataclass
class DepthBreakpoint(Breakpoint):
    kind: ClassVar[str] = "depth"
    depth: int = 0

    def matches(self, snapshot, timeline) -> bool:
        return snapshot.depth > self.depth

    def describe(self) -> str:
        return f"inlining depth > {self.depth}"

    def text(self) -> str:
        return str(self.depth)


# ---- the constructors the API has always offered -----------------------------------------------
def top_is_tensor() -> TopIsTensorBreakpoint:
    return TopIsTensorBreakpoint()


def guard_installed_on(pattern: str) -> GuardInstalledBreakpoint:
    return GuardInstalledBreakpoint(pattern=pattern)


def graph_break() -> GraphBreakBreakpoint:
    return GraphBreakBreakpoint()


def exception_handled() -> ExceptionHandledBreakpoint:
    return ExceptionHandledBreakpoint()


def depth_exceeds(n: int) -> DepthBreakpoint:
    return DepthBreakpoint(depth=n)


# ---- specs: (kind, text) -> Breakpoint -----------------------------------------------------------
def _opcode(text: str, script) -> OpcodeBreakpoint:
    if not text or not text.replace("_", "").isalnum() or not text.isupper():
        raise ValueError(f"an opcode name such as CALL or LOAD_ATTR, not {text!r}")
    return OpcodeBreakpoint(text)


def _line(text: str, script) -> LineBreakpoint:
    filename, _, line = text.rpartition(":")
    if not line.isdigit() or int(line) < 1:
        raise ValueError(f"a line breakpoint is FILE:LINE or LINE, not {text!r}")
    if not filename and not script:
        raise ValueError("a bare line number needs an open script; give FILE:LINE")
    return LineBreakpoint(filename=os.path.abspath(filename) if filename else script, line=int(line))


def _offset(text: str, script) -> OffsetBreakpoint:
    function, _, offset = text.rpartition(":")
    if not (function and offset.isdigit()):
        raise ValueError(f"an offset breakpoint is FUNCTION:OFFSET, e.g. forward:28, not {text!r}")
    return OffsetBreakpoint(function=function, offset=int(offset))


def _depth(text: str, script) -> DepthBreakpoint:
    if not text.isdigit():
        raise ValueError(f"depth > N needs a whole number N, not {text!r}")
    return DepthBreakpoint(depth=int(text))


_MAKERS = {
    OpcodeBreakpoint.kind: _opcode,
    LineBreakpoint.kind: _line,
    OffsetBreakpoint.kind: _offset,
    TopIsTensorBreakpoint.kind: lambda text, script: TopIsTensorBreakpoint(),
    GuardInstalledBreakpoint.kind: lambda text, script: GuardInstalledBreakpoint(pattern=text or "*"),
    GraphBreakBreakpoint.kind: lambda text, script: GraphBreakBreakpoint(),
    ExceptionHandledBreakpoint.kind: lambda text, script: ExceptionHandledBreakpoint(),
    DepthBreakpoint.kind: _depth,
}

# what a person picks from, in this order
KINDS = (
    BreakpointKind(OpcodeBreakpoint.kind, "Opcode", "opname, e.g. CALL"),
    BreakpointKind(LineBreakpoint.kind, "Line", "line number (current file), or file:line"),
    BreakpointKind(OffsetBreakpoint.kind, "Offset", "function:offset, e.g. forward:28"),
    BreakpointKind(TopIsTensorBreakpoint.kind, "Condition: top is tensor", None),
    BreakpointKind(GuardInstalledBreakpoint.kind, "Condition: guard on source", "pattern, e.g. G['cfg']*"),
    BreakpointKind(GraphBreakBreakpoint.kind, "Condition: graph break", None),
    BreakpointKind(ExceptionHandledBreakpoint.kind, "Condition: exception handled", None),
    BreakpointKind(DepthBreakpoint.kind, "Condition: depth > N", "N, e.g. 1"),
)
assert [k.id for k in KINDS] == list(_MAKERS), "every kind a spec can name is offered, once"
