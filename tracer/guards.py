"""Guards: the premises a compiled entry was built on, and their fast check.

Each guard knows its source, its kind, the expression Dynamo would print for
it, the value it expects and the instruction that installed it.  A GuardSet
compiles all guards of an entry into one generated Python function that
fetches every source once; when that check fails, `first_failure` walks the
guards in order to say which premise broke and what the value is now.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import torch

from .source import SOURCE_NAMESPACE, Source


@dataclass(frozen=True)
class InstalledAt:
    """The instruction whose execution installed a guard."""

    filename: str
    function: str
    line: int | None
    offset: int | None
    col_span: tuple[int | None, int | None] = (None, None)
    source_line: str = ""

    def __str__(self) -> str:
        text = f"{self.filename}:{self.line} in {self.function}"
        return f"{text}: {self.source_line.strip()}" if self.source_line else text


@dataclass(frozen=True)
class TensorMeta:
    """What TENSOR_MATCH compares."""

    type: type
    dtype: torch.dtype
    device: torch.device
    requires_grad: bool
    size: tuple[int, ...]
    stride: tuple[int, ...]

    @classmethod
    def of(cls, t: torch.Tensor) -> "TensorMeta":
        return cls(type(t), t.dtype, t.device, t.requires_grad, tuple(t.size()), tuple(t.stride()))


@dataclass(frozen=True)
class Guard:
    source: Source | None  # None for global state
    kind: str
    expected: object
    installed_at: InstalledAt | None = field(default=None, compare=False)

    @property
    def source_name(self) -> str:
        return self.source.name() if self.source is not None else ""

    @property
    def expr(self) -> str:
        """The guard as Dynamo's TORCH_LOGS=guards prints it."""
        name = self.source_name
        if self.kind == "TENSOR_MATCH":
            m = self.expected
            return (
                f"check_tensor({name}, {m.type.__name__}, {m.dtype}, device={m.device.index}, "
                f"requires_grad={m.requires_grad}, size={list(m.size)}, stride={list(m.stride)})"
            )
        if self.kind == "TYPE_MATCH":
            return f"___check_type_id({name}, {id(self.expected)}), type={self.expected}"
        if self.kind == "ID_MATCH":
            return f"___check_obj_id({name}, {id(self.expected)}), value={_short(self.expected)}"
        if self.kind == "EQUALS_MATCH":
            return f"{name} == {self.expected!r}"
        if self.kind == "NONE_MATCH":
            return f"{name} is None"
        if self.kind in ("TRUE_MATCH", "FALSE_MATCH"):
            return f"{name} == {self.kind == 'TRUE_MATCH'}"
        if self.kind == "DICT_CONTAINS":
            key, present = self.expected
            return f"{'' if present else 'not '}___dict_contains({key!r}, {name})"
        if self.kind == "LENGTH_CHECK":
            return f"len({name}) == {self.expected}"
        if self.kind == "DICT_KEYS_MATCH":
            return f"list({name}.keys()) == {list(self.expected)!r}"
        if self.kind == "GLOBAL_STATE":
            return f"___check_global_state() against {dict(self.expected)}"
        return f"{self.kind}({name})"

    def __str__(self) -> str:
        return f"{self.kind}: {self.expr}"


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def global_state() -> tuple[tuple[str, object], ...]:
    """The process-wide switches that change what a graph computes."""
    return (
        ("grad_mode", torch.is_grad_enabled()),
        ("default_dtype", torch.get_default_dtype()),
        ("deterministic_algorithms", torch.are_deterministic_algorithms_enabled()),
    )


def check_one(guard: Guard, value) -> bool:
    """Evaluate a single guard against an already-fetched value (the slow path)."""
    kind, expected = guard.kind, guard.expected
    if kind == "TENSOR_MATCH":
        return isinstance(value, torch.Tensor) and TensorMeta.of(value) == expected
    if kind == "TYPE_MATCH":
        return type(value) is expected
    if kind == "ID_MATCH":
        return value is expected
    if kind == "EQUALS_MATCH":
        return type(value) is type(expected) and value == expected
    if kind == "NONE_MATCH":
        return value is None
    if kind == "TRUE_MATCH":
        return value is True
    if kind == "FALSE_MATCH":
        return value is False
    if kind == "DICT_CONTAINS":
        key, present = expected
        return (key in value) == present
    if kind == "LENGTH_CHECK":
        return len(value) == expected
    if kind == "DICT_KEYS_MATCH":
        return isinstance(value, dict) and tuple(value.keys()) == expected
    if kind == "GLOBAL_STATE":
        return global_state() == expected
    raise ValueError(f"unknown guard kind {kind}")


