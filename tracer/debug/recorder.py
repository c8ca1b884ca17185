"""The recorder: the hook the translator calls, turned into timelines of snapshots.

Attach one to a compiled function (`record(opt)`); every trace of every frame
compiled from it (resume functions and callees included) becomes a Timeline:
one Snapshot before each instruction, plus the guards, graph nodes and events
in the order they happened.  Without a recorder the translator pays one
`is None` test per instruction.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .views import FrameViewer, GraphNodeView, Snapshot, ViewCache, node_view


@dataclass
class TimelineEvent:
    step: int  # the snapshot it happened before (or at the end: len(snapshots))
    kind: str  # "inline_enter", "inline_exit", "node", "guard", "realize", "graph_break", "compiled", ...
    text: str


@dataclass
class Timeline:
    """One trace of one frame: what the translator did, step by step."""

    frame: str  # the compiled frame's function name
    compile_id: str
    attempt: int = 1  # 2 when the trace restarted to stop before a graph break
    snapshots: list[Snapshot] = field(default_factory=list)
    guards: list = field(default_factory=list)  # Guard objects in install order
    nodes: list[GraphNodeView] = field(default_factory=list)
    events: list[TimelineEvent] = field(default_factory=list)
    codes: dict = field(default_factory=dict)  # code id -> code object, for bytecode listings
    outcome: str = ""  # how the trace ended

    def __len__(self) -> int:
        return len(self.snapshots)

    def guards_at(self, step: int) -> list:
        return self.guards[: self.snapshots[step].guard_count]

    def nodes_at(self, step: int) -> list[GraphNodeView]:
        return self.nodes[: self.snapshots[step].node_count]

    def events_at(self, step: int) -> list[TimelineEvent]:
        return [e for e in self.events if e.step == step]


class Recorder:
    """The debugger hook: builds Timelines; the app reads them, never live trackers."""

    def __init__(self, max_steps: int = 500_000):
        self.timelines: list[Timeline] = []
        self.max_steps = max_steps
        self._views = ViewCache()
        self._current: Timeline | None = None
        self._pending_event: str | None = None
        self._viewers: dict = {}  # translator -> its FrameViewer, for the trace being recorded
        self._heads: dict = {}  # (id(code), depth) -> (code, FrameView fields by instruction index)

    # ---- trace boundaries (called by convert_frame) ----------------------------------
    def on_trace_start(self, frame_name: str, compile_id: str, attempt: int) -> None:
        self._current = Timeline(frame_name, compile_id, attempt)
        self.timelines.append(self._current)
        self._viewers.clear()

    def on_trace_end(self, outcome: str) -> None:
        if self._current is not None:
            self._current.outcome = outcome
            self._event("end", outcome)
        self._current = None
        self._viewers.clear()  # the trace's translators can go

    # ---- translator callbacks -----------------------------------------------------------
    def on_step(self, tx, inst) -> None:
        timeline = self._current
        if timeline is None:
            return
        snapshots = timeline.snapshots
        step = len(snapshots)
        if step >= self.max_steps:
            return
        viewer = self._viewers.get(tx) or self._viewer(tx, timeline)
        snapshot = object.__new__(Snapshot)  # Snapshot(...) without __init__, as views.py explains:
        state = snapshot.__dict__  # its fields filled in order, as __init__ does
        state["step"] = step
        state["frames"] = viewer.callers + (viewer.view(inst),)  # () + (frame,) is (frame,) itself
        state["guard_count"] = len(timeline.guards)
        state["node_count"] = len(timeline.nodes)
        state["event"] = self._pending_event
        snapshots.append(snapshot)
        self._pending_event = None

    def _viewer(self, tx, timeline: Timeline) -> FrameViewer:
        """A translator's FrameViewer, made at its first step, with the views of its paused callers."""
        key = (id(tx.code), tx.depth)
        if key not in self._heads:
            self._heads[key] = (tx.code, [None] * len(tx.instructions))
        viewer = self._viewers[tx] = FrameViewer(tx, self._views, self._heads[key][1])
        timeline.codes.setdefault(id(tx.code), tx.code)
        parent = tx.parent
        if parent is not None:  # paused mid-call while tx runs, and so are its own callers
            parent_viewer = self._viewers.get(parent) or self._viewer(parent, timeline)
            view = parent_viewer.paused.get(parent.steps)  # shared by the callees of one call
            if view is None:
                view = parent_viewer.paused[parent.steps] = parent_viewer.view(parent.current)
            viewer.callers = parent_viewer.callers + (view,)
        return viewer

    def on_inline_enter(self, tx) -> None:
        self._event("inline_enter", f"enter {tx.code.co_qualname} (depth {tx.depth})")

    def on_inline_exit(self, tx) -> None:
        self._event("inline_exit", f"return from {tx.code.co_qualname}")

    def on_guard(self, guard) -> None:
        if self._current is not None:
            self._current.guards.append(guard)
            self._event("guard", str(guard))

    def on_node(self, node) -> None:
        if self._current is not None:
            self._current.nodes.append(node_view(node))
            self._event("node", f"{node.name} = {node.op} {self._current.nodes[-1].target}")

    def on_realize(self, tracker) -> None:
        self._event("realize", f"realized {tracker.source.name() if tracker.source else '?'} "
                               f"as {tracker.kind()}")

    def on_graph_break(self, reason: str) -> None:
        self._event("graph_break", reason)
        self._pending_event = f"graph break: {reason}"

    def _event(self, kind: str, text: str) -> None:
        timeline = self._current
        if timeline is not None:
            timeline.events.append(TimelineEvent(len(timeline.snapshots), kind, text))


def record(compiled, recorder: Recorder | None = None) -> Recorder:
    """Attach a recorder to a compiled function (and every frame compiled from it)."""
    recorder = recorder or Recorder()
    compiled.hook = recorder
    for frame in compiled.all_frames():
        frame.hook = recorder
    return recorder
