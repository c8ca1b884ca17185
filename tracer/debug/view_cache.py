"""Making snapshots from recorded steps, when they are first read.

The recorder keeps, per step, only what the translator held (the stack's
trackers, the locals dict, shared while unchanged) and the instruction.  This
module turns such a step into a Snapshot of plain-data views.  Trackers are
immutable, so a tracker's view is made once and shared by every snapshot that
shows it; the one thing that changes is a lazy shell being realized, so a
view of a tree holding lazy shells is keyed by which of them were still lazy
at the step being read (the recorder logs when each was realized).
"""
from __future__ import annotations

from dataclasses import fields

import torch

from ..variables.constant import ConstantVariable
from ..variables.lazy import LazyVariableTracker
from .views import FrameView, Snapshot, TrackerView

# ---- making views at a per-step price -----------------------------------------------------------
# A frozen dataclass's generated __init__ sets each field through object.__setattr__: some 20k
# machine instructions for a FrameView.  Reading a long timeline makes a FrameView and a Snapshot
# per step, so the hot paths copy the attribute dict of a view the constructor made (or fill a
# fresh one in field order) and install it without __init__.  The view classes have no
# __post_init__, so the result is the object the constructor would make (equal, same hash and repr).
assert not any(hasattr(cls, "__post_init__") for cls in (TrackerView, FrameView, Snapshot)), \
    "views are made without __init__"
assert [f.name for f in fields(Snapshot)] == ["step", "frames", "guard_count", "node_count", "event",
                                       "event_kinds"], \
    "SnapshotMaker.snapshot fills a Snapshot's fields in this order"
_new = object.__new__
_set_dict = object.__setattr__  # (view, "__dict__", fields): frozen classes refuse their own setattr

_VIEW_CHILDREN = 64  # how many of a container's children a view shows (at every depth: a child's view is
# its own shared view, whole, so the shells a view shows are found at every depth too)


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


class Realizations:
    """When each lazy shell was realized, as the step of its timeline it happened before."""

    def __init__(self):
        self.step_of: dict = {}  # shell -> the first step that sees it realized

    def add(self, shell, step: int) -> None:
        self.step_of.setdefault(shell, step)

    def lazy_at(self, shell, step: int) -> bool:
        realized = self.step_of.get(shell)
        if realized is None:  # not realized while recording: still lazy, or realized before
            return shell.is_lazy()
        return step < realized


class ViewCache:
    """One view per tracker (and per lazy state of the shells in its tree), shared by every snapshot.

    Trackers compare and hash by identity (VariableTracker is a dataclass with eq=False, a test
    checks every subclass), so a tracker is its own key here, and the cache keeps it alive.
    """

    def __init__(self, realizations: Realizations):
        self.realizations = realizations
        self.settled: dict = {}  # tracker -> its view, for trees with no lazy shell: the same at every step
        self._varying: dict = {}  # (tracker, lazy state of each shell in its tree) -> view
        self._shells: dict = {}  # tracker -> (the shells in its tree, realizations count when found)
        self._constants: dict = {}  # a sourceless constant's value (or (type, repr)) -> its view's fields
        self._constant_types: dict = {}  # type -> a view of a sourceless constant of that type

    def view(self, tracker, step: int) -> TrackerView:
        view = self.settled.get(tracker)
        return view if view is not None else self.miss(tracker, step)

    def miss(self, tracker, step: int) -> TrackerView:
        """view(tracker, step) for a tracker without a settled view."""
        if type(tracker) is ConstantVariable and tracker.source is None:
            return self._sourceless_constant(tracker)
        shells = self._shells_in(tracker)
        if not shells:
            view = self.settled[tracker] = self._make(tracker, step)
            return view
        lazy_at = self.realizations.lazy_at
        key = (tracker, tuple([lazy_at(shell, step) for shell in shells]))
        view = self._varying.get(key)
        if view is None:
            view = self._varying[key] = self._make(tracker, step)
        return view

    def _shells_in(self, tracker) -> tuple:
        """The lazy shells a view of tracker shows (itself, its children's, ...), realized or not.

        A shell still lazy hides the tree it will realize into, so the answer is found again
        once more shells have been realized, unless none of those found is still lazy.
        """
        known = self._shells.get(tracker)
        count = len(self.realizations.step_of)
        if known is not None and (known[1] == count or not any(s.is_lazy() for s in known[0])):
            return known[0]
        found: list = []

        def walk(t):
            if isinstance(t, LazyVariableTracker):
                found.append(t)
            for _, child in t.children()[:_VIEW_CHILDREN]:
                walk(child)

        walk(tracker)
        shells = tuple(found)
        self._shells[tracker] = (shells, count)
        return shells

    def _sourceless_constant(self, tracker: ConstantVariable) -> TrackerView:
        """The usual new tracker: loops make one per LOAD_CONST and per folded operation.

        Only two fields of its view depend on the value, the others on the value's type, so it
        gets a copy of an earlier view's fields (a view of its own: trackers stay distinguishable).
        """
        value = tracker.value
        key = value if type(value) is int else (type(value), repr(value))  # an int's repr: its value
        earlier = self._constants.get(key)
        if earlier is not None:
            view = _new(TrackerView)  # _like(earlier), inlined
            _set_dict(view, "__dict__", earlier.copy())
        else:
            like = self._constant_types.get(type(value))
            if like is None:
                view = self._constant_types[type(value)] = self._make(tracker, 0)
            else:  # the two fields that depend on the value, made as _make makes them
                view = _like(like, text=tracker.short_repr(), constant=_constant_text(value))
            self._constants[key] = view.__dict__
        self.settled[tracker] = view
        return view

    def _make(self, tracker, step: int) -> TrackerView:
        source = tracker.source.name() if tracker.source is not None else None
        if isinstance(tracker, LazyVariableTracker):
            if self.realizations.lazy_at(tracker, step):
                return TrackerView("LazyVariableTracker", tracker.lazy_repr(), type(tracker.value).__name__,
                                   source, None, None, True)
            tracker = tracker.peek()  # realized by this step, so realized now
        node = getattr(tracker, "node", None)
        constant = _constant_text(tracker.value) if type(tracker) is ConstantVariable else None
        labelled = tracker.children()
        children = tuple((label, self.view(child, step)) for label, child in labelled[:_VIEW_CHILDREN]) \
            if labelled else ()
        try:
            python_type = tracker.python_type().__name__
        except Exception:  # noqa: BLE001 - a user's type may refuse python_type(); the view still draws
            python_type = "?"
        return _like(_BLANK, kind=tracker.kind(), text=tracker.short_repr(), python_type=python_type,
                     source=source, node=node.name if isinstance(node, torch.fx.Node) else None,
                     constant=constant, children=children)


