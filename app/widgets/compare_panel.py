"""The Compare panel: the open script under Standin and under real torch.compile, frame by frame.

A row per frame and per call with an agree (✓) or differ (✗) mark; selecting
a row shows that frame side by side (each engine's compiles, graphs, breaks and
guards, in its own words) and its graph breaks; clicking a break that only
Standin makes asks to open its instruction in the trace.  The panel shows what
app.models.compare_model computes and emits signals; it runs nothing itself.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QPlainTextEdit, QProgressBar,
                               QPushButton, QSplitter, QTreeView, QVBoxLayout, QWidget)

from app.models import compare_model as cm
from app.models.row_tree_model import ITEM_ROLE, RowTreeModel, monospace_font
from app.models.rows import RowItem
from tracer.compare import FrameDiff

BREAK_COLUMNS = ("Engine", "Where", "Entry", "Reason")
TABLE_WIDTHS = (28, 300, 300, 300)  # px for the first columns; the last stretches
LEAST_VIEW_HEIGHT = 40  # px: each view scrolls below this, so the dock tabbed with the FX graph stays short


def _tree(model: RowTreeModel, widths: tuple) -> QTreeView:
    view = QTreeView()
    view.setModel(model)
    view.setRootIsDecorated(False)
    view.setUniformRowHeights(True)
    view.setSelectionBehavior(QAbstractItemView.SelectRows)
    view.setEditTriggers(QAbstractItemView.NoEditTriggers)
    view.header().setStretchLastSection(True)
    view.header().setSectionResizeMode(QHeaderView.Interactive)
    for column, width in enumerate(widths):
        view.setColumnWidth(column, width)
    view.setMinimumHeight(LEAST_VIEW_HEIGHT)
    return view


def _text_box(placeholder: str) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setReadOnly(True)
    box.setFont(monospace_font())
    box.setLineWrapMode(QPlainTextEdit.NoWrap)
    box.setPlaceholderText(placeholder)
    box.setMinimumHeight(LEAST_VIEW_HEIGHT)
    return box


def _titled(title: str, widget: QWidget) -> QWidget:
    column = QWidget()
    layout = QVBoxLayout(column)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(1)
    layout.addWidget(QLabel(f"<b>{title}</b>"))
    layout.addWidget(widget, 1)
    return column


class ComparePanel(QWidget):
    sig_compare_requested = Signal()
    sig_stop_requested = Signal()
    sig_break_selected = Signal(object)  # the BreakRow of a Standin-only break (app.models.compare_model)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.comparison = None
        self.compare_button = QPushButton("Compare with torch.compile")
        self.compare_button.setToolTip("Run the open script under real torch.compile too, and compare frame by frame")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.status = QLabel("Compare the open script with real torch.compile: press Compare.")
        self.status.setObjectName("compareStatus")
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(140)
        self.busy.setMaximumHeight(14)
        self.busy.hide()
        bar = QHBoxLayout()
        for widget in (self.compare_button, self.stop_button):
            bar.addWidget(widget)
        bar.addWidget(self.status, 1)
        bar.addWidget(self.busy)

        self.table_model = RowTreeModel(cm.COLUMNS, centered_columns=(cm.COL_MARK,))
        self.table = _tree(self.table_model, TABLE_WIDTHS)
        self.standin_text = _text_box("Standin's side of the selected frame")
        self.dynamo_text = _text_box("Dynamo's side of the selected frame")
        self.differences = QPlainTextEdit()  # what differs, for the selected row: scrolls when guards run long
        self.differences.setReadOnly(True)
        self.differences.setMinimumHeight(LEAST_VIEW_HEIGHT)
        self.differences.setPlaceholderText("Select a frame or call: what differs shows here")
        self.breaks_model = RowTreeModel(BREAK_COLUMNS, (1, 2))
        self.breaks = _tree(self.breaks_model, (80, 140, 70))
        self.breaks.setToolTip("Graph breaks of the selected frame; click one that only Standin makes to open it "
                               "in the trace")

        self.splitter = self._arrange()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(bar)
        layout.addWidget(self.splitter, 1)

        self.compare_button.clicked.connect(self.sig_compare_requested)
        self.stop_button.clicked.connect(self.sig_stop_requested)
        self.table.selectionModel().currentRowChanged.connect(lambda index, _: self._show_row(index.data(ITEM_ROLE)))
        self.breaks.clicked.connect(lambda index: self._break_clicked(index.data(ITEM_ROLE)))

    def _arrange(self) -> QSplitter:
        """The table above; below it three columns of the same height, each engine's side and what differs
        (with the breaks): in a bottom dock a quarter of the window high, each still shows a dozen lines."""
        columns = QSplitter(Qt.Horizontal)
        for title, box in (("Standin", self.standin_text), ("torch.compile (Dynamo)", self.dynamo_text)):
            columns.addWidget(_titled(title, box))
        differs = QSplitter(Qt.Vertical)
        differs.addWidget(_titled("What differs", self.differences))
        differs.addWidget(self.breaks)
        differs.setSizes([3, 2])
        columns.addWidget(differs)
        self.columns, self._columns_dragged = columns, False
        columns.splitterMoved.connect(self._on_columns_dragged)
        splitter = QSplitter(Qt.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(columns)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([1, 2])
        return splitter

    def _on_columns_dragged(self, *_) -> None:
        self._columns_dragged = True

    def resizeEvent(self, event):  # noqa: N802 - Qt override
        """Equal thirds, whatever width each side's text would like, until the user drags them."""
        super().resizeEvent(event)
        if not self._columns_dragged:
            width = self.columns.width() or self.width()
            self.columns.setSizes([width // 3] * 3)

    # ---- slots ---------------------------------------------------------------------------------
    def set_running(self, running: bool, name: str = "") -> None:
        self.compare_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.busy.setVisible(running)
        if running:
            self.status.setText(f"comparing {name} under Standin and torch.compile …")
            self._name = name

    def set_progress(self, seconds: float) -> None:
        self.status.setText(f"comparing {getattr(self, '_name', '')} under Standin and torch.compile … {seconds:.0f} s")

    def set_message(self, text: str) -> None:
        self.status.setText(text)

    def show_comparison(self, comparison) -> None:
        self.comparison = comparison
        items = cm.table_rows(comparison)
        self.table_model.set_items(items)
        self.status.setText(cm.verdict(comparison))
        first = next((i for i, row in enumerate(items) if row.error and row.payload is not None), 1)
        if 0 <= first < len(items):
            self.select_row(first)
        else:
            self._show_row(None)

    def select_row(self, row: int) -> None:
        """Select a table row (0 is the script run): its frame or call shows side by side."""
        index = self.table_model.index(row, 0)
        self.table.setCurrentIndex(index)
        self._show_row(index.data(ITEM_ROLE))

    def rows(self) -> list[tuple]:
        """The table as shown: one tuple of texts per row."""
        return [item.values for item in self.table_model.items()]

    def break_rows(self) -> list[cm.BreakRow]:
        return [item.payload for item in self.breaks_model.items()]

    def _show_row(self, item: RowItem | None) -> None:
        payload = item.payload if item is not None else None
        standin, dynamo, differences = cm.side_by_side(payload)
        self.standin_text.setPlainText(standin)
        self.dynamo_text.setPlainText(dynamo)
        self.differences.setPlainText("\n".join(differences) if differences else
                                      ("Both engines agree here." if payload is not None else ""))
        self.breaks_model.set_items(cm.break_items(payload) if isinstance(payload, FrameDiff) else [])

    def _break_clicked(self, item: RowItem | None) -> None:
        row = item.payload if item is not None else None
        if row is not None and row.jumps:
            self.sig_break_selected.emit(row)
