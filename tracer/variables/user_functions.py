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

from ..exc import Unsupported
from ..source import AttrSource, GetItemSource
from .base import VariableTracker, new_mutation_id


@dataclass(frozen=True, eq=False)
class CellVariable(VariableTracker):
    """A closure cell; what it holds is in tx.output.side_effects.cells[cell_id]."""

    cell_id: int = field(default_factory=new_mutation_id)
    name: str = ""

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
        from ..inline import inline_call
        return inline_call(tx, self, list(args), dict(kwargs))

    def python_type(self) -> type:
        return types.FunctionType

    def var_getattr(self, tx, name):
        from .constant import ConstantVariable
        if name in ("__name__", "__qualname__"):
            return ConstantVariable(getattr(self, "qualname", "").rsplit(".", 1)[-1]
                                    if name == "__name__" else getattr(self, "qualname", ""))
        return super().var_getattr(tx, name)


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
        from ..builder import build, build_lazy
        defaults = ()
        if self.fn.__defaults__:
            if self.source is not None:
                tuple_var = build(tx, self.fn.__defaults__, AttrSource(self.source, "__defaults__")).realize()
                defaults = tuple(tuple_var.items)
            else:
                defaults = tuple(build(tx, v) for v in self.fn.__defaults__)
        kwdefaults = {}
        for name, value in (self.fn.__kwdefaults__ or {}).items():
            source = GetItemSource(AttrSource(self.source, "__kwdefaults__"), name) if self.source else None
            kwdefaults[name] = build_lazy(tx, value, source) if source else build(tx, value)
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
            cells.append(build_lazy(tx, contents, source) if source else build(tx, contents))
        return defaults, kwdefaults, cells

    def short_repr(self) -> str:
        return f"function {self.qualname}"


@dataclass(frozen=True, eq=False)
class NestedUserFunctionVariable(BaseUserFunctionVariable):
    """A function object MAKE_FUNCTION built during the trace."""

    code: types.CodeType = None
    f_globals: dict = field(default=None, repr=False)
    defaults: tuple = ()
    kwdefaults: dict = field(default_factory=dict)
    closure: tuple = ()  # CellVariables

    @property
    def qualname(self) -> str:
        return self.code.co_qualname

    def get_code(self):
        return self.code

    def get_globals(self):
        return self.f_globals

    def bind_extras(self, tx):
        return self.defaults, self.kwdefaults, list(self.closure)

    def children(self):
        return [(f"closure {c.name}", c) for c in self.closure]

    def short_repr(self) -> str:
        return f"function {self.qualname} (made in trace)"


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

    def short_repr(self) -> str:
        return f"method {self.fn.qualname} of {self.obj.short_repr()}"
