"""Context managers a graph can hold, and how a with-block enters and leaves them.

Grad mode (`no_grad()`, `enable_grad()`, `set_grad_enabled(b)`) records
`torch._C._set_grad_enabled(mode)`; autocast and inference mode record the
enter/exit functions Dynamo records (`torch.amp._enter_autocast`, ...), the exit
node taking the enter node, so the graph itself switches the state around its ops.
Each also switches the state during the trace, so fake tensors get the dtypes and
requires_grad the real run will have; `output.cleanup_hooks` undoes a switch whose
block the trace never left (a graph break inside it).

User objects with Python `__enter__`/`__exit__`, `@contextlib.contextmanager`
generators, `contextlib.nullcontext` and `contextlib.suppress` are traced
through, as Dynamo does: nothing of them is in the graph.
"""
from __future__ import annotations

import contextlib
import dataclasses
import inspect
import threading
import types
from dataclasses import dataclass, field, replace

import torch

from ..exc import ObservedException, Unsupported
from .base import VariableTracker
from .constant import ConstantVariable
from .exceptions import ExceptionVariable
from .generator import GeneratorVariable
from .misc import UserDefinedClassVariable, UserDefinedObjectVariable
from .user_functions import BaseUserFunctionVariable

NONE = ConstantVariable(None)


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
    made_by: type | None = None  # torch.set_grad_enabled for one it made (no_grad / enable_grad else)

    @staticmethod
    def resumed(context: ResumedGradMode) -> "GradModeVariable":
        return GradModeVariable(target=context.target, initial=context.initial, applies_on_enter=context.apply)

    @staticmethod
    def create(tx, target: bool, *, apply_now: bool = False, made_by: type | None = None) -> "GradModeVariable":
        var = GradModeVariable(target=target, initial=torch.is_grad_enabled(), made_by=made_by)
        # torch.set_grad_enabled(b) acts at once, and can also be a `with`; as Dynamo, no node when the
        # mode already is b
        if apply_now and torch.is_grad_enabled() != target:
            var.set_mode(tx, target)
        return var

    def python_type(self) -> type:
        return self.made_by or (torch.no_grad if not self.target else torch.enable_grad)

    def call_function(self, tx, args, kwargs):
        """`no_grad()(fn)`, `set_grad_enabled(b)(fn)`: fn, run inside the block whenever it is called.
        As torch's decorator, set_grad_enabled gives back the mode it found."""
        args = [a.realize() for a in args]
        if len(args) != 1 or kwargs or not isinstance(args[0], BaseUserFunctionVariable):
            raise Unsupported(f"calling {self.short_repr()} on something that is not a Python function")
        if args[0].get_code().co_flags & (inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR | inspect.CO_COROUTINE):
            raise Unsupported(f"{self.python_type().__name__}() decorating a generator or coroutine function")
        if self.made_by is torch.set_grad_enabled and torch.is_grad_enabled() != self.initial:
            self.set_mode(tx, self.initial)
        return ContextDecoratedVariable(args[0], self)

    def set_mode(self, tx, mode: bool) -> None:
        """Record `torch._C._set_grad_enabled(mode)` in the graph and switch the trace to it."""
        tx.output.call(tx, "call_function", torch._C._set_grad_enabled, (ConstantVariable(mode),), {})

    def enter(self, tx) -> tuple[VariableTracker, VariableTracker]:
        if self.applies_on_enter and torch.is_grad_enabled() != self.target:
            self.set_mode(tx, self.target)
        return self, NONE

    def exit(self, tx, exc_args=()) -> VariableTracker:
        if torch.is_grad_enabled() != self.initial:
            self.set_mode(tx, self.initial)
        return NONE

    def short_repr(self) -> str:
        resumed = "" if self.applies_on_enter else ", re-entered after a graph break"
        return f"grad mode {'on' if self.target else 'off'} (was {'on' if self.initial else 'off'}{resumed})"


def inactive_set_grad_enabled(mode: bool, prev: bool) -> torch.set_grad_enabled:
    """A `torch.set_grad_enabled(mode)` object as one made where the mode was `prev`, made without
    switching the mode again: what a graph break hands on for one the trace made and did not enter."""
    context = torch.set_grad_enabled.__new__(torch.set_grad_enabled)
    context.mode, context.prev = mode, prev
    return context


def _record(tx, fn, args: tuple) -> torch.fx.Node:
    """A node whose value is no tensor (a mode handle): added as is, nothing to compute on fakes."""
    output = tx.output
    node = output.graph.create_node("call_function", fn, args, {})
    node.meta["example_value"] = None
    node.meta["stack_trace"] = tx.stack_trace_text()
    if output.on_node is not None:
        output.on_node(node)
    return node


