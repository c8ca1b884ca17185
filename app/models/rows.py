"""The Qt-free row tree every panel's data is made of.

A forest of `RowItem`s: a tuple of display strings per column, an opaque
payload the panel reads back on click (a Guard, a depth, a compile id ...),
and a few presentation flags (changed, dim, bold, error, checkable).
Building the forest is plain Python, so it is tested without Qt;
`row_tree_model.RowTreeModel` only maps it to roles. Flat tables are forests
without children.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(eq=False)
class RowItem:
    """One row: display text per column plus what a click should report."""

    values: tuple
    payload: object = None
    children: list = field(default_factory=list)
    changed: bool = False
    dim: bool = False
    bold: bool = False
    error: bool = False
    tooltip: str | None = None
    checked: bool | None = None  # a checkbox in column 0 when not None
    parent: RowItem | None = field(default=None, repr=False)

    def add(self, child: RowItem) -> RowItem:
        child.parent = self
        self.children.append(child)
        return child

    def row(self) -> int:
        siblings = self.parent.children if self.parent is not None else None
        return siblings.index(self) if siblings is not None else 0

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


__all__ = ["RowItem"]
