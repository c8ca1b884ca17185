"""Guard kinds: the premises a compiled entry was built on.

Each guard knows its source, its kind, the expression Dynamo would print for
it, the value it expects, and where it came from: the instruction that
installed it and the VariableTracker that was being built.

Each kind is defined once, in `KINDS`: its expression text, its check as
Python over the guarded value, how the actual and the expected values print,
and the torch native guard that answers the same question (`native`, used by
`guards/native.py`; a kind without one is checked there by its Python test).
`check_one` is the plain, slow evaluation every other form is measured against.
"""
from __future__ import annotations

import collections
import functools
import importlib
import math
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from torch._C._dynamo.guards import (
    GlobalStateGuard,
    install_no_tensor_aliasing_guard,
    install_object_aliasing_guard,
)

from ..source import SOURCE_NAMESPACE, Source


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
    """What TENSOR_MATCH compares (the dispatch keys only natively, as Dynamo's tensor check does)."""

    type: type
    dtype: torch.dtype
    device: torch.device
    requires_grad: bool
    size: tuple[int, ...]
    stride: tuple[int, ...]
    dispatch_keys: object = field(default=None, compare=False, repr=False)
    marked: bool = False  # it carried mark_dynamic & co.'s markers; if not, the check says it still does not

    @classmethod
    def of(cls, t: torch.Tensor, size=None, stride=None) -> "TensorMeta":
        """`size` / `stride`: the pattern to match, None at each symbolic dimension (default: all of t's)."""
        return cls(type(t), t.dtype, t.device, t.requires_grad, tuple(t.size()) if size is None else tuple(size),
                   tuple(t.stride()) if stride is None else tuple(stride), torch._C._dispatch_keys(t),
                   is_marked(t))

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

    def check_over(self, f_globals: dict):
        """The test as one function of L alone over these globals, for a native lambda guard: torch's
        lookup calls it on every call of the entry, and one Python frame costs less than three (a
        closure calling holds() calling the lambda).  An input that is not a tensor any more fails it."""
        return types.FunctionType(_shape_check_code(self.python), {**_SHAPE_NAMESPACE, "G": f_globals})


_SHAPE_NAMESPACE = {**SOURCE_NAMESPACE, "math": math, "torch": torch}


@functools.lru_cache(maxsize=1024)
def _shape_check(python: str):
    return eval(compile(f"lambda L, G: ({python})", "<shape guard>", "eval"), _SHAPE_NAMESPACE)


@functools.lru_cache(maxsize=1024)
def _shape_check_code(python: str) -> types.CodeType:
    """The code of a function of L testing `python` (G read as a global), False where it raises."""
    source = f"def shape_guard(L):\n    try:\n        return ({python})\n    except Exception:\n        return False\n"
    namespace: dict = {}
    exec(compile(source, "<shape guard>", "exec"), namespace)
    return namespace["shape_guard"].__code__


MARKED = "_has_dynamo_dim_marking"  # the flag mark_dynamic / maybe_mark_dynamic / mark_static set on a tensor


def is_marked(t) -> bool:
    """Whether a tensor carries dimension markers; one never marked has an empty __dict__ (the fast path)."""
    d = t.__dict__
    return bool(d) and MARKED in d


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
    causes: tuple = field(default=(), compare=False)  # shape guards: the ShapeCauses behind it (shapes/provenance.py)

    @property
    def source_name(self) -> str:
        return self.source.name() if self.source is not None else ""

    @property
    def expr(self) -> str:
        """The guard as Dynamo's TORCH_LOGS=guards prints it."""
        kind = KINDS.get(self.kind)
        return kind.expr(self.source_name, self.expected) if kind else f"{self.kind}({self.source_name})"

    def __str__(self) -> str:
        return f"{self.kind}: {self.expr}"


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---- global state -------------------------------------------------------------------------------

# The process-wide switches that change what a graph computes, each with its C reader (named in
# reports).  Every value is a singleton (a bool or a dtype).
GLOBAL_STATE_READERS = (
    ("grad_mode", torch.is_grad_enabled),
    ("default_dtype", torch.get_default_dtype),
    ("deterministic_algorithms", torch._C._get_deterministic_algorithms),
    ("autocast", torch._C._is_any_autocast_enabled),  # a graph traced outside autocast has other dtypes
    ("torch_function", torch._C._is_torch_function_enabled),
)


