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
from .object_protocol import InstanceDictVariable

# A function's attributes kept in slots of its own, not in its __dict__: assigning one changes it.
SLOT_ATTRS = frozenset(name for name in ("__name__", "__qualname__", "__doc__", "__module__", "__annotations__",
                                         "__type_params__") if name in dir(types.FunctionType))

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


def store_in_dict(tx, fn, name: str, value) -> None:
    """`fn.__dict__[name] = value`: an entry of its dict (one named as a slot would not be the slot)."""
    if name in SLOT_ATTRS or name in _FIXED:
        raise Unsupported(f"the entry {name!r} in the __dict__ of the function {fn.qualname}")
    store(tx, fn, name, value)


def recorded(tx, fn, name: str):
    """What the trace assigned to `fn.name`, or None."""
    return tx.output.side_effects.load_attr(fn.identity(), name)


def delete(tx, fn, name: str) -> None:
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
        return {name: value for name, value in super()._recorded(tx).items() if name not in SLOT_ATTRS}
