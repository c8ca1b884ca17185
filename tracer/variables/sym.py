"""SymNodeVariable and SizeVariable: symbolic ints (and bools, floats) of the ShapeEnv.

A SymNodeVariable is an FX node whose example value is a `torch.SymInt` (`s77`, `s77 * 2`,
`s77 > 4`): `x.shape[0]` of a tensor with a symbolic size, an int argument automatic
dynamic made symbolic, arithmetic and comparisons on those.  It stays symbolic while the
graph can hold it; where Python needs a real value (a branch, `range(n)`, a string) it is
specialised, which installs a shape guard whose cause is recorded (shapes/provenance.py).
A SizeVariable is the `torch.Size` of such a tensor: a tuple of constants and SymNodes.
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field

import torch

from ..exc import DataDependentBranch, Unsupported, UserError
from .base import VariableTracker
from .get_attr import GetAttrVariable
from .constant import ConstantVariable
from .lists import ListVariable, TupleVariable, items_of

SYM_TYPES = (torch.SymInt, torch.SymBool, torch.SymFloat)
_PYTHON_TYPE = {torch.SymInt: int, torch.SymBool: bool, torch.SymFloat: float}
# Operators a graph records on symbolic scalars, as Dynamo does.
SYM_OPERATORS = frozenset({
    operator.add, operator.sub, operator.mul, operator.floordiv, operator.truediv, operator.mod,
    operator.pow, operator.neg, operator.pos, operator.abs, operator.lt, operator.le, operator.eq,
    operator.ne, operator.gt, operator.ge, operator.and_, operator.or_, operator.xor, operator.lshift,
    operator.rshift, operator.invert, operator.not_,
})


@dataclass(frozen=True, eq=False)
class SymNodeVariable(VariableTracker):
    node: torch.fx.Node = None
    value: object = None  # a torch.SymInt / SymBool / SymFloat
    shapes: object = field(default=None, repr=False)  # the trace's ShapeTracking: where a specialisation is logged

    def python_type(self) -> type:
        return _PYTHON_TYPE.get(type(self.value), type(self.value))

    def as_proxy(self):
        return self.node

    def is_python_constant(self) -> bool:
        return False  # asking must not specialise; as_python_constant does

    def as_python_constant(self):
        return self.specialize(f"{self.expr()} was needed as a plain Python {self.python_type().__name__}")

    def expr(self) -> str:
        return str(self.value)

    def specialize(self, why: str, tx=None):
        """The value this call has, with a guard that later calls have it too (`why` is recorded)."""
        from torch.fx.experimental.symbolic_shapes import (
            GuardOnDataDependentSymNode,
            guard_scalar,
        )  # lazy: sympy (warmup.py)
        tx = tx or (self.shapes.current_tx() if self.shapes is not None else None)
        try:
            if self.shapes is None:
                return guard_scalar(self.value)
            with self.shapes.log.because(tx, why, self.kind()):
                return guard_scalar(self.value)
        except GuardOnDataDependentSymNode as error:  # an unbacked symbol: a break (fullgraph: a UserError)
            raise DataDependentBranch(f"{self.expr()} depends on tensor data: {str(error).splitlines()[0]}") \
                from error

    def truth(self, tx) -> bool:
        return bool(self.specialize(f"the branch on {self.expr()} needed it decided", tx))

    def var_getattr(self, tx, name):
        """A number's own method (`s.is_integer`, `s.bit_length`): called through `call_method`."""
        if not name.startswith("_") and callable(getattr(self.python_type(), name, None)):
            return GetAttrVariable(self, name)
        return super().var_getattr(tx, name)

    def call_method(self, tx, name, args, kwargs):
        op = getattr(operator, name.strip("_"), None) if name.startswith("__") else None
        if op in SYM_OPERATORS and not kwargs:
            from .operators import apply_operator  # cycle: .operators -> .sym
            return apply_operator(tx, op, [self, *args])
        if name in ("__int__", "__index__"):
            return ConstantVariable(int(self.specialize(f"int({self.expr()}) needed a plain int", tx)))
        if name == "__float__":
            return ConstantVariable(float(self.specialize(f"float({self.expr()}) needed a plain float", tx)))
        if not name.startswith("_") and callable(getattr(self.python_type(), name, None)):
            return self._number_method(tx, name, args, kwargs)
        return super().call_method(tx, name, args, kwargs)

    def _number_method(self, tx, name, args, kwargs):
        """`s.is_integer()`, `s.bit_length()`: as Dynamo, a node when torch's symbolic number has the
        method (an answer that is no symbol, `hex()`, specialises the symbol first); a method it
        lacks runs on the specialised value."""
        if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
            raise Unsupported(f"{self.python_type().__name__}.{name}() of {self.describe()} with arguments "
                              "that are not constants")
        values = [a.as_python_constant() for a in args]
        named = {k: v.as_python_constant() for k, v in kwargs.items()}
        method = getattr(type(self.value), name, None)
        if method is None or not _symbolic(method(self.value, *values, **named)):
            value = self.specialize(f"{self.expr()}.{name}() needed a plain {self.python_type().__name__}", tx)
            if method is None:
                return VariableTracker.build(tx, getattr(value, name)(*values, **named))
        return tx.output.call(tx, "call_method", name, (self, *args), kwargs)

    def float_output_node(self) -> torch.fx.Node:
        """As Dynamo: a symbolic float leaves the graph as a 0-d float64 tensor (made once per node)."""
        made = self.shapes.float_outputs
        if self.node not in made:
            node = self.node.graph.call_function(torch.scalar_tensor, (self.node,), {"dtype": torch.float64})
            with self.shapes.fake_mode:
                node.meta["example_value"] = torch.scalar_tensor(self.value, dtype=torch.float64)
            made[self.node] = node
        return made[self.node]

    def short_repr(self) -> str:
        return f"{self.node.name}: {self.python_type().__name__} {self.expr()}"


