"""The side-effects record: mutations the trace made, kept outside the trackers.

Trackers are immutable, so what a Python program would change in place is
written here instead: cell contents of closures, attributes stored on objects
(ones from outside and ones the trace created), lists and dicts from outside
that were mutated, and assigned globals.  Reads consult the record first; after
the graph runs, the cache entry replays what reached the outside world.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .source import Source


@dataclass
class SideEffects:
    cells: dict[int, object] = field(default_factory=dict)  # cell id -> tracker
    frame_cells: dict[str, int] = field(default_factory=dict)  # the compiled frame's own cells: name -> cell id
    real_cells: dict[int, tuple] = field(default_factory=dict)  # id(real cell) -> (cell, CellVariable, source)
    assigned_cells: set[int] = field(default_factory=set)  # cell ids a STORE_DEREF wrote
    attrs: dict[int, dict[str, object]] = field(default_factory=dict)  # object id -> {name: tracker}
    attr_owners: dict[int, object] = field(default_factory=dict)  # object id -> object tracker
    containers: dict[int, object] = field(default_factory=dict)  # mutation id -> latest tracker (from outside)
    globals: dict[str, object] = field(default_factory=dict)  # name -> tracker
    tracked: dict[int, object] = field(default_factory=dict)  # id(real list or dict) -> first tracker
    base_items: dict[object, object] = field(default_factory=dict)  # object id -> its builtin part (a dict, set,
    # frozenset, list or tuple subclass's items)
    changed_bases: dict[object, object] = field(default_factory=dict)  # object id -> an outside object whose
    # set or list part the trace changed
    hooks: list[tuple | None] = field(default_factory=list)  # (graph input, method, hook) to do; None: removed
    exception_versions: dict[int, object] = field(default_factory=dict)  # exc_id -> the exception after its
    # own __init__ called BaseException.__init__ (new args), until the construction picks it up

    # ---- cells ------------------------------------------------------------------
    def load_cell(self, cell_id: int):
        return self.cells.get(cell_id)

    def store_cell(self, cell_id: int, value) -> None:
        self.cells[cell_id] = value

    def assign_cell(self, cell_id: int, value) -> None:
        """A STORE_DEREF: if the cell is a real one, the rewritten code writes the value back."""
        self.cells[cell_id] = value
        self.assigned_cells.add(cell_id)

    def written_in_trace(self, cell_id: int) -> bool:
        """A cell the trace made or wrote (not one from outside as it was): Dynamo reads it back through
        its attribute record, whose check realizes a lazy value there, at the read."""
        return cell_id in self.assigned_cells or all(cell.cell_id != cell_id for _, cell, _ in self.real_cells.values())

    def known_real_cell(self, real):
        """The CellVariable already standing for this real cell object in the trace, if any."""
        known = self.real_cells.get(id(real))
        return known[1] if known is not None and known[0] is real else None

    def add_real_cell(self, real, cell, source) -> None:
        self.real_cells[id(real)] = (real, cell, source)

    # ---- attributes ---------------------------------------------------------------
    def load_attr(self, obj_id: int, name: str):
        return self.attrs.get(obj_id, {}).get(name)

    def has_attr(self, obj_id: int, name: str) -> bool:
        return name in self.attrs.get(obj_id, {})

    def store_attr(self, owner, obj_id: int, name: str, value) -> None:
        self.attrs.setdefault(obj_id, {})[name] = value
        self.attr_owners[obj_id] = owner

    def delete_attr(self, obj_id: int, name: str) -> None:
        """Only for objects made in the trace: their attributes live nowhere else."""
        self.attrs[obj_id] = {k: v for k, v in self.attrs[obj_id].items() if k != name}

    def store_base_items(self, owner, items) -> None:
        """The items of an object whose class subclasses a builtin container, beside its attributes
        (a ModelOutput's fields, a set subclass's members)."""
        self.base_items[owner.identity()] = items

    def change_base_items(self, owner) -> None:
        """An outside set or list subclass's items changed: replayed on it after the graph."""
        self.changed_bases[owner.identity()] = owner

    # ---- containers and globals ------------------------------------------------------
    def record_container(self, tracker) -> None:
        if tracker.source is not None:
            self.containers[tracker.mutation_id] = tracker

    def is_mutated(self, tracker) -> bool:
        return getattr(tracker, "mutation_id", None) in self.containers

    def track_container(self, value, tracker):
        """Remember the tracker of an outside list or dict, so every path to it shares one identity."""
        self.tracked[id(value)] = (value, tracker)
        return tracker

    def tracked_container(self, value):
        """The current version of an outside list or dict already seen in this trace, if any."""
        known = self.tracked.get(id(value))
        if known is None or known[0] is not value:
            return None
        first = known[1]
        return self.containers.get(first.mutation_id, first)

    # ---- backward hooks on graph inputs -------------------------------------------------
    def register_hook(self, tensor, method: str, hook) -> int:
        """tensor.<method>(hook) on a tensor from outside: done after the graph, as Dynamo does."""
        self.hooks.append((tensor, method, hook))
        return len(self.hooks) - 1

    def remove_hook(self, index: int) -> None:
        self.hooks[index] = None

    def store_global(self, name: str, value) -> None:
        self.globals[name] = value

    def is_empty(self) -> bool:
        return not (self.attrs or self.containers or self.globals or any(self.hooks) or self.changed_bases)

    def replace_trackers(self, swap) -> None:
        """Keep recorded values current when a container they hold is mutated."""
        self.cells = {k: swap(v) for k, v in self.cells.items()}
        self.attrs = {k: {n: swap(v) for n, v in d.items()} for k, d in self.attrs.items()}
        self.globals = {k: swap(v) for k, v in self.globals.items()}
        self.containers = {k: swap(v) for k, v in self.containers.items()}
        # an outside container not mutated itself may hold one that is (`d["a"]["step"] = ...`)
        self.tracked = {k: (value, swap(tracker)) for k, (value, tracker) in self.tracked.items()}
        self.base_items = {k: swap(v) for k, v in self.base_items.items()}
        self.hooks = [hook and (*hook[:2], swap(hook[2])) for hook in self.hooks]

    def outside_effects(self) -> list[tuple[str, Source | None, object, object]]:
        """(kind, source, key, tracker) for everything that must be replayed after the graph."""
        effects = []
        for obj_id, names in self.attrs.items():
            owner = self.attr_owners[obj_id]
            for name, value in names.items():
                effects.append(("setattr", owner, name, value))
        for tracker in self.containers.values():
            effects.append(("container", tracker.source, None, tracker))
        for obj_id, owner in self.changed_bases.items():  # by the builtin's own methods, on the object
            effects.append(("container", owner.source, None, self.base_items[obj_id]))
        for name, value in self.globals.items():
            effects.append(("global", None, name, value))
        for index, hook in enumerate(self.hooks):
            if hook is not None:
                tensor, method, fn = hook
                effects.append(("hook", tensor, (index, method), fn))
        return effects