class GlobalState(tuple):
    """The switches as (name, value) pairs, and torch's native snapshot of the same moment
    (`GlobalStateGuard`: these switches and the others Dynamo's guard covers — thread count,
    TF32 and reduced-precision flags, the deterministic warn-only flag)."""

    native: GlobalStateGuard


def global_state() -> GlobalState:
    """The process-wide switches that change what a graph computes, now."""
    state = GlobalState((name, read()) for name, read in GLOBAL_STATE_READERS)
    state.native = GlobalStateGuard()
    return state


def _global_state_test(e, v, const) -> str:
    native = getattr(e, "native", None)
    if native is not None:
        return f"{const(native.check)}()"
    readers = dict(GLOBAL_STATE_READERS)  # pairs made by hand: each switch through its reader
    return " and ".join(f"{const(readers[name])}() is {const(value)}" for name, value in e) or "True"


def _global_state_native(manager, e, verbose, example) -> None:
    native = getattr(e, "native", None)
    if native is None:
        raise TypeError("no native snapshot")
    manager.add_global_state_guard(native, verbose, None)


def _global_state_actual(e, value) -> str:
    changed = [f"{k}={v}" for (k, v), (_, was) in zip(global_state(), e) if v != was]
    if not changed and getattr(e, "native", None) is not None:
        changed = [e.native.reason().strip() or "?"]
    return "changed " + ", ".join(changed)


# ---- the table ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class GuardKind:
    """Everything one guard kind means, in one place.

    expr(name, expected)          the text Dynamo prints
    test(expected, v, const)      Python over the variable `v` (const(x) names a constant)
    actual(expected, value)       how the value looks now, when the check fails
    expected_json(expected)       the expected value in a JSON report
    native(manager, expected, verbose)  installs the same check on a torch GuardManager (None: the
                                  native tree runs `test` as a lambda guard)
    reads_source                  False for a kind over process state (no Source)
    reads_frame                   True for a kind whose test reads L and G (several sources)
    relational                    the guard reads a SourceGroup (expected: its members' names): `test`
                                  and `actual` get the tuple of their values, `native` their managers
    """

    name: str
    expr: Callable[[str, Any], str]
    test: Callable[[Any, str, Callable], str]
    actual: Callable[[Any, Any], str] = lambda e, value: f"got {_short(value)}"
    expected_json: Callable[[Any], Any] = lambda e: repr(e)[:200]
    native: Callable | None = None
    reads_source: bool = True
    reads_frame: bool = False  # its test reads the frame's L and G itself (SHAPE_ENV): checked after the tree
    relational: bool = False


def _tensor_expr(name, m) -> str:
    return (f"check_tensor({name}, {m.type.__name__}, {m.dtype}, device={m.device.index}, "
            f"requires_grad={m.requires_grad}, size={list(m.size)}, stride={list(m.stride)})")


def _tensor_test(e, v, const) -> str:
    # `is_cpu` is one flag read where `device` builds a device object; a CPU device has no index
    device = f"{v}.is_cpu" if e.device.type == "cpu" else f"{v}.device == {const(e.device)}"
    head = (f"type({v}) is {const(e.type)} and {v}.dtype is {const(e.dtype)} and {device} "
            f"and {v}.requires_grad is {e.requires_grad}")
    if not e.marked:  # as Dynamo's DIMENSION_DYNAMIC_MARKING guards: marking it later recompiles
        head += f" and (not {v}.__dict__ or {const(MARKED)} not in {v}.__dict__)"
    if e.is_static():
        return f"{head} and {v}.shape == {const(e.size)} and {v}.stride() == {const(e.stride)}"
    match = const(dims_match)  # None at a symbolic size: the SHAPE_ENV guards check it
    return f"{head} and {match}({v}.shape, {const(e.size)}) and {match}({v}.stride(), {const(e.stride)})"


def _tensor_actual(then, value) -> str:
    if isinstance(value, torch.Tensor):
        return tensor_mismatch("", then, value)
    return f"got {_short(value)}"


