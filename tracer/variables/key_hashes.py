"""Objects whose class has its own Python `__hash__` as set items and dict keys.

As Dynamo does, the `__hash__` is traced (its guards and its side effects are the trace's), and
keys are told apart by identity. Where identity and the class's own `__eq__` could disagree (two
different objects with equal hashes), the trace breaks naming `__eq__`: Dynamo answers by identity
there (a lookup by an equal object raises KeyError), Python calls `__eq__`.
"""
from __future__ import annotations

import contextlib
import contextvars
import sys

from ..exc import Unsupported, observed

_output: contextvars.ContextVar = contextvars.ContextVar("standin_tracing_output", default=None)


@contextlib.contextmanager
def tracing(output):
    """While a frame is traced: a key's `__hash__` runs on the translator of the current instruction
    (a set or dict answers from deep inside trackers that are not handed one)."""
    token = _output.set(output)
    try:
        yield
    finally:
        _output.reset(token)


def traced_hash(tx, item) -> int:
    """hash(item) with its class's `__hash__` traced: the int it returns, as CPython's slot takes it (one
    that fits a machine word as it is, -1 as -2; a larger one by its own hash)."""
    result = item.call_method(tx, "__hash__", [], {}).realize()
    if not result.is_python_constant():
        raise Unsupported(f"{item.python_type().__qualname__}.__hash__() returned {result.describe()}, "
                          "not a constant")
    value = result.as_python_constant()
    if not isinstance(value, int):
        error = TypeError("__hash__ method should return an integer")  # CPython 3.11's text
        raise observed(error, f"TypeError: {error}")
    if -sys.maxsize - 1 <= value <= sys.maxsize:
        return -2 if value == -1 else int(value)
    return hash(value)


class HashedObjectKey:
    """A set item or dict key hashed by its class's own `__hash__` (traced once, when the key is made)
    and compared by identity."""

    __slots__ = ("tracker", "hash_value")

    def __init__(self, tracker, hash_value: int):
        self.tracker = tracker
        self.hash_value = hash_value

    def __hash__(self) -> int:
        return self.hash_value

    def __eq__(self, other) -> bool:
        if isinstance(other, HashedObjectKey) and other.tracker.identity() == self.tracker.identity():
            return True
        cls = self.tracker.python_type()
        if cls.__eq__ is not object.__eq__:
            raise Unsupported(f"two set items or dict keys with equal hashes, one a {cls.__qualname__} object: "
                              f"its class's own __eq__ is not traced")
        return False

    def __repr__(self) -> str:
        return f"<hashed {self.tracker.short_repr()}>"


def hashed_object_key(item) -> HashedObjectKey:
    """The key of a user object with its own `__hash__`, its hash traced on the current translator."""
    output = _output.get()
    if output is None or output.tx is None:
        raise Unsupported(f"a {item.python_type().__qualname__} object as a set item or dict key outside a trace")
    if item.source is not None:  # one from outside: which object it is decides every lookup
        output.install_guard(item.source, "ID_MATCH", item.value)
    return HashedObjectKey(item, _hash_once(output, item))


def _hash_once(output, item) -> int:
    """The traced hash, traced again only once the trace changed the object's attributes (a set or dict
    rehashes its items on each operation; CPython keeps each item's hash)."""
    known = output.own_hashes
    recorded = output.side_effects.attrs.get(item.identity(), {})
    state = tuple((name, id(value)) for name, value in recorded.items())
    cached = known.get(item.identity())
    if cached is not None and cached[1] == state:
        return cached[0]
    value = traced_hash(output.tx, item)
    known[item.identity()] = (value, state)
    return value
