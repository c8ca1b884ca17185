"""InstructionTranslator: the symbolic machine that walks a frame's bytecode.

It holds a stack of VariableTrackers, the symbolic locals and an instruction
pointer, and dispatches each instruction to the method named after its
opcode.  An opcode without a handler stops the trace with a reason; it never
crashes.  Handlers are grouped like byterun's: stack, names, operators,
building, calls, jumps and loops.
"""
from __future__ import annotations

import dis
import linecache
import operator
import sys
import types

import torch

from . import bytecode
from .builder import build_from_source, build_lazy, build_sourceless
from .exc import ObservedException, Unsupported, UserLocation
from .building_opcodes import BuildingOpcodes
from .exception_opcodes import ExceptionOpcodes
from .guards import InstalledAt
from .source import (BuiltinSource, GlobalsDictSource, GlobalSource, LocalSource, ModuleSource, Source,
                     builtins_of)
from .variables.base import VariableTracker
from .variables.builtin import BuiltinVariable, apply_operator
from .variables.constant import ConstantVariable
from .variables.ctx_manager import enter_with
from .variables.dicts import ConstDictVariable
from .variables.functorch import nesting_counter
from .variables.exceptions import ExceptionVariable, is_exception_class
from .variables.generator import GeneratorVariable
from .variables.lists import ListIteratorVariable
from .variables.lazy import LazyVariableTracker
from .variables.leaving_generators import returned_generators_as_iterators
from .variables.misc import NullVariable, UserDefinedClassVariable
from .variables.sym import SymNodeVariable
from .variables.tensor import TensorVariable
from .variables.user_functions import CellVariable, NestedUserFunctionVariable

BINARY_OPERATORS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
    ">>": operator.rshift,
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "@=": operator.imatmul,
    "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
    ">>=": operator.irshift,
}
COMPARE_OPERATORS = {"<": operator.lt, "<=": operator.le, "==": operator.eq,
                     "!=": operator.ne, ">": operator.gt, ">=": operator.ge}
NULL = NullVariable()
INSTRUCTION_BUDGET = 2_000_000  # per trace, inlined calls included: an endless loop stops with a reason