def tensor_name(source_name: str) -> str:
    """How Dynamo names a tensor in a mismatch: a local by its name (`x`, `xs[1]`), anything else as it is."""
    if source_name.startswith("L['"):
        return source_name[3:].replace("']", "", 1)
    return source_name


def tensor_mismatch(source_name: str, then: TensorMeta, value: torch.Tensor) -> str:
    """A failed TENSOR_MATCH in Dynamo's words: `tensor 'x' size mismatch at index 0. expected 3, actual 2`."""
    name = f"tensor '{tensor_name(source_name)}'" if source_name else "tensor"
    if type(value) is not then.type:
        return f"{name} type mismatch. expected {then.type.__name__}, actual {type(value).__name__}"
    if value.dtype != then.dtype:
        return f"{name} dtype mismatch. expected {then.dtype}, actual {value.dtype}"
    if value.device != then.device:
        return f"{name} device mismatch. expected {then.device}, actual {value.device}"
    if value.requires_grad != then.requires_grad:
        return f"{name} requires_grad mismatch. expected requires_grad={int(then.requires_grad)}"
    if value.dim() != len(then.size):
        return f"{name} rank mismatch. expected {len(then.size)}, actual {value.dim()}"
    for what, actual, pattern in (("size", value.size(), then.size), ("stride", value.stride(), then.stride)):
        for index, (a, p) in enumerate(zip(actual, pattern)):
            if p is not None and a != p:
                return f"{name} {what} mismatch at index {index}. expected {p}, actual {a}"
    keys = torch._C._dispatch_keys(value)
    if then.dispatch_keys is not None and keys != then.dispatch_keys:
        return f"{name} dispatch key set mismatch. expected {then.dispatch_keys}, actual {keys}"
    if not then.marked and is_marked(value):  # Dynamo's words
        return f"{name}: {MARKED} is present on runtime tensor but was absent at compile time"
    return f"{name} matches"


def _shape_json(e) -> dict:
    return {"python": e.python, "reads": list(e.terms)}


def _tensor_json(m) -> dict:
    return {"type": m.type.__name__, "dtype": str(m.dtype), "device": str(m.device),
            "requires_grad": m.requires_grad, "size": list(m.size), "stride": list(m.stride)}


def _tensor_native(manager, m, verbose, example) -> None:
    if not isinstance(example, torch.Tensor) or m.dispatch_keys is None:
        raise TypeError("a tensor check needs the tensor it was made from")
    manager.add_tensor_match_guard(example, list(m.size), list(m.stride), verbose[0], verbose, None, m.type,
                                   m.dispatch_keys)
    if not m.marked:  # as Dynamo's DIMENSION_DYNAMIC_MARKING guards: marking it later recompiles
        _unmarked_native(manager, [f"{verbose[0]}: not hasattr(tensor, {MARKED!r})"], example)


def _unmarked_native(manager, verbose, example) -> None:
    """The marker's absence.  mark_dynamic sets it in the tensor's own __dict__, so where the tensor's
    type reads attributes the ordinary way, "not in its __dict__" is the same test, and one whose
    dict version tag the tag-safe fast path keeps checking (a NO_HASATTR leaf it would skip)."""
    cls = type(example)
    if (cls.__getattribute__ is object.__getattribute__ and not hasattr(cls, "__getattr__")
            and not hasattr(cls, MARKED) and type(getattr(example, "__dict__", None)) is dict):
        instance_dict = manager.get_generic_dict_manager(f"{manager.get_source()}.__dict__", example.__dict__,
                                                         manager_kind())
        instance_dict.add_dict_contains_guard(False, MARKED, verbose, None)
    else:
        manager.add_no_hasattr_guard(MARKED, verbose, None)


def manager_kind():
    """torch's GuardManagerType.GUARD_MANAGER: the C side imports that enum on its first accessor
    and accepts no other value, so we hand it the one it already loaded."""
    return importlib.import_module("torch._dynamo.guards").GuardManagerType.GUARD_MANAGER