@dataclass(frozen=True)
class ResumedSwitch:
    """An autocast or inference-mode block entered again after a graph break: by the break's code
    around the instruction it runs, and by a resume function where the block's body goes on.

    It is a constant of the generated code, so what one entry returns for its exit (a mode
    handle) waits on a stack of this thread's open entries: with-blocks leave in the order
    opposite to the one they entered in.
    """

    kind: type  # the StateSwitchVariable subclass the resumed trace sees
    values: tuple
    _open: threading.local = field(default_factory=threading.local, compare=False, hash=False, repr=False)

    def __enter__(self):
        handles = self._open.__dict__.setdefault("handles", [])
        handles.append(self.kind.ENTER(*self.values))

    def __exit__(self, *exc_info):
        self.kind.EXIT(self._open.handles.pop())


@dataclass(frozen=True, eq=False)
class StateSwitchVariable(VariableTracker):
    """A with-block that records an enter node and an exit node taking it (autocast, inference mode).

    Each kind sets ENTER and EXIT (the functions the graph calls) and defines `switch()`: switch
    the trace-time state as the block does, returning what undoes it.  Before entering, `node`
    and `undo` are None; entering returns a copy holding the enter node and that undo function.
    """

    values: tuple = ()
    node: torch.fx.Node | None = None
    undo: object = None

    def enter(self, tx):
        undo = self.switch()
        tx.output.cleanup_hooks.append(undo)
        entered = dataclasses.replace(self, node=_record(tx, self.ENTER, self.values), undo=undo)
        return entered, NONE

    def exit(self, tx, exc_args=()) -> VariableTracker:
        hooks = tx.output.cleanup_hooks
        if not hooks or hooks[-1] is not self.undo:
            raise Unsupported(f"leaving {self.short_repr()} out of order")
        hooks.pop()()
        _record(tx, self.EXIT, (self.node,))
        return NONE

    def leave_at_break(self, tx) -> None:
        """The exit node for a graph that ends inside the block (the trace-time switch is undone
        by `output.cleanup_hooks` once the trace stops)."""
        _record(tx, self.EXIT, (self.node,))

    def resumed(self) -> ResumedSwitch:
        return ResumedSwitch(type(self), self.values)


@dataclass(frozen=True, eq=False)
class AutocastVariable(StateSwitchVariable):
    """`torch.autocast(device_type, dtype, enabled, cache_enabled)`, values bound as Dynamo binds them."""

    ENTER, EXIT = staticmethod(torch.amp._enter_autocast), staticmethod(torch.amp._exit_autocast)

    def python_type(self) -> type:
        return torch.amp.autocast_mode.autocast

    def switch(self):
        mode = torch.amp._enter_autocast(*self.values)
        return lambda: torch.amp._exit_autocast(mode)

    def short_repr(self) -> str:
        return "autocast({})".format(", ".join(map(repr, self.values)))


@dataclass(frozen=True, eq=False)
class InferenceModeVariable(StateSwitchVariable):
    """`torch.inference_mode(mode)`.  As Dynamo, the trace never enters inference mode itself
    (fake tensors made there could not be used after it): grad mode off stands in for it."""

    ENTER = staticmethod(torch.autograd.grad_mode._enter_inference_mode)
    EXIT = staticmethod(torch.autograd.grad_mode._exit_inference_mode)

    def python_type(self) -> type:
        return torch.inference_mode

    def switch(self):
        before = torch.is_grad_enabled()
        if self.values[0]:
            torch._C._set_grad_enabled(False)
        return lambda: torch._C._set_grad_enabled(before)

    def short_repr(self) -> str:
        return f"inference_mode({self.values[0]})"


