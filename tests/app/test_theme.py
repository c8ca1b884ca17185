"""Light and dark mode: the theme follows the application palette, and the views follow the theme.

Every test that changes the palette restores the original one (the `dark`
fixture), so the rest of the suite still runs in light mode.
"""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pathlib

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette, QTextFormat
from PySide6.QtWidgets import QApplication, QSplitter
from pygments.styles import get_style_by_name

from app import theme
from app.models.row_tree_model import RowItem, RowTreeModel
from app.widgets import highlight
from app.widgets.bytecode_view import COL_OPNAME, BytecodeView
from app.widgets.graph_view import GraphPanel
from app.widgets.source_view import SourceView
from tracer.debug.views import GraphNodeView

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOUR = ROOT / "resources" / "examples" / "tour.py"
SHOTS = pathlib.Path("/tmp/standin-theme")
TOUR_LINE = 50  # a line inside `step`, marked as current in the views below

NODES = [
    GraphNodeView("l_x_", "placeholder", "L_x_", "", "4", "float32"),
    GraphNodeView("mul", "call_function", "operator.mul", "l_x_, 2", "4", "float32", inputs=("l_x_",)),
    GraphNodeView("relu", "call_method", "relu", "mul", "4", "float32", inputs=("mul",)),
    GraphNodeView("output", "output", "output", "(relu,)", inputs=("relu",)),
]


def dark_palette() -> QPalette:
    """A dark palette like a desktop's dark mode (VS Code's greys)."""
    palette = QPalette()
    text = QColor("#d4d4d4")
    colours = {
        QPalette.ColorRole.Window: QColor("#2b2b2b"), QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: QColor("#1e1e1e"), QPalette.ColorRole.AlternateBase: QColor("#252526"),
        QPalette.ColorRole.Text: text, QPalette.ColorRole.Button: QColor("#333333"),
        QPalette.ColorRole.ButtonText: text, QPalette.ColorRole.ToolTipBase: QColor("#252526"),
        QPalette.ColorRole.ToolTipText: text, QPalette.ColorRole.Highlight: QColor("#264f78"),
        QPalette.ColorRole.HighlightedText: QColor("#ffffff"), QPalette.ColorRole.PlaceholderText: QColor("#808080"),
    }
    for role, colour in colours.items():
        palette.setColor(role, colour)
    return palette


@pytest.fixture
def light(qapp):
    """The suite's own (light) palette, put back after the test whatever it changed."""
    original = QPalette(qapp.palette())
    assert not theme.is_dark(original), "the suite is expected to start in light mode"
    yield original
    qapp.setPalette(original)
    QApplication.processEvents()


@pytest.fixture
def dark(qapp, light):
    qapp.setPalette(dark_palette())
    QApplication.processEvents()
    yield
    # `light` restores the original palette


def set_palette(palette: QPalette) -> None:
    QApplication.instance().setPalette(palette)
    QApplication.processEvents()


def lightness(colour) -> int:
    return QColor(colour).lightness()


def source_view(qtbot, *, register: bool = True) -> SourceView:
    view = SourceView()
    if register:  # not when a splitter owns (and deletes) it
        qtbot.addWidget(view)
        view.show()  # hidden views leave a theme change until they are shown
    view.resize(900, 640)
    view.show_file(str(TOUR))
    view.set_breakpoints({44})
    view.set_band_lines(range(48, 60))
    view.highlight_lines({45})
    view.set_current(TOUR_LINE, 4, 12)
    return view


def line_background(view: SourceView, line: int) -> QColor:
    """The full-width background the view gives `line` (the last extra selection on it wins)."""
    block = view.editor.document().findBlockByNumber(line - 1)
    colours = [sel.format.background().color() for sel in view.editor.extraSelections()
               if sel.cursor.block() == block and sel.format.hasProperty(QTextFormat.Property.FullWidthSelection)]
    return colours[-1]


def syntax_foregrounds(view: SourceView, line: int) -> list[QColor]:
    block = view.editor.document().findBlockByNumber(line - 1)
    return [r.format.foreground().color() for r in block.layout().formats()
            if r.format.foreground().style() != Qt.BrushStyle.NoBrush]


def gutter_pixel(view: SourceView) -> QColor:
    QApplication.processEvents()
    return view.gutter.grab().toImage().pixelColor(2, view.gutter.height() - 3)


# ---- the theme itself -----------------------------------------------------------------------------

def test_light_theme_is_todays_look_and_both_styles_exist():
    assert theme.LIGHT.current_line_bg == "#fff3b0" and theme.LIGHT.gutter_bg == "#f5f5f5"
    assert theme.LIGHT.canvas_bg == "#fbfbfb" and theme.LIGHT.pygments_style == "vs"
    # the former `CURRENT_ARROW.darker(...)` shades, written out
    assert theme.LIGHT.current_span_underline == QColor("#e6a100").darker(140).name()
    assert theme.LIGHT.current_arrow_outline == QColor("#e6a100").darker(130).name()
    assert QColor(theme.LIGHT.selection_tint) == QColor(40, 110, 230, 70)
    for mode in (theme.LIGHT, theme.DARK):
        get_style_by_name(mode.pygments_style)
        assert {op for op, _ in mode.node_colours} == {op for op, _ in theme.LIGHT.node_colours}
    hash(theme.DARK)  # frozen and hashable: safe to share and to key caches with


