"""What-if: which cache entry a call would run, without calling — and undoable edits.

`predict(compiled, args, kwargs)` evaluates every entry's guards against the
arguments and the current globals and says which entry would serve the call,
or, for each entry, the first guard that would fail and force a recompile.

`StateEditor` changes module globals and attributes reached from them
(`cfg.scale`, `weights[0]`) and records how to undo each change; the guard
editor tries a value, asks for a prediction, and rolls back.
"""
from __future__ import annotations
import ast

import inspect
from dataclasses import dataclass, field

import torch

_MISSING = object()


@dataclass
class Prediction:
    hit: str | None  # compile id of the entry that would run, or None
    runs_eagerly: bool = False  # the entry that would run is a skipped frame
    failures: list[tuple[str, str]] = field(default_factory=list)  # (compile id, first failing guard)
    cache_limit_reached: bool = False

    @property
    def recompiles(self) -> bool:
        return self.hit is None and not self.cache_limit_reached

    def __str__(self) -> str:
        if self.hit is not None:
            how = "eagerly (the frame is skipped)" if self.runs_eagerly else "its compiled code"
            return f"cache hit: entry [{self.hit}] runs {how}"
        head = "cache limit reached: runs eagerly" if self.cache_limit_reached else "recompile"
        return "\n".join([head] + [f"  [{cid}] {reason}" for cid, reason in self.failures])


def predict(compiled, args=(), kwargs=None) -> Prediction:
    kwargs = kwargs or {}
    f_locals = compiled.bind(tuple(args), kwargs)
    if f_locals is None:
        raise TypeError(f"{compiled.fn.__qualname__}() would reject these arguments")
    f_globals = compiled.fn.__globals__
    failures = []
    for entry in reversed(compiled.cache_entries):
        if entry.guards.check(f_locals, f_globals):
            return Prediction(entry.compile_id, runs_eagerly=entry.eager_reason is not None,
                              failures=failures)
        failures.append((entry.compile_id, entry.guards.first_failure(f_locals, f_globals) or "?"))
    return Prediction(None, failures=failures,
                      cache_limit_reached=len(compiled.cache_entries) >= compiled.cache_size_limit)


def reshaped(compiled, args: tuple, kwargs: dict, shapes: dict) -> tuple[tuple, dict]:
    """A call's arguments with the named tensors replaced by fresh ones of new shapes: "what if x were 6x2?".

    `shapes` maps a parameter name to a shape (a tuple of ints); each new tensor keeps the old one's
    dtype, device and requires_grad, so only its size differs in the guards' eyes.
    """
    if not shapes:
        return tuple(args), dict(kwargs)
    full = tuple(args) if compiled.bound_self is None else (compiled.bound_self, *args)
    bound = inspect.signature(compiled.fn, follow_wrapped=False).bind(*full, **kwargs)
    for name, shape in shapes.items():
        old = bound.arguments.get(name, _MISSING)
        if not isinstance(old, torch.Tensor):
            raise ValueError(f"{name!r} is not a tensor argument of {compiled.fn.__qualname__}")
        new = torch.randn(tuple(shape), dtype=old.dtype, device=old.device) if old.is_floating_point() else \
            torch.zeros(tuple(shape), dtype=old.dtype, device=old.device)
        bound.arguments[name] = new.requires_grad_(old.requires_grad) if new.is_floating_point() else new
    new_args = bound.args if compiled.bound_self is None else bound.args[1:]
    return tuple(new_args), dict(bound.kwargs)


@dataclass
class Edit:
    path: str
    old: object
    new: object


class StateEditor:
    """Undoable edits of a module's globals: `set("cfg.scale", 3)`, `undo()`, `undo_all()`."""

    def __init__(self, module_globals: dict):
        self.globals = module_globals
        self.history: list[tuple[Edit, object]] = []  # (edit, undo closure)

    def evaluate(self, expression: str):
        """A value typed by the user, evaluated in the module's namespace."""
        return eval(compile(expression, "<guard editor>", "eval"), self.globals)

    def get(self, path: str):
        return eval(compile(path, "<guard editor>", "eval"), self.globals)

    def set(self, path: str, value) -> Edit:
        """Assign to a global (`cfg`), an attribute (`cfg.scale`) or an item (`table['k']`)."""
        target, setter, getter, deleter = self._resolve(path)
        old = getter()
        setter(value)
        edit = Edit(path, None if old is _MISSING else old, value)
        self.history.append((edit, (lambda: deleter()) if old is _MISSING else (lambda: setter(old))))
        return edit

    def set_expression(self, path: str, expression: str) -> Edit:
        return self.set(path, self.evaluate(expression))

    def undo(self) -> Edit | None:
        if not self.history:
            return None
        edit, restore = self.history.pop()
        restore()
        return edit

    def undo_all(self) -> None:
        while self.history:
            self.undo()

    def __enter__(self) -> "StateEditor":
        return self

    def __exit__(self, *exc) -> None:
        self.undo_all()

    def _resolve(self, path: str):
        node = ast.parse(path, mode="eval").body
        if isinstance(node, ast.Name):
            g, name = self.globals, node.id
            return (g, lambda v: g.__setitem__(name, v), lambda: g.get(name, _MISSING),
                    lambda: g.pop(name, None))
        if isinstance(node, ast.Attribute):
            obj = self.get(ast.unparse(node.value))
            name = node.attr
            return (obj, lambda v: setattr(obj, name, v), lambda: getattr(obj, name, _MISSING),
                    lambda: delattr(obj, name))
        if isinstance(node, ast.Subscript):
            obj = self.get(ast.unparse(node.value))
            key = self.get(ast.unparse(node.slice))
            return (obj, lambda v: obj.__setitem__(key, v),
                    lambda: obj[key] if _has_key(obj, key) else _MISSING, lambda: obj.__delitem__(key))
        raise ValueError(f"cannot assign to {path!r}: use a name, an attribute or an item")


def _has_key(obj, key) -> bool:
    try:
        obj[key]
        return True
    except (KeyError, IndexError, TypeError):
        return False
