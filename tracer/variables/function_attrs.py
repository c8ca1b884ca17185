"""Attributes written on a function made in the trace.

`functools.wraps(f)(g)` (`update_wrapper`) sets `__module__`, `__name__`, `__qualname__`, `__doc__`
and `__annotations__` of `g`, updates `g.__dict__` from `f.__dict__` and sets `g.__wrapped__`; a
decorator may set attributes of its own (`g.calls = 0`).  The tracker MAKE_FUNCTION built is
immutable, so what is written lives in the side-effects record under the function's identity: read
back before what MAKE_FUNCTION gave the function, and set again on the function rebuilt at a break.
"""
from __future__ import annotations

import types
from dataclasses import dataclass

from ..exc import Unsupported, observed
from .base import VariableTracker
from .object_protocol import InstanceDictVariable

# A function's attributes kept in slots of its own, not in its __dict__: assigning one changes it.
SLOT_ATTRS = frozenset(name for name in ("__name__", "__qualname__", "__doc__", "__module__", "__annotations__",
                                         "__type_params__") if name in dir(types.FunctionType))

# What `functools.wraps` reads from the function it wraps.
WRAPS_READS = SLOT_ATTRS | {"__dict__", "__wrapped__", "__type_params__"}

# The others the function type defines: assigning one changes how the function is called (`__code__`,
# `__defaults__`), or Python refuses it (`__globals__`): not modelled.
_FIXED = frozenset(dir(types.FunctionType)) - SLOT_ATTRS


def store(tx, fn, name: str, value) -> None:
    """`fn.name = value`, checked as the function type checks it."""
    if name in ("__name__", "__qualname__") and not _is_str(value):
        raise observed(TypeError(f"{name} must be set to a string object"),
                       f"TypeError: {name} of the function {fn.qualname} set to {value.describe()}")
    if name == "__annotations__" and value.realize().python_type() is not dict:
        raise Unsupported(f"__annotations__ of the function {fn.qualname} set to {value.describe()}")
    if name in _FIXED:
        raise Unsupported(f"assigning {name} of the function {fn.qualname} made in the trace")
    tx.output.side_effects.store_attr(fn, fn.identity(), name, value)


@dataclass(frozen=True)
class DictEntry:
    """The record's key for an entry of a function's `__dict__` named as one of its slots
    (`wraps(cls)` copies the class's `__module__` entry): the entry, not the slot."""

    name: str


def store_in_dict(tx, fn, name: str, value) -> None:
    """`fn.__dict__[name] = value`: an entry of its dict."""
    if name in SLOT_ATTRS or name in _FIXED:
        tx.output.side_effects.store_attr(fn, fn.identity(), DictEntry(name), value)
        return
    store(tx, fn, name, value)


def read_now(tx, value, name: str, what: str):
    """`value.name` of a callable fixed for the trace (a torch or builtin function), for what
    `functools.wraps` copies: read now; a missing one the AttributeError the trace catches."""
    try:
        attr = getattr(value, name)
    except AttributeError as error:
        raise observed(error, f"{what} has no attribute {name!r}") from error
    return VariableTracker.build(tx, attr)


def recorded(tx, fn, name: str):
    """What the trace assigned to `fn.name`, or None."""
    return tx.output.side_effects.load_attr(fn.identity(), name)


def delete(tx, fn, name: str) -> None:
    """`del fn.name`, or `fn.__dict__.pop(name)` of an entry the trace wrote."""
    if tx.output.side_effects.has_attr(fn.identity(), DictEntry(name)):
        tx.output.side_effects.delete_attr(fn.identity(), DictEntry(name))
        return
    if name in SLOT_ATTRS or name in _FIXED:
        raise Unsupported(f"deleting {name} of the function {fn.qualname}")
    if recorded(tx, fn, name) is None:
        raise observed(AttributeError(name), f"function {fn.qualname} has no attribute {name!r}")
    tx.output.side_effects.delete_attr(fn.identity(), name)


def _is_str(value) -> bool:
    value = value.realize()
    return value.is_python_constant() and isinstance(value.as_python_constant(), str)


@dataclass(frozen=True, eq=False)
class FunctionDictVariable(InstanceDictVariable):
    """`fn.__dict__` of a function made in the trace: the attributes recorded for it, but its slots."""

    def _recorded(self, tx) -> dict:
        entries = {}
        for key, value in super()._recorded(tx).items():
            if isinstance(key, DictEntry):
                entries[key.name] = value
            elif key not in SLOT_ATTRS:
                entries[key] = value
        return entries
