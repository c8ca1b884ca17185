"""User functions: called, they are entered — the callee's bytecode is traced inline.

`UserFunctionVariable` wraps a real function object; `NestedUserFunctionVariable`
a function made by MAKE_FUNCTION during the trace (a lambda, a nested def, a
comprehension's body); `UserMethodVariable` a function bound to a tracked
self.  Their closures hold `CellVariable`s whose contents live in the
side-effects record.
"""
from __future__ import annotations

import types
from dataclasses import dataclass, field

from ..exc import Unsupported, observed
from ..source import AttrSource, GetItemSource, Source
from .base import VariableTracker, new_mutation_id
from .constant import ConstantVariable
from .dicts import ConstDictVariable
from .lists import TupleVariable
from . import function_attrs


@dataclass(frozen=True, eq=False)
class CellVariable(VariableTracker):
    """A closure cell; what it holds is in tx.output.side_effects.cells[cell_id]."""

    cell_id: int = field(default_factory=new_mutation_id)
    name: str = ""

    def python_type(self) -> type:
        return types.CellType

    def var_getattr(self, tx, name):
        """`cell.cell_contents`: what the cell holds at this point of the trace."""
        if name == "cell_contents":
            contents = tx.output.side_effects.load_cell(self.cell_id)
            if contents is not None:
                return contents
        return super().var_getattr(tx, name)

    def short_repr(self) -> str:
        return f"cell {self.name}"


class BaseUserFunctionVariable(VariableTracker):
    """What every inlinable function answers."""

    def get_code(self) -> types.CodeType:
        raise NotImplementedError(type(self).__name__)

    def get_globals(self) -> dict:
        raise NotImplementedError(type(self).__name__)

    def bind_extras(self, tx):
        """(defaults tuple, kwdefaults dict, closure cells) as trackers."""
        raise NotImplementedError(type(self).__name__)

    def call_function(self, tx, args, kwargs):
        return tx.inline_call(self, list(args), dict(kwargs))

    def python_type(self) -> type:
        return types.FunctionType

    def var_getattr(self, tx, name):
        if name in ("__name__", "__qualname__"):
            return ConstantVariable(getattr(self, "qualname", "").rsplit(".", 1)[-1]
                                    if name == "__name__" else getattr(self, "qualname", ""))
        if name == "__code__":  # pinned already: a function with a source is guarded by its code
            return ConstantVariable(self.get_code())
        if name == "__call__":  # fn.__call__(...) is fn(...)
            return self
        return self.function_attr(tx, name)

    def function_attr(self, tx, name):
        """Any other attribute of the function object (`__defaults__`, `__wrapped__`, `__dict__`
        entries such as `__dynamo_disable`)."""
        raise Unsupported(f"attribute {name!r} of {self.describe()}")


