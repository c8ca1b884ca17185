"""The Watch panel: expressions over the symbolic state, re-read at every step (pudb, VS Code).

Type `x.shape`, `cfg.scale` or `self.fc` and press Enter; each row shows what
the expression is at the current step (app.models.watch evaluates it from the
recorded snapshot). The panel keeps the list and says when it changes; the
main window hands it the results.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QToolButton

from app.models.row_tree_model import RowTreeModel, monospace_font
from app.models.rows import RowItem

from .panels import TreePanel

COL_EXPRESSION, COL_VALUE, COL_KIND, COL_SOURCE = range(4)


class WatchPanel(TreePanel):
    sig_watches_changed = Signal(list)  # the expressions, in order
    COLUMN_CAPS = {COL_EXPRESSION: 180, COL_VALUE: 420, COL_KIND: 120}

    def __init__(self, parent=None):
        super().__init__(RowTreeModel(("Expression", "Value", "Kind", "Source"), (0, 1, 3)), parent, flat=True)
        self.expressions: list[str] = []
        self.entry = QLineEdit(self)
        self.entry.setFont(monospace_font())
        self.entry.setPlaceholderText("watch an expression at this step: x.shape, cfg.scale, self.fc, top …")
        self.entry.returnPressed.connect(self._add_typed)
        self.remove_button = QToolButton(self)
        self.remove_button.setText("Remove")
        self.remove_button.clicked.connect(self._remove_current)
        row = QHBoxLayout()
        row.setContentsMargins(2, 0, 2, 2)
        row.addWidget(self.entry, 1)
        row.addWidget(self.remove_button)
        self.layout_.addLayout(row)

    def set_expressions(self, expressions) -> None:
        self.expressions = [e for e in expressions if e.strip()]
        self.sig_watches_changed.emit(list(self.expressions))

    def add(self, expression: str) -> None:
        expression = expression.strip()
        if expression and expression not in self.expressions:
            self.set_expressions(self.expressions + [expression])

    def show_results(self, results) -> None:
        """WatchResults, one per expression (an empty list: no step to read them at)."""
        items = []
        for expression, result in zip(self.expressions, list(results) + [None] * len(self.expressions)):
            if result is None:
                items.append(RowItem((expression, "(no trace open)", "", ""), payload=expression, dim=True))
                continue
            tooltip = result.value + ("\n" + "\n".join(result.guards) if result.guards else "")
            items.append(RowItem((expression, result.value, result.kind, result.source), payload=expression,
                                 error=result.error, tooltip=tooltip))
        self.model.set_items(items)
        self._fit_columns(fresh=True)
        self.remove_button.setEnabled(bool(items))

    def values(self) -> dict[str, str]:
        return {item.values[0]: item.values[1] for item in self.model.items()}

    def _add_typed(self) -> None:
        self.add(self.entry.text())
        self.entry.clear()

    def _remove_current(self) -> None:
        item = self.current_item()
        if item is not None:
            self.set_expressions([e for e in self.expressions if e != item.payload])

    def keyPressEvent(self, event):  # noqa: N802 - Qt override
        if event.key() == Qt.Key_Delete:
            self._remove_current()
            return
        super().keyPressEvent(event)


__all__ = ["WatchPanel"]