@dataclass(frozen=True, eq=False)
class GeneratorContextVariable(VariableTracker):
    """A `@contextlib.contextmanager` object: entering runs the generator to its yield, a normal
    exit runs it to its end.  The generator's frame is its state, as the real object's is."""

    gen: VariableTracker = None  # a GeneratorVariable
    recipe: tuple = ()  # (func, args, kwargs): what made it, to make a fresh one as _recreate_cm does

    def python_type(self) -> type:
        return contextlib._GeneratorContextManager

    def call_function(self, tx, args, kwargs):
        """`@my_context()` over a function: each call of it runs in a fresh copy of the block."""
        args = [a.realize() for a in args]
        if len(args) != 1 or kwargs or not isinstance(args[0], BaseUserFunctionVariable) or not self.recipe:
            raise Unsupported(f"calling {self.short_repr()} on something that is not a Python function")
        return GeneratorDecoratedVariable(fn=args[0], context=self)

    def recreate(self, tx) -> "GeneratorContextVariable":
        return _generator_context(tx, *self.recipe)

    def children(self):
        return list(zip(("func", "args", "kwargs"), self.recipe))

    def replace_children(self, swap):
        # a list the recipe's arguments hold may change before the next copy is made
        recipe = tuple(swap(part) for part in self.recipe)
        return self if all(a is b for a, b in zip(recipe, self.recipe)) else replace(self, recipe=recipe)

    def enter(self, tx):
        step = self.gen.next_item(tx)
        if step is None:
            raise Unsupported("RuntimeError: generator didn't yield")
        return self, step[0]

    def exit(self, tx, exc_args=()) -> VariableTracker:
        if any(not (a.is_python_constant() and a.as_python_constant() is None) for a in exc_args):
            return self._exit_through(tx, exc_args[1].realize() if len(exc_args) > 1 else NONE)
        if self.gen.next_item(tx) is not None:
            raise Unsupported("RuntimeError: generator didn't stop")
        return ConstantVariable(False)

    def _exit_through(self, tx, exception) -> VariableTracker:
        """As contextlib's __exit__ with an exception: thrown into the generator at its yield; the
        body returning swallows it (True), letting it out again passes it on (False), raising
        another raises that one instead."""
        if not isinstance(exception, ExceptionVariable) or issubclass(exception.exc_type, StopIteration):
            raise Unsupported(f"leaving the with-block of {self.gen.short_repr()} through "
                              f"{exception.describe()} (only a plain exception is thrown into the generator)")
        try:
            step = self.gen.throw_item(tx, exception)
        except ObservedException as error:
            if isinstance(error.exception, ExceptionVariable) and error.exception.exc_id == exception.exc_id:
                return ConstantVariable(False)
            raise
        if step is not None:
            raise Unsupported("RuntimeError: generator didn't stop after throw()")
        return ConstantVariable(True)

    def short_repr(self) -> str:
        return f"@contextmanager {self.gen.short_repr()}"


class ResumedNullContext:
    """A block that does nothing (nullcontext, a profiler Dynamo ignores) entered again by a resume
    function after a graph break inside it: nothing to do again."""

    def __enter__(self):
        return None

    def __exit__(self, *exc_info):
        return None


RESUMED_NULL = ResumedNullContext()


@dataclass(frozen=True, eq=False)
class NullContextVariable(VariableTracker):
    """contextlib.nullcontext(value): `as` binds the value; nothing else happens."""

    value: VariableTracker = NONE

    def python_type(self) -> type:
        return contextlib.nullcontext

    def enter(self, tx):
        return self, self.value

    def exit(self, tx, exc_args=()) -> VariableTracker:
        return NONE

    def resumed(self) -> ResumedNullContext:
        return RESUMED_NULL

    def short_repr(self) -> str:
        return f"nullcontext({self.value.short_repr()})"


@dataclass(frozen=True, eq=False)
class ProfilerContextVariable(VariableTracker):
    """`torch.profiler.record_function(name)`, `torch.profiler.profile()`: Dynamo ignores what they
    record (nothing in the graph, nothing run at trace time); `as` binds the object itself."""

    cls: type = None

    def python_type(self) -> type:
        return self.cls

    def enter(self, tx):
        return self, self

    def exit(self, tx, exc_args=()) -> VariableTracker:
        return NONE

    def resumed(self) -> ResumedNullContext:
        return RESUMED_NULL

    def short_repr(self) -> str:
        return f"{self.cls.__qualname__}(ignored)"


@dataclass(frozen=True, eq=False)
class SuppressVariable(VariableTracker):
    """contextlib.suppress(*exceptions): an exception of those classes leaving the block is swallowed."""

    exceptions: tuple = ()  # the classes

    def python_type(self) -> type:
        return contextlib.suppress

    def enter(self, tx):
        return self, NONE

    def exit(self, tx, exc_args=()) -> VariableTracker:
        exc_type = exc_args[0].realize() if exc_args else NONE
        if exc_type.is_python_constant() and exc_type.as_python_constant() is None:
            return NONE
        return ConstantVariable(issubclass(exc_type.as_python_constant(), self.exceptions))

    def short_repr(self) -> str:
        return f"suppress({', '.join(e.__name__ for e in self.exceptions)})"


