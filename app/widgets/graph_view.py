"""The FX graph as it grows: code-like text and a layered drawing you can zoom and pan.

Nodes are GraphNodeViews (plain data recorded by the tracer); a finished
torch.fx.GraphModule is converted to the same views, so both paths share one
renderer.  Edges are each view's recorded inputs; the layers come from
`tracer.export.layout`, the same layout the SVG export draws.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app import theme
from app.models.row_tree_model import monospace_font
from tracer.debug.views import node_view
from tracer.export.layout import LayoutNode, layers

TAB_CODE, TAB_DRAWING = range(2)
BOX_HEIGHT = 42.0
BOX_MIN_WIDTH = 96.0
H_GAP, V_GAP = 24.0, 34.0
READABLE_SCALE = 0.85  # the drawing is never shrunk below this on its own: text stays legible
ZOOM_STEP = 1.25
MIN_SCALE, MAX_SCALE = 0.1, 4.0


def layout_nodes(nodes) -> list[LayoutNode]:
    return [LayoutNode(n.name, n.op, n.inputs) for n in nodes]


def code_line(node) -> str:
    """`name = target(args)` in the style of GraphModule.code (without the shape comment)."""
    args = node.args or ""
    if node.op == "placeholder":
        return f"{node.name} = placeholder({node.target!r})"
    if node.op == "output":
        return f"return {args}"
    if node.op == "get_attr":
        return f"{node.name} = self.{node.target}"
    if node.op == "call_method":
        receiver, _, rest = args.partition(", ")
        return f"{node.name} = {receiver}.{node.target}({rest})"
    return f"{node.name} = {node.target}({args})"


def code_text(nodes) -> str:
    lines = [code_line(n) for n in nodes]
    width = min(60, max((len(line) for line in lines), default=0))
    out = []
    for node, line in zip(nodes, lines):
        meta = " ".join(p for p in (node.shape, node.dtype) if p)
        out.append(f"{line:<{width}}  # {meta}" if meta else line)
    return "\n".join(out)


class NodeItem(QGraphicsPathItem):
    """A rounded box: the node's name in bold, its target and shape beneath."""

    def __init__(self, node, is_new: bool, font: QFont, colours: theme.Theme | None = None):
        super().__init__()
        colours = colours or theme.current()
        self.node = node
        bold = QFont(font)
        bold.setBold(True)
        detail = node.target if node.op != "placeholder" else "input"
        if node.shape:
            detail += f"  {node.shape} {node.dtype or ''}".rstrip()
        metrics, bold_metrics = QFontMetricsF(font), QFontMetricsF(bold)
        width = max(BOX_MIN_WIDTH, bold_metrics.horizontalAdvance(node.name) + 20,
                    metrics.horizontalAdvance(detail) + 20)
        self.width = width
        self.height = max(BOX_HEIGHT, bold_metrics.height() + metrics.height() + 12)
        path = QPainterPath()
        path.addRoundedRect(QRectF(0, 0, width, self.height), 8, 8)
        self.setPath(path)
        fill, border = colours.node_colour(node.op)
        self.setBrush(QBrush(QColor(fill)))
        self.setPen(QPen(QColor(colours.new_node_border if is_new else border), 2.5 if is_new else 1.2))
        self.setFlag(QGraphicsItem.ItemIsSelectable, True)
        self.setToolTip(f"{node.op}: {code_line(node)}" + (f"\n{node.stack_trace.strip()}" if node.stack_trace else ""))
        self.title = QGraphicsSimpleTextItem(node.name, self)
        self.title.setFont(bold)
        self.title.setBrush(QBrush(QColor(colours.node_title_fg)))
        self.title.setPos((width - bold_metrics.horizontalAdvance(node.name)) / 2, 5)
        self.detail = QGraphicsSimpleTextItem(detail, self)
        self.detail.setFont(font)
        self.detail.setBrush(QBrush(QColor(colours.node_detail_fg)))
        self.detail.setPos((width - metrics.horizontalAdvance(detail)) / 2, 5 + bold_metrics.height())

    def top(self) -> QPointF:
        return self.pos() + QPointF(self.width / 2, 0)

    def bottom(self) -> QPointF:
        return self.pos() + QPointF(self.width / 2, self.height)


