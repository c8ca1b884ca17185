"""The FX graph as it grows: code-like text and a layered drawing.

Nodes are GraphNodeViews (plain data recorded by the tracer); a finished
torch.fx.GraphModule is converted to the same views, so both paths share one
renderer.  Data dependencies are recovered from each view's argument text by
matching earlier node names, and nodes are placed in layers top to bottom by
longest path from the inputs: simple, stable as the graph grows, and plenty
for the graphs a debugger session shows.
"""
from __future__ import annotations

import re

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF, QTextFormat
from PySide6.QtWidgets import (QGraphicsItem, QGraphicsPathItem, QGraphicsPolygonItem, QGraphicsScene,
                               QGraphicsSimpleTextItem, QGraphicsView, QPlainTextEdit, QTabWidget, QTextEdit,
                               QVBoxLayout, QWidget)

from app import theme
from app.models.simple_tables import monospace_font

TAB_CODE, TAB_DRAWING = range(2)
BOX_HEIGHT = 42.0
BOX_MIN_WIDTH = 96.0
H_GAP, V_GAP = 24.0, 34.0
_NAME = re.compile(r"[A-Za-z_]\w*")


def dependencies(nodes) -> dict[str, list[str]]:
    """name -> names of earlier nodes its arguments mention."""
    seen: set[str] = set()
    deps = {}
    for node in nodes:
        deps[node.name] = list(dict.fromkeys(t for t in _NAME.findall(node.args or "") if t in seen))
        seen.add(node.name)
    return deps


def layers(nodes) -> dict[str, int]:
    """name -> layer: 0 for nodes without inputs, else one below its deepest input."""
    deps = dependencies(nodes)
    layer: dict[str, int] = {}
    for node in nodes:
        layer[node.name] = 1 + max((layer[d] for d in deps[node.name]), default=-1)
    return layer


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
        path = QPainterPath()
        path.addRoundedRect(QRectF(0, 0, width, BOX_HEIGHT), 8, 8)
        self.setPath(path)
        fill, border = colours.node_colour(node.op)
        self.setBrush(QBrush(QColor(fill)))
        self.setPen(QPen(QColor(colours.new_node_border if is_new else border), 2.5 if is_new else 1.2))
        self.setFlag(QGraphicsItem.ItemIsSelectable, True)
        self.setToolTip(f"{node.op}: {code_line(node)}" + (f"\n{node.stack_trace.strip()}" if node.stack_trace else ""))
        title = QGraphicsSimpleTextItem(node.name, self)
        title.setFont(bold)
        title.setBrush(QBrush(QColor(colours.node_title_fg)))
        title.setPos((width - bold_metrics.horizontalAdvance(node.name)) / 2, 4)
        sub = QGraphicsSimpleTextItem(detail, self)
        sub.setFont(font)
        sub.setBrush(QBrush(QColor(colours.node_detail_fg)))
        sub.setPos((width - metrics.horizontalAdvance(detail)) / 2, 4 + bold_metrics.height())

    def top(self) -> QPointF:
        return self.pos() + QPointF(self.width / 2, 0)

    def bottom(self) -> QPointF:
        return self.pos() + QPointF(self.width / 2, BOX_HEIGHT)


class _FittingView(QGraphicsView):
    """Shrinks the drawing to fit when it is larger than the view; never enlarges it."""

    def fit(self) -> None:
        rect = self.scene().itemsBoundingRect().adjusted(-12, -12, 12, 12)
        self.setSceneRect(rect)
        self.resetTransform()
        viewport = self.viewport().rect()
        if rect.width() > viewport.width() or rect.height() > viewport.height():
            self.fitInView(rect, Qt.KeepAspectRatio)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.fit()


class GraphPanel(theme.FollowsTheme, QWidget):
    """Two tabs over one list of GraphNodeViews: code text and a drawing."""

    sig_node_selected = Signal(str)  # a node box was clicked: its name

    def __init__(self, parent=None):
        super().__init__(parent)
        self.tabs = QTabWidget(self)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setFont(monospace_font())
        self.text.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.scene = QGraphicsScene(self)
        self.scene.selectionChanged.connect(self._on_selection)
        self.canvas = _FittingView(self.scene, self)
        self.canvas.setRenderHint(QPainter.Antialiasing)
        self.canvas.setRenderHint(QPainter.TextAntialiasing)
        self.canvas.setDragMode(QGraphicsView.ScrollHandDrag)
        self.tabs.addTab(self.text, "Code")
        self.tabs.addTab(self.canvas, "Graph")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self.nodes: list = []
        self.node_items: dict[str, NodeItem] = {}
        self.edge_items: list[QGraphicsItem] = []
        self._font = QFont(monospace_font())
        self._font.setPointSizeF(max(7.0, self._font.pointSizeF() - 1))
        self._first_new = 0              # what the drawing and the text marks were made from,
        self._text_first_new: int | None = None  # kept to redraw them in another theme
        self._theme = theme.current()
        self.canvas.setBackgroundBrush(QBrush(QColor(self._theme.canvas_bg)))

    # ---- slots ------------------------------------------------------------------------------
    def show_nodes(self, nodes, new_count: int = 0, code: str | None = None) -> None:
        """GraphNodeViews (Timeline.nodes_at(step)); the last `new_count` are new and outlined."""
        self.nodes = list(nodes)
        first_new = len(self.nodes) - max(0, min(new_count, len(self.nodes)))
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
        from tracer.debug.views import node_view
        self.show_nodes([node_view(n) for n in gm.graph.nodes], 0, code=gm.code.strip())

    def highlight_node(self, name: str) -> None:
        self.scene.clearSelection()
        item = self.node_items.get(name)
        if item is not None:
            item.setSelected(True)
            self.canvas.ensureVisible(item)

    def clear(self) -> None:
        self.show_nodes([])

    # ---- rendering --------------------------------------------------------------------------------
    def _show_text(self, text: str, first_new: int | None) -> None:
        self.text.setPlainText(text)
        self._mark_new_lines(first_new)

    def _mark_new_lines(self, first_new: int | None) -> None:
        """Background on the code lines of new nodes (None: the text is gm.code, not one line per node)."""
        self._text_first_new = first_new
        selections = []
        if first_new is not None:
            doc = self.text.document()
            changed = QColor(theme.current().changed_bg)
            for line in range(first_new, len(self.nodes)):
                selection = QTextEdit.ExtraSelection()
                selection.format.setBackground(changed)
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
        layer_of = layers(self.nodes)
        rows: dict[int, list] = {}
        for i, node in enumerate(self.nodes):
            item = NodeItem(node, i >= first_new, self._font, colours)
            self.node_items[node.name] = item
            rows.setdefault(layer_of[node.name], []).append(item)
        for layer, items in rows.items():
            total = sum(item.width for item in items) + H_GAP * (len(items) - 1)
            x = -total / 2
            for item in items:
                item.setPos(x, layer * (BOX_HEIGHT + V_GAP))
                x += item.width + H_GAP
                self.scene.addItem(item)
        pen = QPen(QColor(colours.edge), 1.3)
        for name, deps in dependencies(self.nodes).items():
            for dep in deps:
                self._edge(self.node_items[dep].bottom(), self.node_items[name].top(), pen)
        self.canvas.fit()

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
                self.sig_node_selected.emit(item.node.name)
                return


__all__ = ["GraphPanel", "NodeItem", "code_line", "code_text", "dependencies", "layers", "TAB_CODE", "TAB_DRAWING"]