@dataclass(frozen=True, eq=False)
class WithExitVariable(VariableTracker):
    """The bound __exit__ that BEFORE_WITH leaves on the stack, over the entered context."""

    ctx: VariableTracker = None

    def call_function(self, tx, args, kwargs):
        return self.ctx.exit(tx, args)

    def short_repr(self) -> str:
        return f"__exit__ of {self.ctx.short_repr()}"


CONTEXT_TRACKERS = (GradModeVariable, StateSwitchVariable, GeneratorContextVariable, NullContextVariable,
                    ProfilerContextVariable, SuppressVariable)


def enter_with(tx, ctx: VariableTracker) -> tuple[VariableTracker, VariableTracker]:
    """BEFORE_WITH: (the exit callable left on the stack, the value `as` binds)."""
    if isinstance(ctx, CONTEXT_TRACKERS):
        entered, value = ctx.enter(tx)
        return WithExitVariable(entered), value
    if isinstance(ctx, UserDefinedObjectVariable) and ctx.is_new():
        # an object made in the trace, as Dynamo requires: one from outside may hold any state
        cls = ctx.python_type()  # special methods are looked up on the class, as CPython does
        if not all(isinstance(inspect.getattr_static(cls, name, None), types.FunctionType)
                   for name in ("__enter__", "__exit__")):
            raise Unsupported(f"a with-block on {ctx.describe()} without Python __enter__ and __exit__")
        exit_fn = ctx.var_getattr(tx, "__exit__")
        return exit_fn, ctx.call_method(tx, "__enter__", [], {})
    raise Unsupported(f"a with-block on {ctx.describe()}")


def exit_through_exception(tx, exit_fn: VariableTracker, exception: VariableTracker) -> VariableTracker:
    """WITH_EXCEPT_START: __exit__(type, value, None); a true result swallows the exception.
    The traceback is not modelled (Dynamo passes None too)."""
    args = [UserDefinedClassVariable(exception.python_type()), exception, NONE]
    return exit_fn.call_function(tx, args, {})


# ---- making the context objects --------------------------------------------------------------------

GRAD_MODE_CLASSES = {torch.no_grad: False, torch.enable_grad: True}
AUTOCAST_CLASSES = (torch.amp.autocast_mode.autocast, torch.cpu.amp.autocast, torch.cuda.amp.autocast)
PROFILER_CLASSES = (torch.autograd.profiler.record_function, torch.profiler.profile, torch.autograd.profiler.profile)


def _constants(args, kwargs, what: str):
    if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
        raise Unsupported(f"{what} with arguments that are not constants")
    return [a.as_python_constant() for a in args], {k: v.as_python_constant() for k, v in kwargs.items()}


def construct_context(tx, cls: type, args: list, kwargs: dict) -> VariableTracker | None:
    """`cls(*args)` for the context-manager classes modelled here, else None."""
    if cls in GRAD_MODE_CLASSES and not kwargs and len(args) <= 1:  # `no_grad(fn)` is `no_grad()(fn)`
        context = GradModeVariable.create(tx, GRAD_MODE_CLASSES[cls])
        return context.call_function(tx, args, {}) if args else context
    if cls is torch.set_grad_enabled and len(args) == 1 and not kwargs and args[0].is_python_constant():
        return GradModeVariable.create(tx, bool(args[0].as_python_constant()), apply_now=True,
                                       made_by=torch.set_grad_enabled)
    if cls in AUTOCAST_CLASSES:
        values, named = _constants(args, kwargs, cls.__qualname__)
        try:
            bound = inspect.signature(cls).bind(*values, **named)
        except TypeError as error:
            raise Unsupported(f"TypeError: {error}") from error
        bound.apply_defaults()
        device = bound.arguments.get("device_type") or ("cuda" if cls is torch.cuda.amp.autocast else "cpu")
        return AutocastVariable(values=(device, *(bound.arguments[k] for k in ("dtype", "enabled", "cache_enabled"))))
    if cls in PROFILER_CLASSES:
        return ProfilerContextVariable(cls=cls)
    if cls is torch.inference_mode:
        values, named = _constants(args, kwargs, "torch.inference_mode")
        mode = (values or list(named.values()) or [True])[0]
        if not isinstance(mode, bool):
            raise Unsupported("torch.inference_mode() applied to a function inside the trace")
        return InferenceModeVariable(values=(mode,))
    if cls is contextlib._GeneratorContextManager and len(args) == 3 and not kwargs:
        return _generator_context(tx, *args)
    if cls is contextlib.nullcontext and not kwargs and len(args) <= 1:
        return NullContextVariable(args[0] if args else NONE)
    if cls is contextlib.suppress and not kwargs:
        classes, _ = _constants(args, {}, "contextlib.suppress")
        if not all(isinstance(c, type) and issubclass(c, BaseException) for c in classes):
            raise Unsupported("contextlib.suppress() of something that is not an exception class")
        return SuppressVariable(exceptions=tuple(classes))
    return None


