"""The VariableTracker interface: the stand-in the tracer holds for every value.

A handler never looks at a real value; it asks the tracker what happens when
it is called, has an attribute read, is turned into a graph input, or is
rebuilt in bytecode.  Trackers are immutable: an operation that would change
one (appending to a list) makes a new tracker, and the translator swaps it in
everywhere the old one was held.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

from ..exc import Unsupported
from ..source import Source

_mutation_ids = itertools.count()


def new_mutation_id() -> int:
    """Identity of a mutable container, shared by every version of its tracker."""
    return next(_mutation_ids)


@dataclass(frozen=True, eq=False)
class VariableTracker:
    source: Source | None = field(default=None, kw_only=True)

    # ---- what kind of value ---------------------------------------------------
    def python_type(self) -> type:
        raise Unsupported(f"python_type of {self.kind()}")

    def has_own_hash(self) -> bool:
        """Whether hashing it runs the user's Python (a class's own `__hash__`), which is then traced."""
        return False

    def is_python_constant(self) -> bool:
        try:
            self.as_python_constant()
            return True
        except Unsupported:
            return False

    def as_python_constant(self):
        raise Unsupported(f"{self.kind()} is not a Python constant")

    def as_proxy(self):
        raise Unsupported(f"{self.kind()} cannot become a graph value")

    def kind(self) -> str:
        return type(self).__name__

    def realize(self) -> "VariableTracker":
        """The tracker itself; a lazy tracker builds its real one here."""
        return self

    def is_lazy(self) -> bool:
        return False

    def with_source(self, source: Source | None) -> "VariableTracker":
        return replace(self, source=source)

    # ---- what it does ---------------------------------------------------------
    def call_function(self, tx, args: list, kwargs: dict) -> "VariableTracker":
        raise Unsupported(f"call to {self.describe()}")

    def call_method(self, tx, name: str, args: list, kwargs: dict) -> "VariableTracker":
        raise Unsupported(f"method {name}() of {self.describe()}")

    def var_getattr(self, tx, name: str) -> "VariableTracker":
        raise Unsupported(f"attribute {name!r} of {self.describe()}")

    def store_attr(self, tx, name: str, value: "VariableTracker") -> None:
        raise Unsupported(f"setting attribute {name!r} on {self.describe()}")

    def has_unpack_var_sequence(self, tx) -> bool:
        return False

    def unpack_var_sequence(self, tx) -> list["VariableTracker"]:
        raise Unsupported(f"iterating over {self.describe()}")

    def truth(self, tx) -> bool:
        """bool(value) at trace time; only possible when it does not depend on data."""
        if self.is_python_constant():
            return bool(self.as_python_constant())
        raise Unsupported(f"truth value of {self.describe()}")

    @staticmethod
    def build(tx, value, source: Source | None = None, *, lazy: bool = False) -> "VariableTracker":
        """The tracker of `value`: guarded now when it has a source (on first use when `lazy`), unguarded
        when it has none (a value made during the trace). The trackers' one door to the builder, a layer
        above them: the translator `tx` opens it (Dynamo's VariableTracker.build)."""
        return tx.build(value, source, lazy=lazy)

    def reconstruct(self, codegen) -> None:
        if self.source is None:
            raise Unsupported(f"cannot rebuild {self.describe()} in bytecode")
        codegen.load_source(self.source)

    # ---- how it looks -----------------------------------------------------------
    def describe(self) -> str:
        where = f" from {self.source.name()}" if self.source is not None else ""
        return f"{self.kind()}{where}"

    def short_repr(self) -> str:
        return self.describe()

    def children(self) -> list[tuple[str, "VariableTracker"]]:
        """(label, child) pairs for containers; the debugger shows them as a tree."""
        return []

    def replace_children(self, swap) -> "VariableTracker":
        """A copy with every child passed through `swap` (used by replace_all)."""
        return self

    def __repr__(self) -> str:
        return f"{self.kind()}({self.short_repr()})"
