"""Guard reports: the tree `TORCH_LOGS=guards` prints, and a JSON document.

JSON schema (one object per cache entry), version 1:

    {
      "schema": "standin.guards/1",
      "compile_id": "0/1",
      "frame": "f",                      # the code object's name
      "guards": [
        {
          "source": "G['cfg'].scale",    # "" for global state
          "kind": "EQUALS_MATCH",
          "expression": "G['cfg'].scale == 2",
          "expected": "2",               # repr of the expected value (a dict for TENSOR_MATCH)
          "installed_at": {"file": ..., "function": ..., "line": 7, "offset": 12,
                           "columns": [8, 17], "source_line": "..."} or null,
          "installed_by": "ConstantVariable" or null,
          "causes": [{"why": ..., "installed_at": {...} or null, "opname": ..., "tracker": ...}, ...]
        }, ...                           # causes: why a shape guard (SHAPE_ENV, or a TENSOR_MATCH whose
                                         # size was specialised) exists, one per fact behind it
      ],
      "tree": [ {"source": "G['cfg']", "guards": [<index into guards>...], "children": [...]}, ... ]
    }
"""
from __future__ import annotations

import json

from .compiled import build_tree
from .kinds import Guard, expected_json


def installed_at_json(at) -> dict | None:
    return None if at is None else {
        "file": at.filename, "function": at.function, "line": at.line, "offset": at.offset,
        "columns": list(at.col_span), "source_line": at.source_line.strip(),
    }


def guard_to_json(guard: Guard) -> dict:
    return {
        "source": guard.source_name,
        "kind": guard.kind,
        "expression": guard.expr,
        "expected": expected_json(guard),
        "installed_at": installed_at_json(guard.installed_at),
        "installed_by": guard.installed_by,
        "causes": [{"why": c.why, "installed_at": installed_at_json(c.installed_at), "opname": c.opname,
                    "tracker": c.tracker} for c in guard.causes],
    }


def source_tree(guards) -> list[dict]:
    """Every Source the guards read, as a tree of dicts with the guards installed on each node."""
    guards = list(guards)
    index = {id(g): i for i, g in enumerate(guards)}
    _, roots = build_tree(guards)

    def node_to_dict(node) -> dict:
        return {"source": node.source.name(), "guards": [index[id(g)] for g in node.guards],
                "children": [node_to_dict(child) for child in node.children.values()]}

    return [node_to_dict(root) for root in roots.values()]


def report_json(entry, frame_name: str) -> dict:
    guards = list(entry.guards)
    return {"schema": "standin.guards/1", "compile_id": entry.compile_id, "frame": frame_name,
            "guards": [guard_to_json(g) for g in guards], "tree": source_tree(guards)}


def report_text(entry) -> str:
    """The guard tree in the style of TORCH_LOGS=guards, each leaf with where it was installed."""
    guards = list(entry.guards)
    state, roots = build_tree(guards)
    lines = ["TREE_GUARD_MANAGER:", "+- RootGuardManager"]
    for guard in state:
        lines.append(f"| +- {guard}")

    def walk(node, depth):
        pad = "| " * depth
        lines.append(f"{pad}+- GuardManager: source={node.source.name()}")
        for guard in node.guards:
            where = f"  # {guard.installed_at}" if guard.installed_at else ""
            lines.append(f"{pad}| +- {guard}{where}")
            lines.extend(f"{pad}| |    because {cause}" for cause in guard.causes)
        for child in node.children.values():
            walk(child, depth + 1)

    for root in roots.values():
        walk(root, 1)
    return "\n".join(lines)


def dumps(entry, frame_name: str) -> str:
    return json.dumps(report_json(entry, frame_name), indent=2)
