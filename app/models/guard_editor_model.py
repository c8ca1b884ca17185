"""The guard editor's data, without Qt: which globals to list, and how predictions and entries read.

Kept apart from the widget so it can be tested and reused (the HTML report could
use the same wording).
"""
from __future__ import annotations

import difflib
import os
import re
import types
from dataclasses import dataclass

PREDICTION_HIT = "hit"
PREDICTION_RECOMPILE = "recompile"
PREDICTION_NONE = "none"  # no session, or the engine could not predict

SIDE_LEFT = 0
SIDE_RIGHT = 1

PREDICTION_LINES = 5  # height of the prediction banner, in text lines
MAX_REPR = 80  # characters of a value's repr shown in the table
MAX_ATTRS = 24  # simple attributes listed per plain object global
MAX_CONTAINER = 8  # small lists/tuples/dicts of simple values are shown whole

_SIMPLE = (bool, int, float, complex, str, bytes, type(None))
_GLOBAL_REF = re.compile(r"G\['([A-Za-z_]\w*)'\]")
_UNEDITABLE = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
               types.BuiltinMethodType, type)

# ---- pure helpers (no Qt state; unit-testable) ------------------------------------------------
@dataclass(frozen=True)
class GlobalRow:
    """One row of the globals table: an editable path, its value's repr, the guard kinds on it."""

    path: str
    value: str
    guarded_by: tuple[str, ...] = ()

    @property
    def guarded(self) -> bool:
        return bool(self.guarded_by)


def global_path(source_name: str) -> str | None:
    """A guard source under a module global as an editor path: "G['cfg'].scale" -> "cfg.scale".

    Returns None for sources the StateEditor cannot assign to (calls, locals, ...);
    `type(G['cfg']).scale` becomes `type(cfg).scale`, which it can.
    """
    if not source_name or "G['" not in source_name or "L['" in source_name:
        return None
    path = _GLOBAL_REF.sub(r"\1", source_name)
    import ast
    try:
        node = ast.parse(path, mode="eval").body
    except SyntaxError:
        return None
    return path if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) else None


def short_repr(value, limit: int = MAX_REPR) -> str:
    try:
        text = repr(value)
    except Exception as error:  # a user's __repr__ may raise; the table must still draw
        text = f"<repr failed: {type(error).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_simple(value) -> bool:
    if isinstance(value, _SIMPLE):
        return True
    if isinstance(value, (list, tuple)) and len(value) <= MAX_CONTAINER:
        return all(isinstance(v, _SIMPLE) for v in value)
    if isinstance(value, dict) and len(value) <= MAX_CONTAINER:
        return all(isinstance(k, _SIMPLE) and isinstance(v, _SIMPLE) for k, v in value.items())
    return False


def _is_plain_object(value) -> bool:
    """A user object whose simple attributes are worth listing (a config, a flags holder)."""
    if isinstance(value, _UNEDITABLE) or callable(value) or _is_simple(value):
        return False
    module = getattr(type(value), "__module__", "") or ""
    if module.split(".")[0] in ("torch", "numpy", "builtins"):
        return False
    return isinstance(getattr(value, "__dict__", None), dict)


def other_globals(module_globals: dict, skip: set[str]) -> list[tuple[str, object]]:
    """The script's simple globals and plain objects' simple attributes, minus `skip` paths."""
    found = []
    for name, value in list(module_globals.items()):
        if name.startswith("__") or isinstance(value, _UNEDITABLE):
            continue
        if _is_simple(value):
            if name not in skip:
                found.append((name, value))
        elif _is_plain_object(value):
            attrs = [(k, v) for k, v in vars(value).items() if not k.startswith("_") and _is_simple(v)]
            for attr, attr_value in attrs[:MAX_ATTRS]:
                path = f"{name}.{attr}"
                if path not in skip:
                    found.append((path, attr_value))
    return found


def format_prediction(prediction, base_dir: str = "") -> tuple[str, str]:
    """(text, kind) for a `Prediction`: "cache hit: entry [0/1] runs ..." or "recompile: [0/0] ...".

    Paths under `base_dir` (the script's folder) are shortened so the banner stays readable.
    """
    def tidy(text: str) -> str:
        return text.replace(base_dir + os.sep, "") if base_dir else text

    if prediction.hit is not None:
        return tidy(str(prediction)), PREDICTION_HIT
    head = "cache limit reached (runs eagerly)" if prediction.cache_limit_reached else "recompile"
    if not prediction.failures:
        return head, PREDICTION_RECOMPILE
    lines = [f"{head}: [{cid}] {tidy(reason)}" for cid, reason in prediction.failures[:1]]
    lines += [f"{' ' * len(head)}  [{cid}] {tidy(reason)}" for cid, reason in prediction.failures[1:]]
    return "\n".join(lines), PREDICTION_RECOMPILE


def guard_line(guard) -> str:
    """`KIND: expr  # file:line` — one guard, as the compare panes show it."""
    where = guard.installed_at
    suffix = f"  # {os.path.basename(where.filename)}:{where.line}" if where is not None else ""
    return f"{guard.kind}: {guard.expr}{suffix}"


def entry_text(entry) -> str:
    """A cache entry's guards then its graph code, as plain text lines."""
    lines = ["# guards"]  # the entry's id and hit count live in the combo: they always differ
    lines += [guard_line(g) for g in entry.guards]
    lines.append("")
    graphs = list(entry.graphs)
    if entry.eager_reason:
        lines.append(f"# runs eagerly: {entry.eager_reason}")
    if not graphs:
        lines.append("# no graph")
    for number, gm in enumerate(graphs, 1):
        lines.append(f"# graph {number} of {len(graphs)}" if len(graphs) > 1 else "# graph")
        lines += [line for line in gm.code.strip("\n").splitlines() if line.strip()]
    return "\n".join(lines)


def diff_lines(left: list[str], right: list[str]) -> tuple[list[int], list[int]]:
    """Indexes of the lines that differ between two texts (difflib opcodes that are not 'equal')."""
    changed_left, changed_right = [], []
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            changed_left.extend(range(i1, i2))
            changed_right.extend(range(j1, j2))
    return changed_left, changed_right


def _bracket_id(reason: str) -> str:
    """"0/1: G['cfg'].scale == 3, got 5" -> "[0/1] G['cfg'].scale == 3, got 5" (as the prediction reads)."""
    match = re.match(r"(\d+/\d+): (.*)", reason, re.DOTALL)
    return f"[{match.group(1)}] {match.group(2)}" if match else reason


# ---- the widget ------------------------------------------------------------------------------
