"""PyCodegen: the second output — bytecode that runs the graph and rebuilds the frame.

A cache entry's code is a real code object with the original function's
signature.  It stages the graph inputs by reconstructing their Sources
(`LOAD_FAST x`, `LOAD_GLOBAL cfg; LOAD_ATTR scale`), calls the compiled
graph, rebuilds every value the frame still needs from the graph's outputs,
constants and Sources, replays the recorded side effects and returns — or,
after a graph break, runs the unsupported instruction for real and calls the
resume function.  Code objects are assembled with the `bytecode` package.
"""
from __future__ import annotations

import collections
import contextlib
import inspect
import types

import bytecode as bc
import torch
import functools
from torch._C._dynamo.eval_frame import set_eval_frame

from .code_check import check_code
from .exc import Unsupported
from .source import LocalSource
from .variables.base import VariableTracker
from .variables.builtin import OperatorGetterVariable
from .variables.constant import ConstantVariable
from .variables.ctx_manager import GradModeVariable, NullContextVariable, inactive_set_grad_enabled
from .variables.dicts import ConstDictVariable, DictViewVariable
from .variables.exceptions import ExceptionVariable, plain_exception_class, python_init
from .variables.functional import LazyIteratorVariable
from .variables.functions import TorchFunctionVariable
from .variables.mapping_proxy import MappingProxyVariable
from .variables.object_protocol import InstanceDictVariable, builtin_base
from .variables.function_attrs import DictEntry
from .variables.numpy import NumpyNdarrayVariable, tensor_to_ndarray
from .variables.lists import (BaseListVariable, ListIteratorVariable, ListVariable, RangeVariable, SliceVariable,
                              TupleVariable, key_tracker, make_named_tuple)
from .variables.get_attr import GetAttrVariable
from .variables.misc import NullVariable, PythonModuleVariable, UserDefinedClassVariable, UserDefinedObjectVariable
from .variables.builtin import BuiltinVariable
from .variables.sym import SizeVariable, SymNodeVariable
from .variables.tensor import TensorVariable
from .variables.tensor_hooks import RemovableHandleVariable
from .variables.partial import FunctoolsPartialVariable
from .variables.sets import SetVariable
from .variables.user_functions import (NestedUserFunctionVariable,
                                       UserFunctionVariable, UserMethodVariable)

GRAPH_OUT = "___graph_out"


class NamedCallable:
    """A compiled graph in rewritten code: disassembles under a readable name, and runs with the frame
    hook off (as Dynamo runs its graphs), so the backend's Python frames are not offered to it."""

    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn):
        self.name = name
        self.fn = fn

    def __call__(self, *args, **kwargs):
        prior = set_eval_frame(None)
        try:
            return self.fn(*args, **kwargs)
        finally:
            set_eval_frame(prior)

    def __repr__(self) -> str:
        return self.name


class GraphCallable(NamedCallable):
    """A compiled graph's NamedCallable: the rewritten code calls it with its inputs, positionally, on
    every run of the entry, so it takes no keyword dict (a call without one is ~0.1 us cheaper)."""

    __slots__ = ()

    def __call__(self, *args):
        prior = set_eval_frame(None)
        try:
            return self.fn(*args)
        finally:
            set_eval_frame(prior)


def _looks_constant(var: VariableTracker) -> bool:
    """Whether `var` is a Python constant, asked the way Dynamo's codegen asks of a value it must
    build: a container's items are looked at (realized, so guarded) in order up to the first that
    is not a constant; nothing else is guarded or specialised by asking."""
    var = var.realize()
    if isinstance(var, ConstantVariable):
        return True
    if isinstance(var, BaseListVariable) and not isinstance(var, SizeVariable):
        return all(_looks_constant(item) for item in var.items)
    if isinstance(var, ConstDictVariable):
        return all(_looks_constant(value) for value in var.entries.values())
    return False


