"""InliningInstructionTranslator: a call to a user function is an entrance, not a break.

The caller's translator opens a child over the callee's bytecode; the child
shares the caller's graph, guards and side-effects record, and its return value
is spliced back onto the caller's stack.  The chain of translators is the
inlining stack that the debugger shows as the call stack.
"""
from __future__ import annotations

import inspect
import sys
import types

from . import trace_rules
from .exc import ObservedException, Unsupported, observed
from .source import AttrSource, GetItemSource, GlobalSource, GlobalsDictSource, ModuleSource
from .stack_room import INLINE_RESERVE, room_below
from .symbolic_convert import InstructionTranslator
from .variables.base import VariableTracker
from .variables.constant import ConstantVariable
from .variables.dicts import ConstDictVariable
from .variables.exceptions import ExceptionVariable, as_exception
from .variables.generator import GeneratorVariable
from .variables.lists import BaseListVariable, TupleVariable
from .variables.sym import SymNodeVariable
from .variables.user_functions import CellVariable, NestedUserFunctionVariable
from .variables.builtin import BuiltinVariable

# Dynamo's only bound on inlining is Python's recursion limit (it inlines a recursion 80 calls deep, and
# crashes at 90); ours is past that, the room left on the stack (stack_room.py) stopping a trace before it
MAX_INLINE_DEPTH = 100


class InliningInstructionTranslator(InstructionTranslator):
    """The same machine, entered for one call; its RETURN_VALUE ends the call."""

    def __init__(self, parent: InstructionTranslator, code: types.CodeType, symbolic_locals: dict,
                 f_globals: dict, cells: dict, fn_var: VariableTracker):
        super().__init__(code, {}, f_globals, parent.output, hook=parent.hook, parent=parent)
        self.symbolic_locals = symbolic_locals  # the callee's arguments, bound by the caller
        self.cells = cells
        self.fn_var = fn_var
        self.global_root = _globals_root(f_globals, self.root.f_globals)

    def RETURN_GENERATOR(self, inst):
        self.push(ConstantVariable(None))  # what the generator is first resumed with

    def YIELD_VALUE(self, inst):
        raise _Yielded(self.pop())  # SuspendedGenerator.resume catches it; the frame stays as it is

    def GET_YIELD_FROM_ITER(self, inst):
        """`yield from it`: a generator or iterator stays itself, anything else becomes iter(it)."""
        self.push(BuiltinVariable(iter).call_function(self, [self.pop()], {}))

    def SEND(self, inst):
        """One step of `yield from`: the sub-iterator's next item is yielded on (the YIELD_VALUE that
        follows); once it is exhausted, jump past the loop with its return value."""
        sent = self.pop().realize()
        if not (sent.is_python_constant() and sent.as_python_constant() is None):
            raise Unsupported("send() of a value into a `yield from` (only next() is modelled)")
        receiver = self.stack[-1].realize()
        step = receiver.next_item(self) if hasattr(receiver, "next_item") else None
        if step is None:
            following = self.instructions[inst.target]
            if following.opname != "POP_TOP":  # `x = yield from g`: g's return value is not modelled
                raise Unsupported("the value of a `yield from` expression")
            self.stack[-1] = ConstantVariable(None)
            self.jump(inst)
            return
        item, advanced = step
        self.stack[-1] = advanced
        self.push(item)

    def global_source(self, name: str):
        if self.global_root is None:
            return GlobalSource(name)
        return AttrSource(self.global_root, name)

    def side_effect_globals_allowed(self) -> bool:
        return self.global_root is None

    def globals_dict_source(self):
        return GlobalsDictSource() if self.global_root is None else AttrSource(self.global_root, "__dict__")


def _globals_root(f_globals: dict, root_globals: dict):
    """None when the callee shares the root frame's globals, else the module they belong to."""
    if f_globals is root_globals:
        return None
    name = f_globals.get("__name__")
    module = sys.modules.get(name) if isinstance(name, str) else None
    if module is None or getattr(module, "__dict__", None) is not f_globals:
        name = _module_key(f_globals)  # a module that renamed itself (_collections_abc is "collections.abc")
        if name is None:
            raise Unsupported(f"a function whose globals are not a module's (module {f_globals.get('__name__')!r})")
    return ModuleSource(name)


def _module_key(f_globals: dict) -> str | None:
    """The sys.modules key of the module whose namespace is f_globals, if any."""
    for key, module in list(sys.modules.items()):
        if getattr(module, "__dict__", None) is f_globals:
            return key
    return None