def _symbolic(result) -> bool:
    """A symbolic number, or a tuple holding one (`as_integer_ratio()`): what a graph node can give."""
    if isinstance(result, tuple):
        return any(isinstance(item, SYM_TYPES) for item in result)
    return isinstance(result, SYM_TYPES)


def fullgraph_error(error: Exception) -> Exception:
    """What a break under fullgraph=True raises: the break itself, but for a branch on an unbacked
    symbol, which is the user's to annotate, Dynamo's UserError asking for torch._check."""
    if not isinstance(error, DataDependentBranch):
        return error
    where = f"\n  at {error.location}" if getattr(error, "location", None) is not None else ""
    user_error = UserError(f"Consider annotating your code using torch._check*(). "
                           f"{str(error.__cause__).splitlines()[0]}{where}")
    user_error.__cause__ = error
    return user_error


def sym_operator(tx, op, args: list[VariableTracker]) -> VariableTracker:
    """`op(*args)` where a symbolic scalar takes part and no tensor does: a graph node."""
    if op not in SYM_OPERATORS or not all(isinstance(a, SymNodeVariable) or a.is_python_constant() for a in args):
        raise Unsupported(f"operator {op.__name__} on {', '.join(a.describe() for a in args)}")
    return tx.output.call(tx, "call_function", op, tuple(args), {})


def sym_builtin(tx, fn, args: list[VariableTracker]) -> VariableTracker | None:
    """int(), float(), max(), min(), round(), abs(), math.sqrt() & co. of symbolic scalars as Dynamo records them;
    None: not one of those."""
    if fn is int and len(args) == 1 and isinstance(args[0].value, torch.SymInt):
        return args[0]
    if fn is int and len(args) == 1 and isinstance(args[0].value, torch.SymFloat):
        return tx.output.call(tx, "call_function", torch.sym_int, (args[0],), {})
    if fn is float and len(args) == 1:
        return tx.output.call(tx, "call_function", torch.sym_float, (args[0],), {})
    if fn in (max, min) and len(args) == 2 and all(isinstance(a, SymNodeVariable) or (
            a.is_python_constant() and type(a.as_python_constant()) in (int, float)) for a in args):
        return tx.output.call(tx, "call_function", torch.sym_max if fn is max else torch.sym_min, tuple(args), {})
    if fn is round and isinstance(args[0], SymNodeVariable) and all(a.is_python_constant() for a in args[1:]):
        return tx.output.call(tx, "call_method", "__round__", tuple(args), {})  # as Dynamo: s.__round__(n)
    if fn is bool and len(args) == 1:  # as Dynamo: a symbolic bool already is one; a number is `!= 0`
        if isinstance(args[0].value, torch.SymBool):
            return args[0]
        return tx.output.call(tx, "call_function", operator.ne, (args[0], ConstantVariable(0)), {})
    if fn is abs and len(args) == 1:
        return tx.output.call(tx, "call_function", operator.abs, (args[0],), {})
    if fn in _MATH_ON_SYMBOLS and len(args) == 1:  # math.sqrt(s): torch._sym_sqrt, as Dynamo records it
        return tx.output.call(tx, "call_function", _MATH_ON_SYMBOLS[fn], (args[0],), {})
    if fn in _ROUNDING and len(args) == 1:  # math.floor(s): a symbolic int, recorded as it is
        return tx.output.call(tx, "call_function", fn, (args[0],), {})
    return None


