"""Every Source the trace has touched, as a tree with its guards as leaf rows.

Guarded sources come from `tracer.guards.source_tree` (the same grouping the
compiled guard set uses: `G['cfg']` -> `.scale`, `.shift`).  Sources that are
only known by name -- trackers on the stack or in locals that nothing has
guarded yet -- are merged in by parsing their names, so the tree shows what
the trace *read* as well as what it *assumed*.
"""
from __future__ import annotations

import os
import re

from tracer.guards import source_tree

from .row_tree_model import RowTreeModel
from .rows import RowItem

# The main column holds what a person reads first: a source (named from its parent: `.scale`
# under `G['cfg']`) or what a guard claims about it (`== 2`); the kind and where it was installed follow.
COL_SOURCE, COL_KIND, COL_INSTALLED_AT = range(3)
COL_EXPRESSION = COL_SOURCE
HEADERS = ("Source / guard", "Kind", "Installed at")
MONO_COLUMNS = (COL_SOURCE,)
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


def installed_at_text(guard) -> str:
    """`linear.py:134 in forward`: file, line and function, never mistaken for each other (the offset
    is in the tooltip)."""
    at = guard.installed_at
    if at is None:
        return ""
    return f"{os.path.basename(at.filename)}:{at.line} in {at.function}"


def relative_name(name: str, parent: str | None) -> str:
    """How a source reads under its parent in the tree: `.scale` under `G['cfg']`."""
    if parent and name.startswith(parent) and len(name) > len(parent):
        return name[len(parent):]
    return name


def guard_claim(guard) -> str:
    """What a guard asserts about the source its row sits under, short enough to read in a side
    panel (`type is Block`, `== 2`, `Tensor float32 [4, 8]`); the full expression is the tooltip."""
    expected, kind = guard.expected, guard.kind
    if kind == "TYPE_MATCH":
        return f"type is {getattr(expected, '__qualname__', expected)}"
    if kind == "ID_MATCH":
        return f"is the object {_short(repr(expected))}"
    if kind == "EQUALS_MATCH":
        return f"== {_short(repr(expected))}"
    if kind == "TENSOR_MATCH":
        grad = ", requires_grad" if expected.requires_grad else ""
        return (f"{expected.type.__name__} {str(expected.dtype).replace('torch.', '')} {list(expected.size)}"
                f" stride {list(expected.stride)} {expected.device}{grad}")
    if kind in ("TRUE_MATCH", "FALSE_MATCH", "NONE_MATCH"):
        return {"TRUE_MATCH": "is True", "FALSE_MATCH": "is False", "NONE_MATCH": "is None"}[kind]
    if kind == "DICT_CONTAINS":
        key, present = expected
        return f"{'has' if present else 'has no'} key {key!r}"
    return guard.expr


def _short(text: str, limit: int = 48) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _guard_row(guard, is_new: bool) -> RowItem:
    at = guard.installed_at
    tooltip = f"{guard.kind}: {guard.expr}"
    if at is not None:
        tooltip += f"\ninstalled at {at.filename}:{at.line} in {at.function}"
        tooltip += f" (offset {at.offset})" if at.offset is not None else ""
    if guard.installed_by:
        tooltip += f"\nwhile building a {guard.installed_by}"
    for cause in guard.causes:
        tooltip += f"\nbecause {cause}"
    claim = guard_claim(guard) if guard.source is not None else guard.expr
    row = RowItem((claim, guard.kind, installed_at_text(guard)), payload=guard, changed=is_new, tooltip=tooltip)
    for cause in guard.causes:  # a shape guard's provenance: clicking one jumps to its instruction
        row.add(RowItem((f"because {cause.why}", cause.opname or "", installed_at_text(cause)), payload=cause,
                        dim=True, tooltip=str(cause)))
    return row


def build_source_items(guards, new_count: int = 0, extra_sources=()) -> list[RowItem]:
    """Source nodes with guard rows first, then child sources; the last `new_count` guards are new.

    Source rows carry their name as payload; guard rows carry the Guard.
    """
    guards = list(guards)
    first_new = len(guards) - max(0, min(new_count, len(guards)))
    by_name: dict[str, RowItem] = {}

    def source_row(name: str, dim: bool, parent: str | None = None) -> RowItem:
        return RowItem((relative_name(name, parent), UNGUARDED if dim else "", ""), payload=name, dim=dim,
                       tooltip=name)

    def convert(node: dict, parent: str | None = None) -> RowItem:
        item = source_row(node["source"], False, parent)
        by_name[node["source"]] = item
        for index in node["guards"]:
            item.add(_guard_row(guards[index], index >= first_new))
        for child in node["children"]:
            item.add(convert(child, node["source"]))
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
        parent = parent_source_name(name)
        item = by_name[name] = source_row(name, True, parent)
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
        self._shown: tuple = ([], 0, (), set())  # guards, new_count, unguarded extra sources, guarded names

    def is_shown(self, guards, new_count: int = 0, extra_sources=()) -> bool:
        """Whether these rows are the ones shown: stepping through a model with hundreds of guards mostly
        changes which already guarded sources sit on the stack, which changes no row."""
        shown_guards, shown_new, shown_unguarded, names = self._shown
        if new_count != shown_new or len(guards) != len(shown_guards) or \
                not all(a is b for a, b in zip(shown_guards, guards)):
            return False
        return tuple(n for n in extra_sources if n and n not in names) == shown_unguarded

    def show_guards(self, guards, new_count: int = 0, extra_sources=()) -> None:
        guards = list(guards)
        names = {g.source_name for g in guards if g.source is not None}
        self._shown = (guards, new_count, tuple(n for n in extra_sources if n and n not in names), names)
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
