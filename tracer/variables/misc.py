"""Modules, user objects and classes, bound attributes and the NULL marker."""
from __future__ import annotations

import inspect
import types
from dataclasses import dataclass

from ..exc import Unsupported
from ..source import AttrSource
from .base import VariableTracker
from .constant import ConstantVariable


@dataclass(frozen=True, eq=False)
class NullVariable(VariableTracker):
    """The NULL that PUSH_NULL / LOAD_GLOBAL put below a callable in 3.11."""

    def short_repr(self) -> str:
        return "NULL"


@dataclass(frozen=True, eq=False)
class GetAttrVariable(VariableTracker):
    """`obj.name` where name is a method: calling it calls obj.call_method(name)."""

    obj: VariableTracker = None
    name: str = ""

    def call_function(self, tx, args, kwargs):
        return self.obj.call_method(tx, self.name, args, kwargs)

    def children(self):
        return [("self", self.obj)]

    def replace_children(self, swap):
        return GetAttrVariable(swap(self.obj), self.name, source=self.source)

    def short_repr(self) -> str:
        return f"{self.obj.short_repr()}.{self.name}"


def _read_static(value, name: str):
    """An attribute without running descriptors or __getattr__ (which could have effects)."""
    try:
        return inspect.getattr_static(value, name)
    except AttributeError as error:
        raise Unsupported(f"{type(value).__name__} object has no attribute {name!r}") from error


@dataclass(frozen=True, eq=False)
class PythonModuleVariable(VariableTracker):
    """A module such as `torch`, `math` or `torch.nn.functional`."""

    value: types.ModuleType = None

    def python_type(self) -> type:
        return types.ModuleType

    def as_python_constant(self):
        return self.value

    def var_getattr(self, tx, name):
        from ..builder import build
        try:
            attr = getattr(self.value, name)
        except AttributeError as error:
            raise Unsupported(f"module {self.value.__name__} has no attribute {name!r}") from error
        source = AttrSource(self.source, name) if self.source is not None else None
        return build(tx, attr, source)

    def short_repr(self) -> str:
        return f"module {self.value.__name__}"


@dataclass(frozen=True, eq=False)
class UserDefinedClassVariable(VariableTracker):
    """A class object (torch.Tensor, a user's class): a constant for isinstance and friends."""

    value: type = None

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self):
        return self.value

    def var_getattr(self, tx, name):
        from ..builder import build
        attr = _read_static(self.value, name)
        if isinstance(attr, (staticmethod, classmethod, property)):
            raise Unsupported(f"{type(attr).__name__} {self.value.__name__}.{name}")
        source = AttrSource(self.source, name) if self.source is not None else None
        return build(tx, getattr(self.value, name), source)

    def call_function(self, tx, args, kwargs):
        from .builtin import BuiltinVariable
        if self.value in BuiltinVariable.CONSTRUCTORS:
            return BuiltinVariable(self.value).call_function(tx, args, kwargs)
        raise Unsupported(f"constructing {self.value.__qualname__} objects")

    def short_repr(self) -> str:
        return f"class {self.value.__qualname__}"


@dataclass(frozen=True, eq=False)
class UserDefinedObjectVariable(VariableTracker):
    """An instance of a user's class, tracked attribute by attribute."""

    value: object = None

    def python_type(self) -> type:
        return type(self.value)

    def var_getattr(self, tx, name):
        from ..builder import build
        instance_dict = getattr(self.value, "__dict__", {})
        source = AttrSource(self.source, name) if self.source is not None else None
        if name in instance_dict:
            return build(tx, instance_dict[name], source)
        attr = _read_static(type(self.value), name)
        if isinstance(attr, (types.FunctionType, property, staticmethod, classmethod)):
            raise Unsupported(f"{type(attr).__name__} {type(self.value).__qualname__}.{name} "
                              "(calling into user code is not supported yet)")
        if type(self.value).__getattribute__ is not object.__getattribute__:
            raise Unsupported(f"{type(self.value).__qualname__} customises __getattribute__")
        if hasattr(attr, "__get__"):
            raise Unsupported(f"descriptor {type(self.value).__qualname__}.{name}")
        return build(tx, attr, source)

    def short_repr(self) -> str:
        return f"{type(self.value).__qualname__} object"


@dataclass(frozen=True, eq=False)
class UserFunctionVariable(VariableTracker):
    """A Python function written by the user."""

    fn: types.FunctionType = None

    def python_type(self) -> type:
        return types.FunctionType

    def as_python_constant(self):
        return self.fn

    def call_function(self, tx, args, kwargs):
        raise Unsupported(f"call to the user function {self.fn.__qualname__} "
                          "(inlining user functions is not supported yet)")

    def short_repr(self) -> str:
        return f"function {self.fn.__qualname__}"


def constant_or_class(value) -> VariableTracker:
    if isinstance(value, type):
        return UserDefinedClassVariable(value)
    return ConstantVariable(value)