def _new_object(cls, names, items, *values):
    """An object made in the trace, rebuilt as its own class's C machinery holds it: the
    attributes stored the way object.__setattr__ stores them, the items of a dict base the way
    its own __setitem__ does, of a set, list, tuple or frozenset base the way their C methods
    hold them (the class's Python __setattr__/__setitem__/__init__ already ran in the trace)."""
    base = builtin_base(cls)
    if base in (tuple, frozenset):
        obj = base.__new__(cls, items)
    else:
        obj = base.__new__(cls) if base is not None else object.__new__(cls)
    for name, value in zip(names, values):
        object.__setattr__(obj, name, value)
    if base is list:
        list.extend(obj, items)
    elif base is set:
        set.update(obj, items)
    elif base not in (tuple, frozenset):
        for key, value in (items or {}).items():
            base.__setitem__(obj, key, value)
    return obj


def _replace_list(target, items):
    if isinstance(target, list):  # list's own C method: a subclass's Python overrides already ran in the trace
        list.__setitem__(target, slice(None), items)
    else:  # a deque: no slice assignment
        target.clear()
        target.extend(items)


_REFILLED_DICTS = (collections.OrderedDict, collections.defaultdict, collections.Counter)  # by their own methods


def _refill(target, items):
    """A dict's or set's contents replaced in place, as they were at the end of the trace."""
    base = set if isinstance(target, set) else None
    if isinstance(target, collections.OrderedDict):  # its own C methods, in the trace's order
        collections.OrderedDict.clear(target)
        for key, value in items.items():
            collections.OrderedDict.__setitem__(target, key, value)
        return
    if isinstance(target, dict) and not isinstance(target, _REFILLED_DICTS):
        base = dict
    if base is not None:  # the builtin's own C methods: a subclass's Python overrides already ran in the trace
        base.clear(target)
        base.update(target, items)
        return
    target.clear()
    target.update(items)


def _advance_iterator(target, steps):
    for _ in range(steps):
        next(target)


def _exception_with(cls, args, names, *values):
    """An exception made in the trace, rebuilt with the attributes the trace set on it; one whose class
    has its own __init__ by BaseException.__new__ alone (that __init__ ran in the trace: its writes are
    among the attributes)."""
    error = cls.__new__(cls, *args) if python_init(cls) is not None else cls(*args)
    for name, value in zip(names, values):
        setattr(error, name, value)
    return error


_new_object_fn = NamedCallable("__new_object", _new_object)
_exception_fn = NamedCallable("__exception_with_attributes", _exception_with)
_advance_iterator_fn = NamedCallable("__advance_iterator", _advance_iterator)
_replace_list_fn = NamedCallable("__replace_list_contents", _replace_list)
_refill_fn = NamedCallable("__refill_contents", _refill)
_tensor_to_ndarray_fn = NamedCallable("__tensor_to_ndarray", tensor_to_ndarray)
_set_grad_enabled_fn = NamedCallable("__inactive_set_grad_enabled", inactive_set_grad_enabled)


