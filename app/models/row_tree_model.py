"""The one generic QAbstractItemModel: it shows a forest of `rows.RowItem`s.

The items are built without Qt (rows.py); this adapter maps them to roles,
fonts and colours, which come from app.theme when a cell is painted, so they
follow light or dark mode.
"""
from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontDatabase

from app import theme

from .rows import RowItem

PAYLOAD_ROLE = Qt.UserRole.value + 1  # the row's payload object
CHANGED_ROLE = Qt.UserRole.value + 2  # True when the row is highlighted as changed/new
ITEM_ROLE = Qt.UserRole.value + 3  # the RowItem itself

# Roles as ints: data() runs for every visible cell on every repaint.
_BACKGROUNDROLE = Qt.BackgroundRole.value
_CHECKSTATEROLE = Qt.CheckStateRole.value
_DISPLAYROLE = Qt.DisplayRole.value
_FONTROLE = Qt.FontRole.value
_FOREGROUNDROLE = Qt.ForegroundRole.value
_TEXTALIGNMENTROLE = Qt.TextAlignmentRole.value
_TOOLTIPROLE = Qt.ToolTipRole.value
_HORIZONTAL = Qt.Horizontal.value
_ALIGN_CENTER = int(Qt.AlignCenter.value)
_ROW_FLAGS = Qt.ItemIsEnabled | Qt.ItemIsSelectable  # combined once: flags() runs per cell
_CHECKABLE_FLAGS = _ROW_FLAGS | Qt.ItemIsUserCheckable


def monospace_font() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.FixedFont)
    font.setStyleHint(QFont.Monospace)
    return font


class RowTreeModel(QAbstractItemModel):
    """Shows a forest of RowItems; `mono_columns` render in a fixed-width font."""

    sig_check_toggled = Signal(object, bool)  # (RowItem, checked) when the user ticks a checkbox

    def __init__(self, headers: tuple, mono_columns: tuple = (), parent=None, *, centered_columns: tuple = ()):
        super().__init__(parent)
        self.headers = tuple(headers)
        self.mono_columns = frozenset(mono_columns)
        self.centered_columns = frozenset(centered_columns)  # short numbers: hits, counts, depth
        self._root = RowItem(())
        self._mono = monospace_font()
        self._plain = QFont()

    # ---- content ---------------------------------------------------------------------
    def set_items(self, items: list) -> None:
        self.beginResetModel()
        self._root = RowItem(())
        for item in items:
            self._root.add(item)
        self.endResetModel()

    def items(self) -> list:
        return list(self._root.children)

    def all_items(self):
        for item in self._root.children:
            yield from item.walk()

    def item(self, index: QModelIndex) -> RowItem | None:
        if index.isValid():
            return index.internalPointer()
        return None

    def index_of(self, item: RowItem, column: int = 0) -> QModelIndex:
        if item is None or item is self._root:
            return QModelIndex()
        return self.createIndex(item.row(), column, item)

    # ---- QAbstractItemModel ------------------------------------------------------------
    def index(self, row, column, parent=QModelIndex()):
        parent_item = self.item(parent) or self._root
        if 0 <= row < len(parent_item.children) and 0 <= column < len(self.headers):
            return self.createIndex(row, column, parent_item.children[row])
        return QModelIndex()

    def parent(self, index=QModelIndex()):
        item = self.item(index)
        if item is None or item.parent is None or item.parent is self._root:
            return QModelIndex()
        return self.createIndex(item.parent.row(), 0, item.parent)

    def rowCount(self, parent=QModelIndex()):  # noqa: N802 - Qt override
        if parent.isValid() and parent.column() != 0:
            return 0
        return len((self.item(parent) or self._root).children)

    def columnCount(self, parent=QModelIndex()):  # noqa: N802 - Qt override
        return len(self.headers)

    def headerData(self, section, orientation, role=Qt.DisplayRole):  # noqa: N802 - Qt override
        role = getattr(role, "value", role)  # ints: the header asks many times per repaint
        if getattr(orientation, "value", orientation) != _HORIZONTAL or not 0 <= section < len(self.headers):
            return None
        if role == _DISPLAYROLE:
            return self.headers[section]
        if role == _TEXTALIGNMENTROLE and section in self.centered_columns:
            return _ALIGN_CENTER
        return None

    def flags(self, index):
        if not index.isValid():
            return Qt.NoItemFlags
        if index.column() == 0 and self.item(index).checked is not None:
            return _CHECKABLE_FLAGS
        return _ROW_FLAGS

    def set_font_size(self, points: float) -> None:
        """Font zoom for the monospace columns and the bold/dim styles (the view sets its own font)."""
        self._mono.setPointSizeF(points)
        self._plain.setPointSizeF(points)
        self.__dict__.pop("_fonts", None)
        self.layoutChanged.emit()

    def has_nested_rows(self) -> bool:
        """Whether any top row has children (a view need not expand otherwise)."""
        return any(item.children for item in self._root.children)

    def _font(self, mono: bool, italic: bool, bold: bool) -> QFont:
        """Fonts are made once per style: data() runs for every visible cell on every repaint."""
        cache = self.__dict__.setdefault("_fonts", {})
        key = (mono, italic, bold)
        if key not in cache:
            font = QFont(self._mono) if mono else QFont(self._plain)
            font.setItalic(italic)
            font.setBold(bold)
            cache[key] = font
        return cache[key]

    def data(self, index, role=Qt.DisplayRole):
        role = getattr(role, "value", role)  # PySide6 enums compare ~250x slower than ints
        item = self.item(index)
        if item is None:
            return None
        column = index.column()
        if role == _DISPLAYROLE:
            text = str(item.values[column]) if column < len(item.values) else ""
            return text.replace("\n", " ⏎ ") if "\n" in text else text  # one line: rows keep one height
        if role == _TOOLTIPROLE:
            if item.tooltip:
                return item.tooltip
            text = str(item.values[column]) if column < len(item.values) else ""
            return text if len(text) > 40 else None
        if role == _BACKGROUNDROLE:
            return QBrush(QColor(theme.current().changed_bg)) if item.changed else None
        if role == _FOREGROUNDROLE:
            if item.error:
                return QBrush(QColor(theme.current().error_fg))
            return QBrush(QColor(theme.current().dim_fg)) if item.dim else None
        if role == _FONTROLE:
            if column not in self.mono_columns and not (item.dim or item.bold):
                return None
            return self._font(column in self.mono_columns, item.dim, item.bold)
        if role == _TEXTALIGNMENTROLE and column in self.centered_columns:
            return int(Qt.AlignCenter)
        if role == _CHECKSTATEROLE and column == 0 and item.checked is not None:
            return Qt.Checked if item.checked else Qt.Unchecked
        if role == PAYLOAD_ROLE:
            return item.payload
        if role == CHANGED_ROLE:
            return item.changed
        if role == ITEM_ROLE:
            return item
        return None

    def setData(self, index, value, role=Qt.EditRole):  # noqa: N802 - Qt override
        item = self.item(index)
        if item is None or role != Qt.CheckStateRole or item.checked is None:
            return False
        checked = Qt.CheckState(value) == Qt.Checked if not isinstance(value, bool) else value
        item.checked = checked
        item.dim = not checked
        self.dataChanged.emit(self.index(index.row(), 0, index.parent()),
                              self.index(index.row(), len(self.headers) - 1, index.parent()))
        self.sig_check_toggled.emit(item, checked)
        return True


__all__ = ["CHANGED_ROLE", "ITEM_ROLE", "PAYLOAD_ROLE", "RowItem", "RowTreeModel", "monospace_font"]
