"""Find in source and bytecode (Ctrl+F, F3 / Shift+F3): a bar under the editors, as in VS Code."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

SCOPE_SOURCE, SCOPE_BYTECODE = "source", "bytecode"


class FindBar(QWidget):
    sig_find = Signal(str, str, bool)  # (text, scope, backwards)
    sig_closed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText("Find")
        self.edit.returnPressed.connect(lambda: self._find(False))
        self.scope = QComboBox(self)
        self.scope.addItem("in source", SCOPE_SOURCE)
        self.scope.addItem("in bytecode", SCOPE_BYTECODE)
        self.status = QLabel(self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.addWidget(QLabel("Find:", self))
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.scope)
        for text, tip, backwards in (("↑", "Previous (Shift+F3)", True), ("↓", "Next (F3)", False)):
            button = QToolButton(self)
            button.setText(text)
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, b=backwards: self._find(b))
            layout.addWidget(button)
        layout.addWidget(self.status)
        close = QToolButton(self)
        close.setText("×")
        close.setToolTip("Close (Esc)")
        close.clicked.connect(self.close_bar)
        layout.addWidget(close)

    def open_bar(self, scope: str | None = None) -> None:
        if scope is not None:
            self.scope.setCurrentIndex(self.scope.findData(scope))
        self.show()
        self.edit.setFocus()
        self.edit.selectAll()

    def close_bar(self) -> None:
        self.hide()
        self.sig_closed.emit()

    def find_next(self, backwards: bool = False) -> None:
        self._find(backwards)

    def show_result(self, found: bool) -> None:
        self.status.setText("" if found else "not found")

    def _find(self, backwards: bool) -> None:
        if self.edit.text():
            self.sig_find.emit(self.edit.text(), self.scope.currentData(), backwards)

    def keyPressEvent(self, event):  # noqa: N802 - Qt override
        if event.key() == Qt.Key_Escape:
            self.close_bar()
            return
        super().keyPressEvent(event)


__all__ = ["FindBar", "SCOPE_SOURCE", "SCOPE_BYTECODE"]
