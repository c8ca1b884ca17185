"""Context managers the graph can hold: grad mode (`torch.no_grad()`, `enable_grad()`, `set_grad_enabled(b)`).

Entering one records `torch._C._set_grad_enabled(mode)` in the graph, as Dynamo
does, and switches the mode for the rest of the trace so fake tensors carry the
right requires_grad; leaving records and restores the previous mode.
"""
from __future__ import annotations

import types
from dataclasses import dataclass

import torch

from ..exc import ObservedException, Unsupported
from .base import VariableTracker
from .constant import ConstantVariable


@dataclass(frozen=True)
class ResumedGradMode:
    """A grad-mode with-block entered again by a resume function after a graph break.

    Its exit restores the mode from before the original block.  Only the innermost
    block of a nest applies its mode on entry, so the resumed trace records one switch
    (the net one), as Dynamo's resume functions do.
    """

    initial: bool
    target: bool
    apply: bool

    def __enter__(self):
        if self.apply:
            torch._C._set_grad_enabled(self.target)

    def __exit__(self, *exc_info):
        torch._C._set_grad_enabled(self.initial)


@dataclass(frozen=True, eq=False)
class GradModeVariable(VariableTracker):
    target: bool = False
    initial: bool = True
    applies_on_enter: bool = True  # False for an outer block re-entered by a resume function

    @staticmethod
    def resumed(context: ResumedGradMode) -> "GradModeVariable":
        return GradModeVariable(target=context.target, initial=context.initial, applies_on_enter=context.apply)

    @staticmethod
    def create(tx, target: bool, *, apply_now: bool = False) -> "GradModeVariable":
        var = GradModeVariable(target=target, initial=torch.is_grad_enabled())
        if apply_now:  # torch.set_grad_enabled(b) acts at once, and can also be a `with`
            var.set_mode(tx, target)
        return var

    def python_type(self) -> type:
        return torch.no_grad if not self.target else torch.enable_grad

    def set_mode(self, tx, mode: bool) -> None:
        """Record `torch._C._set_grad_enabled(mode)` in the graph and switch the trace to it."""
        tx.output.call(tx, "call_function", torch._C._set_grad_enabled, (ConstantVariable(mode),), {})

    def enter(self, tx) -> VariableTracker:
        if self.applies_on_enter and torch.is_grad_enabled() != self.target:
            self.set_mode(tx, self.target)
        return ConstantVariable(None)

    def exit(self, tx) -> VariableTracker:
        if torch.is_grad_enabled() != self.initial:
            self.set_mode(tx, self.initial)
        return ConstantVariable(None)

    def call_method(self, tx, name, args, kwargs):
        if name == "__enter__":
            return self.enter(tx)
        if name == "__exit__":
            return self.exit(tx)
        raise Unsupported(f"{self.short_repr()}.{name}()")

    def short_repr(self) -> str:
        resumed = "" if self.applies_on_enter else ", re-entered after a graph break"
        return f"grad mode {'on' if self.target else 'off'} (was {'on' if self.initial else 'off'}{resumed})"


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


@dataclass(frozen=True, eq=False)
class GradModeDecoratedVariable(VariableTracker):
    """A function decorated with `@torch.no_grad()` / `@torch.enable_grad()`: calling it runs
    the function inside the grad-mode block, as Dynamo traces it (no graph break)."""

    fn: VariableTracker = None
    target: bool = False

    def python_type(self) -> type:
        return types.FunctionType

    def call_function(self, tx, args, kwargs):
        ctx = GradModeVariable.create(tx, self.target)
        ctx.enter(tx)
        try:
            result = self.fn.call_function(tx, args, kwargs)
        except ObservedException:  # the decorator's with-block restores the mode on the way out
            ctx.exit(tx)
            raise
        ctx.exit(tx)
        return result

    def short_repr(self) -> str:
        return f"{self.fn.short_repr()} under grad mode {'on' if self.target else 'off'}"


GRAD_MODE_CLASSES = {torch.no_grad: False, torch.enable_grad: True}
# The wrapper code every `@torch.no_grad()`-style decorator returns (torch.utils._contextlib).
GRAD_MODE_DECORATOR_CODE = torch.no_grad()(lambda: None).__code__
