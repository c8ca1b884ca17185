"""Operators on user objects: the class's Python dunder method is traced inline, as Python calls it.

`a + b` tries `type(a).__add__`, then `type(b).__radd__` when the first is
missing or returns NotImplemented (the right operand first when its class is a
subclass of the left's that overrides the reflected method).  Dunders written
in C (object.__eq__, a slot wrapper) are not entered: the caller falls back to
its own rules.
"""
from __future__ import annotations

import inspect
import operator
import types

from ..exc import Unsupported, observed
from .constant import ConstantVariable
from .misc import UserDefinedObjectVariable

_BINARY = {
    operator.add: "add", operator.sub: "sub", operator.mul: "mul", operator.truediv: "truediv",
    operator.floordiv: "floordiv", operator.mod: "mod", operator.pow: "pow",
    operator.matmul: "matmul", operator.and_: "and", operator.or_: "or", operator.xor: "xor",
    operator.lshift: "lshift", operator.rshift: "rshift",
}
# In-place operators fall back to their plain form (on immutable values, or a class without __iadd__).
INPLACE_TO_PLAIN = {
    operator.iadd: operator.add, operator.isub: operator.sub, operator.imul: operator.mul,
    operator.itruediv: operator.truediv, operator.ifloordiv: operator.floordiv,
    operator.imod: operator.mod, operator.ipow: operator.pow, operator.imatmul: operator.matmul,
    operator.iand: operator.and_, operator.ior: operator.or_, operator.ixor: operator.xor,
    operator.ilshift: operator.lshift, operator.irshift: operator.rshift,
}
# comparison -> (its dunder, the reflected dunder tried on the right operand)
_COMPARE = {
    operator.eq: ("__eq__", "__eq__"), operator.ne: ("__ne__", "__ne__"),
    operator.lt: ("__lt__", "__gt__"), operator.gt: ("__gt__", "__lt__"),
    operator.le: ("__le__", "__ge__"), operator.ge: ("__ge__", "__le__"),
}
_UNARY = {operator.neg: "__neg__", operator.pos: "__pos__", operator.invert: "__invert__",
          abs: "__abs__", operator.getitem: "__getitem__", operator.contains: "__contains__"}


def python_dunder(var, name: str, tx=None):
    """The Python function `type(var).name`, if var is a user object whose class defines one.
    With `tx`, an answer "none" is guarded: a class that gains the dunder later recompiles."""
    if type(var) is not UserDefinedObjectVariable:  # modules answer their container dunders themselves
        return None
    cls = var.python_type()
    try:
        attr = inspect.getattr_static(cls, name)
    except AttributeError:
        attr = None
    if isinstance(attr, types.FunctionType):
        return attr
    if tx is not None:
        var.guard_class_lacks(tx, name)  # only a builtin's (object.__eq__) or none: a user class may add one
    return None


def _call(tx, var, name, args):
    return var.var_getattr(tx, name).call_function(tx, list(args), {}).realize()


def _not_implemented(result) -> bool:
    return isinstance(result, ConstantVariable) and result.value is NotImplemented


def _binary(tx, left, right, name: str, reflected: str):
    """Python's binary_op1: left's dunder, then right's reflected one; None when neither applies."""
    left_fn, right_fn = python_dunder(left, name, tx), python_dunder(right, reflected, tx)
    if left_fn is None and right_fn is None:
        return None
    right_first = (right_fn is not None and right.python_type() is not left.python_type()
                   and left.python_type() in right.python_type().__mro__
                   and right_fn is not python_dunder(left, reflected))
    attempts = [(right, reflected, left), (left, name, right)] if right_first else \
        [(left, name, right), (right, reflected, left)]
    for obj, dunder, other in attempts:
        if python_dunder(obj, dunder) is None:
            continue
        result = _call(tx, obj, dunder, [other])
        if not _not_implemented(result):
            return result
    return ConstantVariable(NotImplemented)


def _inverted_eq(tx, left, right):
    equal = _binary(tx, left, right, "__eq__", "__eq__")
    if equal is None or _not_implemented(equal):
        return equal
    if not equal.is_python_constant():
        raise Unsupported(f"!= through __eq__ returning {equal.describe()}")
    return ConstantVariable(not equal.as_python_constant())


def _builtin_declines(builtin, obj) -> bool:
    """Whether builtin is a plain list, dict, set, number, ... whose C `==` answers NotImplemented
    for the user object obj (one not of its type: `[1] == OrderedSet([1])`)."""
    if isinstance(builtin, UserDefinedObjectVariable) or not isinstance(obj, UserDefinedObjectVariable):
        return False
    try:
        cls = builtin.python_type()
    except (Unsupported, NotImplementedError):
        return False
    if cls.__module__ != "builtins" or cls is object:
        return False
    kin = (set, frozenset) if issubclass(cls, (set, frozenset)) else (cls,)
    return not issubclass(obj.python_type(), kin)


def _type_name(var) -> str:
    try:
        return var.python_type().__name__
    except NotImplementedError:
        return type(var).__name__


def user_operator(tx, op, args):
    """`op(*args)` through user dunders, or None when no user object defines the operator."""
    if op in _UNARY and python_dunder(args[0], _UNARY[op], tx) is not None:
        return _call(tx, args[0], _UNARY[op], args[1:])
    if len(args) != 2:
        return None
    left, right = args
    if op in _COMPARE:
        result = _binary(tx, left, right, *_COMPARE[op])
        if op is operator.ne and (result is None or _not_implemented(result)):
            result = _inverted_eq(tx, left, right)  # object.__ne__: the negation of __eq__
        if result is not None and _not_implemented(result) and op in (operator.eq, operator.ne):
            if _builtin_declines(left, right) or _builtin_declines(right, left):
                return ConstantVariable(op is operator.ne)  # identity, and a builtin is not the user object
            return None  # both declined: identity, decided by the caller
    elif op in INPLACE_TO_PLAIN:
        plain = _BINARY[INPLACE_TO_PLAIN[op]]
        if python_dunder(left, f"__i{plain}__", tx) is not None:
            result = _call(tx, left, f"__i{plain}__", [right])
            if not _not_implemented(result):
                return result
        result = _binary(tx, left, right, f"__{plain}__", f"__r{plain}__")
    elif op in _BINARY:
        result = _binary(tx, left, right, f"__{_BINARY[op]}__", f"__r{_BINARY[op]}__")
    else:
        return None
    if result is not None and _not_implemented(result):
        raise observed(TypeError(f"unsupported operand type(s) for {op.__name__}: "
                                 f"'{_type_name(left)}' and '{_type_name(right)}'"),
                       f"TypeError: unsupported operand types for {op.__name__}: "
                       f"{left.describe()} and {right.describe()}")
    return result
