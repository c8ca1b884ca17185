"""ConstantVariable: a Python value baked into the graph, never a graph input."""
from __future__ import annotations

import enum
import inspect
import operator
import types
from dataclasses import dataclass

import torch

from ..exc import Unsupported, observed
from .base import VariableTracker
from .get_attr import GetAttrVariable
from .generator import GeneratorVariable

CONSTANT_TYPES = (int, float, bool, str, bytes, complex, type(None), type(Ellipsis), type(NotImplemented),
                  torch.dtype, torch.device, torch.memory_format, torch.layout, torch.Size,
                  types.CodeType)  # code objects: the operand of MAKE_FUNCTION

# Methods of constants that are pure: calling them at trace time is safe.
# str and bytes are immutable and their methods call no user code: every public one folds
# (get_buffer's "a.b".rpartition("."), str.partition, str.center, ...).
_STR_DUNDERS = {"__contains__", "__len__", "__getitem__", "__add__", "__mul__", "__mod__"}
_PURE_METHODS = {
    str: {name for name in vars(str) if not name.startswith("_")} | _STR_DUNDERS,
    bytes: {name for name in vars(bytes) if not name.startswith("_")} | _STR_DUNDERS,
    int: {"bit_length", "__index__", "__int__", "__float__", "__add__", "__mul__", "__sub__",
          "__truediv__", "__floordiv__", "__mod__", "__pow__", "__neg__", "__abs__", "__eq__",
          "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "to_bytes", "as_integer_ratio", "bit_count",
          "conjugate"},
    float: {"is_integer", "__int__", "__float__", "__add__", "__mul__", "__sub__",
            "__truediv__", "__floordiv__", "__mod__", "__pow__", "__neg__", "__abs__",
            "as_integer_ratio", "hex", "conjugate"},
    torch.Size: {"numel", "index", "count", "__getitem__", "__len__"},
    torch.dtype: {"to_complex", "to_real"},
    frozenset: {"union", "intersection", "difference", "symmetric_difference", "issubset", "issuperset",
                "isdisjoint", "copy", "__contains__", "__len__", "__or__", "__and__", "__sub__", "__xor__",
                "__ror__", "__rand__", "__rsub__", "__rxor__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
                "__ge__", "__hash__"},
}


def is_constant_value(value) -> bool:
    """Scalars, dtypes, devices, sizes, enum members and frozensets of such values are baked in;
    tuples are containers."""
    return isinstance(value, CONSTANT_TYPES) or isinstance(value, enum.Enum) or (
        type(value) is frozenset and all(_frozen(item) for item in value))


def _frozen(value) -> bool:
    """A value that can never change: a constant, or a tuple or frozenset of them (a frozenset's items)."""
    if type(value) in (tuple, frozenset):
        return all(_frozen(item) for item in value)
    return is_constant_value(value)


def _spent(tx, arg: VariableTracker) -> VariableTracker:
    """A generator argument, consumed into a tuple of its items (as a str method would)."""
    from .lists import TupleVariable  # cycle: .lists -> .constant
    real = arg.realize()
    if isinstance(real, GeneratorVariable):
        return TupleVariable(tuple(real.unpack_var_sequence(tx)))
    return arg


def _specialised(tx, arg):
    """A symbolic number a str method takes: its value now, guarded (the str needs the digits;
    a SymNodeVariable's as_python_constant specialises it)."""
    real = arg.realize()
    if not real.is_python_constant() and real.python_type() in (int, float, bool):
        return ConstantVariable(real.as_python_constant())
    return arg


@dataclass(frozen=True, eq=False)
class ConstantVariable(VariableTracker):
    value: object = None

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self):
        return self.value

    def is_python_constant(self) -> bool:
        return True

    def as_proxy(self):
        return self.value

    def truth(self, tx) -> bool:
        return bool(self.value)

    def var_getattr(self, tx, name: str):
        try:
            attr = getattr(self.value, name)
        except AttributeError as error:
            raise observed(error, f"{type(self.value).__name__} has no attribute {name!r}") from error
        if isinstance(self.value, enum.Enum):
            method = inspect.getattr_static(type(self.value), name, None)
            if isinstance(method, types.FunctionType):  # a method the enum's class defines: inlined
                from .user_functions import UserFunctionVariable, UserMethodVariable  # cycle: .user_functions -> .constant
                return UserMethodVariable(UserFunctionVariable(method), self)
        if callable(attr):
            return GetAttrVariable(self, name)
        return VariableTracker.build(tx, attr)  # an enum's .value may be a tuple or another container

    def call_method(self, tx, name: str, args, kwargs):
        allowed = _PURE_METHODS.get(type(self.value), ())
        if name not in allowed:
            raise Unsupported(f"method {type(self.value).__name__}.{name}() at trace time")
        args = [_spent(tx, a) for a in args]  # ",".join(str(i) for i in ...): the items, not the generator
        if isinstance(self.value, str):  # "{}:{}".format(n, x): a symbolic n's value, as Dynamo
            args, kwargs = [_specialised(tx, a) for a in args], {k: _specialised(tx, v) for k, v in kwargs.items()}
        if not all(a.is_python_constant() for a in list(args) + list(kwargs.values())):
            if isinstance(self.value, (int, float)) and name.startswith("__") and len(args) == 1:
                from .builtin import apply_operator  # cycle: .builtin -> .constant
                op = getattr(operator, name.strip("_"), None)
                if op is not None:
                    return apply_operator(tx, op, [self, args[0]])
            raise Unsupported(f"{type(self.value).__name__}.{name}() with non-constant arguments")
        try:
            result = getattr(self.value, name)(*[a.as_python_constant() for a in args],
                                               **{k: v.as_python_constant() for k, v in kwargs.items()})
        except Exception as error:  # frozenset("ab").copy(1), "a".join(3): the program's exception
            raise observed(error, f"{type(self.value).__name__}.{name}() raised {type(error).__name__}: {error}") \
                from error
        return VariableTracker.build(tx, result)

    def has_unpack_var_sequence(self, tx) -> bool:
        return isinstance(self.value, (str, torch.Size, frozenset))

    def unpack_var_sequence(self, tx):
        if not self.has_unpack_var_sequence(tx):
            raise Unsupported(f"iterating over {type(self.value).__name__}")
        return [VariableTracker.build(tx, v) for v in self.value]  # a frozenset may hold tuples

    def reconstruct(self, codegen) -> None:
        codegen.load_const(self.value)

    def short_repr(self) -> str:
        text = repr(self.value)
        return text if len(text) <= 60 else text[:57] + "..."
