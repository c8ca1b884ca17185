"""A graph as SVG, laid out here: no Graphviz, nothing to install, works on a fresh machine.

Nodes sit in the layers `layout.py` computes (the app's drawing uses the
same), and edges are cubic curves from a node's bottom edge to its
consumer's top edge. Text uses a monospace font so widths can be
computed without measuring. Every string is XML-escaped.
"""
from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from .graphs import node_label
from .layout import LayoutNode
from .layout import layers as layered

FONT_SIZE = 12
CHAR_W = FONT_SIZE * 0.6  # monospace advance
LINE_H = 16
PAD_X, PAD_Y = 10, 6
GAP_X, GAP_Y = 24, 44
MARGIN = 16
MAX_CHARS = 60

FILL = {
    "placeholder": ("#dbeafe", "#3b82f6"),
    "output": ("#dcfce7", "#16a34a"),
    "call_function": ("#f8fafc", "#64748b"),
    "call_method": ("#fef9c3", "#ca8a04"),
    "call_module": ("#fae8ff", "#a21caf"),
    "get_attr": ("#e5e7eb", "#6b7280"),
}


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def layout(description: dict) -> dict:
    """{name: (x, y, w, h)} plus the canvas size, for a described graph (layers from layout.py)."""
    nodes = description["nodes"]
    by_name = {n["name"]: n for n in nodes}
    rows = layered([LayoutNode(n["name"], n["op"], n["inputs"]) for n in nodes])
    layers = {r: [by_name[name] for name in row] for r, row in enumerate(rows)}

    sizes = {}
    for node in nodes:
        title, detail = node_label(node)
        width = max(len(_clip(title)), len(_clip(detail))) * CHAR_W + 2 * PAD_X
        height = LINE_H * (2 if detail else 1) + 2 * PAD_Y
        sizes[node["name"]] = (max(width, 60.0), float(height))

    row_widths = {r: sum(sizes[n["name"]][0] for n in layer) + GAP_X * (len(layer) - 1)
                  for r, layer in layers.items()}
    canvas_w = max(row_widths.values(), default=0) + 2 * MARGIN
    boxes = {}
    y = MARGIN
    for r in sorted(layers):
        layer = layers[r]
        x = MARGIN + (canvas_w - 2 * MARGIN - row_widths[r]) / 2
        row_h = max(sizes[n["name"]][1] for n in layer)
        for node in layer:
            w, h = sizes[node["name"]]
            boxes[node["name"]] = (x, y + (row_h - h) / 2, w, h)
            x += w + GAP_X
        y += row_h + GAP_Y
    canvas_h = y - GAP_Y + MARGIN if layers else 2 * MARGIN
    return {"boxes": boxes, "width": canvas_w, "height": canvas_h}


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def graph_svg(description: dict, *, id_prefix: str = "g", title: str = "") -> str:
    """A standalone SVG document (also valid inline in HTML) for a described graph."""
    geometry = layout(description)
    boxes = geometry["boxes"]
    w, h = geometry["width"], geometry["height"]
    marker = f"{id_prefix}-arrow"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="standin-graph" width="{_n(w)}" height="{_n(h)}" '
           f'viewBox="0 0 {_n(w)} {_n(h)}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" '
           f'font-size="{FONT_SIZE}">']
    if title:
        out.append(f"<title>{escape(title)}</title>")
    out.append(f'<defs><marker id={quoteattr(marker)} viewBox="0 0 10 10" refX="9" refY="5" '
               'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
               '<path d="M 0 0 L 10 5 L 0 10 z" fill="#64748b"/></marker></defs>')
    out.append('<g class="edges">')
    for node in description["nodes"]:
        if node["name"] not in boxes:
            continue
        tx, ty, tw, _ = boxes[node["name"]]
        inputs = list(dict.fromkeys(node["inputs"]))
        for k, source in enumerate(inputs):
            if source not in boxes:
                continue
            sx, sy, sw, sh = boxes[source]
            x1, y1 = sx + sw / 2, sy + sh
            x2 = tx + tw * (k + 1) / (len(inputs) + 1)
            y2 = ty
            bend = max((y2 - y1) / 2, 12)
            out.append(f'<path class="edge" data-from={quoteattr(source)} data-to={quoteattr(node["name"])} '
                       f'd="M {_n(x1)} {_n(y1)} C {_n(x1)} {_n(y1 + bend)}, {_n(x2)} {_n(y2 - bend)}, '
                       f'{_n(x2)} {_n(y2)}" fill="none" stroke="#64748b" stroke-width="1.2" '
                       f'marker-end="url(#{escape(marker)})"/>')
    out.append("</g>")
    out.append('<g class="nodes">')
    for node in description["nodes"]:
        x, y, bw, bh = boxes[node["name"]]
        fill, stroke = FILL.get(node["op"], ("#ffffff", "#64748b"))
        title_text, detail = node_label(node)
        tip = (f"input {node['target']}" if node["op"] == "placeholder"
               else f"{node['op']} {node['target']}({node['args']})")
        if node["location"]:
            loc = node["location"]
            tip += f"\n{loc['file']}:{loc['line']} in {loc['function']}\n    {loc['code']}"
        node_id = f"{id_prefix}-{node['name']}"
        out.append(f'<g class="node" id={quoteattr(node_id)} '
                   f'data-name={quoteattr(node["name"])} data-op={quoteattr(node["op"])}>')
        out.append(f"<title>{escape(tip)}</title>")
        out.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(bw)}" height="{_n(bh)}" rx="5" '
                   f'fill="{fill}" stroke="{stroke}" stroke-width="1.2"/>')
        ty = y + PAD_Y + LINE_H - 4
        out.append(f'<text x="{_n(x + bw / 2)}" y="{_n(ty)}" text-anchor="middle" fill="#0f172a">'
                   f"{escape(_clip(title_text))}</text>")
        if detail:
            out.append(f'<text x="{_n(x + bw / 2)}" y="{_n(ty + LINE_H)}" text-anchor="middle" '
                       f'fill="#475569">{escape(_clip(detail))}</text>')
        out.append("</g>")
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