@dataclass(frozen=True, eq=False)
class UserFunctionVariable(BaseUserFunctionVariable):
    fn: types.FunctionType = None

    @property
    def qualname(self) -> str:
        return self.fn.__qualname__

    def as_python_constant(self):
        return self.fn

    def get_code(self):
        return self.fn.__code__

    def get_globals(self):
        return self.fn.__globals__

    def bind_extras(self, tx):
        defaults = ()
        if self.fn.__defaults__:
            if self.source is not None:
                defaults_source = AttrSource(self.source, "__defaults__")
                tuple_var = VariableTracker.build(tx, self.fn.__defaults__, defaults_source).realize()
                defaults = tuple(tuple_var.items)
            else:
                defaults = tuple(VariableTracker.build(tx, v) for v in self.fn.__defaults__)
        kwdefaults = {}
        for name, value in (self.fn.__kwdefaults__ or {}).items():
            source = GetItemSource(AttrSource(self.source, "__kwdefaults__"), name) if self.source else None
            kwdefaults[name] = VariableTracker.build(tx, value, source, lazy=True)
        cells = []
        for i, cell in enumerate(self.fn.__closure__ or ()):
            try:
                contents = cell.cell_contents
            except ValueError as error:
                raise Unsupported(f"closure variable {self.fn.__code__.co_freevars[i]!r} of "
                                  f"{self.qualname} is empty") from error
            source = None
            if self.source is not None:
                source = AttrSource(GetItemSource(AttrSource(self.source, "__closure__"), i), "cell_contents")
            cells.append(VariableTracker.build(tx, contents, source, lazy=True))
        return defaults, kwdefaults, cells

    def call_function(self, tx, args, kwargs):
        if getattr(self.fn, "_dynamo_marked_constant", False):  # @torch._dynamo.assume_constant_result
            return self._constant_result(tx, args, kwargs)
        return super().call_function(tx, args, kwargs)

    def _constant_result(self, tx, args, kwargs):
        """A function its author marked as constant: called now on constant arguments, its result
        baked in (as Dynamo does for `_dynamo_marked_constant`)."""
        values = [a.realize() for a in [*args, *kwargs.values()]]
        if not all(v.is_python_constant() for v in values):
            raise Unsupported(f"{self.qualname} is marked constant but got {', '.join(v.describe() for v in values)}")
        try:
            result = self.fn(*[a.as_python_constant() for a in args],
                             **{k: v.as_python_constant() for k, v in kwargs.items()})
        except Exception as error:
            raise observed(error, f"{self.qualname}() raised {type(error).__name__}: {error}") from error
        return VariableTracker.build(tx, result)

    def function_attr(self, tx, name):
        """Read from the real function and guarded through its source; a missing one is an
        AttributeError the trace can catch (getattr with a default, hasattr)."""
        try:
            value = getattr(self.fn, name)
        except AttributeError as error:
            if self.source is not None:
                tx.output.install_guard(AttrSource(self.source, "__dict__"), "DICT_CONTAINS", (name, False))
            raise observed(error, f"function {self.qualname} has no attribute {name!r}") from error
        return VariableTracker.build(tx, value, AttrSource(self.source, name) if self.source is not None else None)

    def short_repr(self) -> str:
        return f"function {self.qualname}"


@dataclass(frozen=True, eq=False)
class LruCachedFunctionVariable(UserFunctionVariable):
    """A function wrapped by functools.lru_cache: `fn` (the wrapped function) is what a call traces,
    as Dynamo does (the cache is not consulted in the graph); `source` names the wrapper, so a
    graph break at the call calls the wrapper, and its cache answers as it does eagerly."""

    wrapper: object = None
    body_attr = "__wrapped__"  # the wrapper's attribute that holds `fn`

    def as_python_constant(self):
        return self.wrapper

    def bind_extras(self, tx):
        body_source = AttrSource(self.source, self.body_attr) if self.source is not None else None
        return UserFunctionVariable(self.fn, source=body_source).bind_extras(tx)

    def function_attr(self, tx, name):
        """The wrapper's attributes (`cache_clear`, `cache_info`, `__wrapped__`)."""
        value = getattr(self.wrapper, name)
        return VariableTracker.build(tx, value, AttrSource(self.source, name) if self.source is not None else None)

    def short_repr(self) -> str:
        return f"lru_cache'd function {self.qualname}"


@dataclass(frozen=True, eq=False)
class TorchCompiledFunctionVariable(LruCachedFunctionVariable):
    """A function torch.compile wrapped: a call traces the function it compiles, as Dynamo inlines
    it; `source` names the wrapper, so a call left to run (a graph break) is compiled as the program
    asked torch.compile to, not by whoever runs the caller."""

    body_attr = "_torchdynamo_inline"

    def short_repr(self) -> str:
        return f"torch.compile'd function {self.qualname}"


@dataclass(frozen=True, eq=False)
class StandinCompiledFunctionVariable(LruCachedFunctionVariable):
    """A function tracer.compile wrapped: a call traces the function it compiles (inlined, as Dynamo
    inlines a compiled function); `source` names the wrapper, so a call left to run at a graph break
    goes through it: its own cache entries and backend, as Dynamo runs a torch.compile'd callee."""

    body_attr = "fn"

    def short_repr(self) -> str:
        return f"tracer.compile'd function {self.qualname}"