class ZoomableView(QGraphicsView):
    """Drag to pan, Ctrl+wheel or the buttons to zoom; shrinks to fit only down to a readable scale."""

    def __init__(self, scene, parent=None):
        super().__init__(scene, parent)
        self.setDragMode(QGraphicsView.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self._fit_mode: str | None = "readable"  # until the user zooms, a redraw or resize fits again

    def scale_factor(self) -> float:
        return self.transform().m11()

    def fit(self, *, readable: bool = True) -> None:
        """Show the whole drawing if it fits at a readable scale (or at all, when not `readable`)."""
        rect = self.scene().itemsBoundingRect().adjusted(-12, -12, 12, 12)
        self.setSceneRect(rect)
        self.resetTransform()
        viewport = self.viewport().rect()
        if rect.width() > viewport.width() or rect.height() > viewport.height():
            self.fitInView(rect, Qt.KeepAspectRatio)
            if readable and self.scale_factor() < READABLE_SCALE:
                self.resetTransform()
                self.scale(READABLE_SCALE, READABLE_SCALE)
        self._fit_mode = "readable" if readable else "all"

    def zoom(self, factor: float) -> None:
        target = min(MAX_SCALE, max(MIN_SCALE, self.scale_factor() * factor))
        self.scale(target / self.scale_factor(), target / self.scale_factor())
        self._fit_mode = None

    def reset_zoom(self) -> None:
        self.resetTransform()
        self._fit_mode = None

    def refit_if_untouched(self) -> None:
        if self._fit_mode is not None:
            self.fit(readable=self._fit_mode == "readable")
        else:
            self.setSceneRect(self.scene().itemsBoundingRect().adjusted(-12, -12, 12, 12))

    def wheelEvent(self, event):  # noqa: N802 - Qt override
        if event.modifiers() & Qt.ControlModifier:
            self.zoom(ZOOM_STEP if event.angleDelta().y() > 0 else 1 / ZOOM_STEP)
            event.accept()
            return
        super().wheelEvent(event)

    def resizeEvent(self, event):  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.refit_if_untouched()


class GraphPanel(theme.FollowsTheme, QWidget):
    """Two tabs over one list of GraphNodeViews: code text and a drawing.

    Clicking a node (its box, or its line of code) reports its name; `highlight_nodes`
    lights up the nodes another view points at (the instruction that made them).
    """

    sig_node_selected = Signal(str)  # a node box or code line was clicked: its name

    def __init__(self, parent=None):
        super().__init__(parent)
        self.tabs = QTabWidget(self)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setFont(monospace_font())
        self.text.setLineWrapMode(QPlainTextEdit.WidgetWidth)  # a long node wraps: no scrolling sideways
        self.text.cursorPositionChanged.connect(self._on_text_cursor)
        self.scene = QGraphicsScene(self)
        self.scene.selectionChanged.connect(self._on_selection)
        self.canvas = ZoomableView(self.scene, self)
        self.canvas.setRenderHint(QPainter.Antialiasing)
        self.canvas.setRenderHint(QPainter.TextAntialiasing)
        self.tabs.addTab(self.text, "Code")
        self.tabs.addTab(self._drawing_tab(), "Graph")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self.nodes: list = []
        self.node_items: dict[str, NodeItem] = {}
        self.edge_items: list[QGraphicsItem] = []
        self._font = QFont(monospace_font())
        self._first_new = 0              # what the drawing and the text marks were made from,
        self._text_first_new: int | None = None  # kept to redraw them in another theme
        self._lines_are_nodes = True  # the code text has one line per node (not a GraphModule's code)
        self._linked: list[str] = []
        self._quiet = False
        self._theme = theme.current()
        self.canvas.setBackgroundBrush(QBrush(QColor(self._theme.canvas_bg)))

    def _drawing_tab(self) -> QWidget:
        tab = QWidget(self)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(2, 2, 2, 0)
        for name, text, tip, slot in (("fit", "Fit", "Show the whole graph", self.fit_all),
                                      ("zoom_out", "−", "Zoom out (Ctrl+wheel)", lambda: self.zoom(1 / ZOOM_STEP)),
                                      ("zoom_in", "+", "Zoom in (Ctrl+wheel)", lambda: self.zoom(ZOOM_STEP)),
                                      ("actual", "100%", "Actual size", self._actual_size)):
            button = QToolButton(tab)
            button.setObjectName(f"graph.{name}")
            button.setText(text)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        self.zoom_label = QLabel(tab)
        buttons.addWidget(self.zoom_label)
        buttons.addStretch(1)
        buttons.addWidget(QLabel("drag to pan", tab))
        layout = QVBoxLayout(tab)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(buttons)
        layout.addWidget(self.canvas, 1)
        return tab

    # ---- slots ------------------------------------------------------------------------------
    def show_nodes(self, nodes, new_count: int = 0, code: str | None = None) -> None:
        """GraphNodeViews (Timeline.nodes_at(step)); the last `new_count` are new and outlined."""
        self.nodes = list(nodes)
        first_new = len(self.nodes) - max(0, min(new_count, len(self.nodes)))
        self._lines_are_nodes = code is None
        self._show_text(code if code is not None else code_text(self.nodes), None if code else first_new)
        self._draw(first_new)

    def refresh_theme(self) -> None:
        """Redraw if the theme changed: node boxes, edges and marks were built with the old colours.

        Hidden panels wait for their next show, so a theme switch costs nothing for them.
        """
        if theme.current() is self._theme:
            return  # a palette change within the same mode: nothing to redraw
        self._theme = theme.current()
        self.canvas.setBackgroundBrush(QBrush(QColor(self._theme.canvas_bg)))
        selected = [item.node.name for item in self.scene.selectedItems() if isinstance(item, NodeItem)]
        self._mark_new_lines(self._text_first_new)
        self._draw(self._first_new)
        self.scene.blockSignals(True)  # re-selecting is not a user's click
        for name in selected:
            if name in self.node_items:
                self.node_items[name].setSelected(True)
        self.scene.blockSignals(False)

    def show_graph_module(self, gm) -> None:
        """A finished torch.fx.GraphModule: its own `gm.code` and a drawing of all its nodes."""
        self.show_nodes([node_view(n) for n in gm.graph.nodes], 0, code=gm.code.strip())

    def highlight_node(self, name: str) -> None:
        self.highlight_nodes([name])

    def highlight_nodes(self, names) -> None:
        """Select these nodes' boxes and mark their code lines (a link from another view: no signal)."""
        self._linked = [name for name in names if name in self.node_items]
        self.scene.blockSignals(True)
        self.scene.clearSelection()
        for name in self._linked:
            self.node_items[name].setSelected(True)
        self.scene.blockSignals(False)
        if self._linked:
            self.canvas.ensureVisible(self.node_items[self._linked[0]])
        self._mark_new_lines(self._text_first_new)

    def highlighted_nodes(self) -> list[str]:
        return list(self._linked)

    def zoom(self, factor: float) -> None:
        self.canvas.zoom(factor)
        self._show_zoom()

    def fit_all(self) -> None:
        self.canvas.fit(readable=False)
        self._show_zoom()

    def set_font_size(self, points: float) -> None:
        """Font zoom: the code text and the boxes' text."""
        font = QFont(self.text.font())
        font.setPointSizeF(points)
        self.text.setFont(font)
        self._font.setPointSizeF(points)
        self._draw(self._first_new)

    def clear(self) -> None:
        self.show_nodes([])

    # ---- rendering --------------------------------------------------------------------------------
    def _actual_size(self) -> None:
        self.canvas.reset_zoom()
        self._show_zoom()

    def _show_zoom(self) -> None:
        self.zoom_label.setText(f"{self.canvas.scale_factor():.0%}")

    def _show_text(self, text: str, first_new: int | None) -> None:
        self._quiet = True
        try:
            self.text.setPlainText(text)
        finally:
            self._quiet = False
        self._mark_new_lines(first_new)

    def _mark_new_lines(self, first_new: int | None) -> None:
        """Background on the code lines of new nodes (None: the text is gm.code, not one line per node),
        and an outline on the lines of linked nodes."""
        self._text_first_new = first_new
        selections = []
        doc = self.text.document()
        colours = theme.current()
        marks = []
        if first_new is not None:
            marks += [(line, colours.changed_bg) for line in range(first_new, len(self.nodes))]
        if self._lines_are_nodes:
            index = {node.name: i for i, node in enumerate(self.nodes)}
            marks += [(index[name], colours.linked_line_bg) for name in self._linked if name in index]
        for line, colour in marks:
            selection = QTextEdit.ExtraSelection()
            selection.format.setBackground(QColor(colour))
            selection.format.setProperty(QTextFormat.FullWidthSelection, True)
            selection.cursor = self.text.textCursor()
            selection.cursor.setPosition(doc.findBlockByNumber(line).position())
            selections.append(selection)
        self.text.setExtraSelections(selections)

    def _draw(self, first_new: int) -> None:
        self._first_new = first_new
        colours = theme.current()
        self.scene.blockSignals(True)
        self.scene.clear()
        self.scene.blockSignals(False)
        self.node_items, self.edge_items = {}, []
        for i, node in enumerate(self.nodes):
            self.node_items[node.name] = NodeItem(node, i >= first_new, self._font, colours)
        row_height = max((item.height for item in self.node_items.values()), default=BOX_HEIGHT)
        for layer, names in enumerate(layers(layout_nodes(self.nodes))):
            items = [self.node_items[name] for name in names]
            total = sum(item.width for item in items) + H_GAP * (len(items) - 1)
            x = -total / 2
            for item in items:
                item.setPos(x, layer * (row_height + V_GAP))
                x += item.width + H_GAP
                self.scene.addItem(item)
        pen = QPen(QColor(colours.edge), 1.3)
        for node in self.nodes:
            for source in dict.fromkeys(node.inputs):
                if source in self.node_items:
                    self._edge(self.node_items[source].bottom(), self.node_items[node.name].top(), pen)
        self.scene.blockSignals(True)
        for name in self._linked:
            if name in self.node_items:
                self.node_items[name].setSelected(True)
        self.scene.blockSignals(False)
        self.canvas.refit_if_untouched()
        self._show_zoom()

    def _edge(self, start: QPointF, end: QPointF, pen: QPen) -> None:
        path = QPainterPath(start)
        mid = (end.y() - start.y()) / 2
        path.cubicTo(start + QPointF(0, mid), end - QPointF(0, mid), end - QPointF(0, 5))
        line = self.scene.addPath(path, pen)
        line.setZValue(-1)
        head = QGraphicsPolygonItem(QPolygonF([end, end + QPointF(-4.5, -8), end + QPointF(4.5, -8)]))
        head.setBrush(QBrush(pen.color()))
        head.setPen(QPen(Qt.NoPen))
        head.setZValue(-1)
        self.scene.addItem(head)
        self.edge_items.append(line)

    def _on_selection(self) -> None:
        for item in self.scene.selectedItems():
            if isinstance(item, NodeItem):
                self._linked = [item.node.name]
                self.sig_node_selected.emit(item.node.name)
                return

    def _on_text_cursor(self) -> None:
        if self._quiet or not self._lines_are_nodes:
            return
        line = self.text.textCursor().blockNumber()
        if 0 <= line < len(self.nodes):
            self.sig_node_selected.emit(self.nodes[line].name)


__all__ = [
    "TAB_CODE",
    "TAB_DRAWING",
    "GraphPanel",
    "NodeItem",
    "ZoomableView",
    "code_line",
    "code_text",
    "layout_nodes",
]
