"""The recorder: the hook the translator calls, turned into timelines of snapshots.

Attach one to a compiled function (`record(opt)`); every trace of every frame
compiled from it (resume functions and callees included) becomes a Timeline:
one Snapshot before each instruction, plus the guards, graph nodes and events
in the order they happened.  Without a recorder the translator pays one
`is None` test per instruction.  With one, a step costs a tuple: what the
translator held (its stack copied, its locals copied only when they changed)
is kept raw, and views are made when a snapshot is first read.
"""
from __future__ import annotations

from ..trace_end import TraceEnd
from .timeline import Timeline, TimelineEvent
from .view_cache import FrameTrack, Realizations, SnapshotMaker, ViewCache
from .views import node_view


class Recorder:
    """The debugger hook: builds Timelines; the app reads them, never live trackers."""

    def __init__(self, max_steps: int = 500_000):
        self.timelines: list[Timeline] = []
        self.max_steps = max_steps
        self._realizations = Realizations()
        self._make_snapshot = SnapshotMaker(ViewCache(self._realizations)).snapshot
        self._current: Timeline | None = None
        self._pending_event: tuple | None = None  # ((kind, text),) for the next step
        self._tracks: dict = {}  # translator -> its FrameTrack, for the trace being recorded
        self._heads: dict = {}  # (id(code), depth) -> (code, FrameView heads by instruction index)

    # ---- trace boundaries (called by convert_frame) ----------------------------------
    def on_trace_start(self, frame_name: str, compile_id: str, attempt: int) -> None:
        self._current = Timeline(frame_name, compile_id, attempt, make_snapshot=self._make_snapshot)
        self.timelines.append(self._current)
        self._tracks.clear()
        self._pending_event = None  # an event of the previous trace never lands on this one's first step

    def on_trace_end(self, outcome: str, ending: TraceEnd) -> None:
        if self._current is not None:
            self._current.outcome, self._current.ending = outcome, ending
            self._event("end", outcome)
        self._current = None
        self._pending_event = None
        self._tracks.clear()  # the trace's translators can go

    # ---- translator callbacks -----------------------------------------------------------
    def on_step(self, tx, inst) -> None:
        timeline = self._current
        if timeline is None:
            return
        steps = timeline.steps
        if len(steps) >= self.max_steps:
            return
        track = self._tracks.get(tx) or self._track(tx, timeline)
        symbolic_locals = tx.symbolic_locals
        if symbolic_locals != track.locals:  # trackers compare by identity: equal is the same trackers
            track.locals = symbolic_locals.copy()
        steps.append((track, inst, tuple(tx.stack), track.locals, len(timeline.guards), len(timeline.nodes),
                      self._pending_event))
        self._pending_event = None

    def _track(self, tx, timeline: Timeline) -> FrameTrack:
        """A translator's FrameTrack, made at its first step, with the state of its paused callers."""
        key = (id(tx.code), tx.depth)
        if key not in self._heads:
            self._heads[key] = (tx.code, [None] * len(tx.instructions))
        timeline.codes.setdefault(id(tx.code), tx.code)
        callers = ()
        parent = tx.parent
        if parent is not None:  # paused mid-call while tx runs, and so are its own callers
            parent_track = self._tracks.get(parent) or self._track(parent, timeline)
            paused = (parent_track, parent.current, tuple(parent.stack), dict(parent.symbolic_locals),
                      len(timeline.steps))
            callers = parent_track.callers + (paused,)
        track = self._tracks[tx] = FrameTrack(tx.code, tx.depth, self._heads[key][1], callers)
        return track

    def on_inline_enter(self, tx) -> None:
        self._tracks.pop(tx, None)  # a generator's frame is entered again at each next(), maybe from elsewhere
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

    def on_realize(self, shell) -> None:
        """A lazy shell built its real tracker, during the step just recorded (or after its trace)."""
        timeline = self._current or (self.timelines[-1] if self.timelines else None)
        if timeline is not None:
            self._realizations.add(shell, len(timeline.steps))
        self._event("realize", f"realized {shell.source.name() if shell.source else '?'} as {shell.kind()}")

    def on_exception(self, tx, exception, handler_offset: int) -> None:
        """An exception raised in the traced code, caught by a handler of tx's frame."""
        text = f"{exception.short_repr()} handled in {tx.code.co_qualname} at offset {handler_offset}"
        self._event("exception", text)
        self._pending_event = (("exception", f"exception: {text}"),)

    def on_graph_break(self, reason: str) -> None:
        """The graph breaks at the instruction of the step recorded last: that step carries the event.

        (In a first attempt the instruction raised while it ran; in the restart the trace
        stopped before it, and the translator recorded it as its last step.)
        """
        timeline = self._current
        if timeline is None:
            return
        if not timeline.steps:  # nothing ran: the event belongs to the trace, no step shows it
            self._event("graph_break", reason)
            return
        timeline.events.append(TimelineEvent(len(timeline.steps) - 1, "graph_break", reason))
        *raw, events = timeline.steps[-1]
        timeline.steps[-1] = (*raw, (events or ()) + (("graph_break", f"graph break: {reason}"),))

    def _event(self, kind: str, text: str) -> None:
        timeline = self._current
        if timeline is not None:
            timeline.events.append(TimelineEvent(len(timeline.steps), kind, text))


def record(compiled, recorder: Recorder | None = None) -> Recorder:
    """Attach a recorder to a compiled function (and every frame compiled from it)."""
    recorder = recorder or Recorder()
    compiled.hook = recorder
    for frame in compiled.all_frames():
        frame.hook = recorder
    return recorder
