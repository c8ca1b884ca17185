"""The bytecode view: the instructions of one code object, like `dis` in a table.

Rows carry the colour band of their source line (the same colour the source
view gives that line), so the eye links the two panes the way Compiler
Explorer does. The current instruction is marked, breakpoints get a red dot,
jump targets are marked `>>` as `dis` prints them.

Works for original and rewritten code objects alike: instructions without a
source line (generated code) are shown in grey with an empty line cell.
"""
from __future__ import annotations

import os
import types
from collections.abc import Iterable

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPoint,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QMenu,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.models.bytecode_model import (  # noqa: F401
    COL_ARGREPR,
    COL_LINE,
    COL_MARK,
    COL_OFFSET,
    COL_OPNAME,
    CURRENT_ROLE,
    HEADERS,
    LINE_ROLE,
    BytecodeModel,
)
from tracer.bytecode import Instruction, decode

from . import highlight

# Context-menu action ids (QAction.objectName).
ACTION_BREAK_OFFSET = "bytecode.break_on_offset"
ACTION_BREAK_OPCODE = "bytecode.break_on_opcode"

NO_VALUE = -1  # what the signals carry for a missing line or column


class _BandDelegate(QStyledItemDelegate):
    """Paints a selected row as its colour band under a translucent tint.

    Qt's default replaces the row background with the selection colour, which
    would hide the very colour band that links a row to its source line.
    """

    def paint(self, painter, option, index):
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        opt = QStyleOptionViewItem(option)
        opt.state &= ~(QStyle.StateFlag.State_Selected | QStyle.StateFlag.State_HasFocus)
        super().paint(painter, opt, index)
        if selected:
            colours = theme.current()
            painter.fillRect(option.rect, QColor(colours.selection_tint))
            if index.column() == COL_MARK:  # a solid edge on the left says "selected" at a glance
                painter.fillRect(option.rect.left(), option.rect.top(), 3, option.rect.height(),
                                 QColor(colours.selection_edge))