def _generator_context(tx, func, args, kwargs) -> VariableTracker:
    """What `@contextmanager`'s helper builds: the generator, made now, runs nothing until entered."""
    gen = func.call_function(tx, list(args.unpack_var_sequence(tx)), {str(k): v for k, v in kwargs.entries.items()})
    if not isinstance(gen, GeneratorVariable):
        raise Unsupported(f"@contextmanager over {func.describe()}, which is not a traced generator function")
    return GeneratorContextVariable(gen, recipe=(func, args, kwargs))


# ---- functions decorated with a context (`@torch.no_grad()`, `@torch.inference_mode()`) ------------

# The wrapper code every such decorator returns (torch.utils._contextlib).
GRAD_MODE_DECORATOR_CODE = torch.no_grad()(lambda: None).__code__
DECORATOR_CLASSES = (*GRAD_MODE_CLASSES, torch.inference_mode)


def context_of(tx, context) -> VariableTracker:
    """The tracker of a fresh copy of a decorator's context object (each call enters a new one);
    the object is a GradModeVariable for a decorator applied inside the trace."""
    if isinstance(context, GradModeVariable):
        return GradModeVariable.create(tx, context.target)
    if type(context) is torch.inference_mode:
        return InferenceModeVariable(values=(context.mode,))
    return GradModeVariable.create(tx, GRAD_MODE_CLASSES[type(context)])


@dataclass(frozen=True, eq=False)
class ContextFactoryVariable(VariableTracker):
    """`ctx_factory` inside a `@torch.no_grad()` wrapper (the decorator object's bound `clone`):
    calling it makes a fresh context of the decorator's kind.  Met when the decorated function is
    itself the compiled one, so the trace runs the wrapper's with-block, as Dynamo's does."""

    context: object = None

    def call_function(self, tx, args, kwargs):
        if args or kwargs:
            raise Unsupported(f"{type(self.context).__name__}.clone() with arguments")
        return context_of(tx, self.context)

    def short_repr(self) -> str:
        return f"{type(self.context).__name__}.clone"


def is_context_factory(value) -> bool:
    """A decorator object's bound `clone` (what torch's context decorators call on every call)."""
    return isinstance(value, types.MethodType) and type(value.__self__) in DECORATOR_CLASSES \
        and value.__func__ is type(value.__self__).clone


@dataclass(frozen=True, eq=False)
class ContextDecoratedVariable(VariableTracker):
    """A function decorated with a context-manager object: calling it runs the function inside
    the block, as Dynamo traces it (no graph break)."""

    fn: VariableTracker = None
    context: object = None  # the decorator's no_grad() / inference_mode() object, or its tracker

    def python_type(self) -> type:
        return types.FunctionType

    def call_function(self, tx, args, kwargs):
        ctx, _ = context_of(tx, self.context).enter(tx)
        try:
            result = self.fn.call_function(tx, args, kwargs)
        except ObservedException:  # the decorator's with-block leaves the mode on the way out
            ctx.exit(tx)
            raise
        ctx.exit(tx)
        return result

    def short_repr(self) -> str:
        kind = self.context.python_type() if isinstance(self.context, GradModeVariable) else type(self.context)
        return f"{self.fn.short_repr()} under {kind.__name__}"


@dataclass(frozen=True, eq=False)
class GeneratorDecoratedVariable(VariableTracker):
    """A function decorated with a `@contextmanager` object: each call enters a fresh copy of the
    context (ContextDecorator's `_recreate_cm`), an exception the function raises is thrown into
    the generator, as the with-statement in ContextDecorator's wrapper does."""

    fn: VariableTracker = None
    context: GeneratorContextVariable = None

    def python_type(self) -> type:
        return types.FunctionType

    def call_function(self, tx, args, kwargs):
        ctx, _ = self.context.recreate(tx).enter(tx)
        try:
            result = self.fn.call_function(tx, args, kwargs)
        except ObservedException as error:
            if ctx._exit_through(tx, error.exception).as_python_constant():
                return NONE  # the generator swallowed it: the wrapper returns None
            raise
        ctx.exit(tx)
        return result

    def children(self):
        return [("fn", self.fn), ("context", self.context)]

    def replace_children(self, swap):
        return replace(self, fn=swap(self.fn), context=swap(self.context))

    def short_repr(self) -> str:
        return f"{self.fn.short_repr()} under {self.context.short_repr()}"
