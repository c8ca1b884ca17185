"""LazyVariableTracker: a value from outside, wrapped only when the trace uses it.

Arguments and globals enter as lazy shells.  Moving one around (LOAD_FAST,
STORE_FAST, building a tuple) costs nothing and installs no guard; the first
real question asked of it builds the real tracker, with its guards, at the
instruction that asked.  An argument the function never uses is never guarded.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .base import VariableTracker


@dataclass(frozen=True, eq=False)
class LazyVariableTracker(VariableTracker):
    value: object = None
    tx: object = field(default=None, repr=False)
    _realized: list = field(default_factory=list, repr=False)  # memo: [tracker] once built

    def realize(self) -> VariableTracker:
        if not self._realized:
            self._realized.append(VariableTracker.build(self.tx, self.value, self.source))
            on_realize = getattr(getattr(self.tx, "hook", None), "on_realize", None)
            if on_realize is not None:
                on_realize(self)
        return self._realized[0]

    def is_lazy(self) -> bool:
        return not self._realized

    def peek(self) -> VariableTracker | None:
        """The realized tracker if there is one, without realizing."""
        return self._realized[0] if self._realized else None

    # Every question realizes and forwards.
    def python_type(self):
        return type(self.value)

    def is_python_constant(self):
        return self.realize().is_python_constant()

    def as_python_constant(self):
        return self.realize().as_python_constant()

    def as_proxy(self):
        return self.realize().as_proxy()

    def truth(self, tx):
        return self.realize().truth(tx)

    def call_function(self, tx, args, kwargs):
        return self.realize().call_function(tx, args, kwargs)

    def call_method(self, tx, name, args, kwargs):
        return self.realize().call_method(tx, name, args, kwargs)

    def var_getattr(self, tx, name):
        return self.realize().var_getattr(tx, name)

    def store_attr(self, tx, name, value):
        return self.realize().store_attr(tx, name, value)

    def has_unpack_var_sequence(self, tx):
        return self.realize().has_unpack_var_sequence(tx)

    def unpack_var_sequence(self, tx):
        return self.realize().unpack_var_sequence(tx)

    def reconstruct(self, codegen):
        codegen.load_source(self.source)

    def kind(self) -> str:
        real = self.peek()
        return real.kind() if real is not None else "LazyVariableTracker"

    def children(self):
        real = self.peek()
        return real.children() if real is not None else []

    def short_repr(self) -> str:
        real = self.peek()
        return real.short_repr() if real is not None else self.lazy_repr()

    def lazy_repr(self) -> str:
        """What the shell looks like while lazy (the debugger shows it so even once realized)."""
        return f"lazy {type(self.value).__name__} {self.source.name()}"
