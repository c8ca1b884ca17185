"""Colours and syntax highlighting shared by the source and bytecode views.

Why one module: the source view and the bytecode view never talk to each
other, yet a source line and its instructions must share a colour band
(Compiler Explorer style). Both ask `line_colour(line)` here, so the colour
is a pure function of the line number (and of the light/dark theme) and the
two views agree for free. The debugger-mark colours live in `app.theme`.

Highlighting lexes the whole file once with pygments (so multi-line strings
are right) and keeps per-line spans; the QSyntaxHighlighter only looks its
block's spans up, which keeps a 2,000-line file well under a second. The spans of the
last few texts are kept, so stepping back into a file does not lex it again.
"""
from __future__ import annotations

import functools

from PySide6.QtGui import QColor, QFont, QFontDatabase, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from pygments.lexers import PythonLexer
from pygments.styles import get_style_by_name
from pygments.token import Token

from app import theme as app_theme
from app.theme import Theme

# Hues for the per-line colour bands; neighbours differ enough to tell apart.
BAND_HUES = (210, 35, 130, 280, 0, 175, 55, 320, 95, 250)


def line_colour(line: int | None, *, strong: bool = False, theme: Theme | None = None) -> QColor:
    """The band colour of a source line in `theme` (default: the current one); None (generated code) is grey."""
    theme = theme or app_theme.current()
    if line is None or line < 0:
        return QColor(theme.no_line_bg)
    saturation, value = theme.band_strong if strong else theme.band_soft
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


SPAN_CACHE_TEXTS = 16  # stepping in and out of library files lexes each once, not at every visit


@functools.lru_cache(maxsize=SPAN_CACHE_TEXTS)
def cached_token_spans(text: str) -> list[list[tuple[int, int, object]]]:
    """`token_spans` of a text seen recently (lexing torch/nn/functional.py takes over half a second);
    callers only read the lists."""
    return token_spans(text)


class PygmentsHighlighter(QSyntaxHighlighter):
    """Colours a read-only document from spans lexed once by `set_text`.

    With no `style_name` the pygments style follows the app theme: call
    `sync_theme` after a palette change (formats are cached per style).
    """

    def __init__(self, document: QTextDocument, style_name: str | None = None):
        super().__init__(document)
        self._pinned = style_name
        self._style_name = style_name or app_theme.current().pygments_style
        self._style = get_style_by_name(self._style_name)
        self._formats: dict[object, QTextCharFormat | None] = {}
        self._spans: list[list[tuple[int, int, object]]] = []

    def style_name(self) -> str:
        return self._style_name

    def set_style(self, style_name: str) -> None:
        """Recolour with another pygments style (no-op when it is the one in use)."""
        if style_name == self._style_name:
            return
        self._style_name = style_name
        self._style = get_style_by_name(style_name)
        self._formats.clear()
        self.rehighlight()

    def sync_theme(self) -> None:
        """Switch to the current theme's style, unless a style was pinned at construction."""
        if self._pinned is None:
            self.set_style(app_theme.current().pygments_style)

    def set_text(self, text: str) -> None:
        """Lex `text`; call before the document receives the same text."""
        self._spans = cached_token_spans(text)

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
