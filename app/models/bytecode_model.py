"""The bytecode table's model: one code object's instructions, like `dis`, as Qt rows.

Rows carry the colour band of their source line (the same colour the source
view gives that line), the current-instruction and breakpoint marks, and a
tooltip that names the tracker an instruction's name refers to at the
current step (`set_hover_texts`), so hovering `LOAD_FAST x` shows what x is now.
"""
from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPoint, Qt
from PySide6.QtGui import QBrush, QColor, QIcon, QPainter, QPixmap, QPolygon

from app import theme
from app.widgets import highlight
from tracer.bytecode import Instruction

# Columns of the instruction table.
COL_MARK = 0     # breakpoint dot / current arrow
COL_OFFSET = 1   # ">>" for jump targets, then the byte offset
COL_LINE = 2
COL_OPNAME = 3
COL_ARGREPR = 4
HEADERS = ("", "Offset", "Line", "Instruction", "Argument")

CURRENT_ROLE = Qt.ItemDataRole.UserRole + 1  # bool: is this the current instruction
LINE_ROLE = Qt.ItemDataRole.UserRole + 2     # int | None: the source line


class BytecodeModel(QAbstractTableModel):
    """Adapts a tuple of tracer Instructions (plain, immutable data) to a table."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._instructions: tuple[Instruction, ...] = ()
        self._row_of_offset: dict[int, int] = {}
        self._current: int | None = None
        self._breakpoints: set[int] = set()
        self._bold = highlight.monospace_font()  # same family as the table: bold must not change the face
        self._bold.setBold(True)
        self._icons: dict[tuple[str, str], QIcon] = {}
        self._hover_texts: dict[str, str] = {}

    def set_instructions(self, instructions: Iterable[Instruction]) -> None:
        self.beginResetModel()
        self._instructions = tuple(instructions)
        self._row_of_offset = {inst.offset: row for row, inst in enumerate(self._instructions)}
        self._current = None
        self._breakpoints = set()
        self.endResetModel()

    def instruction(self, row: int) -> Instruction:
        return self._instructions[row]

    def instructions(self) -> tuple[Instruction, ...]:
        return self._instructions

    def row_of_offset(self, offset: int | None) -> int | None:
        return self._row_of_offset.get(offset) if offset is not None else None

    def set_current(self, offset: int | None) -> int | None:
        old, new = self._current, self.row_of_offset(offset)
        self._current = new
        for row in {old, new} - {None}:
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(HEADERS) - 1))
        return new

    def current_offset(self) -> int | None:
        return self._instructions[self._current].offset if self._current is not None else None

    def set_breakpoints(self, offsets: Iterable[int]) -> None:
        self._breakpoints = set(offsets)
        if self._instructions:
            self.dataChanged.emit(self.index(0, COL_MARK), self.index(len(self._instructions) - 1, COL_MARK))

    def breakpoints(self) -> set[int]:
        return set(self._breakpoints)

    def set_hover_texts(self, texts: dict[str, str]) -> None:
        """name -> its tracker at the current step, added to the tooltip of instructions naming it."""
        self._hover_texts = dict(texts)

    def set_font(self, font) -> None:
        self._bold = type(font)(font)
        self._bold.setBold(True)

    # -- QAbstractTableModel -----------------------------------------------

    def rowCount(self, parent=QModelIndex()):  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self._instructions)

    def columnCount(self, parent=QModelIndex()):  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802 - Qt override
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        inst = self._instructions[row]
        current = row == self._current
        if role == Qt.ItemDataRole.DisplayRole:
            if col == COL_OFFSET:
                return (">> " if inst.is_jump_target else "   ") + f"{inst.offset:>4}"
            if col == COL_LINE:
                return "" if inst.line is None else str(inst.line)
            if col == COL_OPNAME:
                return inst.opname
            if col == COL_ARGREPR:
                if inst.argrepr:
                    return inst.argrepr
                return "" if inst.arg is None else str(inst.arg)
            return None
        if role == Qt.ItemDataRole.DecorationRole and col == COL_MARK:
            if current:
                return self._icon("current+bp" if inst.offset in self._breakpoints else "current")
            if inst.offset in self._breakpoints:
                return self._icon("bp")
            return None
        if role == Qt.ItemDataRole.BackgroundRole:
            colours = theme.current()
            if current:
                return QBrush(QColor(colours.current_line_bg if col != COL_OPNAME else colours.current_span_bg))
            return QBrush(highlight.line_colour(inst.line, theme=colours))
        if role == Qt.ItemDataRole.ForegroundRole:
            colours = theme.current()
            if (col == COL_OFFSET and not inst.is_jump_target) or col == COL_LINE:
                return QBrush(QColor(colours.bytecode_dim_fg))
            if col == COL_OPNAME:
                return QBrush(QColor(colours.bytecode_opname_fg))
            return QBrush(QColor(colours.bytecode_text_fg))
        if role == Qt.ItemDataRole.FontRole and current:
            return self._bold
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (COL_OFFSET, COL_LINE):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            now = self._hover_texts.get(inst.argval) if isinstance(inst.argval, str) else None
            return _tooltip(inst) + (f"\n{inst.argval} now: {now}" if now else "")
        if role == CURRENT_ROLE:
            return current
        if role == LINE_ROLE:
            return inst.line
        return None

    def _icon(self, kind: str) -> QIcon:
        """Icons are drawn once per kind and theme: data() asks for them on every repaint."""
        colours = theme.current()
        key = (kind, colours.name)
        if key not in self._icons:
            self._icons[key] = _marker_icon("bp" in kind, "current" in kind, colours)
        return self._icons[key]


def _tooltip(inst: Instruction) -> str:
    pos = inst.positions
    where = "no source position"
    if pos.lineno is not None:
        where = f"line {pos.lineno}"
        if pos.col_offset is not None:
            end = f"{pos.end_lineno}:" if pos.end_lineno not in (None, pos.lineno) else ""
            where += f", columns {pos.col_offset}\u2013{end}{pos.end_col_offset}"
    jump = f"\njumps to instruction #{inst.target}" if inst.target is not None else ""
    return f"#{inst.index} @ {inst.offset}: {inst.opname} {inst.argrepr}\n{where}{jump}"


def _marker_icon(breakpoint: bool, current: bool, colours: theme.Theme, size: int = 14) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    if breakpoint:
        painter.setBrush(QColor(colours.breakpoint))
        painter.drawEllipse(2, 2, size - 4, size - 4)
    if current:
        painter.setPen(QColor(colours.current_arrow_outline))
        painter.setBrush(QColor(colours.current_arrow))
        m = size // 2
        painter.drawPolygon(QPolygon([QPoint(1, 3), QPoint(m, 3), QPoint(size - 2, m),
                                      QPoint(m, size - 3), QPoint(1, size - 3)]))
    painter.end()
    return QIcon(pixmap)


__all__ = [
    "COL_ARGREPR",
    "COL_LINE",
    "COL_MARK",
    "COL_OFFSET",
    "COL_OPNAME",
    "CURRENT_ROLE",
    "HEADERS",
    "LINE_ROLE",
    "BytecodeModel",
]
