"""Light or dark colours for the app, chosen from the application palette.

Why the palette: it is what Qt widgets actually paint their base and text
with, whoever set it (the platform theme, a style, the user, a test). Our own
colours (current line, gutters, graph boxes) sit under or beside that text,
so they must follow the same light/dark decision. QStyleHints.colorScheme()
(Qt 6.5+) only says what the system prefers; a style or an installed palette
can disagree with it, and then the palette is what is on screen.

Widgets call `current()` when they paint or build, never at import, and
refresh anything they cache when `is_palette_change(event)` is true.
Colours are "#rrggbb" / "#aarrggbb" strings so a Theme is truly immutable:
build a fresh QColor from them (QColor is mutable and often mutated).
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent
from PySide6.QtGui import QGuiApplication, QPalette

_WINDOW = QPalette.ColorRole.Window  # looked up once: PySide6 enum access is slow
_PALETTE_EVENTS = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)


@dataclass(frozen=True)
class Theme:
    """Every colour the app draws itself, for one of light or dark mode."""

    name: str            # "light" or "dark"
    pygments_style: str  # syntax colours of the source view
    # Debugger marks shared by the source and bytecode views.
    current_line_bg: str         # the line being executed
    current_span_bg: str         # the exact columns of the current instruction
    current_span_underline: str
    current_arrow: str           # the "paused here" arrow
    current_arrow_outline: str
    linked_line_bg: str          # lines linked from a bytecode selection
    breakpoint: str
    gutter_bg: str
    gutter_fg: str
    gutter_fg_current: str
    no_line_bg: str              # instructions with no source line (generated code)
    band_soft: tuple[int, int]   # (saturation, value) of line bands behind text
    band_strong: tuple[int, int]  # of the thin band in the source gutter
    # The bytecode table.
    bytecode_dim_fg: str         # offsets and line numbers
    bytecode_opname_fg: str
    bytecode_text_fg: str
    title_bg: str
    title_fg: str
    title_border: str
    selection_tint: str          # translucent, over a selected row's band
    selection_edge: str
    # Panels (RowTreeModel).
    changed_bg: str              # changed since the previous step / new at this step
    dim_fg: str                  # lazy trackers, unguarded sources, disabled breakpoints
    error_fg: str                # graph breaks, eager fallbacks
    # The graph drawing.
    canvas_bg: str
    edge: str
    node_title_fg: str
    node_detail_fg: str
    new_node_border: str
    node_colours: tuple[tuple[str, tuple[str, str]], ...]  # op -> (fill, border); a tuple keeps Theme hashable
    # The guard editor: what-if badges as (background, text, border), errors, the entry comparison.
    prediction_hit: tuple[str, str, str]
    prediction_recompile: tuple[str, str, str]
    prediction_none: tuple[str, str, str]
    error_text: str
    diff_left_bg: str
    diff_right_bg: str

    @property
    def dark(self) -> bool:
        return self.name == "dark"

    def node_colour(self, op: str) -> tuple[str, str]:
        """(fill, border) of a graph node box; unknown ops look like call_function."""
        colours = dict(self.node_colours)
        return colours.get(op, colours["call_function"])


LIGHT = Theme(
    name="light",
    pygments_style="vs",  # Visual Studio light: blue keywords, red strings, green comments
    current_line_bg="#fff3b0",
    current_span_bg="#ffc83d",
    current_span_underline="#a47300",
    current_arrow="#e6a100",
    current_arrow_outline="#b17c00",
    linked_line_bg="#d6e8ff",
    breakpoint="#e51400",
    gutter_bg="#f5f5f5",
    gutter_fg="#8a8a8a",
    gutter_fg_current="#1f1f1f",
    no_line_bg="#eeeeee",
    band_soft=(60, 252),  # pale enough to read dark text on
    band_strong=(150, 225),
    bytecode_dim_fg="#6a6a6a",
    bytecode_opname_fg="#0b3d91",
    bytecode_text_fg="#1f1f1f",
    title_bg="#f0f0f0",
    title_fg="#333333",
    title_border="#d0d0d0",
    selection_tint="#46286ee6",
    selection_edge="#286ee6",
    changed_bg="#fff3b0",
    dim_fg="#8a8a8a",
    error_fg="#b3261e",
    canvas_bg="#fbfbfb",
    edge="#7a7a7a",
    node_title_fg="#000000",
    node_detail_fg="#404040",
    new_node_border="#e0a000",
    node_colours=(
        ("placeholder", ("#d6e6ff", "#4a78c2")),
        ("call_function", ("#dcf2d8", "#4c9a45")),
        ("call_method", ("#e9e0f8", "#7b5cb8")),
        ("call_module", ("#fde5cc", "#c07a2c")),
        ("get_attr", ("#eeeeee", "#888888")),
        ("output", ("#f8d4d4", "#b84a4a")),
    ),
    prediction_hit=("#e6f4ea", "#1e6b34", "#9fd3ad"),
    prediction_recompile=("#fff3df", "#8a4b00", "#f0c27a"),
    prediction_none=("#f1f1f1", "#555555", "#d0d0d0"),
    error_text="#b00020",
    diff_left_bg="#fde2e1",
    diff_right_bg="#e0f2e4",
)

# Dark mode: the same hues as light mode, as deep fills under light text
# (VS Code's dark debugger colours are the model).
DARK = Theme(
    name="dark",
    pygments_style="github-dark",  # light tokens meant for a near-black background
    current_line_bg="#4b4318",
    current_span_bg="#7a5f00",
    current_span_underline="#ffcc33",
    current_arrow="#ffcc00",
    current_arrow_outline="#a88600",
    linked_line_bg="#1f3a5c",
    breakpoint="#f14c4c",
    gutter_bg="#252526",
    gutter_fg="#858585",
    gutter_fg_current="#f0f0f0",
    no_line_bg="#333333",
    band_soft=(110, 72),  # deep enough to read light text on
    band_strong=(150, 210),
    bytecode_dim_fg="#9a9a9a",
    bytecode_opname_fg="#7fb8ff",
    bytecode_text_fg="#dcdcdc",
    title_bg="#2d2d30",
    title_fg="#cccccc",
    title_border="#3f3f46",
    selection_tint="#5a4f96ff",
    selection_edge="#4f96ff",
    changed_bg="#4b4318",
    dim_fg="#8c8c8c",
    error_fg="#f48771",
    canvas_bg="#1e1e1e",
    edge="#8a8a8a",
    node_title_fg="#f0f0f0",
    node_detail_fg="#c0c0c0",
    new_node_border="#ffc107",
    node_colours=(
        ("placeholder", ("#1e3350", "#6b9be0")),
        ("call_function", ("#1f3a1d", "#6cbf63")),
        ("call_method", ("#33294a", "#a58be0")),
        ("call_module", ("#4a3419", "#e0a050")),
        ("get_attr", ("#333333", "#9a9a9a")),
        ("output", ("#4a2222", "#e07070")),
    ),
    prediction_hit=("#1d3524", "#8fd6a3", "#2f6b43"),
    prediction_recompile=("#3d2e14", "#f0c27a", "#7a5a20"),
    prediction_none=("#2d2d30", "#bbbbbb", "#3f3f46"),
    error_text="#f48771",
    diff_left_bg="#4b2323",
    diff_right_bg="#1f3d26",
)


def is_dark(palette: QPalette | None = None) -> bool:
    """True when `palette` (default: the application's) has a dark window colour."""
    if palette is None:
        if QGuiApplication.instance() is None:
            return False
        palette = QGuiApplication.palette()
    return palette.color(_WINDOW).lightness() < 128


def current() -> Theme:
    """The theme matching the application palette right now (about 2 µs: call it when painting)."""
    return DARK if is_dark() else LIGHT


def is_palette_change(event: QEvent) -> bool:
    """Whether a widget's changeEvent/event means colours it cached may be stale."""
    return event.type() in _PALETTE_EVENTS


class FollowsTheme:
    """Mixin (before the Qt class) for a widget that caches colours and defines `refresh_theme()`:
    it runs on a palette change while the widget is visible, and on its next show after one
    while it was hidden."""

    def changeEvent(self, event):  # noqa: N802 - Qt override
        super().changeEvent(event)
        if is_palette_change(event) and self.isVisible():
            self.refresh_theme()

    def showEvent(self, event):  # noqa: N802 - Qt override
        super().showEvent(event)
        self.refresh_theme()  # a palette change while hidden was left for now


__all__ = ["DARK", "LIGHT", "FollowsTheme", "Theme", "current", "is_dark", "is_palette_change"]
