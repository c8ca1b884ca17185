"""The guard editor: change a module global, see which guard would fail, call again, compare entries.

This is Standin's signature panel. The user picks a compiled function, sees the
globals its guards read (and the script's other simple globals), edits one by
typing a Python expression, and sees *before* calling whether the next call
would hit the cache or which guard would fail (the engine's what-if
prediction). "Call again" then runs the function with its last arguments and
shows the recompile and its reason; the compare area puts two cache entries'
guards and graphs side by side with differing lines highlighted.

The widget is a view over `tracer.debug.Session`: it calls `session.editor(fn)`
(undoable edits), `session.predict(fn)` and `session.call_again(fn)`, keeps no
engine objects beyond the session and the function, and tells the rest of the
app what happened through `sig_*` signals only.
"""
from __future__ import annotations

import os

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QTextCursor, QTextFormat
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QGridLayout, QGroupBox, QHBoxLayout,
                               QHeaderView, QLabel, QLineEdit, QPlainTextEdit, QPushButton, QSplitter,
                               QTableWidget, QTableWidgetItem, QTextEdit, QVBoxLayout, QWidget)

from .. import theme
from ..models.guard_editor_model import (GlobalRow, PREDICTION_HIT, PREDICTION_LINES, PREDICTION_NONE, PREDICTION_RECOMPILE, SIDE_LEFT, SIDE_RIGHT, _UNEDITABLE, _bracket_id, _is_simple, diff_lines, entry_text, format_prediction, global_path, guard_line, other_globals, parse_shapes, short_repr)  # noqa: F401 (re-exported)

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
    sig_called = Signal(object)  # a tracer.debug.CallOutcome (its .timelines hold the new traces)
    sig_edit_applied = Signal(str, str)  # (path, repr of the new value)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._session = None
        self._function = None
        self._rows: list[GlobalRow] = []
        self._entries: list = []
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

        # left: globals, edit row, prediction, actions, outcome
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
        self.shapes_edit.editingFinished.connect(self.predict)

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

        globals_box = QGroupBox("Module globals")
        globals_layout = QVBoxLayout(globals_box)
        globals_layout.addWidget(self.table, 1)
        globals_layout.addLayout(edit_row)
        globals_layout.addWidget(self.error_label)

        next_box = QGroupBox("Next call")
        next_layout = QVBoxLayout(next_box)
        next_layout.addWidget(self.shapes_edit)
        next_layout.addWidget(self.prediction_view)
        next_layout.addLayout(actions)
        next_layout.addWidget(self.outcome_view, 1)

        upper = QSplitter(Qt.Horizontal)
        upper.addWidget(globals_box)
        upper.addWidget(next_box)
        upper.setStretchFactor(0, 1)
        upper.setStretchFactor(1, 1)
        upper.setChildrenCollapsible(False)

        # below: compare two cache entries, full width so guard lines stay readable
        compare_box = QGroupBox("Compare cache entries")
        compare_layout = QGridLayout(compare_box)
        self.compare_combos = {SIDE_LEFT: QComboBox(), SIDE_RIGHT: QComboBox()}
        self.compare_panes = {SIDE_LEFT: QPlainTextEdit(), SIDE_RIGHT: QPlainTextEdit()}
        for side in (SIDE_LEFT, SIDE_RIGHT):
            combo, pane = self.compare_combos[side], self.compare_panes[side]
            combo.currentIndexChanged.connect(self._refresh_compare)
            pane.setReadOnly(True)
            pane.setFont(mono)
            pane.setLineWrapMode(QPlainTextEdit.NoWrap)
            pick = QHBoxLayout()
            pick.addWidget(QLabel("Entry:"))
            pick.addWidget(combo, 1)
            compare_layout.addLayout(pick, 0, side)
            compare_layout.addWidget(pane, 1, side)
        compare_layout.setRowStretch(1, 1)

        splitter = QSplitter(Qt.Vertical)
        splitter.addWidget(upper)
        splitter.addWidget(compare_box)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setChildrenCollapsible(False)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self._show_prediction("No function selected.", PREDICTION_NONE)

    # ---- public API ---------------------------------------------------------------------------
    def set_session(self, session) -> None:
        """Show a run `tracer.debug.Session`; selects its first compiled function."""
        self._session = session
        self.function_combo.blockSignals(True)
        self.function_combo.clear()
        for function in (session.functions if session is not None else []):
            self.function_combo.addItem(function.fn.__qualname__)
        self.function_combo.blockSignals(False)
        functions = session.functions if session is not None else []
        self.set_function(functions[0] if functions else None)

    def set_function(self, function) -> None:
        """Edit the globals of one of the session's `CompiledFunction`s."""
        self._function = function
        if self._session is not None and function is not None and function in self._session.functions:
            index = self._session.functions.index(function)
            if self.function_combo.currentIndex() != index:
                self.function_combo.blockSignals(True)
                self.function_combo.setCurrentIndex(index)
                self.function_combo.blockSignals(False)
        self.outcome_view.clear()
        self._clear_error()
        self._refresh_entries(select_last=True)
        self.refresh()

    def session(self):
        return self._session

    def function(self):
        return self._function

    def refresh(self) -> None:
        """Re-read the globals and re-run the prediction (after an edit made elsewhere)."""
        self._fill_table()
        self.predict()
        self._update_enabled()

    def set_expression(self, path: str, text: str) -> bool:
        """Evaluate `text` in the module and assign it to `path`; False (and a red message) on error."""
        editor = self._editor()
        path, text = path.strip(), text.strip()
        if editor is None:
            self._show_error("Open a script and choose a compiled function first.")
            return False
        if not path or not text:
            self._show_error("Give a path (e.g. cfg.scale) and an expression (e.g. 5).")
            return False
        try:
            edit = editor.set_expression(path, text)
        except BaseException as error:  # the user's expression: any error is shown, nothing changes
            if isinstance(error, (KeyboardInterrupt, SystemExit)):
                raise
            self._show_error(f"{path} = {text}: {type(error).__name__}: {error}")
            self._fill_table()  # put back the cell text the user typed over
            return False
        self._clear_error()
        value = short_repr(edit.new)
        self._fill_table()
        self._select_path(path)
        self.predict()
        self._update_enabled()
        self.sig_edit_applied.emit(path, value)
        return True

    def predict(self) -> str:
        """Ask the engine which entry the next call would run; show and emit the answer."""
        if self._session is None or self._function is None:
            text, kind = "No function selected.", PREDICTION_NONE
        else:
            try:
                prediction = self._session.predict(self._function, parse_shapes(self.shapes_edit.text()))
            except Exception as error:  # e.g. never called yet, or its arguments no longer bind
                text, kind = f"cannot predict: {error}", PREDICTION_NONE
            else:
                text, kind = format_prediction(prediction, os.path.dirname(self._session.path))
        self._show_prediction(text, kind)
        self.sig_prediction.emit(text)
        return text

    def call_again(self):
        """Call the function with its last arguments; show and emit the `CallOutcome`."""
        if self._session is None or self._function is None:
            return None
        try:
            outcome = self._session.call_again(self._function, parse_shapes(self.shapes_edit.text()))
        except Exception as error:  # e.g. the function was never called
            self.outcome_view.setPlainText(f"cannot call again: {error}")
            return None
        self.outcome_view.setPlainText(self._outcome_text(outcome))
        self._refresh_entries(select_last=outcome.compiled)
        self.refresh()
        self.sig_called.emit(outcome)
        return outcome

    def undo(self) -> None:
        editor = self._editor()
        if editor is not None and editor.history:
            editor.undo()
        self._clear_error()
        self.refresh()

    def undo_all(self) -> None:
        editor = self._editor()
        if editor is not None:
            editor.undo_all()
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
        """Ask the prediction for tensors of new shapes ("x=6x2"); returns the prediction text."""
        self.shapes_edit.setText(text)
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
    def _editor(self):
        if self._session is None or self._function is None:
            return None
        return self._session.editor(self._function)

    def _guard_kinds(self) -> dict[str, list[str]]:
        """Editor path -> guard kinds installed on it, across all the function's frames and entries."""
        kinds: dict[str, list[str]] = {}
        for frame in self._function.all_frames():
            for entry in frame.cache_entries:
                for guard in entry.guards:
                    path = global_path(guard.source_name)
                    if path is not None and guard.kind not in kinds.setdefault(path, []):
                        kinds[path].append(guard.kind)
        return kinds

    def _collect_rows(self) -> list[GlobalRow]:
        if self._session is None or self._function is None:
            return []
        editor = self._editor()
        kinds = self._guard_kinds()
        rows, seen = [], set()
        for source in self._session.guarded_globals(self._function):
            path = global_path(source)
            if path is None or path in seen:
                continue
            path_kinds = tuple(kinds.get(path, ()))
            if path_kinds and set(path_kinds) <= {"TYPE_MATCH"}:
                continue  # a container whose type is pinned: its guarded attributes are the rows
            try:
                value = editor.get(path)
            except Exception as error:
                rows.append(GlobalRow(path, f"<unavailable: {type(error).__name__}>", path_kinds))
                seen.add(path)
                continue
            if isinstance(value, _UNEDITABLE) or (callable(value) and not _is_simple(value)):
                continue  # modules, functions, builtins: pinned by identity, nothing to type
            rows.append(GlobalRow(path, short_repr(value), path_kinds))
            seen.add(path)
        for path, value in other_globals(self._session.globals_of(self._function), seen):
            rows.append(GlobalRow(path, short_repr(value)))
        return rows

    def _fill_table(self) -> None:
        selected = self._selected_path()
        self._rows = self._collect_rows()
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
        self._entries = []
        if self._function is not None:
            for frame in self._function.all_frames():
                self._entries.extend(frame.cache_entries)
        labels = [self._entry_label(entry) for entry in self._entries]
        newest = self._newest_pair()
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

    def _newest_pair(self) -> tuple[int, int]:
        """Indexes of the most recently compiled entry and the entry before it in the same frame."""
        if not self._entries:
            return -1, -1
        newest_id, newest_time = None, None
        for frame in self._function.all_frames():
            for event in frame.compile_events:
                when = getattr(event, "time", None)
                if event.kind in ("compile", "recompile") and when is not None \
                        and (newest_time is None or when > newest_time):
                    newest_id, newest_time = event.compile_id, when
        ids = [entry.compile_id for entry in self._entries]
        right = ids.index(newest_id) if newest_id in ids else len(ids) - 1
        frame_prefix = ids[right].split("/")[0] + "/"
        earlier = [i for i in range(right) if ids[i].startswith(frame_prefix)]
        left = earlier[-1] if earlier else max(0, right - 1)
        return left, right

    def _entry_label(self, entry) -> str:
        frame = next((f for f in self._function.all_frames() if entry in f.cache_entries), self._function)
        name = "" if frame is self._function else f"  ({frame.code.co_name})"
        return f"[{entry.compile_id}]{name}"

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

    def _outcome_text(self, outcome) -> str:
        base = os.path.dirname(self._session.path) + os.sep
        lines = []
        if outcome.error:
            lines.append(f"raised {outcome.error}")
        elif outcome.compiled:
            lines.append("recompiled:")
            for event in outcome.events:
                reason = (event.reason or "").replace(base, "")
                parts = [p.strip() for p in reason.split("; ")] if reason else []
                lines.append(f"  new entry [{event.compile_id}] ({event.kind})")
                lines += [f"    because {_bracket_id(part)}" for part in parts]
            if outcome.timelines:
                lines.append(f"  {len(outcome.timelines)} new trace(s) recorded")
        else:
            lines.append(f"cache hit: entry [{outcome.hit}] ran")
        if outcome.stdout:
            lines.append("stdout:")
            lines += ["  " + line for line in outcome.stdout.rstrip("\n").splitlines()]
        if not outcome.error and outcome.result is not None:
            lines.append(f"returned {short_repr(outcome.result, 160)}")
        return "\n".join(lines)

    def _show_prediction(self, text: str, kind: str) -> None:
        self._prediction_kind = kind
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
        editor = self._editor()
        has_function = editor is not None
        has_history = bool(editor.history) if editor is not None else False
        for widget in (self.apply_button, self.call_button, self.path_edit, self.expression_edit):
            widget.setEnabled(has_function)
        self.undo_button.setEnabled(has_history)
        self.undo_all_button.setEnabled(has_history)

    # ---- slots ----------------------------------------------------------------------------------
    def _on_function_chosen(self, index: int) -> None:
        if self._session is not None and 0 <= index < len(self._session.functions):
            self.set_function(self._session.functions[index])

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


__all__ = ["GuardEditor", "GlobalRow", "global_path", "format_prediction", "entry_text", "guard_line",
           "diff_lines", "other_globals", "COL_PATH", "COL_VALUE", "COL_GUARDS", "PREDICTION_HIT",
           "PREDICTION_RECOMPILE", "PREDICTION_NONE", "SIDE_LEFT", "SIDE_RIGHT"]