def frame_head(code, depth: int, inst) -> dict:
    """The fields of the FrameView of a frame of code at inst, with an empty stack and no locals."""
    pos = inst.positions if inst is not None else None
    return FrameView(
        function=code.co_name, filename=code.co_filename, first_line=code.co_firstlineno,
        offset=inst.offset if inst else None, index=inst.index if inst else None,
        opname=inst.opname if inst else None, argrepr=inst.argrepr if inst else "",
        line=inst.line if inst else None,
        columns=(pos.col_offset, pos.end_col_offset) if pos else (None, None),
        depth=depth, code_key=id(code)).__dict__


class FrameTrack:
    """What the recorder keeps of one translator (not the translator: it may go after its trace)."""

    __slots__ = ("code", "depth", "heads", "callers", "locals", "caller_views")

    def __init__(self, code, depth: int, heads: list, callers: tuple):
        self.code, self.depth = code, depth
        self.heads = heads  # by instruction index: frame_head's fields or None; shared per code and depth
        self.callers = callers  # raw frames of the paused callers, root first: (track, inst, stack, locals, step)
        self.locals: dict | None = None  # a copy of the locals at the last step, shared while unchanged
        self.caller_views: tuple | None = None  # the callers' FrameViews, made on first read

    def head(self, inst) -> dict:
        if inst is None:
            return frame_head(self.code, self.depth, None)
        head = self.heads[inst.index]
        if head is None:
            head = self.heads[inst.index] = frame_head(self.code, self.depth, inst)
        return head


class SnapshotMaker:
    """Turns recorded steps into Snapshots (see the module docstring)."""

    def __init__(self, views: ViewCache):
        self.views = views
        self._locals: dict = {}  # id(locals dict) -> (that dict, its ((name, view), ...)) when step-independent

    def snapshot(self, step: int, raw: tuple) -> Snapshot:
        track, inst, stack, symbolic_locals, guard_count, node_count, events = raw
        callers = track.caller_views
        if callers is None:
            callers = track.caller_views = tuple(self.frame(*caller) for caller in track.callers)
        snapshot = _new(Snapshot)  # Snapshot(...) without __init__, fields in order (see above)
        _set_dict(snapshot, "__dict__", {"step": step,
                                         "frames": callers + (self.frame(track, inst, stack, symbolic_locals, step),),
                                         "guard_count": guard_count, "node_count": node_count,
                                         "event": None if events is None else "\n".join(text for _, text in events),
                                         "event_kinds": () if events is None else tuple(kind for kind, _ in events)})
        return snapshot

    def frame(self, track: FrameTrack, inst, stack: tuple, symbolic_locals: dict, step: int) -> FrameView:
        settled, miss = self.views.settled.get, self.views.miss
        state = track.head(inst).copy()
        state["stack"] = tuple([settled(t) or miss(t, step) for t in stack])
        state["locals"] = self._locals_view(symbolic_locals, step)
        view = _new(FrameView)
        _set_dict(view, "__dict__", state)
        return view

    def _locals_view(self, symbolic_locals: dict, step: int) -> tuple:
        """((name, view), ...), one tuple per recorded locals dict while no view in it depends on the step."""
        known = self._locals.get(id(symbolic_locals))
        if known is not None and known[0] is symbolic_locals:
            return known[1]
        settled, miss = self.views.settled.get, self.views.miss
        items = tuple([(name, settled(t) or miss(t, step)) for name, t in symbolic_locals.items()])
        if all(t in self.views.settled for t in symbolic_locals.values()):
            self._locals[id(symbolic_locals)] = (symbolic_locals, items)
        return items
