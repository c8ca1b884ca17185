"""Plain-data views of the tracer's state: what a snapshot holds and the app shows.

Views never reference live trackers' behaviour, only what they looked like.
Trackers are immutable, so a view is made once per tracker (and per lazy
state) and shared by every snapshot that still holds that tracker: a long
trace costs little more than its changes.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from itertools import compress
from operator import attrgetter, is_

import torch

from ..variables.constant import ConstantVariable


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


# ---- making views at a per-instruction price ----------------------------------------------------
# A frozen dataclass's generated __init__ sets each field through object.__setattr__: some 20k
# machine instructions for a FrameView, more than the translator spends on a typical instruction,
# and the recorder makes a FrameView and a Snapshot per instruction.  So the hot paths copy the
# attribute dict of a view the constructor made (or fill a fresh one in field order) and install
# it without __init__.  The view classes have no __post_init__, so the result is the object the
# constructor would make (equal, same hash and repr), and its dict shares the class's keys.
assert not any(hasattr(cls, "__post_init__") for cls in (TrackerView, FrameView, Snapshot)), \
    "views are made without __init__"
assert [f.name for f in fields(Snapshot)] == ["step", "frames", "guard_count", "node_count", "event"], \
    "Recorder.on_step fills a Snapshot's fields in this order"
_new = object.__new__
_set_dict = object.__setattr__  # (view, "__dict__", fields): frozen classes refuse their own setattr


def _like(view, **changes):
    """dataclasses.replace(view, **changes) without __init__ (see above)."""
    state = view.__dict__.copy()
    state.update(changes)
    new = _new(type(view))
    _set_dict(new, "__dict__", state)
    return new


_BLANK = TrackerView("", "", "", None, None, None, False)


def _constant_text(value) -> str:
    return repr(value)[:80]


class ViewCache:
    """One view per (tracker, lazy state): unchanged trackers share views across snapshots.

    Trackers compare and hash by identity (VariableTracker is a dataclass with eq=False), so a
    tracker is its own key here, and the cache keeps it alive.  A tracker that is not lazy never
    becomes lazy again, so once its view is made in that state it is found by one lookup: the
    one a recorded step makes per stack slot.  (A tracker class comparing by value, if one is
    ever added, is keyed by id instead, its trackers kept alive so that the ids stay unique.)
    """

    def __init__(self):
        self._settled: dict = {}  # tracker -> its view, made when it was not lazy
        self._lazy: dict = {}  # tracker -> its view, made while it was lazy
        self._by_identity: dict[type, bool] = {}  # tracker class -> whether it compares by identity
        self._by_id: dict = {}  # (id(tracker), lazy) -> view, for the other classes' trackers
        self._keep: list = []  # those trackers, kept alive while their ids are keys
        self._constants: dict = {}  # a sourceless constant's value (or (type, repr)) -> its view's fields
        self._constant_types: dict = {}  # type -> a view of a sourceless constant of that type

    def settled(self, tracker) -> TrackerView | None:
        """The view of tracker made when it was not lazy, or None."""
        try:
            return self._settled.get(tracker)
        except TypeError:  # unhashable: its class compares by value
            return None

    def view(self, tracker, depth: int = 0) -> TrackerView:
        view = self.settled(tracker)
        return view if view is not None else self.miss(tracker, depth)

    def views(self, trackers, depth: int = 0) -> tuple:
        """view() of each tracker, in order."""
        settled, miss = self._settled.get, self.miss
        views = []
        for tracker in trackers:  # a plain loop: cheaper than a comprehension or map() here
            try:
                view = settled(tracker)
            except TypeError:  # unhashable: its class compares by value
                view = None
            views.append(view if view is not None else miss(tracker, depth))
        return tuple(views)

    def miss(self, tracker, depth: int = 0) -> TrackerView:
        """view(tracker) for one without a settled view: lazy, or not viewed yet."""
        cls = type(tracker)
        by_identity = self._by_identity.get(cls)
        if by_identity is None:
            by_identity = self._by_identity[cls] = cls.__eq__ is object.__eq__ and cls.__hash__ is object.__hash__
        if not by_identity:
            return self._miss_by_id(tracker, depth)
        if cls is ConstantVariable and tracker.source is None:
            # The usual new tracker: loops make one per LOAD_CONST and per folded operation.  Only
            # two fields of its view depend on the value, the others on the value's type, so it gets
            # a copy of an earlier view's fields (a view of its own: trackers stay distinguishable).
            value = tracker.value
            key = value if type(value) is int else (type(value), repr(value))  # an int's repr: its value
            earlier = self._constants.get(key)
            if earlier is None:
                view = self._new_constant_view(tracker, key)
            else:
                view = _new(TrackerView)  # _like(earlier), inlined
                _set_dict(view, "__dict__", earlier.copy())
            self._settled[tracker] = view
            return view
        lazy = tracker.is_lazy()
        cache = self._lazy if lazy else self._settled
        view = cache.get(tracker)
        if view is None:
            view = cache[tracker] = self._make(tracker, lazy, depth)
        return view

    def _miss_by_id(self, tracker, depth: int) -> TrackerView:
        lazy = tracker.is_lazy()
        key = (id(tracker), lazy)
        view = self._by_id.get(key)
        if view is None:
            view = self._by_id[key] = self._make(tracker, lazy, depth)
            self._keep.append(tracker)
        return view

    def _new_constant_view(self, tracker: ConstantVariable, key) -> TrackerView:
        """The view of the first sourceless constant with this key: _make's, from a same-typed one's."""
        value = tracker.value
        like = self._constant_types.get(type(value))
        if like is None:
            view = self._constant_types[type(value)] = self._make(tracker, False, 0)
        else:  # the two fields that depend on the value, made as _make makes them
            view = _like(like, text=tracker.short_repr(), constant=_constant_text(value))
        self._constants[key] = view.__dict__
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
            constant = _constant_text(real.value)
        children = ()
        if depth < 4:
            labelled = real.children()
            if labelled:
                settled, pairs = self._settled.get, []
                for label, child in labelled[:64]:
                    try:
                        view = settled(child)
                    except TypeError:  # unhashable: its class compares by value
                        view = None
                    pairs.append((label, view if view is not None else self.miss(child, depth + 1)))
                children = tuple(pairs)
        try:
            python_type = real.python_type().__name__
        except Exception:
            python_type = "?"
        return _like(_BLANK, kind=real.kind(), text=real.short_repr(), python_type=python_type, source=source,
                     node=node.name if isinstance(node, torch.fx.Node) else None, constant=constant,
                     children=children)


def _frame_head(tx, inst) -> FrameView:
    """The FrameView of tx at inst, with an empty stack and no locals."""
    pos = inst.positions if inst is not None else None
    return FrameView(
        function=tx.code.co_name, filename=tx.code.co_filename, first_line=tx.code.co_firstlineno,
        offset=inst.offset if inst else None, index=inst.index if inst else None,
        opname=inst.opname if inst else None, argrepr=inst.argrepr if inst else "",
        line=inst.line if inst else None,
        columns=(pos.col_offset, pos.end_col_offset) if pos else (None, None),
        depth=tx.depth, code_key=id(tx.code))


def frame_view(tx, views: ViewCache, *, with_state: bool = True) -> FrameView:
    head = _frame_head(tx, tx.current)
    if not with_state:
        return head
    return replace(head, stack=tuple(views.view(v) for v in tx.stack),
                   locals=tuple((name, views.view(v)) for name, v in tx.symbolic_locals.items()))


class FrameViewer:
    """Makes the FrameViews of one translator, step after step, reusing what did not change.

    Between two steps of a translator one of its instructions ran: usually the locals hold
    the same tracker objects as before (same object, same view: trackers are immutable), and
    the fields fixed by the instruction repeat whenever the instruction does (loops).
    """

    def __init__(self, tx, views: ViewCache, heads: list):
        self.tx = tx
        self.views = views
        self.heads = heads  # by instruction index: its _frame_head's fields or None; shared per code and depth
        self.callers: tuple = ()  # the FrameViews of tx's callers, paused while it runs (root first)
        self.paused: dict[int, FrameView] = {}  # step count -> this frame's view while a callee runs
        self._settled = views._settled.get  # a tracker's view, when it has one and is not lazy (ViewCache.settled)
        self._miss = views.miss
        self._locals: tuple = ()  # ((name, view), ...) as last made
        self._local_keys: tuple = ()  # its names
        self._local_values: tuple = ()  # its trackers (kept alive by the ViewCache)
        self._lazy: tuple = ()  # those of them lazy when viewed: realizing one changes its view
        self._unlazy_keys: tuple | None = ()  # _local_keys, or None while _lazy (view() then asks _locals_view)

    def view(self, inst) -> FrameView:
        """The frame as it is before inst, the translator's current instruction (not None), runs.

        This runs once per recorded instruction, so the usual case (a known instruction, a stack
        of viewed trackers, unchanged locals) calls no other Python function.
        """
        tx = self.tx
        head = self.heads[inst.index] or self._head(inst)
        stack = []  # ViewCache.views, inlined
        settled = self._settled
        for tracker in tx.stack:
            try:
                view = settled(tracker)
            except TypeError:  # unhashable: see ViewCache
                view = None
            stack.append(view if view is not None else self._miss(tracker))
        symbolic_locals = tx.symbolic_locals
        if all(map(is_, symbolic_locals.values(), self._local_values)) and tuple(symbolic_locals) == self._unlazy_keys:
            local_items = self._locals
        else:
            local_items = self._locals_view(symbolic_locals)
        state = head.copy()  # _like(head, stack=stack, locals=local_items), inlined
        state["stack"] = tuple(stack)
        state["locals"] = local_items
        view = _new(FrameView)
        _set_dict(view, "__dict__", state)
        return view

    def _head(self, inst) -> dict:
        """The fields of _frame_head(tx, inst) (a dict that shares FrameView's keys), kept per instruction."""
        head = self.heads[inst.index] = _frame_head(self.tx, inst).__dict__
        return head

    def _locals_view(self, symbolic_locals: dict) -> tuple:
        """((name, view), ...), the previous tuple itself while every name holds the same tracker."""
        keys, values = tuple(symbolic_locals), tuple(symbolic_locals.values())
        if (self._lazy and keys == self._local_keys and all(map(is_, values, self._local_values))
                and all(t.is_lazy() for t in self._lazy)):
            return self._locals  # view()'s test failed only because some local was lazy: it still is
        views = self.views.views(values)
        self._locals = tuple(zip(keys, views))
        self._local_keys, self._local_values = keys, values
        self._lazy = tuple(compress(values, map(attrgetter("lazy"), views)))  # a lazy view is of a lazy tracker
        self._unlazy_keys = None if self._lazy else keys
        return self._locals


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


__all__ = ["TrackerView", "FrameView", "Snapshot", "ViewCache", "frame_view", "FrameViewer",
           "GraphNodeView", "node_view"]
