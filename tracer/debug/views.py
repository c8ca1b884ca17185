"""Plain-data views of the tracer's state: what a snapshot holds and the app shows.

Views never reference live trackers' behaviour, only what they looked like
(view_cache.py makes them).  A view is shared by every snapshot that shows
the same tracker in the same state, so `is` between two snapshots' views
tells whether a value changed.
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
    event: str | None = None  # the events that happened just before this step, one per line, as shown
    event_kinds: tuple[str, ...] = ()  # their kinds, in the same order ("graph_break", "exception")

    @property
    def frame(self) -> FrameView:
        return self.frames[-1]

    @property
    def depth(self) -> int:
        return self.frames[-1].depth


@dataclass
class GraphNodeView:
    name: str
    op: str
    target: str
    args: str  # positional then keyword arguments, as the graph's code writes them: "truediv, dim=-1"
    shape: str | None = None
    dtype: str | None = None
    stack_trace: str = ""
    inputs: tuple = ()  # names of the nodes it reads, in order (the edges of the drawing)


def node_view(node: torch.fx.Node) -> GraphNodeView:
    example = node.meta.get("example_value")
    shape = dtype = None
    if isinstance(example, torch.Tensor):  # str, not int: int() of a symbolic size would guard it
        shape = "x".join(str(s) for s in example.shape) or "scalar"
        dtype = str(example.dtype).replace("torch.", "")
    elif isinstance(example, (torch.SymInt, torch.SymBool, torch.SymFloat)):
        shape, dtype = str(example), type(example).__name__
    target = node.target if isinstance(node.target, str) else \
        f"{getattr(node.target, '__module__', '') or ''}.{getattr(node.target, '__name__', node.target)}"
    arguments = [str(a) for a in node.args] + [f"{key}={value}" for key, value in node.kwargs.items()]
    return GraphNodeView(node.name, node.op, target.replace("_operator.", "operator."),
                         _clip(", ".join(arguments)), shape, dtype, node.meta.get("stack_trace", ""),
                         tuple(n.name for n in node.all_input_nodes))


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["TrackerView", "FrameView", "Snapshot", "GraphNodeView", "node_view"]