class PyCodegen:
    """Emits instructions; `output_nodes` collects the graph values the code needs."""

    def __init__(self, code: types.CodeType, side_effects, output_nodes: list | None = None):
        self.code = code
        self.side_effects = side_effects
        self.instructions: list = []
        self.output_nodes: list[torch.fx.Node] = list(output_nodes or [])
        self.frozen_outputs = output_nodes is not None
        self.new_object_temps: dict = {}
        self.rebuilding: set = set()  # exceptions and functions being rebuilt now: one reached again is a cycle
        self.cells_to_fill: dict = {}  # function being rebuilt -> temps of the empty cells that must hold it
        self.temp_count = 0
        self.cell_temps: dict[int, str] = {}  # cells made during the trace, rebuilt once each
        self.frame_cells_used = False  # a rebuilt closure holds one of the frame's own cells
        self.keep_lazy_constants = False  # while the return value is emitted (see `returned`)

    # ---- primitives ----------------------------------------------------------------
    def emit(self, opname: str, arg=bc.UNSET) -> None:
        self.instructions.append(bc.Instr(opname, arg) if arg is not bc.UNSET else bc.Instr(opname))

    def load_const(self, value) -> None:
        self.emit("LOAD_CONST", value)

    def load_local(self, name: str) -> None:
        if name in self.code.co_freevars:
            self.emit("LOAD_DEREF", bc.FreeVar(name))
        elif name in self.code.co_cellvars:
            self.emit("LOAD_DEREF", bc.CellVar(name))
        else:
            self.emit("LOAD_FAST", name)

    def load_closure(self, name: str) -> None:
        """Push the frame's own cell for `name` (one of its cell or free variables)."""
        self.emit("LOAD_CLOSURE", bc.FreeVar(name) if name in self.code.co_freevars else bc.CellVar(name))

    def store_deref(self, name: str) -> None:
        self.emit("STORE_DEREF", bc.FreeVar(name) if name in self.code.co_freevars else bc.CellVar(name))

    def load_global(self, name: str) -> None:
        self.emit("LOAD_GLOBAL", (False, name))

    def load_attr(self, name: str) -> None:
        self.emit("LOAD_ATTR", name)

    def new_temp(self, prefix: str = "___tmp") -> str:
        self.temp_count += 1
        return f"{prefix}{self.temp_count}"

    def store(self, name: str) -> None:
        self.emit("STORE_FAST", name)

    def load(self, name: str) -> None:
        self.emit("LOAD_FAST", name)

    def call(self, callable_const, nargs_emitter, nargs: int) -> None:
        """callable_const(*args), args pushed by nargs_emitter()."""
        self.emit("PUSH_NULL")
        self.load_const(callable_const)
        nargs_emitter()
        self.emit("PRECALL", nargs)
        self.emit("CALL", nargs)

    # ---- reconstruction ----------------------------------------------------------------
    def graph_output(self, node: torch.fx.Node) -> None:
        if node not in self.output_nodes:
            if self.frozen_outputs:
                raise AssertionError(f"graph output {node} was not collected")
            self.output_nodes.append(node)
        self.load(GRAPH_OUT)
        self.load_const(self.output_nodes.index(node))
        self.emit("BINARY_SUBSCR")

    def returned(self, var: VariableTracker) -> None:
        """Emit code that pushes the frame's return value.  As Dynamo, an int, float, bool or str
        from outside that the trace never looked at is returned as it came, unguarded (an int
        argument returned does not specialise the frame); but a container built in the trace is
        first asked whether it is a constant, as Dynamo's codegen asks, which looks at (realizes)
        its items in order up to the first that is not one."""
        self.keep_lazy_constants = True
        try:
            self.reconstruct(var)
        finally:
            self.keep_lazy_constants = False

    def reconstruct(self, var: VariableTracker) -> None:
        """Emit code that pushes the value `var` stands for."""
        if self.keep_lazy_constants and self._kept_lazy(var):
            return
        # As Dynamo, a value that crosses into rewritten code is realized first: it is guarded,
        # and a constant is baked in rather than passed along unguarded (but see `returned`).
        var = var.realize()
        if isinstance(var, (NullVariable, SymNodeVariable, NumpyNdarrayVariable, TensorVariable)):
            self._graph_value(var)
        elif isinstance(var, SizeVariable):
            self.call(torch.Size, lambda: self._sequence(TupleVariable(var.items)), 1)
        elif isinstance(var, (ListVariable, SetVariable)) and var.source is not None:
            var.source.reconstruct(self)
        elif isinstance(var, (ListVariable, SetVariable)):
            self._built_once(var.mutation_id, lambda: self._sequence(var))
        elif isinstance(var, BaseListVariable):
            self._sequence(var)
        elif isinstance(var, ConstDictVariable):
            if var.source is not None:
                var.source.reconstruct(self)
            else:
                self._built_once(var.mutation_id, lambda: self._typed_dict(var))
        elif isinstance(var, SliceVariable):
            for part in var.parts():
                self.reconstruct(part)
            self.emit("BUILD_SLICE", 3)
        elif isinstance(var, UserDefinedObjectVariable) and var.is_new():
            self._new_object(var)
        elif isinstance(var, ListIteratorVariable):
            self._built_once(var.mutation_id, lambda: (self._sequence(TupleVariable(var.items[var.index:])),
                                                       self.emit("GET_ITER")))
        elif isinstance(var, UserMethodVariable):
            self.call(types.MethodType, lambda: (self.reconstruct(var.fn), self.reconstruct(var.obj)), 2)
        elif isinstance(var, NestedUserFunctionVariable):
            self._nested_function(var)
        elif isinstance(var, GetAttrVariable):
            self.reconstruct(var.obj)
            self.load_attr(var.name)
        elif isinstance(var, InstanceDictVariable):  # the rebuilt object's own __dict__
            self.reconstruct(var.obj)
            self.load_attr("__dict__")
        elif isinstance(var, MappingProxyVariable) and var.source is None:
            self.call(types.MappingProxyType, lambda: self.reconstruct(var.dict_var), 1)
        elif isinstance(var, DictViewVariable):
            self.reconstruct(var.dict_var)
            self.emit("LOAD_METHOD", var.view)
            self.emit("PRECALL", 0)
            self.emit("CALL", 0)
        elif isinstance(var, LazyIteratorVariable):  # one object however many hold it, as a list is
            parts = var.rebuild_call()
            self._built_once(id(var.frame), lambda: self.call(
                var.rebuild_callable(), lambda: [self.reconstruct(part) for part in parts], len(parts)))
        elif isinstance(var, FunctoolsPartialVariable) and var.source is not None:
            var.source.reconstruct(self)  # one from outside: that object (`p is P` after a break)
        elif isinstance(var, FunctoolsPartialVariable):  # one made in the trace, made once however many hold it
            self._built_once(var.identity(), lambda: self._call_with_kwargs(
                functools.partial, [var.func, *var.args], var.keywords))
        elif isinstance(var, ExceptionVariable):
            self._exception(var)
        elif isinstance(var, RemovableHandleVariable) and var.pending is not None:
            # a graph input's hook, registered here rather than with the other effects: its handle
            self._built_once(("hook", var.pending), lambda: self._register_hook(var.pending))
        elif isinstance(var, OperatorGetterVariable):
            self._call_with_kwargs(var.factory, list(var.keys), {})
        elif isinstance(var, (GradModeVariable, NullContextVariable)) and var.source is None:
            self._built_once(id(var), lambda: self._context(var))
        elif var.source is not None:
            var.source.reconstruct(self)
        elif isinstance(var, (ConstantVariable, RangeVariable, TorchFunctionVariable, BuiltinVariable,
                              PythonModuleVariable, UserDefinedClassVariable, UserFunctionVariable)):
            self.load_const(var.as_python_constant())
        elif isinstance(var, UserDefinedObjectVariable):
            self.load_const(var.value)
        else:
            raise Unsupported(f"cannot rebuild {var.describe()} in bytecode")

    def _kept_lazy(self, var: VariableTracker) -> bool:
        """Under `returned`: a lazy constant from outside is pushed from its source, unguarded."""
        if var.is_lazy() and var.source is not None and type(var.value) in (int, float, bool, str):
            var.source.reconstruct(self)
            return True
        if var.source is None:
            _looks_constant(var)
        return False

    def _graph_value(self, var: VariableTracker) -> None:
        """A NULL, or a value the graph holds: a tensor, an ndarray, a symbolic number."""
        if isinstance(var, NullVariable):
            self.emit("PUSH_NULL")
        elif isinstance(var, SymNodeVariable) and isinstance(var.value, torch.SymFloat) and var.source is not None:
            var.source.reconstruct(self)  # a float input kept as it came: itself again, as in Dynamo
        elif isinstance(var, SymNodeVariable) and isinstance(var.value, torch.SymFloat) and var.shapes is not None:
            self.graph_output(var.float_output_node())  # a 0-d tensor out of the graph, a float again here
            self.emit("LOAD_METHOD", "item")
            self.emit("PRECALL", 0)
            self.emit("CALL", 0)
        elif isinstance(var, NumpyNdarrayVariable):
            if var.node.op == "placeholder" and var.source is not None:  # an array from outside: itself
                var.source.reconstruct(self)
            else:  # an array computed in the graph: an ndarray again
                self.call(_tensor_to_ndarray_fn, lambda: self.graph_output(var.node), 1)
        elif var.node.op == "placeholder" and var.source is not None:
            var.source.reconstruct(self)
        else:
            self.graph_output(var.node)

    def _context(self, var) -> None:
        """A grad-mode or null context the trace made, alive at a break (entered or not): made again,
        as Dynamo rebuilds one; a set_grad_enabled object keeps the mode it found."""
        if isinstance(var, NullContextVariable):
            self.call(contextlib.nullcontext, lambda: self.reconstruct(var.value), 1)
        elif var.made_by is torch.set_grad_enabled:
            self.call(_set_grad_enabled_fn, lambda: (self.load_const(var.target), self.load_const(var.initial)), 2)
        else:
            self.call(var.python_type(), lambda: None, 0)

    def _register_hook(self, index: int) -> None:
        hook = self.side_effects.hooks[index]
        if hook is None:
            raise Unsupported("the handle of a hook removed in the trace, alive after it")
        tensor, method, fn = hook
        self.call(getattr(torch.Tensor, method), lambda: (self.reconstruct(tensor), self.reconstruct(fn)), 2)

    def _exception(self, var: ExceptionVariable) -> None:
        """An exception object made in the trace and still alive: `cls(*args)` again, built once, with
        the attributes the trace gave it (its __context__, __cause__) set again in the order given."""
        key = var.identity()
        if not plain_exception_class(var.exc_type, allowed=("__init__",)):
            raise Unsupported(f"cannot rebuild the exception {var.short_repr()} (its class's own methods) "
                              "in bytecode")
        attrs = self.side_effects.attrs.get(key, {})
        if not attrs and python_init(var.exc_type) is None:
            self._built_once(key, lambda: self.call(
                var.exc_type, lambda: [self.reconstruct(a) for a in var.args], len(var.args)))
            return
        if key in self.rebuilding and key not in self.new_object_temps:
            raise Unsupported(f"cannot rebuild the exception {var.short_repr()}: its chain of exceptions "
                              "leads back to it")

        def args():
            self.load_const(var.exc_type)
            self._sequence(TupleVariable(var.args))
            self.load_const(tuple(attrs))
            for value in attrs.values():
                self.reconstruct(value)

        self.rebuilding.add(key)
        try:
            self._built_once(key, lambda: self.call(_exception_fn, args, 3 + len(attrs)))
        finally:
            self.rebuilding.discard(key)

    def _sequence(self, var: BaseListVariable) -> None:
        cls = var.python_type()
        if cls is set:
            for item in var.items:
                self.reconstruct(item)
            self.emit("BUILD_SET", len(var.items))
            return
        if cls is frozenset:
            self.call(frozenset, lambda: self._sequence(SetVariable(var.items)), 1)
            return
        if cls is collections.deque:
            self.call(collections.deque,
                      lambda: (self._sequence(TupleVariable(var.items)), self.load_const(var.maxlen)), 2)
            return
        if cls not in (list, tuple):
            self.call(make_named_tuple, lambda: (self.load_const(cls), self._sequence(TupleVariable(var.items))), 2)
            return
        for item in var.items:
            self.reconstruct(item)
        self.emit("BUILD_LIST" if cls is list else "BUILD_TUPLE", len(var.items))

    def _dict(self, entries: dict) -> None:
        for key, value in entries.items():
            self.reconstruct(key_tracker(key))  # a constant, or a tensor key
            self.reconstruct(value)
        self.emit("BUILD_MAP", len(entries))

    def _typed_dict(self, var: ConstDictVariable) -> None:
        """A dict made in the trace; a defaultdict / OrderedDict / Counter is remade around a plain one."""
        if var.python_type() is dict:
            return self._dict(var.entries)
        cls, leading = var.rebuild_call()
        self.call(cls, lambda: ([self.reconstruct(a) for a in leading], self._dict(var.entries)), len(leading) + 1)

    def _built_once(self, identity: int, build) -> None:
        """Push what build() pushes, built at the first reference to this mutable value.

        A list, dict, set or iterator made during the trace may be held in several places
        (two locals, a local and the stack, twice in another list): they must stay one
        object after the break, or a mutation through one is lost to the others.
        """
        temp = self.new_object_temps.get(identity)
        if temp is not None:
            self.load(temp)
            return
        build()
        temp = self.new_object_temps[identity] = self.new_temp("___obj")
        self.emit("COPY", 1)
        self.store(temp)

    def _call_with_kwargs(self, fn, args: list, kwargs: dict) -> None:
        self.emit("PUSH_NULL")
        self.load_const(fn)
        for arg in args:
            self.reconstruct(arg)
        for value in kwargs.values():
            self.reconstruct(value)
        if kwargs:
            self.emit("KW_NAMES", tuple(kwargs))
        self.emit("PRECALL", len(args) + len(kwargs))
        self.emit("CALL", len(args) + len(kwargs))

    def _new_object(self, var: UserDefinedObjectVariable) -> None:
        key = var.identity()
        if key in self.new_object_temps:
            self.load(self.new_object_temps[key])
            return
        temp = self.new_object_temps[key] = self.new_temp("___obj")
        attrs = self.side_effects.attrs.get(key, {})
        items = self.side_effects.base_items.get(key)

        def args():
            self.load_const(var.python_type())
            self.load_const(tuple(attrs))
            if items is None:
                self.load_const(None)
            elif isinstance(items, ConstDictVariable):
                self._dict(items.entries)
            else:  # a set, frozenset, list or tuple: its items in a tuple
                self._sequence(TupleVariable(tuple(items.items)))
            for value in attrs.values():
                self.reconstruct(value)

        self.call(_new_object_fn, args, 3 + len(attrs))
        self.emit("COPY", 1)
        self.store(temp)

    # ---- side effects --------------------------------------------------------------------
    def _nested_function(self, var: NestedUserFunctionVariable) -> None:
        """A function made during the trace: FunctionType(code, globals, name, defaults, closure), built
        once however many hold it, then given what MAKE_FUNCTION and the trace set on it (keyword
        defaults, annotations, what `functools.wraps` wrote) — after it is kept, so an attribute may
        hold the function itself."""
        key = var.identity()
        if key in self.new_object_temps:
            self.load(self.new_object_temps[key])
            return
        if key in self.rebuilding:
            raise Unsupported(f"cannot rebuild the function {var.qualname}: its closure holds the function itself")

        def args():
            self.load_const(var.code)
            self.load_const(var.f_globals)
            self.load_const(var.code.co_name)
            self._tuple_or_none(var.defaults, self.reconstruct)
            self._tuple_or_none(var.closure, self._cell)
        self.rebuilding.add(key)
        try:
            self.call(types.FunctionType, args, 5)
        finally:
            self.rebuilding.discard(key)
        temp = self.new_object_temps[key] = self.new_temp("___fn")
        self.emit("COPY", 1)
        self.store(temp)
        for cell_temp in self.cells_to_fill.pop(key, ()):
            self.load(temp)
            self.load(cell_temp)
            self.emit("STORE_ATTR", "cell_contents")
        attrs = {"__kwdefaults__": ConstDictVariable(dict(var.kwdefaults))} if var.kwdefaults else {}
        if var.annotations:
            attrs["__annotations__"] = ConstDictVariable(dict(var.annotations))
        for name, value in {**attrs, **self.side_effects.attrs.get(key, {})}.items():
            self.reconstruct(value)
            self.load(temp)
            if isinstance(name, DictEntry):  # an entry of its __dict__ named as a slot: fn.__dict__[name] = value
                self.load_attr("__dict__")
                self.load_const(name.name)
                self.emit("STORE_SUBSCR")
            else:
                self.emit("STORE_ATTR", name)

    def _tuple_or_none(self, items, push) -> None:
        if not items:
            self.load_const(None)
            return
        for item in items:
            push(item)
        self.emit("BUILD_TUPLE", len(items))

    def _cell(self, cell) -> None:
        """The real cell for a CellVariable: the frame's own, or one made once for a trace-made cell."""
        for name, cell_id in self.side_effects.frame_cells.items():
            if cell_id == cell.cell_id:
                self.frame_cells_used = True
                self.load_closure(name)
                return
        temp = self.cell_temps.get(cell.cell_id)
        if temp is None:
            content = self.side_effects.load_cell(cell.cell_id)
            waits = isinstance(content, NestedUserFunctionVariable) and content.identity() in self.rebuilding
            if waits:  # a function that calls itself by name: its cell is filled once it is built
                content = None
            self.call(types.CellType, (lambda: self.reconstruct(content)) if content is not None else (lambda: None),
                      0 if content is None else 1)
            temp = self.cell_temps[cell.cell_id] = self.new_temp("___cell")
            self.store(temp)
            if waits:
                self.cells_to_fill.setdefault(self.side_effects.load_cell(cell.cell_id).identity(), []).append(temp)
        self.load(temp)

    def stage_cells(self, frame_cellvars: bool, returning: bool = False) -> list:
        """Evaluate into temps what real cells must hold once the rewritten code goes on: every
        cell a STORE_DEREF wrote and, with `frame_cellvars`, the frame's own cell variables (a
        closure that leaves the frame, or a resume function, reads them) and its free variables a
        closure made in the trace holds (rebuilding that closure guards them, as in Dynamo).
        `returning` without `frame_cellvars`: the frame's own cells die with it (no closure that
        holds one leaves), so what the trace wrote into them is not written again (as in Dynamo)."""
        effects = self.side_effects
        staged, frame_ids = [], set(effects.frame_cells.values())
        dead = returning and not frame_cellvars
        for name, cell_id in effects.frame_cells.items():
            content = effects.load_cell(cell_id)
            own = name in self.code.co_cellvars or (name in self.code.co_freevars and self.frame_cells_used)
            written = cell_id in effects.assigned_cells and not (dead and name in self.code.co_cellvars)
            wanted = written or (frame_cellvars and own)
            if wanted and cell_id not in effects.assigned_cells and not self.frame_cells_used \
                    and content is not None and content.is_lazy() and content.source == LocalSource(name):
                # as Dynamo: the cell of an argument that the trace never looked at, and that no closure
                # made in the trace holds, already holds its value; staging it again would guard it
                continue
            if content is not None and wanted:
                staged.append((name, None, self._staged(content)))
        for _, cell, source in effects.real_cells.values():
            if cell.cell_id in effects.assigned_cells and cell.cell_id not in frame_ids:
                if source is None:
                    raise Unsupported(f"assigning the closure variable {cell.name!r} of a function "
                                      "the rewritten code cannot reach")
                value = self._staged(effects.load_cell(cell.cell_id))
                source.reconstruct(self)  # the cell itself, loaded before any write (see stage_side_effects)
                target = self.new_temp("___target")
                self.store(target)
                staged.append((None, target, value))
        return staged

    def apply_cells(self, staged: list) -> None:
        """Write the traced contents into the real cells."""
        for name, target, temp in staged:
            self.load(temp)
            if name is not None:
                self.store_deref(name)
            else:
                self.load(target)
                self.emit("STORE_ATTR", "cell_contents")

    def _staged(self, value) -> str:
        self.reconstruct(value)
        temp = self.new_temp("___cellvalue")
        self.store(temp)
        return temp

    def stage_side_effects(self) -> list:
        """Evaluate every replayed value, and every object written to, into temps before anything is
        mutated, as Dynamo loads them all before its stores: a target reached through an attribute or
        a container another write changes (`old = a.child; a.child = b; old.v = 1`) is the object the
        trace wrote to, not what its source names afterwards."""
        staged = []
        for kind, target, key, value in self.side_effects.outside_effects():
            if kind == "setattr" and target.is_new():
                continue
            if kind == "hook" and ("hook", key[0]) in self.new_object_temps:
                continue  # registered already, where its handle was rebuilt
            temp = self.new_temp("___effect")
            if kind == "container":
                if isinstance(value, ListIteratorVariable):  # consumed in the trace: advance the real one
                    key = _advance_iterator_fn
                    self.load_const(value.index)
                elif isinstance(value, ListVariable):
                    key = _replace_list_fn
                    self._sequence(ListVariable(value.items))
                elif isinstance(value, SetVariable):
                    key = _refill_fn
                    self._sequence(SetVariable(value.items))
                else:
                    key = _refill_fn
                    self._dict(value.entries)
            else:
                self.reconstruct(value)
            self.store(temp)
            staged.append((kind, self._staged_target(kind, target), key, temp))
        return staged

    def _staged_target(self, kind: str, target) -> str | None:
        """The temp holding the object an effect writes to (a global is written by name)."""
        if kind == "global":
            return None
        if kind == "container":  # a container's target is its source
            target.reconstruct(self)
        else:
            self.reconstruct(target)
        temp = self.new_temp("___target")
        self.store(temp)
        return temp

    def apply_side_effects(self, staged: list) -> None:
        for kind, target, key, temp in staged:
            if kind == "setattr":
                self.load(temp)
                self.load(target)
                self.emit("STORE_ATTR", key)
            elif kind == "container":  # key: the function that updates the real container
                self.call(key, lambda: (self.load(target), self.load(temp)), 2)
                self.emit("POP_TOP")
            elif kind == "hook":  # key: (its index, the Tensor method that registers it)
                self.call(getattr(torch.Tensor, key[1]), lambda: (self.load(target), self.load(temp)), 2)
                self.emit("POP_TOP")
            else:
                self.load(temp)
                self.emit("STORE_GLOBAL", key)


def assemble(original: types.CodeType, body: list) -> types.CodeType:
    """A code object with `original`'s signature, cells and prologue (up to its RESUME) running `body`."""
    template = bc.Bytecode.from_code(original)
    prologue = []
    for instr in template:
        if isinstance(instr, bc.Instr):
            prologue.append(instr)
            if instr.name == "RESUME":
                break
    code = bc.Bytecode(prologue + body)
    code.name = template.name
    code.qualname = template.qualname
    code.filename = template.filename
    code.first_lineno = template.first_lineno
    code.cellvars = list(template.cellvars)
    code.freevars = list(template.freevars)
    code.argcount = template.argcount
    code.posonlyargcount = template.posonlyargcount
    code.kwonlyargcount = template.kwonlyargcount
    code.argnames = list(template.argnames)
    code.flags = template.flags & ~inspect.CO_GENERATOR  # never a generator
    return check_code(code.to_code())
