"""The guard editor's data and logic, without Qt: which globals to list, edits, predictions, entries.

`GuardEditorModel` is what the widget shows: the session's compiled functions,
the rows of globals for the chosen one, the prediction for the next call, the
cache entries to compare and how a call's outcome reads. It talks to
`tracer.debug.Session`; the widget only shows it and sends requests (the
call itself runs in the controller, which can take seconds).
"""
from __future__ import annotations

import ast
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
    try:
        node = ast.parse(path, mode="eval").body
    except SyntaxError:
        return None
    return path if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) else None


def short_repr(value, limit: int = MAX_REPR) -> str:
    try:
        text = repr(value)
    except Exception as error:  # noqa: BLE001 - a user's __repr__ may raise; the table must still draw
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


def parse_shapes(text: str) -> dict[str, tuple[int, ...]]:
    """The guard editor's new argument shapes: "x=6x2, y=3" -> {"x": (6, 2), "y": (3,)}; "" -> {}."""
    shapes = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, dims = part.partition("=")
        name, dims = name.strip(), dims.strip().strip("()[]").replace(" ", "")
        if not sep or not name.isidentifier() or not dims:
            raise ValueError(f"{part!r}: write name=size, e.g. x=6x2")
        try:
            shapes[name] = tuple(int(d) for d in dims.replace("*", "x").split("x"))
        except ValueError:
            raise ValueError(f"{part!r}: sizes are ints separated by x, e.g. x=6x2") from None
        if any(d < 0 for d in shapes[name]):
            raise ValueError(f"{part!r}: a size cannot be negative")
    return shapes


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


def bracket_id(reason: str) -> str:
    """"0/1: G['cfg'].scale == 3, got 5" -> "[0/1] G['cfg'].scale == 3, got 5" (as the prediction reads)."""
    match = re.match(r"(\d+/\d+): (.*)", reason, re.DOTALL)
    return f"[{match.group(1)}] {match.group(2)}" if match else reason


# ---- the model ---------------------------------------------------------------------------------
class EditError(Exception):
    """An edit the user asked for could not be made; the message says why, nothing changed."""