class InstructionTranslator(BuildingOpcodes, ExceptionOpcodes):
    """Traces one frame: `run()` returns the tracker of the value the frame returns."""

    dispatch: dict  # opname -> handler of this class (dispatch_table), installed per class

    def __init_subclass__(cls, **kwargs):
        """A subclass's handlers (the inliner's RETURN_VALUE, YIELD_VALUE) are in its own table."""
        super().__init_subclass__(**kwargs)
        cls.dispatch = dispatch_table(cls)

    def __init__(self, code: types.CodeType, f_locals: dict, f_globals: dict, output, hook=None,
                 break_at: int | None = None, closure: tuple | None = None,
                 parent: InstructionTranslator | None = None):
        """The root translator (no parent) traces the compiled frame; a child, a call inlined into parent."""
        self.code = code
        self.decoded = bytecode.decode(code)
        self.instructions = self.decoded.instructions
        self.f_globals = f_globals
        self.output = output
        if parent is None:
            output.tx = self  # the translator running now: inline.py hands it to a callee while it runs
        self.hook = hook
        self.stack: list[VariableTracker] = []
        self.symbolic_locals: dict[str, VariableTracker] = {
            name: build_lazy(self, value, LocalSource(name)) for name, value in f_locals.items()
        }
        self.ip = 0
        self.current: bytecode.Instruction | None = None
        self.kw_names: tuple[str, ...] = ()
        self.return_value: VariableTracker | None = None
        self.steps = 0
        self.depth = 0 if parent is None else parent.depth + 1
        self.root = self if parent is None else parent.root
        self.parent = parent
        self.cells: dict[str, VariableTracker] = {}  # name -> CellVariable
        for name, real in zip(code.co_freevars, closure or ()):
            if name in self.symbolic_locals:  # the frame's free variables are real cells it shares
                self.cells[name] = self.real_cell(real, name, self.symbolic_locals[name])
                output.side_effects.frame_cells[name] = self.cells[name].cell_id
        self.break_at = break_at  # stop before this instruction: the graph breaks there
        self.grad_mode_at_break: bool | None = None  # the trace's grad mode where it stopped at break_at
        self.checkpoint: int | None = None  # the last instruction a graph could stop before and go on from as is
        if parent is None:
            self.exc_info: ExceptionVariable | None = None  # the exception being handled (sys.exception())
            if hook is not None:
                output.on_guard = getattr(hook, "on_guard", None)
                output.on_node = getattr(hook, "on_node", None)

    def global_source(self, name: str):
        return GlobalSource(name)

    def side_effect_globals_allowed(self) -> bool:
        return True

    def globals_dict_source(self) -> Source:
        return GlobalsDictSource()

    def inlining_stack(self) -> list["InstructionTranslator"]:
        """Root first: the call stack of the trace."""
        chain, tx = [], self
        while tx is not None:
            chain.append(tx)
            tx = tx.parent
        return chain[::-1]

    # ---- the loop -----------------------------------------------------------------
    def run(self) -> VariableTracker | None:
        """The tracker of the returned value, or None when stopped at `break_at`."""
        dispatch = self.dispatch
        shapes = self.output.shapes
        facts = shapes.log if shapes is not None else None  # ShapeEnv facts get the instruction that made them
        while self.return_value is None:
            inst = self.instructions[self.ip]
            self.current = inst
            if self.parent is None and not self.stack:
                self.note_checkpoint(inst)
            if inst.index == self.break_at:
                self.grad_mode_at_break = torch.is_grad_enabled()  # before the blocks' trace-time undo
                if self.hook is not None:  # the state the graph breaks in is the trace's last step
                    self.hook.on_step(self, inst)
                return None
            self.ip += 1
            self.steps += 1
            output = self.output
            output.steps += 1
            if output.steps > INSTRUCTION_BUDGET:
                raise Unsupported(f"the trace ran {INSTRUCTION_BUDGET:,} instructions without returning "
                                  "(an endless loop?)").at(self.location(),
                                                           [tx.location() for tx in self.inlining_stack()])
            if self.hook is not None:
                self.hook.on_step(self, inst)
            handler = dispatch.get(inst.opname)
            try:
                if handler is None:
                    raise Unsupported(f"opcode {inst.opname} is not supported")
                handler(self, inst)
            except ObservedException as error:
                if not self.handle_exception(error):  # unwinds to the caller, whose handler may catch it
                    raise error.at(self.location(), [tx.location() for tx in self.inlining_stack()])
            except Unsupported as error:
                raise error.at(self.location(), [tx.location() for tx in self.inlining_stack()])
            if facts is not None and facts.active():
                facts.stamp(self)
        return self.return_value

    def note_checkpoint(self, inst) -> None:
        """As Dynamo's speculation points: an instruction of this frame met with an empty stack,
        outside every try and with-block, once the graph holds more than one operation.  A graph
        break that cannot resume where it happens (inside a try block) compiles the graph up to the
        last one and runs the rest of the frame from there as it is."""
        if bytecode.handler_at(self.decoded.exception_table, inst.offset) is None \
                and (self.checkpoint is not None or self.output.count_calls() > 1):
            self.checkpoint = inst.index

    # ---- where we are ---------------------------------------------------------------
    def location(self) -> UserLocation:
        inst = self.current
        return UserLocation(self.code.co_filename, inst.line if inst else self.code.co_firstlineno,
                            self.code.co_name, inst.offset if inst else None,
                            inst.opname if inst else None)

    def installed_at(self) -> InstalledAt:
        inst = self.current
        line = inst.line if inst else self.code.co_firstlineno
        pos = inst.positions if inst else None
        return InstalledAt(self.code.co_filename, self.code.co_name, line,
                           inst.offset if inst else None,
                           (pos.col_offset, pos.end_col_offset) if pos else (None, None),
                           linecache.getline(self.code.co_filename, line or 0))

    def stack_trace_text(self) -> str:
        at = self.installed_at()
        return f'  File "{at.filename}", line {at.line}, in {at.function}\n    {at.source_line.strip()}\n'

    # ---- stack helpers ------------------------------------------------------------------
    def push(self, value: VariableTracker) -> None:
        self.stack.append(value)

    def pop(self) -> VariableTracker:
        return self.stack.pop()

    def display_at(self, depth: int) -> VariableTracker:
        """The list, set or dict a display (`[1, *xs]`, `{**d, 'k': v}`) is building, `depth` slots
        down.  After a graph break inside the display it is an argument of the resume function:
        a lazy tracker, realized here."""
        return self.stack[-depth].realize()

    def popn(self, n: int) -> list[VariableTracker]:
        if n == 0:
            return []
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def replace_all(self, old: VariableTracker, new: VariableTracker) -> None:
        """Swap every version of a mutated container for its new version, in every live frame:
        the running ones and the generators' suspended between two yields."""
        mutation_id = old.mutation_id
        if self.output.mutation_log is not None:
            self.output.mutation_log.add(mutation_id)
        self._swap_everywhere(new, lambda real: getattr(real, "mutation_id", None) == mutation_id)
        self.output.side_effects.record_container(new)

    def replace_tracker(self, old: VariableTracker, new: VariableTracker) -> None:
        """Swap one tracker for another wherever it is held (a tensor a graph node re-issued)."""
        self._swap_everywhere(new, lambda real: real is old)

    def _swap_everywhere(self, new: VariableTracker, is_old) -> None:
        def swap(v):
            real = v.peek() if isinstance(v, LazyVariableTracker) else v
            if real is None:
                return v  # never realized: it cannot hold the tracker swapped
            if is_old(real):
                return new
            return real.replace_children(swap) if real.children() else v

        running = self.inlining_stack()
        for tx in running + [f for f in self.output.suspended_frames if f not in running]:
            tx.stack = [swap(v) for v in tx.stack]
            tx.symbolic_locals = {k: swap(v) for k, v in tx.symbolic_locals.items()}
        self.output.side_effects.replace_trackers(swap)

    def call_function(self, fn: VariableTracker, args, kwargs) -> None:
        real = fn.realize()
        if isinstance(real, UserDefinedClassVariable) and is_exception_class(real.value):
            self.push(ExceptionVariable.construct(real.value, list(args), dict(kwargs), self))
            return
        self.push(fn.call_function(self, list(args), dict(kwargs)))

    # ---- the trackers' ways up: they sit below the builder and the inliner ----------------
    def build(self, value, source: Source | None = None, *, lazy: bool = False) -> VariableTracker:
        """What VariableTracker.build answers: `lazy` defers a sourced value's guards to its first use."""
        if source is None:
            return build_sourceless(self, value)
        return build_lazy(self, value, source) if lazy else build_from_source(self, value, source)

    def inline_call(self, fn: VariableTracker, args: list, kwargs: dict) -> VariableTracker:
        """The result of a user function's call, its body traced by a child translator."""
        from .inline import inline_call  # a real cycle: inline.py's child translator subclasses this one
        return inline_call(self, fn, args, kwargs)

    # ---- stack manipulation ---------------------------------------------------------------
    def NOP(self, inst): pass
    def EXTENDED_ARG(self, inst): pass  # dis already folded it into the next instruction's arg
    def RESUME(self, inst): pass
    def PRECALL(self, inst): pass

    def POP_TOP(self, inst):
        self.pop()

    def PUSH_NULL(self, inst):
        self.push(NULL)

    def COPY(self, inst):
        self.push(self.stack[-inst.arg])

    def SWAP(self, inst):
        self.stack[-1], self.stack[-inst.arg] = self.stack[-inst.arg], self.stack[-1]

    # ---- names ---------------------------------------------------------------------------
    def LOAD_CONST(self, inst):
        self.push(build_sourceless(self, inst.argval))

    def LOAD_FAST(self, inst):
        if inst.argval not in self.symbolic_locals:
            raise Unsupported(f"UnboundLocalError: local {inst.argval!r} read before assignment")
        self.push(self.symbolic_locals[inst.argval])

    def real_cell(self, real, name: str, contents, source=None) -> CellVariable:
        """One CellVariable per real cell object in a trace, so every function closing over it
        (the compiled frame, helpers it inlines) sees the others' writes; `source` reaches the
        cell object itself, for writing back."""
        effects = self.output.side_effects
        cell = effects.known_real_cell(real)
        if cell is None:
            cell = CellVariable(name=name)
            effects.store_cell(cell.cell_id, contents)
            effects.add_real_cell(real, cell, source)
        return cell

    def _new_cell(self, name: str, value) -> CellVariable:
        cell = CellVariable(name=name)
        self.output.side_effects.store_cell(cell.cell_id, value)
        self.cells[name] = cell
        if self.root is self:  # the compiled frame's own cells: the rewritten code writes them back
            self.output.side_effects.frame_cells[name] = cell.cell_id
        return cell

    def LOAD_CLOSURE(self, inst):
        name = inst.argval
        if name not in self.cells:  # a root frame's free variable, captured again
            self._new_cell(name, self.symbolic_locals.get(name))
        self.push(self.cells[name])

    def LOAD_DEREF(self, inst):
        name = inst.argval
        if name in self.cells:
            cell_id = self.cells[name].cell_id
            value = self.output.side_effects.load_cell(cell_id)
            if value is not None and self.output.side_effects.written_in_trace(cell_id):
                value = value.realize()  # a lazy argument captured by a closure: its graph input made here
        else:
            value = self.symbolic_locals.get(name)
        if value is None:
            raise Unsupported(f"NameError: free variable {name!r} referenced before assignment")
        self.push(value)

    def STORE_DEREF(self, inst):
        name = inst.argval
        if name not in self.cells:  # a root frame's free variable with no cell given (what-if, tests)
            self._new_cell(name, None)
        self.output.side_effects.assign_cell(self.cells[name].cell_id, self.pop())

    def MAKE_CELL(self, inst):
        self._new_cell(inst.argval, self.symbolic_locals.pop(inst.argval, None))

    def COPY_FREE_VARS(self, inst):
        pass  # the cells were bound when the call was entered

    def MAKE_FUNCTION(self, inst):
        code = self.pop().as_python_constant()
        parts = bytecode.function_parts(inst)
        closure = tuple(self.pop().items) if parts.closure else ()
        annotations = bytecode.annotation_pairs(self.pop().realize().items) if parts.annotations else ()
        kwdefaults = dict(self.pop().realize().entries) if parts.kwdefaults else {}
        defaults = tuple(self.pop().realize().items) if parts.defaults else ()
        self.push(NestedUserFunctionVariable(code=code, f_globals=self.f_globals, defaults=defaults,
                                             kwdefaults=kwdefaults, closure=closure, annotations=annotations))

    def STORE_FAST(self, inst):
        self.symbolic_locals[inst.argval] = self.pop()
        top = self.symbolic_locals[inst.argval]
        if isinstance(top, TensorVariable) and top.source is None and top.node.op != "placeholder":
            top.node.meta.setdefault("user_name", inst.argval)

    def DELETE_FAST(self, inst):
        self.symbolic_locals.pop(inst.argval, None)

    def LOAD_GLOBAL(self, inst):
        if bytecode.pushes_null(inst):
            self.push(NULL)
        self.push(self.load_global(inst.argval))

    def LOAD_NAME(self, inst):
        if inst.argval in self.symbolic_locals:
            self.push(self.symbolic_locals[inst.argval])
        else:
            self.push(self.load_global(inst.argval))

    def load_global(self, name: str) -> VariableTracker:
        stored = self.output.side_effects.globals.get(name) if self.side_effect_globals_allowed() else None
        if stored is not None:
            return stored
        if name in self.f_globals:
            counter = nesting_counter(self, self.f_globals, name, self.global_source(name))
            return counter if counter is not None else build_lazy(self, self.f_globals[name], self.global_source(name))
        builtins_ = builtins_of(self.f_globals)
        if name in builtins_:
            value = builtins_[name]
            if callable(value):  # as Dynamo, guarded on its identity; also on no global shadowing it
                self.output.install_guard(BuiltinSource(name), "ID_MATCH", value)
                self.output.install_guard(self.globals_dict_source(), "DICT_CONTAINS", (name, False))
            return build_sourceless(self, value)
        raise Unsupported(f"NameError: name {name!r} is not defined")

    def BEFORE_WITH(self, inst):
        exit_fn, value = enter_with(self, self.pop().realize())
        self.push(exit_fn)
        self.push(value)

    def IMPORT_NAME(self, inst):
        fromlist, level = self.pop().as_python_constant(), self.pop().as_python_constant()
        if level != 0:
            raise Unsupported("a relative import inside the traced code")
        try:
            module = __import__(inst.argval, self.f_globals, None, fromlist, level)
        except Exception as error:
            raise Unsupported(f"import {inst.argval} raised {type(error).__name__}: {error}") from error
        self.push(self._imported(module))

    def _imported(self, module) -> VariableTracker:
        """The module an import gave, with its sys.modules entry as Source, as Dynamo sources it: what
        the trace reads from it is guarded (a setting changed between calls recompiles)."""
        name = getattr(module, "__name__", None)
        if isinstance(name, str) and sys.modules.get(name) is module:
            return build_from_source(self, module, ModuleSource(name))
        return build_sourceless(self, module)

    def IMPORT_FROM(self, inst):
        module = self.stack[-1]
        self.push(module.var_getattr(self, inst.argval))

    def LOAD_ATTR(self, inst):
        obj = self.pop()
        self.push(obj.var_getattr(self, inst.argval))

    def LOAD_METHOD(self, inst):
        obj = self.pop()
        self.push(NULL)
        self.push(obj.var_getattr(self, inst.argval))

    def STORE_ATTR(self, inst):
        obj = self.pop().realize()
        value = self.pop()
        obj.store_attr(self, inst.argval, value)

    def DELETE_ATTR(self, inst):
        obj = self.pop().realize()
        if not hasattr(obj, "del_attr"):
            raise Unsupported(f"deleting the attribute {inst.argval!r} of {obj.describe()}")
        obj.del_attr(self, inst.argval)

    def STORE_GLOBAL(self, inst):
        if not self.side_effect_globals_allowed():
            raise Unsupported(f"assigning the global {inst.argval!r} of another module")
        self.output.side_effects.store_global(inst.argval, self.pop())

    # ---- operators ---------------------------------------------------------------------------
    def BINARY_OP(self, inst):
        right, left = self.pop(), self.pop()
        self.push(apply_operator(self, BINARY_OPERATORS[inst.argrepr], [left, right]))

    def COMPARE_OP(self, inst):
        right, left = self.pop(), self.pop()
        self.push(apply_operator(self, COMPARE_OPERATORS[inst.argval], [left, right]))

    def IS_OP(self, inst):
        right, left = self.pop().realize(), self.pop().realize()
        self.push(apply_operator(self, operator.is_not if inst.arg else operator.is_, [left, right]))

    def CONTAINS_OP(self, inst):
        container, item = self.pop().realize(), self.pop()
        asks_keys = isinstance(container, ConstDictVariable)  # its key set is guarded, not only its values
        if isinstance(container, GeneratorVariable):  # pulled up to the first match
            result = apply_operator(self, operator.contains, [container, item])
        elif asks_keys or not container.is_python_constant() or not item.is_python_constant():
            result = container.call_method(self, "__contains__", [item], {})
        else:
            result = ConstantVariable(item.as_python_constant() in container.as_python_constant())
        if inst.arg:
            result = ConstantVariable(not result.as_python_constant())
        self.push(result)

    def _unary(op):
        def handler(self, inst):
            self.push(apply_operator(self, op, [self.pop()]))
        handler.__name__ = op.__name__
        return handler

    UNARY_NEGATIVE = _unary(operator.neg)
    UNARY_POSITIVE = _unary(operator.pos)
    UNARY_INVERT = _unary(operator.invert)

    def UNARY_NOT(self, inst):
        value = self.pop().realize()
        if isinstance(value, SymNodeVariable):  # as Dynamo: a symbolic bool in the graph, not a specialisation
            self.push(self.output.call(self, "call_function", operator.not_, (value,), {}))
            return
        self.push(ConstantVariable(not value.truth(self)))

    # ---- subscripts -------------------------------------------------------------------------------
    def BINARY_SUBSCR(self, inst):
        index, obj = self.pop(), self.pop()
        self.push(apply_operator(self, operator.getitem, [obj, index]))

    def STORE_SUBSCR(self, inst):
        key, obj, value = self.pop(), self.pop().realize(), self.pop()
        if isinstance(obj, TensorVariable):
            self.output.call(self, "call_function", operator.setitem, (obj, key, value), {})
            return
        obj.call_method(self, "__setitem__", [key, value], {})

    def DELETE_SUBSCR(self, inst):
        key, obj = self.pop(), self.pop().realize()
        obj.call_method(self, "__delitem__", [key], {})

    # ---- calls ----------------------------------------------------------------------------------
    def KW_NAMES(self, inst):
        self.kw_names = inst.argval if isinstance(inst.argval, tuple) else self.code.co_consts[inst.arg]

    def CALL(self, inst):
        args = self.popn(inst.arg)
        fn_or_self, fn_or_null = self.pop(), self.pop()
        if isinstance(fn_or_null, NullVariable):
            fn = fn_or_self
        else:
            fn, args = fn_or_null, [fn_or_self] + args
        kw_names, self.kw_names = self.kw_names, ()
        if kw_names:
            kwargs = dict(zip(kw_names, args[len(args) - len(kw_names):]))
            args = args[:len(args) - len(kw_names)]
        else:
            kwargs = {}
        self.call_function(fn, args, kwargs)

    def CALL_FUNCTION_EX(self, inst):
        kwargs_var = self.pop().realize() if bytecode.has_kwargs_mapping(inst) else ConstDictVariable({})
        args_var = self.pop().realize()
        fn = self.pop()
        null = self.pop()
        if not isinstance(null, NullVariable):
            raise Unsupported("CALL_FUNCTION_EX with a bound self")
        if not args_var.has_unpack_var_sequence(self):
            raise Unsupported(f"*-unpacking {args_var.describe()}")
        if not isinstance(kwargs_var, ConstDictVariable):
            raise Unsupported(f"**-unpacking {kwargs_var.describe()}")
        kwargs = {str(k): v for k, v in kwargs_var.read_entries().items()}
        self.call_function(fn, args_var.unpack_var_sequence(self), kwargs)

    def RETURN_VALUE(self, inst):
        value = self.pop()
        if self.parent is None:  # leaving the trace: its generators become iterators of what they have left
            value = returned_generators_as_iterators(self, value)
            if isinstance(value, LazyVariableTracker) and value.is_lazy() and type(value.value) in (int, float):
                value = value.realize()  # as Dynamo, whose check of the returned value's kind realizes a number
        self.return_value = value

    def LOAD_BUILD_CLASS(self, inst):
        """A class statement: builtins.__build_class__, guarded on its identity, as Dynamo loads it; its
        call is where the graph breaks (the class body runs for real)."""
        value = builtins_of(self.f_globals)["__build_class__"]
        self.output.install_guard(BuiltinSource("__build_class__"), "ID_MATCH", value)
        self.push(build_sourceless(self, value))

    def LOAD_ASSERTION_ERROR(self, inst):
        """A failing assert.  As Dynamo: one with no message or a literal one is a graph break (the assert
        runs for real in the rest of the frame); one whose message is computed (an f-string) raises
        AssertionError itself (not a global's) as any raise does."""
        following = [i.opname for i in self.instructions[self.ip:self.ip + 4]]
        if following[:1] == ["RAISE_VARARGS"] or following == ["LOAD_CONST", "PRECALL", "CALL", "RAISE_VARARGS"]:
            raise Unsupported("assert statement that fails at trace time")
        self.push(build_sourceless(self, AssertionError))

    # ---- jumps ------------------------------------------------------------------------------------
    def jump(self, inst):
        self.ip = inst.target

    JUMP_FORWARD = JUMP_BACKWARD = JUMP_BACKWARD_NO_INTERRUPT = JUMP_ABSOLUTE = jump

    def _pop_jump_if(truth_wanted, test=None):
        def handler(self, inst):
            value = self.pop().realize()
            if test is not None:
                decided = test(value)
            else:
                decided = value.truth(self) is truth_wanted
            if decided:
                self.jump(inst)
        return handler

    def _is_none(value):
        if isinstance(value, ConstantVariable):
            return value.value is None
        if value.is_python_constant():
            return value.as_python_constant() is None
        return False

    POP_JUMP_FORWARD_IF_TRUE = POP_JUMP_BACKWARD_IF_TRUE = _pop_jump_if(True)
    POP_JUMP_FORWARD_IF_FALSE = POP_JUMP_BACKWARD_IF_FALSE = _pop_jump_if(False)
    POP_JUMP_FORWARD_IF_NONE = POP_JUMP_BACKWARD_IF_NONE = _pop_jump_if(None, _is_none)
    POP_JUMP_FORWARD_IF_NOT_NONE = POP_JUMP_BACKWARD_IF_NOT_NONE = _pop_jump_if(
        None, lambda v: not InstructionTranslator._is_none(v))

    def _jump_or_pop(truth_wanted):
        def handler(self, inst):
            value = self.stack[-1].realize()
            if value.truth(self) is truth_wanted:
                self.jump(inst)
            else:
                self.pop()
        return handler

    JUMP_IF_TRUE_OR_POP = _jump_or_pop(True)
    JUMP_IF_FALSE_OR_POP = _jump_or_pop(False)

    # ---- loops ------------------------------------------------------------------------------------
    def GET_ITER(self, inst):
        self.push(BuiltinVariable(iter).call_function(self, [self.pop()], {}))

    def FOR_ITER(self, inst):
        it = self.stack[-1].realize()
        if not isinstance(it, (ListIteratorVariable, GeneratorVariable)):
            raise Unsupported(f"iterating over {it.describe()}")
        step = it.next_item(self)
        if step is None:
            self.pop()
            self.jump(inst)
            return
        item, advanced = step
        if isinstance(it, ListIteratorVariable) and self._held_by_a_name(it):
            self.replace_all(it, advanced)  # `for i in it: break`: the name sees where the loop stopped
        else:
            self.stack[-1] = advanced
        self.push(item)

    def _held_by_a_name(self, it: ListIteratorVariable) -> bool:
        """Whether a local of a running or suspended frame holds the iterator a loop advances (a
        loop over `iter(...)` made for it holds it alone, and needs no swap everywhere)."""
        frames = self.inlining_stack() + self.output.suspended_frames
        return any(getattr(v, "mutation_id", None) == it.mutation_id
                   for frame in frames for v in frame.symbolic_locals.values())


def dispatch_table(cls) -> dict:
    """opname -> cls's handler, for every opcode of this Python that has one."""
    table = {}
    for name in dis.opname:
        handler = getattr(cls, name, None)
        if callable(handler) and name.isupper():
            table[name] = handler
    return table


InstructionTranslator.dispatch = dispatch_table(InstructionTranslator)
