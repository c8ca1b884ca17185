"""The guard editor: change a module global, see which guard would fail, call again, compare entries.

This is Standin's signature panel. The user picks a compiled function, sees the
globals its guards read (and the script's other simple globals), edits one by
typing a Python expression, and sees *before* calling whether the next call
would hit the cache or which guard would fail (the engine's what-if
prediction). "Call again" then runs the function with its last arguments and
shows the recompile and its reason; the compare area puts two cache entries'
guards and graphs side by side with differing lines highlighted.

The widget shows an `app.models.guard_editor_model.GuardEditorModel` (the
rows, edits, prediction and entries live there, without Qt); the call itself
is a request (`sig_call_requested`) that the controller runs in a worker and
answers with `show_outcome`, so the window stays live while it traces.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QTextCursor, QTextFormat
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QGridLayout, QGroupBox, QHBoxLayout,
                               QHeaderView, QLabel, QLineEdit, QPlainTextEdit, QPushButton, QSplitter,
                               QTableWidget, QTableWidgetItem, QTextEdit, QVBoxLayout, QWidget)

from .. import theme
from ..models.guard_editor_model import (PREDICTION_HIT, PREDICTION_LINES, PREDICTION_NONE, PREDICTION_RECOMPILE,
                                         SIDE_LEFT, SIDE_RIGHT, EditError, GlobalRow, GuardEditorModel, diff_lines,
                                         entry_text)

# ---- named constants ------------------------------------------------------------------------
COL_PATH = 0
COL_VALUE = 1
COL_GUARDS = 2
COLUMN_TITLES = ("Path", "Value", "Guarded by")



def _prediction_style(kind: str) -> str:
    t = theme.current()
    background, text, border = {PREDICTION_HIT: t.prediction_hit, PREDICTION_RECOMPILE: t.prediction_recompile,
                                PREDICTION_NONE: t.prediction_none}[kind]
    return f"QPlainTextEdit {{ background:{background}; color:{text}; border:1px solid {border}; " \
           "border-radius:4px; padding:2px; }"


def _diff_background(side: int) -> QColor:
    t = theme.current()
    return QColor(t.diff_left_bg if side == SIDE_LEFT else t.diff_right_bg)


class GuardEditor(QWidget):
    """Edit a global, predict hit/recompile, call again, compare two cache entries."""

    sig_prediction = Signal(str)  # the prediction text after every edit, undo or call
    sig_called = Signal(object)  # a tracer.debug.CallOutcome, once shown (its .timelines hold the new traces)
    sig_edit_applied = Signal(str, str)  # (path, repr of the new value)
    sig_call_requested = Signal(object, object)  # (CompiledFunction, new argument shapes or None): call again

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = GuardEditorModel()
        self._rows: list[GlobalRow] = []
        self._entries: list = []
        self._busy = False
        self._filling = False  # True while the table is being refilled: ignore itemChanged
        self._prediction_kind = PREDICTION_NONE
        self._highlighted: dict[int, list[str]] = {SIDE_LEFT: [], SIDE_RIGHT: []}
        self._build()
        self._update_enabled()

    def changeEvent(self, event):  # noqa: N802 - Qt override
        """Style sheets carry colours: re-apply them when the palette turns light or dark."""
        super().changeEvent(event)
        if theme.is_palette_change(event):
            self.error_label.setStyleSheet(f"color:{theme.current().error_text};")
            self.prediction_view.setStyleSheet(_prediction_style(self._prediction_kind))

    # ---- construction ----------------------------------------------------------------------
    def _build(self) -> None:
        mono = QFontDatabase.systemFont(QFontDatabase.FixedFont)

        self.function_combo = QComboBox()
        self.function_combo.setMinimumContentsLength(24)
        self.function_combo.setSizeAdjustPolicy(QComboBox.AdjustToContents)
        self.function_combo.currentIndexChanged.connect(self._on_function_chosen)
        top = QHBoxLayout()
        top.addWidget(QLabel("Function:"))
        top.addWidget(self.function_combo)
        top.addStretch(1)

        # left: globals and the edit row; right: the prediction, actions and outcome of the next call
        upper = QSplitter(Qt.Horizontal)
        upper.addWidget(self._build_globals_box(mono))
        upper.addWidget(self._build_next_box(mono))
        upper.setStretchFactor(0, 1)
        upper.setStretchFactor(1, 1)
        upper.setChildrenCollapsible(False)

        splitter = QSplitter(Qt.Vertical)
        splitter.addWidget(upper)
        splitter.addWidget(self._build_compare_box(mono))  # full width so guard lines stay readable
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setChildrenCollapsible(False)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self._show_prediction("No function selected.", PREDICTION_NONE)

    def _build_globals_box(self, mono) -> QGroupBox:
        """The module's globals the entries guard, and the row that sets one."""
        self.table = QTableWidget(0, len(COLUMN_TITLES))
        self.table.setHorizontalHeaderLabels(COLUMN_TITLES)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(COL_PATH, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(COL_VALUE, QHeaderView.Stretch)
        header.setSectionResizeMode(COL_GUARDS, QHeaderView.ResizeToContents)
        self.table.itemChanged.connect(self._on_item_changed)
        self.table.itemSelectionChanged.connect(self._on_row_selected)

        self.path_edit = QLineEdit()
        self.path_edit.setPlaceholderText("path, e.g. cfg.scale")
        self.path_edit.setFont(mono)
        self.expression_edit = QLineEdit()
        self.expression_edit.setPlaceholderText("Python expression, evaluated in the script's module")
        self.expression_edit.setFont(mono)
        self.expression_edit.returnPressed.connect(self._on_apply_clicked)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setToolTip("Evaluate the expression in the module and assign it to the path")
        self.apply_button.clicked.connect(self._on_apply_clicked)
        self.error_label = QLabel()
        self.error_label.setStyleSheet(f"color:{theme.current().error_text};")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.error_label.hide()

        edit_row = QGridLayout()
        edit_row.addWidget(QLabel("Set"), 0, 0)
        edit_row.addWidget(self.path_edit, 0, 1)
        edit_row.addWidget(QLabel("="), 0, 2)
        edit_row.addWidget(self.expression_edit, 0, 3)
        edit_row.addWidget(self.apply_button, 0, 4)
        edit_row.setColumnStretch(1, 2)
        edit_row.setColumnStretch(3, 3)

        globals_box = QGroupBox("Module globals")
        globals_layout = QVBoxLayout(globals_box)
        globals_layout.addWidget(self.table, 1)
        globals_layout.addLayout(edit_row)
        globals_layout.addWidget(self.error_label)
        return globals_box

    def _build_next_box(self, mono) -> QGroupBox:
        """What the next call will do, the buttons that make it or undo edits, and what it did."""
        # a read-only text box, not a QLabel: failure lines are long and must wrap inside a splitter
        self.prediction_view = QPlainTextEdit()
        self.prediction_view.setReadOnly(True)
        self.prediction_view.setFont(mono)
        self.prediction_view.setLineWrapMode(QPlainTextEdit.WidgetWidth)
        self.prediction_view.setFixedHeight(self.prediction_view.fontMetrics().lineSpacing() * PREDICTION_LINES + 16)

        self.shapes_edit = QLineEdit()  # what-if with tensors of new shapes: the dynamic-shape question
        self.shapes_edit.setPlaceholderText("new argument shapes, e.g. x=6x2 (empty: the last call's)")
        self.shapes_edit.setFont(mono)
        self.shapes_edit.setToolTip("Predict and call again with fresh tensors of these shapes")
        self.shapes_edit.editingFinished.connect(lambda: self.set_shapes(self.shapes_edit.text()))

        self.call_button = QPushButton("Call again")
        self.call_button.setToolTip("Call the function with its last arguments and see what the cache does")
        self.call_button.clicked.connect(self.call_again)
        self.undo_button = QPushButton("Undo")
        self.undo_button.clicked.connect(self.undo)
        self.undo_all_button = QPushButton("Undo all")
        self.undo_all_button.clicked.connect(self.undo_all)
        actions = QHBoxLayout()
        actions.addWidget(self.call_button)
        actions.addStretch(1)
        actions.addWidget(self.undo_button)
        actions.addWidget(self.undo_all_button)

        self.outcome_view = QPlainTextEdit()
        self.outcome_view.setReadOnly(True)
        self.outcome_view.setFont(mono)
        self.outcome_view.setPlaceholderText("Press “Call again” to run the function with its last arguments.")
        self.outcome_view.setLineWrapMode(QPlainTextEdit.WidgetWidth)

        next_box = QGroupBox("Next call")
        next_layout = QVBoxLayout(next_box)
        next_layout.addWidget(self.shapes_edit)
        next_layout.addWidget(self.prediction_view)
        next_layout.addLayout(actions)
        next_layout.addWidget(self.outcome_view, 1)
        return next_box

    def _build_compare_box(self, mono) -> QGroupBox:
        """Two cache entries side by side."""
        compare_box = QGroupBox("Compare cache entries")
        compare_layout = QGridLayout(compare_box)
        self.compare_combos = {SIDE_LEFT: QComboBox(), SIDE_RIGHT: QComboBox()}
        self.compare_panes = {SIDE_LEFT: QPlainTextEdit(), SIDE_RIGHT: QPlainTextEdit()}
        for side in (SIDE_LEFT, SIDE_RIGHT):
            combo, pane = self.compare_combos[side], self.compare_panes[side]
            combo.currentIndexChanged.connect(self._refresh_compare)
            pane.setReadOnly(True)
            pane.setFont(mono)
            pane.setLineWrapMode(QPlainTextEdit.WidgetWidth)  # long guard lines wrap: no sideways scrolling
            pick = QHBoxLayout()
            pick.addWidget(QLabel("Entry:"))
            pick.addWidget(combo, 1)
            compare_layout.addLayout(pick, 0, side)
            compare_layout.addWidget(pane, 1, side)
        compare_layout.setRowStretch(1, 1)
        return compare_box

    # ---- public API ---------------------------------------------------------------------------
    def set_session(self, session) -> None:
        """Show a run `tracer.debug.Session` (a fresh model of it); selects its first compiled function.

        Whatever was typed for the previous session is cleared with it."""
        self.set_model(GuardEditorModel(session))

    def set_model(self, model: GuardEditorModel) -> None:
        self.model = model
        self.function_combo.blockSignals(True)
        self.function_combo.clear()
        self.function_combo.addItems(model.function_names())
        self.function_combo.blockSignals(False)
        self.path_edit.clear()
        self.expression_edit.clear()
        self.set_function(model.function)

    def set_function(self, function) -> None:
        """Edit the globals of one of the session's `CompiledFunction`s."""
        functions = self.model.functions()
        self.model.choose(functions.index(function) if function in functions else -1)
        index = self.model.index()
        if self.function_combo.currentIndex() != index:
            self.function_combo.blockSignals(True)
            self.function_combo.setCurrentIndex(index)
            self.function_combo.blockSignals(False)
        self.outcome_view.clear()
        self._clear_error()
        self._refresh_entries(select_last=True)
        self.refresh()

    def session(self):
        return self.model.session

    def function(self):
        return self.model.function

    def refresh(self) -> None:
        """Re-read the globals and re-run the prediction (after an edit made elsewhere)."""
        self._fill_table()
        self.predict()
        self._update_enabled()

    def set_expression(self, path: str, text: str) -> bool:
        """Evaluate `text` in the module and assign it to `path`; False (and a red message) on error."""
        try:
            value = self.model.set_expression(path, text)
        except EditError as error:
            self._show_error(str(error))
            self._fill_table()  # put back the cell text the user typed over
            return False
        self._clear_error()
        self._fill_table()
        self._select_path(path.strip())
        self.predict()
        self._update_enabled()
        self.sig_edit_applied.emit(path.strip(), value)
        return True

    def predict(self) -> str:
        """Ask the engine which entry the next call would run; show and emit the answer."""
        text, kind = self.model.predict()
        self._show_prediction(text, kind)
        self.sig_prediction.emit(text)
        return text

    def call_again(self) -> None:
        """Ask for the function to be called with its last arguments; `show_outcome` answers."""
        if not self.model.ready or self._busy:
            return None
        self.set_busy(True)
        self.sig_call_requested.emit(self.model.function, self.model.shapes or None)
        return None

    def set_busy(self, busy: bool) -> None:
        """While a call runs: say so and keep the buttons from starting another."""
        self._busy = busy
        if busy:
            self.outcome_view.setPlainText(f"calling {self.function_combo.currentText()} again … "
                                           "(the first call can take a few seconds: torch warms up)")
        self._update_enabled()

    def show_outcome(self, outcome) -> None:
        """The answer to a call request: a `CallOutcome`, or a string saying why it could not run."""
        self.set_busy(False)
        if isinstance(outcome, str):
            self.outcome_view.setPlainText(f"cannot call again: {outcome}")
            return
        self.outcome_view.setPlainText(self.model.outcome_text(outcome))
        self._refresh_entries(select_last=outcome.compiled)
        self.refresh()
        self.sig_called.emit(outcome)

    def undo(self) -> None:
        self.model.undo()
        self._clear_error()
        self.refresh()

    def undo_all(self) -> None:
        self.model.undo_all()
        self._clear_error()
        self.refresh()

    def set_compare(self, left_id: str, right_id: str) -> None:
        """Compare two cache entries by compile id (e.g. "0/0", "0/1")."""
        ids = [entry.compile_id for entry in self._entries]
        for side, wanted in ((SIDE_LEFT, left_id), (SIDE_RIGHT, right_id)):
            if wanted in ids:
                self.compare_combos[side].setCurrentIndex(ids.index(wanted))
        self._refresh_compare()

    # ---- read-back for tests and the main window -------------------------------------------------
    def rows(self) -> list[GlobalRow]:
        return list(self._rows)

    def row(self, path: str) -> GlobalRow | None:
        return next((r for r in self._rows if r.path == path), None)

    def set_shapes(self, text: str) -> str:
        """Ask the prediction (and the next call) for tensors of new shapes ("x=6x2"); returns the prediction."""
        if self.shapes_edit.text() != text:
            self.shapes_edit.setText(text)
        try:
            self.model.set_shapes(text)
        except ValueError as error:
            self._show_prediction(f"cannot predict: {error}", PREDICTION_NONE)
            return self.prediction_text()
        return self.predict()

    def prediction_text(self) -> str:
        return self.prediction_view.toPlainText()

    def prediction_kind(self) -> str:
        return self._prediction_kind

    def error_text(self) -> str:
        return self.error_label.text() if not self.error_label.isHidden() else ""

    def outcome_text(self) -> str:
        return self.outcome_view.toPlainText()

    def entry_ids(self) -> list[str]:
        return [entry.compile_id for entry in self._entries]

    def compare_text(self, side: int) -> str:
        return self.compare_panes[side].toPlainText()

    def highlighted_lines(self, side: int) -> list[str]:
        """The lines highlighted as different in one compare pane."""
        return list(self._highlighted[side])

    # ---- internals ------------------------------------------------------------------------------
    def _fill_table(self) -> None:
        selected = self._selected_path()
        self._rows = self.model.rows()
        self._filling = True
        try:
            self.table.setRowCount(len(self._rows))
            bold = QFont(self.table.font())
            bold.setBold(True)
            muted = QColor(theme.current().dim_fg)
            for index, row in enumerate(self._rows):
                path_item = QTableWidgetItem(row.path)
                path_item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsSelectable)
                value_item = QTableWidgetItem(row.value)
                value_item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsSelectable | Qt.ItemIsEditable)
                value_item.setToolTip("Double-click to type a new value (a Python expression)")
                guards_item = QTableWidgetItem(", ".join(row.guarded_by) if row.guarded else "—")
                guards_item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsSelectable)
                if row.guarded:
                    path_item.setFont(bold)
                    path_item.setToolTip("guarded: changing it makes the cached entries' guards fail")
                else:
                    guards_item.setForeground(muted)
                    path_item.setToolTip("not guarded: the compiled code does not depend on it")
                self.table.setItem(index, COL_PATH, path_item)
                self.table.setItem(index, COL_VALUE, value_item)
                self.table.setItem(index, COL_GUARDS, guards_item)
        finally:
            self._filling = False
        if selected:
            self._select_path(selected, fill_edits=False)

    def _selected_path(self) -> str | None:
        items = self.table.selectedItems()
        if not items:
            return None
        return self._rows[items[0].row()].path if items[0].row() < len(self._rows) else None

    def _select_path(self, path: str, fill_edits: bool = True) -> None:
        for index, row in enumerate(self._rows):
            if row.path == path:
                self.table.blockSignals(True)
                self.table.selectRow(index)
                self.table.blockSignals(False)
                if fill_edits:
                    self._on_row_selected()
                return

    def _refresh_entries(self, select_last: bool) -> None:
        """Reload the compare combos; optionally select the newest two entries."""
        previous = {side: self.compare_combos[side].currentText() for side in (SIDE_LEFT, SIDE_RIGHT)}
        self._entries = self.model.entries()
        labels = self.model.entry_labels() if self._entries else []
        newest = self.model.newest_pair()
        for side in (SIDE_LEFT, SIDE_RIGHT):
            combo = self.compare_combos[side]
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(labels)
            if select_last or previous[side] not in labels:
                index = newest[side]
            else:
                index = labels.index(previous[side])
            combo.setCurrentIndex(index)
            combo.blockSignals(False)
        self._refresh_compare()

    def _refresh_compare(self) -> None:
        texts = {}
        for side in (SIDE_LEFT, SIDE_RIGHT):
            index = self.compare_combos[side].currentIndex()
            texts[side] = entry_text(self._entries[index]) if 0 <= index < len(self._entries) else ""
            self.compare_panes[side].setPlainText(texts[side])
        left_lines, right_lines = texts[SIDE_LEFT].splitlines(), texts[SIDE_RIGHT].splitlines()
        changed = dict(zip((SIDE_LEFT, SIDE_RIGHT), diff_lines(left_lines, right_lines)))
        lines = {SIDE_LEFT: left_lines, SIDE_RIGHT: right_lines}
        for side in (SIDE_LEFT, SIDE_RIGHT):
            self._highlight(side, changed[side])
            self._highlighted[side] = [lines[side][i] for i in changed[side]]

    def _highlight(self, side: int, line_numbers: list[int]) -> None:
        pane = self.compare_panes[side]
        selections = []
        document = pane.document()
        for number in line_numbers:
            block = document.findBlockByNumber(number)
            if not block.isValid():
                continue
            selection = QTextEdit.ExtraSelection()
            selection.format.setBackground(_diff_background(side))
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            cursor = QTextCursor(block)
            cursor.clearSelection()
            selection.cursor = cursor
            selections.append(selection)
        pane.setExtraSelections(selections)

    def _show_prediction(self, text: str, kind: str) -> None:
        self.prediction_view.setPlainText(text)
        self._prediction_kind = kind
        self.prediction_view.setStyleSheet(_prediction_style(kind))

    def _show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.show()

    def _clear_error(self) -> None:
        self.error_label.clear()
        self.error_label.hide()

    def _update_enabled(self) -> None:
        ready, idle = self.model.ready, not self._busy
        for widget in (self.apply_button, self.path_edit, self.expression_edit):
            widget.setEnabled(ready and idle)
        self.call_button.setEnabled(ready and idle)
        self.call_button.setText("Calling …" if self._busy else "Call again")
        self.undo_button.setEnabled(self.model.can_undo and idle)
        self.undo_all_button.setEnabled(self.model.can_undo and idle)

    # ---- slots ----------------------------------------------------------------------------------
    def _on_function_chosen(self, index: int) -> None:
        functions = self.model.functions()
        if 0 <= index < len(functions):
            self.set_function(functions[index])

    def _on_apply_clicked(self) -> None:
        self.set_expression(self.path_edit.text(), self.expression_edit.text())

    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != COL_VALUE or item.row() >= len(self._rows):
            return
        row = self._rows[item.row()]
        if item.text() == row.value:
            return
        path, text = row.path, item.text()
        self.path_edit.setText(path)
        self.expression_edit.setText(text)
        # apply after the cell editor has closed: set_expression refills the table
        QTimer.singleShot(0, lambda: self.set_expression(path, text))

    def _on_row_selected(self) -> None:
        path = self._selected_path()
        if path is None:
            return
        row = self.row(path)
        self.path_edit.setText(path)
        if row is not None and not row.value.startswith("<"):
            self.expression_edit.setText(row.value)


__all__ = ["GuardEditor", "COL_PATH", "COL_VALUE", "COL_GUARDS"]