class GuardEditorModel:
    """One session's guard editor state: the chosen function, its globals, entries and prediction."""

    def __init__(self, session=None):
        self.session = session
        self.shapes: dict[str, tuple[int, ...]] = {}  # what-if: new argument shapes for the next call
        self.function = None
        functions = self.functions()
        if functions:
            self.function = functions[0]

    def functions(self) -> list:
        return list(self.session.functions) if self.session is not None else []

    def function_names(self) -> list[str]:
        return [f.fn.__qualname__ for f in self.functions()]

    def choose(self, index: int) -> None:
        functions = self.functions()
        self.function = functions[index] if 0 <= index < len(functions) else None

    def index(self) -> int:
        functions = self.functions()
        return functions.index(self.function) if self.function in functions else -1

    @property
    def ready(self) -> bool:
        return self.session is not None and self.function is not None

    def editor(self):
        return self.session.editor(self.function) if self.ready else None

    @property
    def can_undo(self) -> bool:
        editor = self.editor()
        return bool(editor is not None and editor.history)

    # ---- rows --------------------------------------------------------------------------------
    def guard_kinds(self) -> dict[str, list[str]]:
        """Editor path -> guard kinds installed on it, across all the function's frames and entries."""
        kinds: dict[str, list[str]] = {}
        for entry in self.entries():
            for guard in entry.guards:
                path = global_path(guard.source_name)
                if path is not None and guard.kind not in kinds.setdefault(path, []):
                    kinds[path].append(guard.kind)
        return kinds

    def rows(self) -> list[GlobalRow]:
        if not self.ready:
            return []
        editor = self.editor()
        kinds = self.guard_kinds()
        rows, seen = [], set()
        for source in self.session.guarded_globals(self.function):
            path = global_path(source)
            if path is None or path in seen:
                continue
            path_kinds = tuple(kinds.get(path, ()))
            if path_kinds and set(path_kinds) <= {"TYPE_MATCH"}:
                continue  # a container whose type is pinned: its guarded attributes are the rows
            try:
                value = editor.get(path)
            except Exception as error:  # noqa: BLE001 - a user's attribute may raise anything; the row says so
                rows.append(GlobalRow(path, f"<unavailable: {type(error).__name__}>", path_kinds))
                seen.add(path)
                continue
            if isinstance(value, _UNEDITABLE) or (callable(value) and not _is_simple(value)):
                continue  # modules, functions, builtins: pinned by identity, nothing to type
            rows.append(GlobalRow(path, short_repr(value), path_kinds))
            seen.add(path)
        for path, value in other_globals(self.session.globals_of(self.function), seen):
            rows.append(GlobalRow(path, short_repr(value)))
        return rows

    # ---- edits ---------------------------------------------------------------------------------
    def set_expression(self, path: str, text: str) -> str:
        """Evaluate `text` in the module and assign it to `path`; the new value's repr, or EditError."""
        editor = self.editor()
        path, text = path.strip(), text.strip()
        if editor is None:
            raise EditError("Open a script and choose a compiled function first.")
        if not path or not text:
            raise EditError("Give a path (e.g. cfg.scale) and an expression (e.g. 5).")
        try:
            edit = editor.set_expression(path, text)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # noqa: BLE001 - the user's expression: any error is shown, nothing changes
            raise EditError(f"{path} = {text}: {type(error).__name__}: {error}") from None
        return short_repr(edit.new)

    def undo(self) -> None:
        editor = self.editor()
        if editor is not None and editor.history:
            editor.undo()

    def undo_all(self) -> None:
        editor = self.editor()
        if editor is not None:
            editor.undo_all()

    def set_shapes(self, text: str) -> None:
        """New argument shapes for the prediction and the next call ("x=6x2"); "" for the last call's."""
        self.shapes = parse_shapes(text)

    def predict(self) -> tuple[str, str]:
        """(text, kind): which entry the next call would run, or which guard would fail."""
        if not self.ready:
            return "No function selected.", PREDICTION_NONE
        try:
            prediction = self.session.predict(self.function, self.shapes or None)
        except Exception as error:  # noqa: BLE001 - e.g. never called yet, or its arguments no longer bind
            return f"cannot predict: {error}", PREDICTION_NONE
        return format_prediction(prediction, os.path.dirname(self.session.path))

    # ---- entries --------------------------------------------------------------------------------
    def entries(self) -> list:
        if self.function is None:
            return []
        return [entry for frame in self.function.all_frames() for entry in frame.cache_entries]

    def entry_label(self, entry) -> str:
        frame = next((f for f in self.function.all_frames() if entry in f.cache_entries), self.function)
        name = "" if frame is self.function else f"  ({frame.code.co_name})"
        return f"[{entry.compile_id}]{name}"

    def entry_labels(self) -> list[str]:
        return [self.entry_label(entry) for entry in self.entries()]

    def newest_pair(self) -> tuple[int, int]:
        """Indexes of the most recently compiled entry and the entry before it in the same frame."""
        entries = self.entries()
        if not entries:
            return -1, -1
        newest_id, newest_time = None, None
        for frame in self.function.all_frames():
            for event in frame.compile_events:
                when = getattr(event, "time", None)
                if event.kind in ("compile", "recompile") and when is not None \
                        and (newest_time is None or when > newest_time):
                    newest_id, newest_time = event.compile_id, when
        ids = [entry.compile_id for entry in entries]
        right = ids.index(newest_id) if newest_id in ids else len(ids) - 1
        frame_prefix = ids[right].split("/")[0] + "/"
        earlier = [i for i in range(right) if ids[i].startswith(frame_prefix)]
        left = earlier[-1] if earlier else max(0, right - 1)
        return left, right

    def outcome_text(self, outcome) -> str:
        """What a call made from the editor did: the hit, or each new entry and why; its stdout."""
        base = os.path.dirname(self.session.path) + os.sep if self.session is not None else ""
        lines = []
        if outcome.error:
            lines.append(f"raised {outcome.error}")
        elif outcome.compiled:
            lines.append("recompiled:")
            for event in outcome.events:
                reason = (event.reason or "").replace(base, "") if base else (event.reason or "")
                parts = [p.strip() for p in reason.split("; ")] if reason else []
                lines.append(f"  new entry [{event.compile_id}] ({event.kind})")
                lines += [f"    because {bracket_id(part)}" for part in parts]
            if outcome.timelines:
                lines.append(f"  {len(outcome.timelines)} new trace(s) recorded")
        else:
            lines.append(f"cache hit: entry [{outcome.hit}] ran")
        if outcome.stdout:
            lines.append("stdout:")
            lines += ["  " + line for line in outcome.stdout.rstrip("\n").splitlines()]
        if not outcome.error and outcome.result is not None:
            lines.append(f"returned {short_repr(outcome.result, 160)}")
        return "\n".join(lines)


__all__ = ["GlobalRow", "GuardEditorModel", "EditError", "global_path", "short_repr", "other_globals",
           "format_prediction", "guard_line", "entry_text", "diff_lines", "bracket_id", "PREDICTION_HIT",
           "PREDICTION_RECOMPILE", "PREDICTION_NONE", "PREDICTION_LINES", "SIDE_LEFT", "SIDE_RIGHT"]