def _equals_test(e, v, const) -> str:
    if isinstance(e, float) and e != e:  # NaN equals nothing, itself included
        return f"type({v}) is {const(float)} and {v} != {v}"
    return f"type({v}) is {const(type(e))} and {v} == {const(e)}"


def _equals_native(manager, e, verbose, example) -> None:
    manager.add_type_match_guard(id(type(e)), verbose, None)
    if isinstance(e, float) and e != e:
        manager.add_float_is_nan_guard(verbose, None)
    else:
        manager.add_equals_match_guard(e, verbose, None)


def _dict_contains_native(manager, e, verbose, example) -> None:
    if type(example) is not dict:  # torch's check reads a dict; anything else runs the Python test
        raise TypeError("not a dict")
    manager.add_type_match_guard(id(dict), verbose, None)  # torch's check would raise on another type
    manager.add_dict_contains_guard(e[1], e[0], verbose, None)


def _dict_keys_native(manager, e, verbose, example) -> None:
    """torch's key-order check, after its value's type (the check reads the keys of a mapping, and a
    value of another type would crash it): keys taken from the example, so they must be the ones expected.
    No keys expected of a dict or an OrderedDict (nn.Module's global hook dicts): a length of 0 says the
    same, and costs no call of OrderedDict.keys() and no list of keys on every check."""
    if not isinstance(example, dict) or tuple(example.keys()) != tuple(e):
        raise TypeError("not a dict with the expected keys")
    manager.add_type_match_guard(id(type(example)), verbose, None)
    if not e and type(example) in (dict, collections.OrderedDict):
        manager.add_dict_length_check_guard(0, verbose, None)
    else:
        manager.add_mapping_keys_guard(example, verbose, None)


def _length_native(manager, e, verbose, example) -> None:
    """torch has one length check for dicts and one for sequences, each raising on the other:
    the type comes first (a different type fails the guard instead)."""
    if type(example) is dict:
        manager.add_type_match_guard(id(dict), verbose, None)
        manager.add_dict_length_check_guard(e, verbose, None)
    elif type(example) in (list, tuple):
        manager.add_type_match_guard(id(type(example)), verbose, None)
        manager.add_length_check_guard(e, verbose, None)
    else:
        raise TypeError("no native length check for this type")


def _same_object_native(managers, e, verbose, example) -> None:
    first, second = managers
    install_object_aliasing_guard(first, second, verbose, None)


def _no_aliasing_native(managers, e, verbose, example) -> None:
    install_no_tensor_aliasing_guard(list(managers), list(e), verbose, None)


def _duplicates_actual(names, values) -> str:
    """Which names hold one tensor now, as Dynamo says it ("Duplicate tensors found")."""
    by_id: dict[int, list[str]] = {}
    for name, value in zip(names, values):
        by_id.setdefault(id(value), []).append(name)
    return "Duplicate tensors found: " + ", ".join(f"[{', '.join(group)}]" for group in by_id.values()
                                                   if len(group) > 1)


def _qualname(e):
    return getattr(e, "__qualname__", None) or repr(e)[:200]


