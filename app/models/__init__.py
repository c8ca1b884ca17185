"""Qt item models over the engine's plain-data snapshots.

Each module keeps a Qt-free tree of `RowItem`s (built from TrackerViews, Guards,
cache entries, ...) and one thin QAbstractItemModel that shows it, napari
style: the data can be built and tested without a widget, and the widgets stay
thin.  Models never hold live VariableTrackers, only views of them.
"""
from .row_tree_model import CHANGED_ROLE, ITEM_ROLE, PAYLOAD_ROLE, RowItem, RowTreeModel
from .source_tree import SourceTreeModel, build_source_items, parent_source_name
from .tracker_tree import TrackerTreeModel, build_locals_items, build_stack_items

__all__ = [
           "CHANGED_ROLE",
           "ITEM_ROLE",
           "PAYLOAD_ROLE",
           "RowItem",
           "RowTreeModel",
           "SourceTreeModel",
           "TrackerTreeModel",
           "build_locals_items",
           "build_source_items",
           "build_stack_items",
           "parent_source_name",
]
