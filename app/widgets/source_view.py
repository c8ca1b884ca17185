"""The source view: a read-only Python file with a debugger gutter.

Shows what VS Code shows while stepping: syntax colours, line numbers,
breakpoint dots you toggle by clicking the gutter, the current line with the
exact column span of the current instruction, and (Compiler Explorer style)
a thin colour band beside the lines of the code object being traced.

The widget only displays state and emits `sig_*` signals; the controller
owns the breakpoints and answers a toggle with `set_breakpoints`. The widget
toggles its own dot at once so a click feels immediate even before that.
"""
from __future__ import annotations

import os
from collections.abc import Iterable

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QAction, QColor, QPainter, QPolygon, QTextCharFormat, QTextCursor, QTextDocument, QTextFormat
from PySide6.QtWidgets import QMenu, QPlainTextEdit, QTextEdit, QToolTip, QVBoxLayout, QWidget

from app import theme

from . import highlight

# Context-menu action ids (QAction.objectName), so controllers and tests can find them.
ACTION_RUN_TO_LINE = "source.run_to_line"
ACTION_TOGGLE_BREAKPOINT = "source.toggle_breakpoint"

# Gutter geometry, in pixels.
BREAKPOINT_AREA = 18  # the dot / current-line arrow
BAND_WIDTH = 4        # the per-line colour band
GUTTER_PAD = 6        # between line numbers and the band, and after it


