"""GeneratorVariable: a generator made in the trace, advanced one yield at a time.

Calling a generator function runs none of its body; each next() runs it to
its next `yield`.  The tracer does the same: the generator's frame is an
inlining translator held suspended between yields, so the body's reads and
side effects interleave with the consumer's as they do in Python (running
the body to its end first would let it read state the loop has not written
yet).  The tracker is immutable; the frame it points at is the generator's
own state, as the real generator object is.
"""
from __future__ import annotations

import types
from dataclasses import dataclass

from ..exc import Unsupported
from .base import VariableTracker

# The generator methods a program calls directly (next() and for-loops go through next_item).
METHODS = ("__next__", "send", "throw", "close")


@dataclass(frozen=True, eq=False)
class GeneratorVariable(VariableTracker):
    frame: object = None  # inline.SuspendedGenerator: the suspended frame, resumed by next_item
    qualname: str = "<generator>"

    MAX_ITEMS = 10_000  # consumed whole (list(), sum()): an endless generator stops the trace here

    def python_type(self) -> type:
        return types.GeneratorType

    def next_item(self, tx):
        """(item, self) after running the body to its next yield, or None once it has returned."""
        item = self.frame.resume(tx)
        return None if item is None else (item, self)

    def throw_item(self, tx, exception):
        """(item, self) if the body, the exception thrown in at its yield, goes on to another yield;
        None once it has returned; what it lets out propagates (see SuspendedGenerator.throw)."""
        item = self.frame.throw(tx, exception)
        return None if item is None else (item, self)

    def var_getattr(self, tx, name):
        if name in METHODS:
            return GeneratorMethodVariable(self, name)
        return super().var_getattr(tx, name)

    def call_method(self, tx, name, args, kwargs):
        """gen.__next__(), gen.send(value), gen.throw(exc), gen.close(): run by the suspended frame."""
        if name in METHODS and not kwargs:
            return self.frame.call_method(tx, name, args)
        return super().call_method(tx, name, args, kwargs)

    def has_unpack_var_sequence(self, tx) -> bool:
        return True

    def unpack_var_sequence(self, tx):
        items = []
        while (step := self.next_item(tx)) is not None:
            items.append(step[0])
            if len(items) > self.MAX_ITEMS:
                raise Unsupported(f"the generator {self.qualname} yielded more than {self.MAX_ITEMS} values")
        return items

    def short_repr(self) -> str:
        return f"generator {self.qualname}"


@dataclass(frozen=True, eq=False)
class GeneratorMethodVariable(VariableTracker):
    """`gen.send` (or __next__, throw, close) read off a generator made in the trace, not yet called."""

    gen: GeneratorVariable = None
    name: str = ""

    def python_type(self) -> type:
        return types.BuiltinMethodType

    def call_function(self, tx, args, kwargs):
        return self.gen.call_method(tx, self.name, args, kwargs)

    def short_repr(self) -> str:
        return f"{self.gen.short_repr()}.{self.name}"

