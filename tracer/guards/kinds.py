"""Guard kinds: the premises a compiled entry was built on.

Each guard knows its source, its kind, the expression Dynamo would print for
it, the value it expects, and where it came from: the instruction that
installed it and the VariableTracker that was being built.  `check_one` is the
plain, slow evaluation every other form is measured against.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import torch

from ..source import Source


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
    def of(cls, t: torch.Tensor, size=None, stride=None) -> "TensorMeta":
        """`size` / `stride`: the pattern to match, None at each symbolic dimension (default: all of t's)."""
        return cls(type(t), t.dtype, t.device, t.requires_grad, tuple(t.size()) if size is None else tuple(size),
                   tuple(t.stride()) if stride is None else tuple(stride))

    def is_static(self) -> bool:
        return None not in self.size and None not in self.stride


@dataclass(frozen=True)
class ShapeCheck:
    """What a SHAPE_ENV guard tests: a Python expression over L and G produced by torch's ShapeEnv."""

    python: str  # evaluable: `2 <= L['x'].size()[0] and L['x'].size()[0] <= 4`
    text: str  # as Dynamo prints it: `2 <= L['x'].size()[0] <= 4`
    terms: tuple[str, ...] = ()  # the sizes it reads (`L['x'].size()[0]`), shown with their value on a failure

    def holds(self, f_locals: dict, f_globals: dict) -> bool:
        return bool(_shape_check(self.python)(f_locals, f_globals))


@functools.lru_cache(maxsize=1024)
def _shape_check(python: str):
    from ..source import SOURCE_NAMESPACE
    return eval(compile(f"lambda L, G: ({python})", "<shape guard>", "eval"),
                {**SOURCE_NAMESPACE, "math": math, "torch": torch})


def dims_match(actual, pattern) -> bool:
    """A size or stride against a pattern with None at the symbolic dimensions."""
    return len(actual) == len(pattern) and all(p is None or a == p for a, p in zip(actual, pattern))


@dataclass(frozen=True)
class Guard:
    source: Source | None  # None for global state
    kind: str
    expected: object
    installed_at: InstalledAt | None = field(default=None, compare=False)
    installed_by: str | None = field(default=None, compare=False)  # the tracker being built, e.g. "TensorVariable"
    causes: tuple = field(default=(), compare=False)  # SHAPE_ENV: the ShapeCauses behind it (shapes/provenance.py)

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
        if self.kind == "SHAPE_ENV":
            return self.expected.text
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
        if self.kind == "TUPLE_ITERATOR_LEN":
            return f"___tuple_iterator_len({name}) == {self.expected}"
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


# The process-wide switches that change what a graph computes, each with its C reader.
# Every value is a singleton (a bool or a dtype), so the compiled check compares with `is`.
GLOBAL_STATE_READERS = (
    ("grad_mode", torch.is_grad_enabled),
    ("default_dtype", torch.get_default_dtype),
    ("deterministic_algorithms", torch._C._get_deterministic_algorithms),
    ("autocast", torch._C._is_any_autocast_enabled),  # a graph traced outside autocast has other dtypes
    ("torch_function", torch._C._is_torch_function_enabled),
)


def global_state() -> tuple[tuple[str, object], ...]:
    """The process-wide switches that change what a graph computes, as (name, value) pairs."""
    return tuple((name, read()) for name, read in GLOBAL_STATE_READERS)


def leaf_test(guard: Guard, v: str, const) -> str:
    """The check of one guard, as Python over the variable `v` holding its source's value.

    The one definition of what each kind means: the compiled guard tree and the slow
    path (`check_one`) are both made from it.
    """
    e = guard.expected
    kind = guard.kind
    if kind == "GLOBAL_STATE":  # reads no source: each switch through its C reader
        readers = dict(GLOBAL_STATE_READERS)
        return " and ".join(f"{const(readers[name])}() is {const(value)}" for name, value in e)
    if kind == "TENSOR_MATCH":
        # `is_cpu` is one flag read where `device` builds a device object; a CPU device has no index
        device = f"{v}.is_cpu" if e.device.type == "cpu" else f"{v}.device == {const(e.device)}"
        head = (f"type({v}) is {const(e.type)} and {v}.dtype is {const(e.dtype)} and {device} "
                f"and {v}.requires_grad is {e.requires_grad}")
        if e.is_static():
            return f"{head} and {v}.shape == {const(e.size)} and {v}.stride() == {const(e.stride)}"
        match = const(dims_match)
        return f"{head} and {match}({v}.shape, {const(e.size)}) and {match}({v}.stride(), {const(e.stride)})"
    if kind == "SHAPE_ENV":  # over the frame's L and G, not one source's value
        return f"({e.python})"
    if kind == "TYPE_MATCH":
        return f"type({v}) is {const(e)}"
    if kind == "ID_MATCH":
        return f"{v} is {const(e)}"
    if kind == "EQUALS_MATCH":
        if isinstance(e, float) and e != e:  # NaN equals nothing, itself included
            return f"type({v}) is float and {v} != {v}"
        return f"type({v}) is {const(type(e))} and {v} == {const(e)}"
    if kind == "NONE_MATCH":
        return f"{v} is None"
    if kind == "TRUE_MATCH":
        return f"{v} is True"
    if kind == "FALSE_MATCH":
        return f"{v} is False"
    if kind == "LENGTH_CHECK":
        return f"len({v}) == {e}"
    if kind == "TUPLE_ITERATOR_LEN":
        return f"_iter_len({v}) == {e}"
    if kind == "DICT_KEYS_MATCH":
        return f"tuple({v}.keys()) == {const(e)}"
    if kind == "DICT_CONTAINS":
        return f"({const(e[0])} in {v}) is {e[1]}"
    raise ValueError(f"unknown guard kind {kind}")


def check_one(guard: Guard, value) -> bool:
    """Evaluate a single guard against an already-fetched value (the slow path).

    A SHAPE_ENV guard reads several sources: check it with `guard.expected.holds(L, G)`.
    """
    if guard.kind == "SHAPE_ENV":
        raise ValueError("a SHAPE_ENV guard is checked over the frame's L and G (ShapeCheck.holds)")
    consts: dict = {}

    def const(v) -> str:
        name = f"_c{len(consts)}"
        consts[name] = v
        return name

    from ..source import SOURCE_NAMESPACE
    test = leaf_test(guard, "value", const)
    return bool(eval(test, {"__builtins__": {"type": type, "len": len, "tuple": tuple}, **SOURCE_NAMESPACE,
                            **consts}, {"value": value}))


def actual_text(guard: Guard, value) -> str:
    """How the failing value looks now, in the guard's own terms."""
    if guard.kind == "TENSOR_MATCH" and isinstance(value, torch.Tensor):
        return tensor_mismatch(guard, value)
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


def _tensor_name(source_name: str) -> str:
    """How Dynamo names a tensor in a mismatch: a local by its name (`x`), anything else as it is."""
    if source_name.startswith("L['") and source_name.endswith("']") and source_name.count("'") == 2:
        return source_name[3:-2]
    return source_name.replace("L['", "").replace("']", "", 1) if source_name.startswith("L['") else source_name


def tensor_mismatch(guard: Guard, value: torch.Tensor) -> str:
    """A failed TENSOR_MATCH in Dynamo's words: `tensor 'x' size mismatch at index 0. expected 3, actual 2`."""
    then, name = guard.expected, _tensor_name(guard.source_name)
    if type(value) is not then.type:
        return f"tensor '{name}' type mismatch. expected {then.type.__name__}, actual {type(value).__name__}"
    if value.dtype != then.dtype:
        return f"tensor '{name}' dtype mismatch. expected {then.dtype}, actual {value.dtype}"
    if value.device != then.device:
        return f"tensor '{name}' device mismatch. expected {then.device}, actual {value.device}"
    if value.requires_grad != then.requires_grad:
        return f"tensor '{name}' requires_grad mismatch. expected requires_grad={int(then.requires_grad)}"
    if value.dim() != len(then.size):
        return f"tensor '{name}' rank mismatch. expected {len(then.size)}, actual {value.dim()}"
    for what, actual, pattern in (("size", value.size(), then.size), ("stride", value.stride(), then.stride)):
        for index, (a, p) in enumerate(zip(actual, pattern)):
            if p is not None and a != p:
                return f"tensor '{name}' {what} mismatch at index {index}. expected {p}, actual {a}"
    return f"tensor '{name}' matches"
