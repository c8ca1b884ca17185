"""Every Source the trace has touched, as a tree with its guards as leaf rows.

Guarded sources come from `tracer.guards.source_tree` (the same grouping the
compiled guard set uses: `G['cfg']` -> `.scale`, `.shift`).  Sources that are
only known by name -- trackers on the stack or in locals that nothing has
guarded yet -- are merged in by parsing their names, so the tree shows what
the trace *read* as well as what it *assumed*.
"""
from __future__ import annotations

import re

from tracer.guards import source_tree

from .row_tree_model import RowItem, RowTreeModel

COL_SOURCE, COL_KIND, COL_EXPRESSION, COL_INSTALLED_AT = range(4)
HEADERS = ("Source / guard", "Kind", "Expression", "Installed at")
MONO_COLUMNS = (COL_SOURCE, COL_EXPRESSION)
GLOBAL_STATE = "(global state)"
UNGUARDED = "unguarded"

_ATTR = re.compile(r"^(.*)\.([A-Za-z_]\w*)$")
_WRAPPED = re.compile(r"^(?:getattr|type|___tuple_iterator_getitem)\((.*?)(?:, [^,]*)?\)$")


def _last_bracket(name: str) -> int:
    """Index of the '[' that opens the final top-level [...] of `name` (quote aware), or -1."""
    depth, quote, start = 0, None, -1
    for i, ch in enumerate(name):
        if quote:
            if ch == "\\":
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "[(":
            if depth == 0 and ch == "[":
                start = i
            depth += 1
        elif ch in "])":
            depth -= 1
    return start


def parent_source_name(name: str) -> str | None:
    """The source a source name reads from: "G['cfg'].scale" -> "G['cfg']"; roots -> None."""
    if name.endswith("]"):
        start = _last_bracket(name)
        if start > 1 or (start == 1 and name[0] not in "LG"):
            return name[:start]
        if start >= 0:
            return None
    match = _WRAPPED.match(name)
    if match:
        return match.group(1)
    match = _ATTR.match(name)
    if match:
        return match.group(1)
    return None


def _where(guard) -> str:
    at = guard.installed_at
    if at is None:
        return ""
    return f"{at.function}:{at.line} @{at.offset}"


def _guard_row(guard, is_new: bool) -> RowItem:
    at = guard.installed_at
    tooltip = f"{guard.expr}\ninstalled at {at}" if at is not None else guard.expr
    if guard.installed_by:
        tooltip += f"\nwhile building a {guard.installed_by}"
    return RowItem(("", guard.kind, guard.expr, _where(guard)), payload=guard, changed=is_new, tooltip=tooltip)


def build_source_items(guards, new_count: int = 0, extra_sources=()) -> list[RowItem]:
    """Source nodes with guard rows first, then child sources; the last `new_count` guards are new.

    Source rows carry their name as payload; guard rows carry the Guard.
    """
    guards = list(guards)
    first_new = len(guards) - max(0, min(new_count, len(guards)))
    by_name: dict[str, RowItem] = {}

    def source_row(name: str, dim: bool) -> RowItem:
        return RowItem((name, UNGUARDED if dim else "", "", ""), payload=name, dim=dim)

    def convert(node: dict) -> RowItem:
        item = source_row(node["source"], False)
        by_name[node["source"]] = item
        for index in node["guards"]:
            item.add(_guard_row(guards[index], index >= first_new))
        for child in node["children"]:
            item.add(convert(child))
        return item

    roots = [convert(node) for node in source_tree(guards)]
    state = [i for i, g in enumerate(guards) if g.source is None]
    if state:
        holder = source_row(GLOBAL_STATE, False)
        for index in state:
            holder.add(_guard_row(guards[index], index >= first_new))
        roots.append(holder)

    def ensure(name: str) -> RowItem:
        item = by_name.get(name)
        if item is not None:
            return item
        item = by_name[name] = source_row(name, True)
        parent = parent_source_name(name)
        if parent is None:
            roots.append(item)
        else:
            ensure(parent).add(item)
        return item

    for name in extra_sources:
        if name:
            ensure(name)
    for item in roots:  # a source holding a new guard is bold, so collapsed branches still show it
        for row in item.walk():
            if row.changed:
                parent = row.parent
                while parent is not None:
                    parent.bold = True
                    parent = parent.parent
    return roots


class SourceTreeModel(RowTreeModel):
    def __init__(self, parent=None):
        super().__init__(HEADERS, MONO_COLUMNS, parent)

    def show_guards(self, guards, new_count: int = 0, extra_sources=()) -> None:
        self.set_items(build_source_items(guards, new_count, extra_sources))

    def find_source(self, name: str) -> RowItem | None:
        return next((i for i in self.all_items() if i.payload == name and isinstance(i.payload, str)), None)


__all__ = [
    "COL_EXPRESSION",
    "COL_INSTALLED_AT",
    "COL_KIND",
    "COL_SOURCE",
    "GLOBAL_STATE",
    "HEADERS",
    "UNGUARDED",
    "SourceTreeModel",
    "build_source_items",
    "parent_source_name",
]
