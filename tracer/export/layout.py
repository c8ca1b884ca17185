"""Where each node of a graph sits in a layered drawing: one layout for the app and the SVG export.

The classic layered layout, kept small: a node's layer is one more than the
deepest of its inputs (placeholders and nodes without inputs on top, the output
alone at the bottom); within a layer nodes keep graph order after one
barycenter pass (ordered by the mean position of their inputs) to cut
crossings. Sizes and pixels are the caller's: this says only layer and slot.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple


class LayoutNode(NamedTuple):
    name: str
    op: str
    inputs: Sequence[str]  # names of earlier nodes it reads


def layers(nodes: Iterable[LayoutNode]) -> list[list[str]]:
    """The node names of each layer, top first, each layer in drawing order (left to right)."""
    nodes = list(nodes)
    order = {node.name: i for i, node in enumerate(nodes)}
    rank: dict[str, int] = {}
    for node in nodes:  # FX graphs are topologically ordered
        ranks = [rank[i] for i in node.inputs if i in rank]
        rank[node.name] = 0 if node.op == "placeholder" or not ranks else max(ranks) + 1
    deepest = max(rank.values(), default=0)
    for node in nodes:  # the output sits alone at the bottom
        if node.op == "output":
            rank[node.name] = max(deepest, 1) if len(nodes) > 1 else 0
    rows: dict[int, list[LayoutNode]] = {}
    for node in nodes:
        rows.setdefault(rank[node.name], []).append(node)
    position: dict[str, float] = {}
    result = []
    for r in sorted(rows):
        row = rows[r]
        if r > 0:
            def key(node, position=position):
                xs = [position[i] for i in node.inputs if i in position]
                return (sum(xs) / len(xs) if xs else float("inf"), order[node.name])
            row.sort(key=key)
        for i, node in enumerate(row):
            position[node.name] = i
        result.append([node.name for node in row])
    return result


def layer_of(nodes: Iterable[LayoutNode]) -> dict[str, int]:
    """name -> the index of its layer (0 on top)."""
    return {name: index for index, row in enumerate(layers(nodes)) for name in row}


__all__ = ["LayoutNode", "layers", "layer_of"]