def test_theme_follows_the_application_palette(qapp, light):
    assert not theme.is_dark() and theme.current() is theme.LIGHT
    set_palette(dark_palette())
    assert theme.is_dark() and theme.current() is theme.DARK
    assert theme.is_dark(dark_palette()) and not theme.is_dark(light)
    set_palette(light)
    assert theme.current() is theme.LIGHT


def test_line_bands_are_pale_in_light_mode_and_deep_in_dark_mode():
    for line in range(10):
        assert lightness(highlight.line_colour(line, theme=theme.LIGHT)) > 200
        assert lightness(highlight.line_colour(line, theme=theme.DARK)) < 80
    assert highlight.line_colour(None, theme=theme.DARK) == QColor(theme.DARK.no_line_bg)


# ---- the source view ---------------------------------------------------------------------------------

def test_source_view_built_under_a_dark_palette(qtbot, dark):
    view = source_view(qtbot)
    assert view.editor.palette().color(QPalette.ColorRole.Base).lightness() < 64
    assert view.editor.palette().color(QPalette.ColorRole.Text).lightness() > 180
    assert view._highlighter.style_name() == theme.DARK.pygments_style
    assert line_background(view, TOUR_LINE) == QColor(theme.DARK.current_line_bg)
    assert lightness(line_background(view, TOUR_LINE)) < 80
    assert lightness(line_background(view, 45)) < 80
    foregrounds = syntax_foregrounds(view, TOUR_LINE)
    assert foregrounds and all(c.lightness() > 110 for c in foregrounds)  # light tokens on a dark base
    assert gutter_pixel(view) == QColor(theme.DARK.gutter_bg)


def test_source_view_follows_a_palette_change_while_running(qtbot, light):
    view = source_view(qtbot)
    light_tokens = syntax_foregrounds(view, TOUR_LINE)
    assert line_background(view, TOUR_LINE) == QColor(theme.LIGHT.current_line_bg)
    assert gutter_pixel(view) == QColor(theme.LIGHT.gutter_bg)
    assert all(c.lightness() < 160 for c in light_tokens)

    set_palette(dark_palette())
    assert view._highlighter.style_name() == theme.DARK.pygments_style
    assert line_background(view, TOUR_LINE) == QColor(theme.DARK.current_line_bg)
    assert all(c.lightness() > 110 for c in syntax_foregrounds(view, TOUR_LINE))
    assert gutter_pixel(view) == QColor(theme.DARK.gutter_bg)

    set_palette(light)
    assert view._highlighter.style_name() == theme.LIGHT.pygments_style
    assert line_background(view, TOUR_LINE) == QColor(theme.LIGHT.current_line_bg)
    assert syntax_foregrounds(view, TOUR_LINE) == light_tokens
    assert gutter_pixel(view) == QColor(theme.LIGHT.gutter_bg)


def test_a_hidden_view_recolours_when_it_is_shown_again(qtbot, light):
    """Re-highlighting is not free, so hidden views (docks tabbed away) wait for their next show."""
    view = source_view(qtbot)
    view.hide()
    set_palette(dark_palette())
    assert view._highlighter.style_name() == theme.LIGHT.pygments_style  # not yet
    view.show()
    assert view._highlighter.style_name() == theme.DARK.pygments_style
    assert line_background(view, TOUR_LINE) == QColor(theme.DARK.current_line_bg)


# ---- the bytecode view, the panels' model, the graph --------------------------------------------------

def tour_step_code():
    module = compile(TOUR.read_text(), str(TOUR), "exec")
    return next(c for c in module.co_consts if getattr(c, "co_name", None) == "step")


def test_bytecode_rows_and_title_follow_the_theme(qtbot, light):
    view = BytecodeView()
    qtbot.addWidget(view)
    view.show()
    view.show_code(tour_step_code())
    model = view.table.model()
    current = view.instructions()[3].offset
    view.set_current(current)
    row = view.row_of_offset(current)

    def colours():
        plain = model.index(0, COL_OPNAME)
        return (plain.data(Qt.ItemDataRole.BackgroundRole).color(), plain.data(Qt.ItemDataRole.ForegroundRole).color(),
                model.index(row, 0).data(Qt.ItemDataRole.BackgroundRole).color())

    background, foreground, current_bg = colours()
    assert background.lightness() > 200 and foreground.lightness() < 100
    assert current_bg == QColor(theme.LIGHT.current_line_bg)
    assert theme.LIGHT.title_bg in view._title.styleSheet()

    set_palette(dark_palette())
    background, foreground, current_bg = colours()
    assert background.lightness() < 80 and foreground.lightness() > 180
    assert current_bg == QColor(theme.DARK.current_line_bg)
    assert theme.DARK.title_bg in view._title.styleSheet()

    set_palette(light)
    assert colours()[2] == QColor(theme.LIGHT.current_line_bg)
    assert theme.LIGHT.title_bg in view._title.styleSheet()