class SourceView(theme.FollowsTheme, QWidget):
    """A Python file with line numbers, breakpoints and the current position.

    Lines are 1-based. Columns in `set_current` are CPython's (UTF-8 byte
    offsets, as in FrameView.columns and Instruction.positions).
    """

    sig_toggle_breakpoint = Signal(str, int)  # filename, line
    sig_line_selected = Signal(str, int)      # filename, line
    sig_run_to_line = Signal(str, int)        # filename, line

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._filename = ""
        self._breakpoints: set[int] = set()
        self._linked: set[int] = set()
        self._band: set[int] = set()
        self._current: tuple[int, int | None, int | None, int | None] | None = None
        self._hover_texts: dict[str, str] = {}
        self._editor = _CodeEditor(self)
        self._highlighter = highlight.PygmentsHighlighter(self._editor.document())
        self._theme = theme.current()  # the theme of the cached formats and marks
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._editor)

    # -- content ------------------------------------------------------------

    def show_file(self, path: str) -> None:
        """Show a file; its name is made absolute to match code objects' co_filename."""
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        self.show_text(text, os.path.abspath(path))

    def show_text(self, text: str, filename: str = "<text>") -> None:
        """Show `text` as `filename`; clears marks that belonged to the previous text."""
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if text.endswith("\n"):
            text = text[:-1]  # a final newline is not a line of its own
        self._filename = filename
        self._breakpoints.clear()
        self._linked.clear()
        self._band.clear()
        self._current = None
        self._highlighter.set_text(text)
        self._editor.set_text(text)
        self._refresh_selections()

    def filename(self) -> str:
        return self._filename

    # -- theme --------------------------------------------------------------

    def refresh_theme(self) -> None:
        """Re-read the theme if it changed: syntax formats and line marks are cached, the gutter is not.

        Hidden views wait for their next show: re-highlighting a long file is not free.
        """
        if theme.current() is self._theme:
            return
        self._theme = theme.current()
        self._highlighter.sync_theme()
        self._refresh_selections()

    def cursor_line(self) -> int:
        """The line the text cursor is on (where F9 and Run to cursor act)."""
        return self._editor.textCursor().blockNumber() + 1

    def set_hover_texts(self, texts: dict[str, str]) -> None:
        """name -> what it is at the current step: shown when the mouse rests on that name."""
        self._hover_texts = dict(texts)

    def hover_text_at(self, line: int, column: int) -> str | None:
        """The hover text of the name at (line, character column), or None."""
        block = self._editor.document().findBlockByNumber(line - 1)
        if not block.isValid():
            return None
        cursor = QTextCursor(block)
        cursor.setPosition(block.position() + min(column, max(0, block.length() - 1)))
        cursor.select(QTextCursor.SelectionType.WordUnderCursor)
        word = cursor.selectedText()
        text = self._hover_texts.get(word)
        return f"{word} — {text}" if text else None

    def set_font_size(self, points: float) -> None:
        """Font zoom (Ctrl+= / Ctrl+-): text and gutter together."""
        font = self._editor.font()
        font.setPointSizeF(points)
        self._editor.setFont(font)
        self._editor.setTabStopDistance(4 * self._editor.fontMetrics().horizontalAdvance(" "))
        self._editor._update_gutter_width()

    def find(self, text: str, backwards: bool = False) -> bool:
        """Select the next match of `text` after the cursor (wrapping around); False when there is none."""
        if not text:
            return False
        flags = QTextDocument.FindFlag.FindBackward if backwards else QTextDocument.FindFlag(0)
        editor = self._editor
        if editor.find(text, flags):
            return True
        cursor = editor.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End if backwards else QTextCursor.MoveOperation.Start)
        editor.setTextCursor(cursor)
        return editor.find(text, flags)

    def line_count(self) -> int:
        return self._editor.blockCount()

    def line_text(self, line: int) -> str:
        block = self._editor.document().findBlockByNumber(line - 1)
        return block.text() if block.isValid() else ""

    # -- breakpoints --------------------------------------------------------

    def set_breakpoints(self, lines: Iterable[int]) -> None:
        """The lines of this file that carry a breakpoint (red dots)."""
        self._breakpoints = set(lines)
        self._editor.gutter.update()

    def breakpoints(self) -> set[int]:
        return set(self._breakpoints)

    def toggle_breakpoint(self, line: int) -> None:
        """What a gutter click does: flip the dot and tell the controller."""
        if not 1 <= line <= self.line_count():
            return
        self._breakpoints ^= {line}
        self._editor.gutter.update()
        self.sig_toggle_breakpoint.emit(self._filename, line)

    # -- execution position and links --------------------------------------

    def set_current(self, line: int | None, col_start: int | None = None, col_end: int | None = None,
                    *, end_line: int | None = None) -> None:
        """Mark the executing line and its column span, and scroll it into view.

        A missing or negative column marks the whole line; `end_line` lets a
        span run over several lines (col_end then applies to end_line).
        """
        if line is None or not 1 <= line <= self.line_count():
            self.clear_current()
            return
        col_start = col_start if col_start is not None and col_start >= 0 else None
        col_end = col_end if col_end is not None and col_end >= 0 else None
        self._current = (line, col_start, col_end, end_line)
        self._refresh_selections()
        self._editor.scroll_to_line(line)
        if col_start is not None:
            self._editor.reveal_column(line, highlight.byte_to_utf16(self.line_text(line), col_start))

    def clear_current(self) -> None:
        self._current = None
        self._refresh_selections()

    def current_line(self) -> int | None:
        return self._current[0] if self._current else None

    def current_span(self) -> tuple[int, int] | None:
        """The marked span as QString positions (start, end) in the current line, or None."""
        sel = self._editor.span_selection
        if sel is None:
            return None
        block = sel.cursor.document().findBlock(sel.cursor.selectionStart())
        return sel.cursor.selectionStart() - block.position(), sel.cursor.selectionEnd() - block.position()

    def highlight_lines(self, lines: Iterable[int]) -> None:
        """Light up lines linked from a bytecode selection; reveals the first one."""
        self._linked = {line for line in lines if line is not None and 1 <= line <= self.line_count()}
        self._refresh_selections()
        if self._linked:
            self._editor.scroll_to_line(min(self._linked), only_if_hidden=True)

    def highlighted_lines(self) -> set[int]:
        return set(self._linked)

    def set_band_lines(self, lines: Iterable[int]) -> None:
        """Lines of the current code object: drawn with their colour band in the gutter."""
        self._band = {line for line in lines if line is not None}
        self._editor.gutter.update()

    def band_lines(self) -> set[int]:
        return set(self._band)

    def visible_lines(self) -> range:
        """The lines currently on screen (1-based, end exclusive)."""
        return self._editor.visible_lines()

    @property
    def editor(self) -> QPlainTextEdit:
        """The text widget (for focus, find and tests)."""
        return self._editor

    @property
    def gutter(self) -> QWidget:
        return self._editor.gutter

    # -- internals ----------------------------------------------------------

    def _refresh_selections(self) -> None:
        doc = self._editor.document()
        colours = theme.current()
        selections = []
        for line in sorted(self._linked):
            selections.append(_line_selection(doc, line, QColor(colours.linked_line_bg)))
        span = None
        if self._current:
            line, col_start, col_end, end_line = self._current
            selections.append(_line_selection(doc, line, QColor(colours.current_line_bg)))
            span = self._span_selection(line, col_start, col_end, end_line, colours)
            if span is not None:
                selections.append(span)
        self._editor.span_selection = span
        self._editor.setExtraSelections(selections)
        self._editor.gutter.update()

    def _span_selection(self, line, col_start, col_end, end_line, colours: theme.Theme):
        doc = self._editor.document()
        block = doc.findBlockByNumber(line - 1)
        text = block.text()
        if col_start is None:
            start = len(text) - len(text.lstrip())  # whole line, minus its indentation
            end = len(text)
            if start >= end:
                return None
            start_pos, end_pos = block.position() + start, block.position() + _utf16(text, end)
        else:
            start_pos = block.position() + highlight.byte_to_utf16(text, col_start)
            last = doc.findBlockByNumber((end_line or line) - 1)
            if not last.isValid() or last.blockNumber() < block.blockNumber():
                last = block
            last_text = last.text()
            if col_end is None or (last == block and col_end <= col_start):
                end_pos = last.position() + _utf16(last_text, len(last_text))
            else:
                end_pos = last.position() + highlight.byte_to_utf16(last_text, col_end)
        if end_pos <= start_pos:
            return None
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(colours.current_span_bg))
        fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
        fmt.setUnderlineColor(QColor(colours.current_span_underline))
        sel.format = fmt
        cursor = QTextCursor(doc)
        cursor.setPosition(start_pos)
        cursor.setPosition(end_pos, QTextCursor.MoveMode.KeepAnchor)
        sel.cursor = cursor
        return sel

    def _context_menu(self, line: int) -> QMenu:
        """The editor's menu for `line` (built separately so tests can trigger actions)."""
        menu = self._editor.createStandardContextMenu()
        first = menu.actions()[0] if menu.actions() else None
        run = QAction(f"Run to cursor (line {line})", menu)
        run.setObjectName(ACTION_RUN_TO_LINE)
        run.triggered.connect(lambda: self.sig_run_to_line.emit(self._filename, line))
        toggle = QAction(("Remove" if line in self._breakpoints else "Add") + f" breakpoint on line {line}", menu)
        toggle.setObjectName(ACTION_TOGGLE_BREAKPOINT)
        toggle.triggered.connect(lambda: self.toggle_breakpoint(line))
        menu.insertAction(first, run)
        menu.insertAction(first, toggle)
        if first is not None:
            menu.insertSeparator(first)
        return menu


