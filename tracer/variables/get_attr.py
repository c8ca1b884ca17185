"""A method read off a tracker (`obj.name`), waiting to be called: the tracker answers the call."""
from __future__ import annotations

from dataclasses import dataclass

from .base import VariableTracker


@dataclass(frozen=True, eq=False)
class GetAttrVariable(VariableTracker):
    """`obj.name` where name is a method: calling it calls obj.call_method(name)."""

    obj: VariableTracker = None
    name: str = ""

    def call_function(self, tx, args, kwargs):
        return self.obj.call_method(tx, self.name, args, kwargs)

    def var_getattr(self, tx, name):
        """A bound method's own names: `__name__` (unittest's assertRaises reads it), `__self__`."""
        if name in ("__name__", "__qualname__"):
            owner = self.obj.python_type().__qualname__ + "." if name == "__qualname__" else ""
            return VariableTracker.build(tx, owner + self.name)
        if name == "__self__":
            return self.obj
        return super().var_getattr(tx, name)

    def children(self):
        return [("self", self.obj)]

    def replace_children(self, swap):
        return GetAttrVariable(swap(self.obj), self.name, source=self.source)

    def short_repr(self) -> str:
        return f"{self.obj.short_repr()}.{self.name}"