KINDS: dict[str, GuardKind] = {kind.name: kind for kind in (
    GuardKind("TENSOR_MATCH", _tensor_expr, _tensor_test, _tensor_actual, _tensor_json, _tensor_native),
    GuardKind("TYPE_MATCH", lambda n, e: f"___check_type_id({n}, {id(e)}), type={e}",
              lambda e, v, const: f"type({v}) is {const(e)}",
              lambda e, value: f"got type {type(value).__name__}", _qualname,
              lambda m, e, verbose, x: m.add_type_match_guard(id(e), verbose, None)),
    GuardKind("ID_MATCH", lambda n, e: f"___check_obj_id({n}, {id(e)}), value={_short(e)}",
              lambda e, v, const: f"{v} is {const(e)}", expected_json=_qualname,
              native=lambda m, e, verbose, x: m.add_id_match_guard(id(e), verbose, None)),
    GuardKind("EQUALS_MATCH", lambda n, e: f"{n} == {e!r}", _equals_test, native=_equals_native),
    GuardKind("NONE_MATCH", lambda n, e: f"{n} is None", lambda e, v, const: f"{v} is None",
              native=lambda m, e, verbose, x: m.add_none_match_guard(verbose, None)),
    GuardKind("TRUE_MATCH", lambda n, e: f"{n} == True", lambda e, v, const: f"{v} is True",
              native=lambda m, e, verbose, x: m.add_true_match_guard(verbose, None)),
    GuardKind("FALSE_MATCH", lambda n, e: f"{n} == False", lambda e, v, const: f"{v} is False",
              native=lambda m, e, verbose, x: m.add_false_match_guard(verbose, None)),
    GuardKind("LENGTH_CHECK", lambda n, e: f"len({n}) == {e}", lambda e, v, const: f"len({v}) == {e}",
              lambda e, value: f"got len {len(value)}",
              native=_length_native),
    GuardKind("TUPLE_ITERATOR_LEN", lambda n, e: f"___tuple_iterator_len({n}) == {e}",
              lambda e, v, const: f"_iter_len({v}) == {e}"),
    GuardKind("DICT_KEYS_MATCH", lambda n, e: f"list({n}.keys()) == {list(e)!r}",
              lambda e, v, const: f"tuple({v}.keys()) == {const(e)}",
              lambda e, value: f"got keys {list(value.keys())!r}", native=_dict_keys_native),
    GuardKind("DICT_CONTAINS", lambda n, e: f"{'' if e[1] else 'not '}___dict_contains({e[0]!r}, {n})",
              lambda e, v, const: f"({const(e[0])} in {v}) is {e[1]}", native=_dict_contains_native),
    GuardKind("DUPLICATE_INPUT", lambda n, e: " is ".join(e), lambda e, v, const: f"{v}[0] is {v}[1]",
              lambda e, value: "they are different objects now", native=_same_object_native, relational=True),
    GuardKind("NO_TENSOR_ALIASING", lambda n, e: f"check_no_aliasing({', '.join(e)})",
              lambda e, v, const: f"len(set(map(id, {v}))) == {len(e)}", _duplicates_actual,
              native=_no_aliasing_native, relational=True),
    GuardKind("GLOBAL_STATE", lambda n, e: f"___check_global_state() against {dict(e)}", _global_state_test,
              _global_state_actual, lambda e: {k: str(v) for k, v in e}, _global_state_native, reads_source=False),
    # the ShapeEnv's guards over symbolic sizes and ints: Python over L and G (shapes/env.py)
    GuardKind("SHAPE_ENV", lambda n, e: e.text, lambda e, v, const: f"({e.python})",
              expected_json=_shape_json, reads_frame=True),
)}


def kind_of(guard: Guard) -> GuardKind:
    kind = KINDS.get(guard.kind)
    if kind is None:
        raise ValueError(f"unknown guard kind {guard.kind}")
    return kind


def leaf_test(guard: Guard, v: str, const) -> str:
    """The check of one guard, as Python over the variable `v` holding its source's value."""
    return kind_of(guard).test(guard.expected, v, const)


def leaf_function(guard: Guard) -> Callable[[Any], bool]:
    """The check of one guard as a function of its source's value (made once, called often).

    A kind that reads the frame (SHAPE_ENV) has no single value: check it with `expected.holds(L, G)`.
    """
    if kind_of(guard).reads_frame:
        raise ValueError(f"a {guard.kind} guard is checked over the frame's L and G")
    consts: dict = {}

    def const(v) -> str:
        name = f"_c{len(consts)}"
        consts[name] = v
        return name

    test = leaf_test(guard, "value", const)
    namespace = {"__builtins__": {"type": type, "len": len, "tuple": tuple, "bool": bool, "set": set, "map": map,
                                 "id": id}, **SOURCE_NAMESPACE, **consts}
    return eval(compile(f"lambda value: bool({test})", "<guard>", "eval"), namespace)


def check_one(guard: Guard, value) -> bool:
    """Evaluate a single guard against an already-fetched value (the slow path)."""
    return leaf_function(guard)(value)


def actual_text(guard: Guard, value) -> str:
    """How the failing value looks now, in the guard's own terms."""
    return kind_of(guard).actual(guard.expected, value)


def expected_json(guard: Guard):
    """The expected value of a guard, as a JSON report holds it."""
    return kind_of(guard).expected_json(guard.expected)