def bind_arguments(code: types.CodeType, qualname: str, defaults, kwdefaults, args, kwargs) -> dict:
    """Bind trackers to parameters exactly as Python would; a TypeError is reported."""
    dummy = types.FunctionType(code, {}, code.co_name, tuple(defaults) or None,
                               tuple(types.CellType() for _ in code.co_freevars) or None)
    dummy.__kwdefaults__ = dict(kwdefaults) or None
    signature = inspect.signature(dummy)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as error:  # the program's own error (a test's assertRaises(TypeError) catches it)
        raise observed(TypeError(f"{qualname}() {error}"), f"TypeError calling {qualname}: {error}") from error
    bound.apply_defaults()
    result = {}
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if name not in code.co_varnames and name.startswith("implicit"):
            name = "." + name[len("implicit"):]  # inspect renames a comprehension's `.0`
        if kind is inspect.Parameter.VAR_POSITIONAL:
            value = TupleVariable(tuple(value))
        elif kind is inspect.Parameter.VAR_KEYWORD:
            value = ConstDictVariable(dict(value))
        result[name] = value
    return result


def inline_call(tx: InstructionTranslator, fn_var, args: list, kwargs: dict) -> VariableTracker:
    """Trace `fn_var(*args, **kwargs)` inside `tx` and return the tracker of its result."""
    code = fn_var.get_code()
    if code.co_flags & (inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        raise Unsupported(f"calling the coroutine function {fn_var.qualname}")
    generator = bool(code.co_flags & inspect.CO_GENERATOR)
    if trace_rules.is_compiler_disabled(getattr(fn_var, "fn", None)):  # as Dynamo: never inlined, a break
        raise Unsupported(f"calling {fn_var.qualname}, which torch.compiler.disable keeps out of the graph")
    if tx.depth + 1 > MAX_INLINE_DEPTH:
        raise Unsupported(f"inlining depth limit ({MAX_INLINE_DEPTH}) reached calling {fn_var.qualname} "
                          "(recursion?)")
    if not room_below(INLINE_RESERVE):
        raise Unsupported(f"tracing cannot go deeper: inlining {fn_var.qualname} would leave fewer than "
                          f"{INLINE_RESERVE} frames of Python's recursion limit ({sys.getrecursionlimit()})")
    if isinstance(fn_var, NestedUserFunctionVariable):
        read_closure(tx, fn_var, frozenset())
    defaults, kwdefaults, closure = fn_var.bind_extras(tx)
    symbolic_locals = bind_arguments(code, fn_var.qualname, defaults, kwdefaults, args, kwargs)
    cells = {}
    real_closure = getattr(getattr(fn_var, "fn", None), "__closure__", None) or ()
    for i, (name, cell) in enumerate(zip(code.co_freevars, closure)):
        if not isinstance(cell, CellVariable):  # a real cell's contents, wrapped with its source
            source = GetItemSource(AttrSource(fn_var.source, "__closure__"), i) if fn_var.source else None
            cell = tx.real_cell(real_closure[i], name, cell, source)
        cells[name] = cell
    child = InliningInstructionTranslator(tx, code, symbolic_locals, fn_var.get_globals(), cells, fn_var)
    if generator:  # nothing runs until the first next()
        return GeneratorVariable(SuspendedGenerator(child), fn_var.qualname)
    return _run_inlined(tx, child)


def read_closure(tx: InstructionTranslator, fn_var: NestedUserFunctionVariable, outer: frozenset) -> bool:
    """As Dynamo's inlining check, which rebuilds a function made in the trace before it runs it: each cell's
    contents are read as a Python value, a nested function's in turn, so a lazy argument held there is
    realized (its graph input made) now, in closure order, up to the first that is no constant (where
    the rebuild stops: False)."""
    for cell in fn_var.closure:
        value = tx.output.side_effects.load_cell(cell.cell_id)
        if value is None:
            return False
        value = value.realize()
        if isinstance(value, NestedUserFunctionVariable):
            if value is fn_var or id(value) in outer or not read_closure(tx, value, outer | {id(fn_var)}):
                return False
        elif not _rebuilds_as_constant(value):
            return False
    return True


def _rebuilds_as_constant(value) -> bool:
    """Whether Dynamo's rebuild takes `value` as a Python constant, asked without specialising a symbolic
    size (its rebuild stops there; asking a list of them `is_python_constant()` would guard their values)."""
    if isinstance(value, SymNodeVariable):
        return False
    if isinstance(value, BaseListVariable):
        return all(_rebuilds_as_constant(item.realize()) for item in value.items)
    if isinstance(value, ConstDictVariable):
        return all(_rebuilds_as_constant(item.realize()) for item in value.entries.values())
    return value.is_python_constant()


def _run_inlined(tx: InstructionTranslator, child: InliningInstructionTranslator) -> VariableTracker:
    """Run child (entered from tx) until it returns, or until a generator's next yield (_Yielded)."""
    output = tx.output
    output.tx = child
    if tx.hook is not None:
        tx.hook.on_inline_enter(child)
    try:
        return child.run()
    finally:
        output.tx = tx
        if tx.hook is not None:
            tx.hook.on_inline_exit(child)


class _Yielded(Exception):
    """A generator's frame reached `yield value`: it is suspended there."""

    def __init__(self, value: VariableTracker):
        super().__init__("yield")
        self.value = value


def _stop_iteration_as_runtime_error(tx: InstructionTranslator, error: ObservedException) -> ObservedException:
    """PEP 479: a StopIteration leaving a generator's body is a RuntimeError, caused by it, there."""
    stop = error.exception if isinstance(error.exception, ExceptionVariable) else \
        ExceptionVariable.from_real(tx, error.exception)
    runtime = ExceptionVariable(exc_type=RuntimeError, args=(ConstantVariable("generator raised StopIteration"),))
    runtime.raised_from(tx, stop)
    runtime.store_attr(tx, "__context__", stop)
    return ObservedException("StopIteration raised in a generator: a RuntimeError (PEP 479)", runtime)


def _is_none(var: VariableTracker) -> bool:
    return var.is_python_constant() and var.as_python_constant() is None


class SuspendedGenerator:
    """The frame of a generator made in the trace, between two of its yields."""

    def __init__(self, frame: InliningInstructionTranslator):
        self.frame = frame
        self.started = False
        self.finished = False
        frame.output.suspended_frames.append(frame)  # mutations made meanwhile reach its locals

    def resume(self, tx: InstructionTranslator, sent: VariableTracker | None = None) -> VariableTracker | None:
        """Run the body from where it stopped to its next yield: the value, or None once it returns.
        `sent` is what the `yield` it stopped at evaluates to (gen.send's value; next() sends None).

        The frame runs as a callee of tx, whoever that is now: the trace's call stack (and the
        debugger's) shows the generator under the frame that asked for the next item.
        """
        if self.finished:
            return None
        frame = self.frame
        frame.parent, frame.depth = tx, tx.depth + 1
        if self.started:
            frame.push(sent if sent is not None else ConstantVariable(None))
        self.started = True
        return self._run_to_yield(tx)

    def throw(self, tx: InstructionTranslator, exception: VariableTracker) -> VariableTracker | None:
        """gen.throw(exception): raised in the body at the yield it is suspended at, as CPython
        raises it there; the value of the next yield if a handler goes on to one, None once the body
        returns.  What the body lets out (the thrown exception or another) propagates from here."""
        error = ObservedException(f"{exception.short_repr()} thrown into a generator", exception)
        if self.finished or not self.started:  # not at a yield: it comes straight back, the body over
            if not self.finished:
                self._finish()
            raise error
        frame = self.frame
        frame.parent, frame.depth = tx, tx.depth + 1
        if not frame.handle_exception(error):  # no handler around the yield: the body ends with it
            self._finish()
            raise error
        return self._run_to_yield(tx)

    def _run_to_yield(self, tx: InstructionTranslator) -> VariableTracker | None:
        frame = self.frame
        try:
            _run_inlined(tx, frame)
        except _Yielded as suspended:
            return suspended.value
        except ObservedException as error:  # the body raised: the generator is over, the caller may catch it
            self._finish()
            if issubclass(error.raised_type(), StopIteration):
                raise _stop_iteration_as_runtime_error(tx, error) from None
            raise
        self._finish()
        return None

    def call_method(self, tx: InstructionTranslator, name: str, args: list) -> VariableTracker:
        """The generator object's own methods: __next__(), send(value), throw(exc), close()."""
        if len(args) != (1 if name in ("send", "throw") else 0):
            raise observed(TypeError(f"generator.{name}() given {len(args)} arguments"), f"{name}() misused")
        if name == "close":
            self.close(tx)
            return ConstantVariable(None)
        if name == "throw":
            thrown = as_exception(args[0].realize())
            if thrown is None:
                raise Unsupported(f"throwing {args[0].describe()} into a generator")
            item = self.throw(tx, thrown)
        elif name == "send" and not self.started and not _is_none(args[0].realize()):
            raise observed(TypeError("can't send non-None value to a just-started generator"))
        else:
            item = self.resume(tx, args[0] if args else None)
        if item is None:
            raise observed(StopIteration(), f"StopIteration from generator.{name}()")
        return item

    def close(self, tx: InstructionTranslator) -> None:
        """gen.close(): GeneratorExit thrown in at the yield it is suspended at, as CPython does; the
        body letting it (or StopIteration) out is a clean close, yielding again a RuntimeError."""
        if self.finished or not self.started:
            if not self.finished:
                self._finish()
            return
        try:
            item = self.throw(tx, ExceptionVariable(exc_type=GeneratorExit))
        except ObservedException as error:
            if issubclass(error.raised_type(), (GeneratorExit, StopIteration)):
                return
            raise
        if item is not None:
            raise observed(RuntimeError("generator ignored GeneratorExit"), "a generator yielded in close()")

    def _finish(self) -> None:
        self.finished = True
        self.frame.output.suspended_frames.remove(self.frame)