def _utf16(text: str, char_col: int) -> int:
    """A Python string index as a QString index."""
    return highlight.char_to_utf16(text, char_col)


def _line_selection(doc, line: int, colour: QColor) -> QTextEdit.ExtraSelection:
    sel = QTextEdit.ExtraSelection()
    fmt = QTextCharFormat()
    fmt.setBackground(colour)
    fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
    sel.format = fmt
    cursor = QTextCursor(doc.findBlockByNumber(line - 1))
    sel.cursor = cursor
    return sel


class _CodeEditor(QPlainTextEdit):
    """QPlainTextEdit plus the gutter (Qt's classic CodeEditor pattern)."""

    def __init__(self, view: SourceView):
        super().__init__(view)
        self._view = view
        self._silent = False
        self._last_line: int | None = None
        self.span_selection = None
        self.setReadOnly(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(highlight.monospace_font())
        self.setTabStopDistance(4 * self.fontMetrics().horizontalAdvance(" "))
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.DefaultContextMenu)
        self.gutter = _Gutter(self)
        self.blockCountChanged.connect(self._update_gutter_width)
        self.updateRequest.connect(self._update_gutter)
        self.cursorPositionChanged.connect(self._cursor_moved)
        self._update_gutter_width()

    def set_text(self, text: str) -> None:
        self._silent = True
        try:
            self.setPlainText(text)
        finally:
            self._silent = False
        self._last_line = None

    # -- gutter plumbing ----------------------------------------------------

    def gutter_width(self) -> int:
        digits = max(3, len(str(self.blockCount())))
        return (BREAKPOINT_AREA + self.fontMetrics().horizontalAdvance("9") * digits
                + GUTTER_PAD + BAND_WIDTH + GUTTER_PAD)

    def _update_gutter_width(self, *_):
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _update_gutter(self, rect: QRect, dy: int):
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, event):  # noqa: N802 - Qt override
        super().resizeEvent(event)
        cr = self.contentsRect()
        self.gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def line_at_y(self, y: int) -> int | None:
        """The 1-based line drawn at viewport height `y`, or None below the text."""
        block = self.cursorForPosition(QPoint(0, y)).block()
        top = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
        bottom = top + self.blockBoundingRect(block).height()
        if not block.isValid() or not top <= y < bottom:
            return None
        return block.blockNumber() + 1

    def line_top(self, line: int) -> int:
        """Viewport y of the top of `line` (may be off screen)."""
        block = self.document().findBlockByNumber(line - 1)
        return round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())

    # -- scrolling ----------------------------------------------------------

    def visible_lines(self) -> range:
        block = self.firstVisibleBlock()
        first = block.blockNumber() + 1
        offset = self.contentOffset()
        height = self.viewport().height()
        last = first
        while block.isValid():
            geom = self.blockBoundingGeometry(block).translated(offset)
            if geom.bottom() > height:
                break
            last = block.blockNumber() + 1
            block = block.next()
        return range(first, last + 1)

    def scroll_to_line(self, line: int, *, only_if_hidden: bool = True) -> None:
        """Bring `line` on screen, a third of the way down, unless it is already fully visible."""
        visible = self.visible_lines()
        if only_if_hidden and line in visible:
            return
        rows = max(1, len(visible))
        bar = self.verticalScrollBar()
        bar.setValue(max(0, min(bar.maximum(), line - 1 - rows // 3)))

    def reveal_column(self, line: int, col16: int) -> None:
        """Scroll sideways only as far as the column needs: while it fits with the line's start
        in view, the line's start stays in view (where a reader's eye begins)."""
        cursor = QTextCursor(self.document().findBlockByNumber(line - 1))
        cursor.movePosition(QTextCursor.MoveOperation.Right, n=col16)
        bar = self.horizontalScrollBar()
        column_x = self.cursorRect(cursor).left() + bar.value()  # from the text's left edge
        width = self.viewport().width()
        if column_x < width - 80:
            bar.setValue(0)
        elif not bar.value() <= column_x - 40 <= bar.value() + width - 120:
            bar.setValue(max(0, column_x - 120))

    # -- user interaction ---------------------------------------------------

    def _cursor_moved(self) -> None:
        if self._silent:
            return
        line = self.textCursor().blockNumber() + 1
        if line != self._last_line:
            self._last_line = line
            self._view.sig_line_selected.emit(self._view.filename(), line)

    def mousePressEvent(self, event):  # noqa: N802 - Qt override
        # A click on the line already selected still re-links it (after a bytecode selection moved on).
        before = self.textCursor().blockNumber() + 1
        super().mousePressEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and self.textCursor().blockNumber() + 1 == before:
            self._last_line = None
            self._cursor_moved()

    def viewportEvent(self, event):  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.ToolTip:
            cursor = self.cursorForPosition(event.pos())
            text = self._view.hover_text_at(cursor.blockNumber() + 1, cursor.positionInBlock())
            if text:
                QToolTip.showText(event.globalPos(), text, self.viewport())
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)

    def contextMenuEvent(self, event):  # noqa: N802 - Qt override
        line = self.cursorForPosition(event.pos()).blockNumber() + 1
        menu = self._view._context_menu(line)
        menu.exec(event.globalPos())
        menu.deleteLater()


class _Gutter(QWidget):
    """Breakpoint dots, current-line arrow, line numbers and the colour band."""

    def __init__(self, editor: _CodeEditor):
        super().__init__(editor)
        self._editor = editor
        self._hover: int | None = None
        self.setMouseTracking(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Click to toggle a breakpoint")

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(self._editor.gutter_width(), 0)

    def mousePressEvent(self, event):  # noqa: N802 - Qt override
        if event.button() != Qt.MouseButton.LeftButton:
            return
        line = self._editor.line_at_y(round(event.position().y()))
        if line is not None:
            self._editor._view.toggle_breakpoint(line)

    def mouseMoveEvent(self, event):  # noqa: N802 - Qt override
        line = self._editor.line_at_y(round(event.position().y()))
        if line != self._hover:
            self._hover = line
            self.update()

    def leaveEvent(self, event):  # noqa: N802 - Qt override
        self._hover = None
        self.update()

    def paintEvent(self, event):  # noqa: N802 - Qt override
        view = self._editor._view
        colours = theme.current()
        painter = QPainter(self)
        painter.fillRect(event.rect(), QColor(colours.gutter_bg))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        font = self._editor.font()
        painter.setFont(font)
        number_right = self.width() - GUTTER_PAD - BAND_WIDTH - GUTTER_PAD
        band_left = self.width() - GUTTER_PAD - BAND_WIDTH
        current = view.current_line()
        block = self._editor.firstVisibleBlock()
        offset = self._editor.contentOffset()
        while block.isValid():
            geom = self._editor.blockBoundingGeometry(block).translated(offset)
            top, height = round(geom.top()), round(geom.height())
            if top > event.rect().bottom():
                break
            if block.isVisible() and top + height >= event.rect().top():
                line = block.blockNumber() + 1
                if line in view._band:
                    painter.fillRect(band_left, top, BAND_WIDTH, height,
                                     highlight.line_colour(line, strong=True, theme=colours))
                if line == current:
                    painter.fillRect(0, top, self.width() - GUTTER_PAD - BAND_WIDTH - GUTTER_PAD // 2, height,
                                     QColor(colours.current_line_bg))
                cy = top + height / 2
                radius = min(BREAKPOINT_AREA, height) * 0.32
                if line in view._breakpoints or line == self._hover:
                    colour = QColor(colours.breakpoint)
                    if line not in view._breakpoints:
                        colour.setAlpha(90)
                    painter.setPen(Qt.PenStyle.NoPen)
                    painter.setBrush(colour)
                    painter.drawEllipse(QPoint(BREAKPOINT_AREA // 2 + 1, round(cy)), radius, radius)
                if line == current:
                    _draw_arrow(painter, BREAKPOINT_AREA, top, height, colours)
                painter.setPen(QColor(colours.gutter_fg_current if line == current else colours.gutter_fg))
                bold = line == current
                if bold != font.bold():
                    font.setBold(bold)
                    painter.setFont(font)
                painter.drawText(0, top, number_right, height,
                                 Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, str(line))
            block = block.next()
        painter.end()


def _draw_arrow(painter: QPainter, width: int, top: int, height: int, colours: theme.Theme) -> None:
    """VS Code's yellow 'paused here' arrow, drawn over any breakpoint dot."""
    h = min(height, width) * 0.7
    left = 3
    cy = top + height / 2
    points = [QPoint(round(left), round(cy - h / 2 + 2)), QPoint(round(left + h * 0.45), round(cy - h / 2 + 2)),
              QPoint(round(left + h), round(cy)),
              QPoint(round(left + h * 0.45), round(cy + h / 2 - 2)), QPoint(round(left), round(cy + h / 2 - 2))]
    painter.setPen(QColor(colours.current_arrow_outline))
    painter.setBrush(QColor(colours.current_arrow))
    painter.drawPolygon(QPolygon(points))
