"""The symbolic stack and locals as a tree of TrackerViews.

A TrackerView is an immutable picture of one VariableTracker; the recorder
shares one view object across every snapshot in which the tracker did not
change.  So "what changed since the previous step" is an identity test: a row
is highlighted when its view is not the very object that stood at the same
place in the previous snapshot (same stack slot counted from the bottom, same
local name, same child label).
"""
from __future__ import annotations

from .row_tree_model import RowTreeModel
from .rows import RowItem

# Name and value first: in a narrow dock they are what stays in view.
COL_NAME, COL_VALUE, COL_KIND, COL_TYPE, COL_SOURCE, COL_NODE = range(6)
HEADERS = ("Name", "Value", "Kind", "Type", "Source", "Node")
MONO_COLUMNS = (COL_VALUE, COL_SOURCE, COL_NODE)

_VARIABLE_SUFFIX = "Variable"


def short_kind(view) -> str:
    """"TensorVariable" -> "Tensor"; a lazy tracker reads "lazy" plus what it will become."""
    if view.lazy:
        return f"lazy {view.python_type}" if view.python_type else "lazy"
    kind = view.kind
    return kind[: -len(_VARIABLE_SUFFIX)] if kind.endswith(_VARIABLE_SUFFIX) and kind != _VARIABLE_SUFFIX else kind


def _item(label: str, view, previous) -> RowItem:
    """One row for `view`; `previous` is the view at the same place one step earlier (or None)."""
    value = view.constant if view.constant is not None else view.text
    item = RowItem((label, value, short_kind(view), view.python_type, view.source or "", view.node or ""),
                   payload=view, dim=view.lazy, changed=previous is not None and previous is not view,
                   tooltip=f"{view.kind}: {view.text}" + (f"\nsource: {view.source}" if view.source else ""))
    if previous is None or previous is view:
        old_children = {}
    else:
        old_children = dict(previous.children)
    for child_label, child in view.children:
        item.add(_item(str(child_label), child, old_children.get(child_label) if old_children else None))
    return item


def build_stack_items(stack: tuple, previous: tuple | None = None) -> list[RowItem]:
    """Rows for a FrameView.stack (bottom first), shown top of stack first.

    With `previous` (the stack one step earlier), slots compare by their index
    from the bottom: a push leaves the values beneath it unchanged.  A slot
    that did not exist before counts as changed.
    """
    items = []
    depth = len(stack)
    for position in range(depth - 1, -1, -1):
        view = stack[position]
        label = "top" if position == depth - 1 else f"top-{depth - 1 - position}"
        if previous is None:
            old = None
        else:
            old = previous[position] if position < len(previous) else _NEW
        items.append(_item(label, view, old))
    return items


def build_locals_items(pairs: tuple, previous: tuple | None = None) -> list[RowItem]:
    """Rows for FrameView.locals ((name, view), ...); with `previous`, compared by name."""
    old = dict(previous) if previous is not None else None
    return [_item(name, view, None if old is None else old.get(name, _NEW)) for name, view in pairs]


class _NewSlot:
    """Stands for "nothing was here before": never identical to a view, has no children."""

    children = ()


_NEW = _NewSlot()


class TrackerTreeModel(RowTreeModel):
    """Name | Value | Kind | Type | Source | Node; containers expand into their children."""

    def __init__(self, parent=None):
        super().__init__(HEADERS, MONO_COLUMNS, parent)

    def show_stack(self, stack: tuple, previous: tuple | None = None) -> None:
        self.set_items(build_stack_items(stack, previous))

    def show_locals(self, pairs: tuple, previous: tuple | None = None) -> None:
        self.set_items(build_locals_items(pairs, previous))


__all__ = [
    "COL_KIND",
    "COL_NAME",
    "COL_NODE",
    "COL_SOURCE",
    "COL_TYPE",
    "COL_VALUE",
    "HEADERS",
    "TrackerTreeModel",
    "build_locals_items",
    "build_stack_items",
    "short_kind",
]