@dataclass(frozen=True, eq=False)
class NestedUserFunctionVariable(BaseUserFunctionVariable):
    """A function object MAKE_FUNCTION built during the trace."""

    code: types.CodeType = None
    f_globals: dict = field(default=None, repr=False)
    defaults: tuple = ()
    kwdefaults: dict = field(default_factory=dict)
    closure: tuple = ()  # CellVariables
    annotations: tuple = ()  # (name, tracker) pairs
    fn_id: int = field(default_factory=new_mutation_id)  # one function object, however many hold it

    @property
    def qualname(self) -> str:
        return self.code.co_qualname

    def identity(self):
        """Its key in the side-effects record, where the attributes written on it live."""
        return ("function", self.fn_id)

    def is_new(self) -> bool:
        return True

    def var_getattr(self, tx, name):
        """What the trace wrote on it (`functools.wraps`, `fn.x = v`) first, then what it was made with."""
        written = function_attrs.recorded(tx, self, name)
        if written is not None:
            return written
        if name == "__dict__":
            return function_attrs.FunctionDictVariable(self)
        return super().var_getattr(tx, name)

    def store_attr(self, tx, name, value):
        function_attrs.store(tx, self, name, value)

    def generic_setattr(self, tx, name, value):
        """An entry written in its `__dict__` (`update_wrapper`'s `__dict__.update`)."""
        function_attrs.store_in_dict(tx, self, name, value)

    def del_attr(self, tx, name):
        function_attrs.delete(tx, self, name)

    def get_code(self):
        return self.code

    def get_globals(self):
        return self.f_globals

    def bind_extras(self, tx):
        return self.defaults, self.kwdefaults, list(self.closure)

    def function_attr(self, tx, name):
        """What MAKE_FUNCTION gave the function; any other attribute is one the trace did not write."""
        if name == "__defaults__":
            return TupleVariable(tuple(self.defaults)) if self.defaults else ConstantVariable(None)
        if name == "__kwdefaults__":
            return ConstDictVariable(dict(self.kwdefaults)) if self.kwdefaults else ConstantVariable(None)
        if name == "__module__":
            return ConstantVariable(self.f_globals.get("__name__"))
        if name == "__doc__":
            consts = self.code.co_consts
            return ConstantVariable(consts[0] if consts and isinstance(consts[0], str) else None)
        if name == "__annotations__":  # made once, on the first read: later reads see the same dict
            annotations = ConstDictVariable(dict(self.annotations))
            function_attrs.store(tx, self, name, annotations)
            return annotations
        if name in dir(types.FunctionType):
            raise Unsupported(f"attribute {name!r} of {self.describe()}")
        raise observed(AttributeError(f"'function' object has no attribute {name!r}"),
                       f"function {self.qualname} has no attribute {name!r}")

    def children(self):
        return [(f"closure {c.name}", c) for c in self.closure]

    def short_repr(self) -> str:
        return f"function {self.qualname} (made in trace)"


# What a bound method answers itself; it forwards every other attribute to its function.
_METHOD_OWN = frozenset(dir(types.MethodType))


@dataclass(frozen=True, eq=False)
class UserMethodVariable(VariableTracker):
    """A user function bound to a tracked object."""

    fn: BaseUserFunctionVariable = None
    obj: VariableTracker = None

    def python_type(self) -> type:
        return types.MethodType

    def call_function(self, tx, args, kwargs):
        return self.fn.call_function(tx, [self.obj, *args], kwargs)

    def children(self):
        return [("self", self.obj)]

    def var_getattr(self, tx, name):
        """`__self__` is the object, `__func__` the function; any other name the method type does not
        define is its function's, as Python looks it up (`__name__` for unittest's assertRaises, what
        `functools.wraps(obj.method)` copies)."""
        if name == "__self__":
            return self.obj
        if name == "__func__":
            return self.fn
        if name == "__doc__" or name not in _METHOD_OWN:
            return self.fn.var_getattr(tx, name)
        return super().var_getattr(tx, name)

    def short_repr(self) -> str:
        return f"method {self.fn.qualname} of {self.obj.short_repr()}"


def guarded_function(tx, fn: types.FunctionType, source: Source | None):
    """A user function read from a class: guarded on its code, so replacing it recompiles.

    Not `build()`: a method is inlined even where trace_rules would make the function a
    graph node (a torch module's forward), and only its identity is in question here.
    torch's own methods (Linear.forward, ...) are library code nobody swaps between calls,
    as Dynamo also assumes: guarding them was a fifth of a deep module's guards.
    """
    tracker = UserFunctionVariable(fn, source=source)
    module = getattr(fn, "__module__", None) or ""
    if source is not None and module.split(".")[0] != "torch":
        before = len(tx.output.guards)
        tx.output.install_guard(AttrSource(source, "__code__"), "ID_MATCH", fn.__code__)
        tx.output.stamp_guards(before, tracker.kind())  # its provenance, as the builder stamps its own
    return tracker
