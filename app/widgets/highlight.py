"""Colours and syntax highlighting shared by the source and bytecode views.

Why one module: the source view and the bytecode view never talk to each
other, yet a source line and its instructions must share a colour band
(Compiler Explorer style). Both ask `line_colour(line)` here, so the colour
is a pure function of the line number and the two views agree for free.

Highlighting lexes the whole file once with pygments (so multi-line strings
are right) and keeps per-line spans; the QSyntaxHighlighter only looks its
block's spans up, which keeps a 2,000-line file well under a second.
"""
from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontDatabase, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from pygments.lexers import PythonLexer
from pygments.styles import get_style_by_name
from pygments.token import Token

STYLE_NAME = "vs"  # Visual Studio light: blue keywords, red strings, green comments

# Hues for the per-line colour bands; neighbours differ enough to tell apart.
BAND_HUES = (210, 35, 130, 280, 0, 175, 55, 320, 95, 250)
BAND_SOFT = (60, 252)    # (saturation, value) for row / line backgrounds: pale enough to read text on
BAND_STRONG = (150, 225)  # for the thin band in the source gutter

# Debugger marks, shared so both views mark "current" and "breakpoint" alike.
CURRENT_LINE_BG = QColor("#fff3b0")    # the line being executed
CURRENT_SPAN_BG = QColor("#ffc83d")    # the exact columns of the current instruction
CURRENT_ARROW = QColor("#e6a100")
LINKED_LINE_BG = QColor("#d6e8ff")     # lines linked from a bytecode selection
BREAKPOINT_RED = QColor("#e51400")
GUTTER_BG = QColor("#f5f5f5")
GUTTER_FG = QColor("#8a8a8a")
GUTTER_FG_CURRENT = QColor("#1f1f1f")
NO_LINE_BG = QColor("#eeeeee")         # instructions with no source line (generated code)


def line_colour(line: int | None, *, strong: bool = False) -> QColor:
    """The band colour of a source line; None (generated code) is grey."""
    if line is None or line < 0:
        return QColor(NO_LINE_BG)
    saturation, value = BAND_STRONG if strong else BAND_SOFT
    return QColor.fromHsv(BAND_HUES[line % len(BAND_HUES)], saturation, value)


def monospace_font(point_size: int = 10) -> QFont:
    """The system's fixed-pitch font, falling back to a common monospace family."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    if not QFontDatabase.isFixedPitch(font.family()):
        font = QFont("DejaVu Sans Mono")
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setFixedPitch(True)
    font.setPointSize(point_size)
    return font


# -- column conversions -----------------------------------------------------
# CPython reports columns as UTF-8 byte offsets, Python strings index code
# points, and Qt (QString) indexes UTF-16 units. ASCII lines take the fast path.

def byte_to_char(line_text: str, byte_col: int) -> int:
    """A CPython column (UTF-8 bytes) as an index into the Python string."""
    if line_text.isascii():
        return min(byte_col, len(line_text))
    return len(line_text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def char_to_utf16(line_text: str, char_col: int) -> int:
    """A Python string index as a QString (UTF-16) index."""
    if line_text.isascii():
        return char_col
    return len(line_text[:char_col].encode("utf-16-le")) // 2


def byte_to_utf16(line_text: str, byte_col: int) -> int:
    return char_to_utf16(line_text, byte_to_char(line_text, byte_col))


# -- pygments -> Qt ---------------------------------------------------------

def _char_format(style, ttype) -> QTextCharFormat | None:
    spec = style.style_for_token(ttype)
    if not (spec["color"] or spec["bold"] or spec["italic"] or spec["bgcolor"]):
        return None
    fmt = QTextCharFormat()
    if spec["color"]:
        fmt.setForeground(QColor("#" + spec["color"]))
    if spec["bgcolor"]:
        fmt.setBackground(QColor("#" + spec["bgcolor"]))
    if spec["bold"]:
        fmt.setFontWeight(QFont.Weight.Bold)
    if spec["italic"]:
        fmt.setFontItalic(True)
    return fmt


def token_spans(text: str, lexer=None) -> list[list[tuple[int, int, object]]]:
    """Per line (0-based), the (start, length, token type) of each coloured token.

    Lexes the whole text in one pass so tokens spanning lines (docstrings)
    colour every line they cover. Offsets are Python string indexes.
    """
    lexer = lexer or PythonLexer(stripnl=False, ensurenl=False)
    lines: list[list[tuple[int, int, object]]] = [[] for _ in range(text.count("\n") + 1)]
    row = col = 0
    for _, ttype, value in lexer.get_tokens_unprocessed(text):
        plain = ttype is Token.Text or ttype is Token.Text.Whitespace
        parts = value.split("\n")
        for k, part in enumerate(parts):
            if k:
                row += 1
                col = 0
            if part and not plain:
                lines[row].append((col, len(part), ttype))
            col += len(part)
    return lines


class PygmentsHighlighter(QSyntaxHighlighter):
    """Colours a read-only document from spans lexed once by `set_text`."""

    def __init__(self, document: QTextDocument, style_name: str = STYLE_NAME):
        super().__init__(document)
        self._style = get_style_by_name(style_name)
        self._formats: dict[object, QTextCharFormat | None] = {}
        self._spans: list[list[tuple[int, int, object]]] = []

    def set_text(self, text: str) -> None:
        """Lex `text`; call before the document receives the same text."""
        self._spans = token_spans(text)

    def _format(self, ttype) -> QTextCharFormat | None:
        try:
            return self._formats[ttype]
        except KeyError:
            fmt = self._formats[ttype] = _char_format(self._style, ttype)
            return fmt

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt override
        row = self.currentBlock().blockNumber()
        if row >= len(self._spans):
            return
        ascii_line = text.isascii()
        for start, length, ttype in self._spans[row]:
            fmt = self._format(ttype)
            if fmt is None:
                continue
            if not ascii_line:
                end = char_to_utf16(text, start + length)
                start = char_to_utf16(text, start)
                length = end - start
            self.setFormat(start, length, fmt)
