"""Timelines: one trace of one frame, as steps a person can move over.

The recorder appends one raw step per instruction; `Timeline.snapshots`
turns a step into a Snapshot when it is first read (view_cache.py) and keeps
it, so reading costs what a recorded step used to, once, and only for the
steps someone looks at.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..collector import collector_paused
from ..trace_end import TraceEnd
from .views import GraphNodeView, Snapshot

_MAX_BATCH = 1024  # snapshots made per pause of the garbage collector when many are read in a row


@dataclass
class TimelineEvent:
    step: int  # the snapshot it happened before (or at the end: len(snapshots))
    kind: str  # "inline_enter", "inline_exit", "node", "guard", "realize", "graph_break", "compiled", ...
    text: str


class Snapshots(Sequence):
    """A timeline's snapshots, made from its recorded steps on first read."""

    def __init__(self, steps: list, make):
        self._steps = steps  # raw steps, appended by the recorder
        self._make = make  # (step, raw) -> Snapshot
        self._made: dict[int, Snapshot] = {}

    def __len__(self) -> int:
        return len(self._steps)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))] if index.step not in (None, 1) \
                else self.read(*index.indices(len(self))[:2])
        size = len(self._steps)
        position = index + size if index < 0 else index
        if not 0 <= position < size:
            raise IndexError(f"step {index} of a timeline of {size} steps")
        snapshot = self._made.get(position)
        if snapshot is None:
            snapshot = self._made[position] = self._make(position, self._steps[position])
        return snapshot

    def read(self, start: int, stop: int) -> list[Snapshot]:
        """self[start:stop], made with the garbage collector paused (see tracer/collector.py)."""
        with collector_paused():
            return [self[i] for i in range(max(start, 0), min(stop, len(self)))]

    def walk(self, start: int, direction: int = 1):
        """The snapshots from start on, forwards (direction 1) or backwards (-1).

        Read in batches that double from 4, so that a walk stopping soon (a step over) makes
        few snapshots ahead and a long one (a continue) pauses the collector rarely.
        """
        i, size = start, 4
        while 0 <= i < len(self):
            if direction > 0:
                batch = self.read(i, i + size)
            else:
                batch = self.read(max(0, i - size + 1), i + 1)[::-1]
            yield from batch
            i += direction * len(batch)
            size = min(size * 2, _MAX_BATCH)

    def __iter__(self):
        return self.walk(0)

    @property
    def made(self) -> int:
        """How many snapshots have been made (read at least once)."""
        return len(self._made)

    def __repr__(self) -> str:
        return f"<{len(self)} snapshots, {self.made} made>"


@dataclass
class Timeline:
    """One trace of one frame: what the translator did, step by step."""

    frame: str  # the compiled frame's function name
    compile_id: str
    attempt: int = 1  # 2 when the trace restarted to stop before a graph break
    make_snapshot: object = field(default=None, repr=False)  # (step, raw step) -> Snapshot
    steps: list = field(default_factory=list, repr=False)  # raw steps, as the recorder keeps them
    guards: list = field(default_factory=list)  # Guard objects in install order
    nodes: list[GraphNodeView] = field(default_factory=list)
    events: list[TimelineEvent] = field(default_factory=list)
    codes: dict = field(default_factory=dict)  # code id -> code object, for bytecode listings
    outcome: str = ""  # how the trace ended, as shown
    ending: TraceEnd | None = None  # its kind; None while the trace runs

    def __post_init__(self):
        self.snapshots = Snapshots(self.steps, self.make_snapshot)

    def __len__(self) -> int:
        return len(self.steps)

    def guards_at(self, step: int) -> list:
        return self.guards[: self.snapshots[step].guard_count]

    def nodes_at(self, step: int) -> list[GraphNodeView]:
        return self.nodes[: self.snapshots[step].node_count]