def actual_text(guard: Guard, value) -> str:
    """How the failing value looks now, in the guard's own terms."""
    if guard.kind == "TENSOR_MATCH" and isinstance(value, torch.Tensor):
        now, then = TensorMeta.of(value), guard.expected
        for attr in ("type", "dtype", "device", "requires_grad", "size", "stride"):
            if getattr(now, attr) != getattr(then, attr):
                return f"{attr} mismatch: expected {getattr(then, attr)}, actual {getattr(now, attr)}"
    if guard.kind == "TYPE_MATCH":
        return f"got type {type(value).__name__}"
    if guard.kind == "LENGTH_CHECK":
        return f"got len {len(value)}"
    if guard.kind == "DICT_KEYS_MATCH":
        return f"got keys {list(value.keys())!r}"
    if guard.kind == "GLOBAL_STATE":
        changed = [f"{k}={v}" for (k, v), (_, e) in zip(global_state(), guard.expected) if v != e]
        return "changed " + ", ".join(changed)
    return f"got {_short(value)}"


class GuardSet:
    """All guards of one cache entry, compiled into one check function."""

    def __init__(self, guards: list[Guard]):
        self.guards: tuple[Guard, ...] = tuple(guards)
        self.check = _compile(self.guards)

    def __len__(self) -> int:
        return len(self.guards)

    def __iter__(self):
        return iter(self.guards)

    def first_failure(self, f_locals: dict, f_globals: dict) -> str | None:
        """Text of the first guard that fails, with the actual value; None if all pass."""
        for guard in self.guards:
            try:
                value = None if guard.source is None else guard.source.get_value(f_locals, f_globals)
            except Exception as error:  # the path itself is gone: that is the failure
                return f"{guard.source_name}: cannot be read ({type(error).__name__}: {error})"
            try:
                ok = check_one(guard, value)
            except Exception:
                ok = False
            if not ok:
                return f"{guard.expr}, {actual_text(guard, value)}"
        return None


def _compile(guards: tuple[Guard, ...]):
    """Generate `check(L, G) -> bool`: each source fetched once, leaves specialised."""
    consts: dict[str, object] = {"torch": torch, "_global_state": global_state}
    fetched: dict[str, str] = {}
    lines: list[str] = []
    counter = itertools.count()

    def const(value) -> str:
        name = f"_c{next(counter)}"
        consts[name] = value
        return name

    def var_for(source: Source) -> str:
        key = source.name()
        if key not in fetched:
            fetched[key] = f"_v{len(fetched)}"
            lines.append(f"{fetched[key]} = {source.expression()}")
        return fetched[key]

    for guard in guards:
        if guard.kind == "GLOBAL_STATE":
            lines.append(f"if _global_state() != {const(guard.expected)}: return False")
            continue
        v = var_for(guard.source)
        e = guard.expected
        if guard.kind == "TENSOR_MATCH":
            test = (
                f"type({v}) is {const(e.type)} and {v}.dtype == {const(e.dtype)} "
                f"and {v}.device == {const(e.device)} and {v}.requires_grad is {e.requires_grad} "
                f"and {v}.size() == {const(e.size)} and {v}.stride() == {const(e.stride)}"
            )
        elif guard.kind == "TYPE_MATCH":
            test = f"type({v}) is {const(e)}"
        elif guard.kind == "ID_MATCH":
            test = f"{v} is {const(e)}"
        elif guard.kind == "EQUALS_MATCH":
            test = f"type({v}) is {const(type(e))} and {v} == {const(e)}"
        elif guard.kind == "NONE_MATCH":
            test = f"{v} is None"
        elif guard.kind == "TRUE_MATCH":
            test = f"{v} is True"
        elif guard.kind == "FALSE_MATCH":
            test = f"{v} is False"
        elif guard.kind == "DICT_CONTAINS":
            test = f"({const(e[0])} in {v}) is {e[1]}"
        elif guard.kind == "LENGTH_CHECK":
            test = f"len({v}) == {e}"
        elif guard.kind == "DICT_KEYS_MATCH":
            test = f"tuple({v}.keys()) == {const(e)}"
        else:
            raise ValueError(f"unknown guard kind {guard.kind}")
        lines.append(f"if not ({test}): return False")
    body = "\n        ".join(lines) or "pass"
    src = (
        "def check(L, G):\n"
        "    try:\n"
        f"        {body}\n"
        "    except Exception:\n"
        "        return False\n"
        "    return True\n"
    )
    namespace = dict(consts)
    namespace.update(SOURCE_NAMESPACE)
    exec(compile(src, "<guards>", "exec"), namespace)
    check = namespace["check"]
    check.source_code = src
    return check
