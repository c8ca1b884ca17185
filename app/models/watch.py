"""Watch expressions and hover texts over the symbolic state at one step: plain Python, no widgets.

A watch is a path a person types, as in pudb's or VS Code's Watch pane:
`x`, `x.shape`, `self.fc`, `cfg.scale`, `top`, `xs[0]`. It is read from the
recorded snapshot (the trackers the translator held then), never by running
user code: a name is a symbolic local of the current frame (`top` is the top
of the stack), an attribute or index is a child of its tracker, and
`.shape`/`.dtype` of a tensor come from its graph node. A name that is not a
local is a module global: the guards the trace installed on it so far say
what the compiled code assumes, and the module's value now is shown beside.
A few attributes describe the tracker itself: `.kind`, `.source`, `.node`,
`.guards`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .tracker_tree import short_kind

TRACKER_FIELDS = ("kind", "source", "node", "guards")
MAX_VALUE = 120


@dataclass(frozen=True)
class WatchResult:
    expression: str
    value: str
    kind: str = ""
    source: str = ""
    guards: tuple = ()  # "KIND: expr" of the guards installed on its source so far
    error: bool = False


def parse_path(expression: str) -> tuple[str, list]:
    """("x", ["shape"]) for "x.shape", ("xs", [0]) for "xs[0]"; ValueError for anything else."""
    try:
        node = ast.parse(expression.strip(), mode="eval").body
    except SyntaxError:
        raise ValueError(f"not a name path: {expression!r} (e.g. x.shape, cfg.scale, xs[0])") from None
    steps: list = []
    while not isinstance(node, ast.Name):
        if isinstance(node, ast.Attribute):
            steps.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            steps.append(node.slice.value)
            node = node.value
        else:
            raise ValueError(f"a watch is a name with attributes or constant indexes, not {expression!r}")
    return node.id, steps[::-1]


def source_name(root_source: str, steps) -> str:
    """G['cfg'] + [scale, 0] -> G['cfg'].scale[0] (how Sources print themselves)."""
    name = root_source
    for step in steps:
        name += f".{step}" if isinstance(step, str) else f"[{step!r}]"
    return name


def _guards_on(guards, name: str) -> tuple:
    return tuple(f"{g.kind}: {g.expr}" for g in guards if g.source_name == name)


def _clip(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def describe(view, nodes=()) -> str:
    """One line for a tracker: its kind, value or node, shape and Source."""
    value = view.constant if view.constant is not None else view.text
    node = next((n for n in nodes if n.name == view.node), None) if view.node else None
    shape = f" {node.shape} {node.dtype}" if node is not None and node.shape else ""
    source = f"  · {view.source}" if view.source else ""
    return _clip(f"{short_kind(view)}: {value}{shape}") + source


class WatchContext:
    """What a watch can read at one step: the snapshot, the timeline's guards and nodes so far,
    and the module globals of the traced function (for a name the trace has not made a local)."""

    def __init__(self, snapshot, guards=(), nodes=(), module_globals: dict | None = None):
        self.snapshot = snapshot
        self.guards = list(guards)
        self.nodes = list(nodes)
        self.module_globals = module_globals or {}

    def evaluate(self, expression: str) -> WatchResult:
        try:
            root, steps = parse_path(expression)
        except ValueError as error:
            return WatchResult(expression, str(error), error=True)
        frame = self.snapshot.frame
        view = dict(frame.locals).get(root)
        if view is None and root == "top" and frame.stack:
            view = frame.stack[-1]
        if view is not None:
            return self._tracker_path(expression, view, steps)
        return self._global_path(expression, root, steps)

    def hover_texts(self) -> dict[str, str]:
        """name -> what it is now, for the names a person may hover in the source or the bytecode."""
        frame = self.snapshot.frame
        texts = {name: describe(view, self.nodes) for name, view in frame.locals}
        for guard in self.guards:
            name = guard.source_name
            if name.startswith("G['") and name.endswith("']") and name.count("'") == 2:
                global_name = name[3:-2]
                texts.setdefault(global_name, f"global {name}, guarded by "
                                 + ", ".join(sorted({g.kind for g in self.guards if g.source_name == name})))
        return texts

    # ---- internals -------------------------------------------------------------------------------
    def _tracker_path(self, expression: str, view, steps) -> WatchResult:
        for position, step in enumerate(steps):
            if step in TRACKER_FIELDS and position == len(steps) - 1:
                return self._tracker_field(expression, view, step)
            if step in ("shape", "dtype") and view.node:
                node = next((n for n in self.nodes if n.name == view.node), None)
                if node is not None and position == len(steps) - 1:
                    return WatchResult(expression, str(getattr(node, step)), "graph node " + node.name,
                                       view.source or "")
            child = next((c for label, c in view.children if str(label) in (str(step), repr(step))), None)
            if child is None:
                return WatchResult(expression, f"{describe(view)} has no {step!r} the trace knows of here",
                                   short_kind(view), view.source or "", error=True)
            view = child
        return WatchResult(expression, describe(view, self.nodes), short_kind(view), view.source or "",
                           _guards_on(self.guards, view.source) if view.source else ())

    def _tracker_field(self, expression: str, view, name: str) -> WatchResult:
        guards = _guards_on(self.guards, view.source) if view.source else ()
        value = {"kind": view.kind, "source": view.source or "(none: made during the trace)",
                 "node": view.node or "(no graph node)",
                 "guards": "; ".join(guards) or "(none installed so far)"}[name]
        return WatchResult(expression, value, short_kind(view), view.source or "", guards)

    def _global_path(self, expression: str, root: str, steps) -> WatchResult:
        name = source_name(f"G[{root!r}]", steps)
        guards = _guards_on(self.guards, name)
        value, found = self.module_globals.get(root), root in self.module_globals
        for step in steps:
            if not found:
                break
            try:
                value = getattr(value, step) if isinstance(step, str) else value[step]
            except Exception:  # noqa: BLE001 - a path the module does not have (now): say so, never raise
                found = False
        now = f"{_clip(repr(value))} in the module now" if found else "not in the module"
        if not guards and not found:
            frame = self.snapshot.frame
            return WatchResult(expression, f"{root} is not a local of {frame.function} at this step, "
                               "nor a module global", error=True)
        assumed = "; ".join(guards) if guards else "not read by the trace yet"
        return WatchResult(expression, f"{now}; {assumed}", "global", name, guards)


__all__ = ["WatchResult", "WatchContext", "parse_path", "source_name", "describe", "TRACKER_FIELDS"]