def test_changed_rows_in_panels_follow_the_theme(qapp, light):
    model = RowTreeModel(("name",))
    model.set_items([RowItem(("x",), changed=True), RowItem(("y",), dim=True)])
    assert model.index(0, 0).data(Qt.BackgroundRole).color() == QColor("#fff3b0")
    set_palette(dark_palette())
    assert model.index(0, 0).data(Qt.BackgroundRole).color().lightness() < 80
    assert model.index(1, 0).data(Qt.ForegroundRole).color() == QColor(theme.DARK.dim_fg)


def test_graph_canvas_and_nodes_follow_the_theme(qtbot, light):
    panel = GraphPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.show_nodes(NODES, 1)
    panel.highlight_node("mul")
    assert panel.canvas.backgroundBrush().color() == QColor("#fbfbfb")
    assert panel.node_items["mul"].brush().color().lightness() > 200

    set_palette(dark_palette())
    assert panel.canvas.backgroundBrush().color().lightness() < 64
    assert all(item.brush().color().lightness() < 80 for item in panel.node_items.values())
    assert panel.node_items["mul"].isSelected()  # the redraw kept the selection
    assert panel.node_items["output"].pen().color() == QColor(theme.DARK.new_node_border)
    selections = panel.text.extraSelections()
    assert selections[0].format.background().color() == QColor(theme.DARK.changed_bg)

    set_palette(light)
    assert panel.canvas.backgroundBrush().color() == QColor("#fbfbfb")
    assert panel.node_items["mul"].brush().color() == QColor(dict(theme.LIGHT.node_colours)["call_function"][0])


def test_graph_panel_built_under_a_dark_palette(qtbot, dark):
    panel = GraphPanel()
    qtbot.addWidget(panel)
    panel.show_nodes(NODES)
    assert panel.canvas.backgroundBrush().color() == QColor(theme.DARK.canvas_bg)
    assert panel.node_items["l_x_"].brush().color() == QColor(dict(theme.DARK.node_colours)["placeholder"][0])


# ---- pictures to look at ------------------------------------------------------------------------------------

def test_render_dark_views_to_png(qtbot, dark):
    """The source view on tour.py, the bytecode of `step` and a graph in dark mode: look at the PNGs."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    source, bytecode = source_view(qtbot, register=False), BytecodeView()
    bytecode.show_code(tour_step_code())
    source.set_band_lines(bytecode.code_lines())
    bytecode.set_current(bytecode.instructions()[6].offset)
    bytecode.highlight_line(51)
    splitter = QSplitter()
    splitter.addWidget(source)
    splitter.addWidget(bytecode)
    qtbot.addWidget(splitter)
    splitter.resize(1400, 640)
    splitter.setSizes([760, 640])
    graph = GraphPanel()
    qtbot.addWidget(graph)
    graph.resize(600, 420)
    graph.show_nodes(NODES, 1)
    graph.tabs.setCurrentIndex(1)
    splitter.show()
    graph.show()
    qtbot.waitExposed(splitter)
    for name, widget in {"source_dark.png": source, "source_and_bytecode_dark.png": splitter,
                         "graph_dark.png": graph}.items():
        assert widget.grab().save(str(SHOTS / name))
    # what is drawn: a dark text area, and each node box filled with its op's dark colour
    text = source.editor.viewport().grab().toImage()
    assert text.pixelColor(text.width() - 3, text.height() - 3).lightness() < 64
    canvas = graph.canvas
    image = canvas.viewport().grab().toImage()
    for name, node in graph.node_items.items():
        centre = canvas.mapFromScene(node.mapToScene(node.boundingRect().left() + 6, node.boundingRect().center().y()))
        assert image.pixelColor(centre.x(), centre.y()) == QColor(dict(theme.DARK.node_colours)[node.node.op][0]), name


def test_guard_editor_badges_and_errors_follow_the_theme(qtbot, light):
    from app.widgets.guard_editor import GuardEditor
    editor = GuardEditor()
    qtbot.addWidget(editor)
    editor.show()
    assert theme.LIGHT.error_text in editor.error_label.styleSheet()
    assert theme.LIGHT.prediction_none[0] in editor.prediction_view.styleSheet()
    set_palette(dark_palette())
    QApplication.processEvents()
    assert theme.DARK.error_text in editor.error_label.styleSheet()
    assert theme.DARK.prediction_none[0] in editor.prediction_view.styleSheet()