def symbolic_prod(tx, args, kwargs) -> VariableTracker | None:
    """`math.prod(x.shape)` and other sequences holding symbolic sizes: one node, as Dynamo records it
    (torch's runtime-assert pass then writes it out as the expression it is); None: not such a call."""
    if len(args) != 1 or set(kwargs) - {"start"} or not isinstance(args[0], (TupleVariable, ListVariable)):
        return None
    items = args[0].items
    if not any(isinstance(item, SymNodeVariable) for item in items) or not all(
            isinstance(item, SymNodeVariable) or (item.is_python_constant() and type(item.as_python_constant()) is int)
            for item in [*items, *kwargs.values()]):
        return None
    return tx.output.call(tx, "call_function", math.prod, (args[0],), kwargs)


def _math_on_symbols() -> dict:
    """The math functions torch's symbolic nodes implement (`math.sqrt` -> `torch._sym_sqrt`)."""
    return {getattr(math, name): getattr(torch, f"_sym_{name}") for name in dir(math)
            if hasattr(torch, f"_sym_{name}")}


_MATH_ON_SYMBOLS = _math_on_symbols()
_ROUNDING = frozenset({math.floor, math.ceil, math.trunc})  # torch's symbolic numbers implement these


def construct_size(tx, args, kwargs) -> VariableTracker:
    """`torch.Size(sizes)` in the trace: a constant torch.Size, or a SizeVariable if a size is symbolic."""
    if kwargs or len(args) > 1:
        raise Unsupported("torch.Size() with keyword arguments or more than one argument")
    items = [item.realize() for item in items_of(tx, args[0])] if args else []
    for item in items:
        symbolic = isinstance(item, SymNodeVariable) and item.python_type() is int
        if not symbolic and not (item.is_python_constant() and type(item.as_python_constant()) is int):
            raise Unsupported(f"torch.Size() of {item.describe()} (only ints and symbolic sizes are modelled)")
    if all(item.is_python_constant() for item in items):
        return ConstantVariable(torch.Size(item.as_python_constant() for item in items))
    return SizeVariable(tuple(items))


@dataclass(frozen=True, eq=False)
class SizeVariable(TupleVariable):
    """The torch.Size of a tensor with a symbolic size: its items, and the `size()` node they come from."""

    node: torch.fx.Node = None

    def python_type(self) -> type:
        return torch.Size

    def with_items(self, items, source=None):
        return SizeVariable(tuple(items), source=source)

    def as_python_constant(self):
        return torch.Size(item.as_python_constant() for item in self.items)

    def is_python_constant(self) -> bool:
        return all(item.is_python_constant() for item in self.items)

    def call_method(self, tx, name, args, kwargs):
        if name == "numel" and not args:
            total = ConstantVariable(1)
            from .operators import apply_operator  # cycle: .operators -> .sym
            for item in self.items:
                total = apply_operator(tx, operator.mul, [total, item])
            return total
        return super().call_method(tx, name, args, kwargs)

    def short_repr(self) -> str:
        return "torch.Size([" + ", ".join(i.expr() if isinstance(i, SymNodeVariable) else i.short_repr()
                                          for i in self.items) + "])"
