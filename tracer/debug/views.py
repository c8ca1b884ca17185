"""Plain-data views of the tracer's state: what a snapshot holds and the app shows.

Views never reference live trackers' behaviour, only what they looked like.
Trackers are immutable, so a view is made once per tracker (and per lazy
state) and shared by every snapshot that still holds that tracker: a long
trace costs little more than its changes.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class TrackerView:
    kind: str  # "TensorVariable", "ConstantVariable", ... or "LazyVariableTracker"
    text: str  # a short repr
    python_type: str
    source: str | None  # "G['cfg'].scale"
    node: str | None  # FX node name for tensors
    constant: str | None  # repr of the constant value, when it has one without realizing
    lazy: bool
    children: tuple = ()  # ((label, TrackerView), ...)


@dataclass(frozen=True)
class FrameView:
    function: str
    filename: str
    first_line: int
    offset: int | None
    index: int | None
    opname: str | None
    argrepr: str
    line: int | None
    columns: tuple
    depth: int
    stack: tuple = ()  # TrackerViews, bottom first
    locals: tuple = ()  # ((name, TrackerView), ...)
    code_key: int = 0  # id of the code object, to fetch its bytecode listing


@dataclass(frozen=True)
class Snapshot:
    """The state before one instruction executes."""

    step: int
    frames: tuple  # FrameViews, root first; the last is where execution is
    guard_count: int  # how many of the timeline's guards were installed before this step
    node_count: int  # how many graph nodes existed before this step
    event: str | None = None  # an event that happened just before this step (graph break, ...)

    @property
    def frame(self) -> FrameView:
        return self.frames[-1]

    @property
    def depth(self) -> int:
        return self.frames[-1].depth


class ViewCache:
    """One view per (tracker, lazy state): unchanged trackers share views across snapshots."""

    def __init__(self):
        self._views: dict = {}
        self._keep: list = []  # keep trackers alive so ids stay unique while recording

    def view(self, tracker, depth: int = 0) -> TrackerView:
        lazy = tracker.is_lazy()
        key = (id(tracker), lazy)
        cached = self._views.get(key)
        if cached is not None:
            return cached
        view = self._make(tracker, lazy, depth)
        self._views[key] = view
        self._keep.append(tracker)
        return view

    def _make(self, tracker, lazy: bool, depth: int) -> TrackerView:
        real = tracker if lazy else tracker.realize() if hasattr(tracker, "peek") else tracker
        source = tracker.source.name() if tracker.source is not None else None
        if lazy:
            value = getattr(tracker, "value", None)
            return TrackerView("LazyVariableTracker", tracker.short_repr(), type(value).__name__, source,
                               None, None, True)
        node = getattr(real, "node", None)
        constant = None
        if type(real).__name__ == "ConstantVariable":
            constant = repr(real.value)[:80]
        children = ()
        if depth < 4:
            children = tuple((label, self.view(child, depth + 1)) for label, child in real.children()[:64])
        try:
            python_type = real.python_type().__name__
        except Exception:
            python_type = "?"
        return TrackerView(real.kind(), real.short_repr(), python_type, source,
                           node.name if isinstance(node, torch.fx.Node) else None, constant, False, children)


def frame_view(tx, views: ViewCache, *, with_state: bool = True) -> FrameView:
    inst = tx.current
    pos = inst.positions if inst is not None else None
    stack = tuple(views.view(v) for v in tx.stack) if with_state else ()
    local_items = tuple((name, views.view(v)) for name, v in tx.symbolic_locals.items()) if with_state else ()
    return FrameView(
        function=tx.code.co_name, filename=tx.code.co_filename, first_line=tx.code.co_firstlineno,
        offset=inst.offset if inst else None, index=inst.index if inst else None,
        opname=inst.opname if inst else None, argrepr=inst.argrepr if inst else "",
        line=inst.line if inst else None,
        columns=(pos.col_offset, pos.end_col_offset) if pos else (None, None),
        depth=tx.depth, stack=stack, locals=local_items, code_key=id(tx.code))


@dataclass
class GraphNodeView:
    name: str
    op: str
    target: str
    args: str
    shape: str | None = None
    dtype: str | None = None
    stack_trace: str = ""


def node_view(node: torch.fx.Node) -> GraphNodeView:
    example = node.meta.get("example_value")
    shape = dtype = None
    if isinstance(example, torch.Tensor):
        shape = "x".join(str(int(s)) for s in example.shape) or "scalar"
        dtype = str(example.dtype).replace("torch.", "")
    target = node.target if isinstance(node.target, str) else \
        f"{getattr(node.target, '__module__', '') or ''}.{getattr(node.target, '__name__', node.target)}"
    return GraphNodeView(node.name, node.op, target.replace("_operator.", "operator."),
                         ", ".join(str(a) for a in node.args)[:120], shape, dtype,
                         node.meta.get("stack_trace", ""))


__all__ = ["TrackerView", "FrameView", "Snapshot", "ViewCache", "frame_view", "GraphNodeView", "node_view",
           ]