class BytecodeView(theme.FollowsTheme, QWidget):
    """One code object's instructions, with the current one marked.

    `code_key` identifies the code object in signals; it defaults to
    `id(code)`, which is what FrameView.code_key and Timeline.codes use.
    """

    # code_key, offset, line, col_start, col_end (NO_VALUE when unknown; columns are CPython's UTF-8 offsets)
    sig_instruction_selected = Signal(object, int, int, int, int)
    sig_toggle_offset_breakpoint = Signal(str, int)  # function name (co_name), offset
    sig_opcode_breakpoint = Signal(str)              # opname

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._code: types.CodeType | None = None
        self._code_key: object = None
        self._silent = False
        self._last_emitted: int | None = None
        self._title = QLabel(self)
        self._title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # a long qualname must not widen the view (and squeeze the source beside it): it is clipped, whole in the tooltip
        self._title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._style_title()
        self._model = BytecodeModel(self)
        self._table = QTableView(self)
        self._table.setModel(self._model)
        self._setup_table()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._title)
        layout.addWidget(self._table)
        self._table.selectionModel().currentRowChanged.connect(self._current_row_changed)
        self._table.clicked.connect(self._clicked)
        self._table.customContextMenuRequested.connect(self._show_context_menu)

    def _style_title(self) -> None:
        colours = self._theme = theme.current()
        self._title.setStyleSheet(f"QLabel {{ padding: 3px 6px; background: {colours.title_bg};"
                                  f" color: {colours.title_fg}; border-bottom: 1px solid {colours.title_border}; }}")

    def refresh_theme(self) -> None:
        """Re-read the theme if it changed: the title's style sheet is fixed text; cells ask as they paint."""
        if theme.current() is not self._theme:
            self._style_title()
            self._table.viewport().update()

    def _setup_table(self) -> None:
        table = self._table
        font = highlight.monospace_font()
        table.setFont(font)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setShowGrid(False)
        table.setWordWrap(False)
        table.setAlternatingRowColors(False)
        table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        table.verticalHeader().setVisible(False)
        row_height = table.fontMetrics().height() + 4
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        table.verticalHeader().setDefaultSectionSize(row_height)
        header = table.horizontalHeader()
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for col in (COL_OFFSET, COL_LINE, COL_OPNAME):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(COL_MARK, QHeaderView.ResizeMode.Fixed)
        header.setStretchLastSection(True)
        table.setItemDelegate(_BandDelegate(table))
        self._size_columns()

    def _size_columns(self) -> None:
        """Narrow columns sized to what they hold (the widest opname of this code), so the Offset
        column is always in view and the argument gets the rest."""
        table = self._table
        advance = table.fontMetrics().horizontalAdvance("9")
        longest = max((len(inst.opname) for inst in self._model.instructions()), default=12)
        row_height = table.fontMetrics().height() + 4
        table.verticalHeader().setDefaultSectionSize(row_height)
        widths = {COL_MARK: 22, COL_OFFSET: advance * 8, COL_LINE: advance * 5, COL_OPNAME: advance * (longest + 2)}
        for col, width in widths.items():
            table.setColumnWidth(col, width)

    # -- content ------------------------------------------------------------

    def show_code(self, code: types.CodeType | None, code_key: object = None, title: str | None = None) -> None:
        """List `code`'s instructions (None clears). Marks and selection start empty."""
        self._code = code
        self._code_key = (id(code) if code_key is None else code_key) if code is not None else None
        self._silent = True
        try:
            self._model.set_instructions(decode(code).instructions if code is not None else ())
        finally:
            self._silent = False
        self._size_columns()
        self._last_emitted = None
        if title is None and code is not None:
            title = (f"{code.co_qualname}   \u2014   {os.path.basename(code.co_filename)}:{code.co_firstlineno}"
                     f"   ({len(self._model.instructions())} instructions)")
        self._title.setText(title or "")
        self._title.setToolTip(title or "")
        self._title.setVisible(bool(title))

    def clear(self) -> None:
        self.show_code(None)

    def code(self) -> types.CodeType | None:
        return self._code

    def code_key(self) -> object:
        return self._code_key

    def function_name(self) -> str:
        return self._code.co_name if self._code is not None else ""

    def instructions(self) -> tuple[Instruction, ...]:
        return self._model.instructions()

    def code_lines(self) -> set[int]:
        """Source lines this code object covers (for SourceView.set_band_lines)."""
        return {inst.line for inst in self._model.instructions() if inst.line is not None}

    def row_of_offset(self, offset: int) -> int | None:
        return self._model.row_of_offset(offset)

    # -- execution position, links, breakpoints ------------------------------

    def set_current(self, offset: int | None) -> None:
        """Mark the instruction at `offset` as executing (None clears) and scroll to it (up and down
        only: the mark, offset and line columns stay in view)."""
        row = self._model.set_current(offset)
        if row is not None:
            self._table.scrollTo(self._model.index(row, COL_MARK), QAbstractItemView.ScrollHint.EnsureVisible)
            self._table.horizontalScrollBar().setValue(0)

    def set_hover_texts(self, texts: dict[str, str]) -> None:
        """name -> its tracker now: hovering `LOAD_FAST x` says what x is at this step."""
        self._model.set_hover_texts(texts)

    def set_font_size(self, points: float) -> None:
        font = self._table.font()
        font.setPointSizeF(points)
        self._table.setFont(font)
        self._model.set_font(font)
        self._size_columns()

    def find(self, text: str, backwards: bool = False) -> bool:
        """Select the next instruction whose opname or argument contains `text` (case-insensitive,
        wrapping around); False when none does."""
        instructions = self._model.instructions()
        if not text or not instructions:
            return False
        needle = text.lower()
        rows = sorted({index.row() for index in self._table.selectionModel().selectedRows()})
        start = (rows[0] if backwards else rows[-1]) if rows else (len(instructions) if backwards else -1)
        count = len(instructions)
        for step in range(1, count + 1):
            row = (start - step if backwards else start + step) % count
            inst = instructions[row]
            if needle in f"{inst.offset} {inst.opname} {inst.argrepr}".lower():
                self._table.selectRow(row)
                self._table.scrollTo(self._model.index(row, COL_MARK))
                self._table.horizontalScrollBar().setValue(0)
                return True
        return False

    def highlight_offsets(self, offsets: Iterable[int]) -> None:
        """Select the instructions at these offsets (a link from the graph: no signal)."""
        selection = QItemSelection()
        rows = [r for r in (self._model.row_of_offset(o) for o in offsets) if r is not None]
        for row in rows:
            selection.select(self._model.index(row, 0), self._model.index(row, len(HEADERS) - 1))
        self._silent = True
        try:
            self._table.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        finally:
            self._silent = False
        if rows:
            self._table.scrollTo(self._model.index(rows[0], COL_MARK))

    def current_offset(self) -> int | None:
        return self._model.current_offset()

    def highlight_line(self, line: int | None) -> list[int]:
        """Select every instruction of source `line` (source -> bytecode link); returns their rows.

        Does not emit sig_instruction_selected: the link came from the source view.
        """
        rows = [row for row, inst in enumerate(self._model.instructions()) if line is not None and inst.line == line]
        selection = QItemSelection()
        last_col = len(HEADERS) - 1
        for row in rows:
            selection.select(self._model.index(row, 0), self._model.index(row, last_col))
        self._silent = True
        try:
            self._table.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        finally:
            self._silent = False
        self._last_emitted = None
        if rows:
            self._table.scrollTo(self._model.index(rows[-1], COL_OPNAME))
            self._table.scrollTo(self._model.index(rows[0], COL_OPNAME))
        return rows

    def selected_offsets(self) -> list[int]:
        rows = sorted({index.row() for index in self._table.selectionModel().selectedRows()})
        return [self._model.instruction(row).offset for row in rows]

    def select_offset(self, offset: int) -> None:
        """Select one instruction as a user would (emits sig_instruction_selected)."""
        row = self._model.row_of_offset(offset)
        if row is not None:
            self._table.setCurrentIndex(self._model.index(row, COL_OPNAME))
            self._table.selectRow(row)

    def set_breakpoint_offsets(self, offsets: Iterable[int]) -> None:
        """Offsets in this code object that carry a breakpoint (red dots)."""
        self._model.set_breakpoints(offsets)

    def breakpoint_offsets(self) -> set[int]:
        return self._model.breakpoints()

    @property
    def table(self) -> QTableView:
        """The table widget (for focus and tests)."""
        return self._table

    # -- internals ----------------------------------------------------------

    def _emit_selected(self, row: int) -> None:
        inst = self._model.instruction(row)
        pos = inst.positions
        self._last_emitted = row
        self.sig_instruction_selected.emit(
            self._code_key, inst.offset, _or_none(inst.line),
            _or_none(pos.col_offset), _or_none(pos.end_col_offset))

    def _current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not self._silent and current.isValid():
            self._emit_selected(current.row())

    def _clicked(self, index: QModelIndex) -> None:
        # A click on the row that is already current re-links it (currentRowChanged stays quiet).
        if index.isValid() and index.row() != self._last_emitted:
            self._emit_selected(index.row())

    def _context_menu(self, row: int) -> QMenu:
        """The menu for `row` (built separately so tests can trigger actions)."""
        inst = self._model.instruction(row)
        menu = QMenu(self)
        has_bp = inst.offset in self._model.breakpoints()
        at = QAction(("Remove breakpoint on" if has_bp else "Break on") + f" this instruction (offset {inst.offset})",
                     menu)
        at.setObjectName(ACTION_BREAK_OFFSET)
        at.triggered.connect(lambda: self.sig_toggle_offset_breakpoint.emit(self.function_name(), inst.offset))
        every = QAction(f"Break on every {inst.opname}", menu)
        every.setObjectName(ACTION_BREAK_OPCODE)
        every.triggered.connect(lambda: self.sig_opcode_breakpoint.emit(inst.opname))
        menu.addAction(at)
        menu.addAction(every)
        return menu

    def _show_context_menu(self, pos: QPoint) -> None:
        index = self._table.indexAt(pos)
        if not index.isValid():
            return
        menu = self._context_menu(index.row())
        menu.exec(self._table.viewport().mapToGlobal(pos))
        menu.deleteLater()


def _or_none(value: int | None) -> int:
    return NO_VALUE if value is None else value
