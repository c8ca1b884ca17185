"""Context managers the graph can hold: grad mode (`torch.no_grad()`, `enable_grad()`, `set_grad_enabled(b)`).

Entering one records `torch._C._set_grad_enabled(mode)` in the graph, as Dynamo
does, and switches the mode for the rest of the trace so fake tensors carry the
right requires_grad; leaving records and restores the previous mode.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from ..exc import Unsupported
from .base import VariableTracker
from .constant import ConstantVariable


@dataclass(frozen=True, eq=False)
class GradModeVariable(VariableTracker):
    target: bool = False
    initial: bool = True

    @staticmethod
    def create(tx, target: bool, *, apply_now: bool = False) -> "GradModeVariable":
        var = GradModeVariable(target=target, initial=torch.is_grad_enabled())
        if apply_now:  # torch.set_grad_enabled(b) acts at once, and can also be a `with`
            var._set(tx, target)
        return var

    def python_type(self) -> type:
        return torch.no_grad if not self.target else torch.enable_grad

    def _set(self, tx, mode: bool) -> None:
        tx.output.call(tx, "call_function", torch._C._set_grad_enabled, (ConstantVariable(mode),), {})

    def enter(self, tx) -> VariableTracker:
        if torch.is_grad_enabled() != self.target:
            self._set(tx, self.target)
        return ConstantVariable(None)

    def exit(self, tx) -> VariableTracker:
        if torch.is_grad_enabled() != self.initial:
            self._set(tx, self.initial)
        return ConstantVariable(None)

    def call_method(self, tx, name, args, kwargs):
        if name == "__enter__":
            return self.enter(tx)
        if name == "__exit__":
            return self.exit(tx)
        raise Unsupported(f"{self.short_repr()}.{name}()")

    def short_repr(self) -> str:
        return f"grad mode {'on' if self.target else 'off'} (was {'on' if self.initial else 'off'})"


@dataclass(frozen=True, eq=False)
class WithExitVariable(VariableTracker):
    """The bound __exit__ that BEFORE_WITH leaves on the stack."""

    ctx: GradModeVariable = None

    def call_function(self, tx, args, kwargs):
        if any(not a.is_python_constant() or a.as_python_constant() is not None for a in args):
            raise Unsupported("leaving a with-block through an exception")
        return self.ctx.exit(tx)

    def short_repr(self) -> str:
        return f"__exit__ of {self.ctx.short_repr()}"


GRAD_MODE_CLASSES = {torch.no_grad: False, torch.enable_grad: True}
