"""Operators: apply_operator is the heart of BINARY_OP, COMPARE_OP and the unary ops.

Constants fold, tensors become graph nodes, user objects run their dunders
(dunder.py), containers answer for themselves.  Also the itemgetter /
attrgetter / methodcaller objects made in the trace.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

import torch

from ..exc import Unsupported, observed
from . import dict_operations
from .base import VariableTracker
from .constant import ConstantVariable
from .container_bases import container_operator
from .dicts import ConstDictVariable, DictViewVariable
from .dunder import INPLACE_TO_PLAIN, user_operator
from .generator import GeneratorVariable
from .lists import BaseListVariable, ListVariable, TupleVariable, contains_in_order, hash_key
from .misc import UserDefinedObjectVariable
from .numpy import numpy_operator
from .object_protocol import builtin_part
from .sets import SetVariable, unique_items
from .subgraph import add_call_node
from .sym import SYM_OPERATORS, SizeVariable, SymNodeVariable, sym_operator
from .tensor import TensorVariable


def realized(args) -> list[VariableTracker]:
    return [a.realize() for a in args]


def _pulled(tx, iterator):
    """The items of a generator (or map, filter) pulled one at a time, as `in` pulls them."""
    while (step := iterator.next_item(tx)) is not None:
        item, advanced = step
        if advanced is not iterator:
            tx.replace_all(iterator, advanced)
            iterator = advanced
        yield item


def _symbolic_identity(tx, op, args):
    """`a is b` with a symbolic number: answered by identity; of two, also an op with no use, as Dynamo
    records it (copy.deepcopy's memo check leaves one per number copied)."""
    same = _same_object(args[0], args[1])
    answer = same if op is operator.is_ else not same
    if all(isinstance(a, SymNodeVariable) for a in args):
        add_call_node(tx, op, tuple(a.as_proxy() for a in args), {}, answer)
    return ConstantVariable(answer)


def apply_operator(tx, op, args: list[VariableTracker]) -> VariableTracker:
    """`op(*args)` for an operator-module function, the heart of every BINARY_OP."""
    args = realized(args)
    if all(type(a) is ConstantVariable for a in args):  # the common case first: plain arithmetic
        return _fold(tx, op, [a.value for a in args])
    if any(type(a) is UserDefinedObjectVariable for a in args):
        result = user_operator(tx, op, args)
        if result is not None:
            return result
        result = container_operator(tx, op, args, apply_operator, builtin_part)
        if result is not None:
            return result
        if op in (operator.eq, operator.ne) and all(_default_eq(a) for a in args):
            same = _same_object(args[0], args[1])  # object.__eq__ on both sides: identity
            return ConstantVariable(same if op is operator.eq else not same)
    if op is operator.getitem and isinstance(args[0], ConstDictVariable):  # d[t]: a tensor key, by identity
        return args[0].getitem(tx, args[1])
    if op in (operator.is_, operator.is_not) and any(isinstance(a, TensorVariable) for a in args):
        same = _same_tensor(*args)  # identity, never a graph op: `-10 is x` is False whatever x holds
        return ConstantVariable(same if op is operator.is_ else not same)
    array_result = numpy_operator(tx, op, args)  # an ndarray with no plain tensor: NumPy's semantics
    if array_result is not None:
        return array_result
    if any(isinstance(a, TensorVariable) for a in args):
        if not isinstance(args[0], (TensorVariable, BaseListVariable)):  # `n += t` is `n + t` for a number n
            op = INPLACE_TO_PLAIN.get(op, op)
        return tx.output.call(tx, "call_function", op, tuple(args), {})
    if any(isinstance(a, SymNodeVariable) for a in args):
        plain = INPLACE_TO_PLAIN.get(op, op)
        if plain in SYM_OPERATORS and all(isinstance(a, SymNodeVariable) or _number_constant(a) for a in args):
            return sym_operator(tx, plain, args)
        if op in (operator.is_, operator.is_not):
            return _symbolic_identity(tx, op, args)
        # anything else Python does with a symbolic int needs its value: specialise, with a guard
        args = [ConstantVariable(a.specialize(f"{op.__name__}() on {a.expr()} needed a plain value", tx))
                if isinstance(a, SymNodeVariable) else a for a in args]
        return apply_operator(tx, op, args)
    if op is operator.getitem:
        return _getitem(tx, args[0], args[1])
    if op in (operator.contains,) and isinstance(args[0], (BaseListVariable, ConstDictVariable, DictViewVariable)):
        return args[0].call_method(tx, "__contains__", [args[1]], {})
    if op is operator.contains and isinstance(args[0], GeneratorVariable):  # pulled up to the first match
        return ConstantVariable(contains_in_order(_pulled(tx, args[0]), args[1]))
    plain = INPLACE_TO_PLAIN.get(op, op)
    container = _view_or_dict_operator(tx, op, plain, args)
    if container is not None:
        return container
    if isinstance(args[0], ListVariable) and op is operator.iadd:
        if isinstance(args[1], GeneratorVariable):  # each item added before the next is pulled, as CPython
            return args[0].extended_one_by_one(tx, args[1], lambda so_far, item: [*so_far, item])
        return args[0].mutated(tx, args[0].items + tuple(args[1].unpack_var_sequence(tx)))
    changed = _in_place(tx, op, args)
    if changed is not None:
        return changed
    if plain is operator.add and len(args) == 2:
        joined = _concatenated(tx, *args)
        if joined is not None:
            return joined
    if plain is operator.mul and len(args) == 2 and isinstance(args[0], BaseListVariable) \
            and args[1].is_python_constant():
        return args[0].with_items(args[0].items * args[1].as_python_constant())
    if plain is operator.mul and len(args) == 2 and isinstance(args[1], BaseListVariable) \
            and args[0].is_python_constant():  # `4 * [x]`, as `[x] * 4`
        return args[1].with_items(args[1].items * args[0].as_python_constant())
    if op in (operator.is_, operator.is_not):  # before folding: two equal lists are not one list
        same = _same_object(args[0], args[1])
        return ConstantVariable(same if op is operator.is_ else not same)
    if all(a.is_python_constant() for a in args):  # a dict from outside read whole guards its keys there
        return _fold(tx, op, [a.as_python_constant() for a in args])
    if op in _SET_OPERATORS and len(args) == 2 and all(_is_set(a) for a in args):  # sets holding tensors
        return args[0].call_method(tx, _SET_METHOD_OF[op], [args[1]], {})
    if (compared := sequence_equal(tx, op, args)) is not None:  # `x.shape == (4, n)`, symbolic sizes
        return compared
    if op in (operator.eq, operator.ne) and len(args) == 2 and all(_identity_eq(a) for a in args):
        same = _same_object(args[0], args[1])  # a type without __eq__ (a partial, a function): identity
        return ConstantVariable(same if op is operator.eq else not same)
    raise Unsupported(f"operator {op.__name__} on {', '.join(a.describe() for a in args)}")


def _sequence_items(var: VariableTracker):
    """The items of a tuple or list tracker, or of a constant tuple (a torch.Size); None otherwise."""
    if isinstance(var, (TupleVariable, ListVariable)):
        return [item.realize() for item in var.items]
    if type(var) is ConstantVariable and isinstance(var.value, tuple):
        return [ConstantVariable(item) for item in var.value]
    return None


def sequence_equal(tx, op, args) -> VariableTracker | None:
    """`==` / `!=` of two tuples (a torch.Size among them) or two lists that are not constants, as
    Dynamo compares those holding symbolic sizes: lengths first, then item by item; a pair of
    constants that differ decides, the symbolic pairs' `==` are joined by `&` into one symbolic bool
    (nothing specialised).  Sequences holding tensors break; None: not two sequences."""
    if op not in (operator.eq, operator.ne) or len(args) != 2:
        return None
    left, right = args
    a, b = _sequence_items(left), _sequence_items(right)
    if a is None or b is None:
        return None
    if any(not isinstance(item, SymNodeVariable) and not item.is_python_constant() for item in a + b):
        if isinstance(left, BaseListVariable) and isinstance(right, BaseListVariable):
            raise Unsupported("comparing sequences that hold tensors")
        return None
    if issubclass(left.python_type(), tuple) != issubclass(right.python_type(), tuple) or len(a) != len(b):
        return ConstantVariable(op is operator.ne)  # a list is never equal to a tuple
    joined = None
    for x, y in zip(a, b):
        same = apply_operator(tx, operator.eq, [x, y])
        if same.is_python_constant():
            if not same.as_python_constant():
                return ConstantVariable(op is operator.ne)
            continue
        joined = same if joined is None else sym_operator(tx, operator.and_, [joined, same])
    if joined is None:
        return ConstantVariable(op is operator.eq)
    return joined if op is operator.eq else sym_operator(tx, operator.not_, [joined])


def _number_constant(var: VariableTracker) -> bool:
    """A constant symbolic arithmetic takes: not a str or tuple, which `'-' * n` repeats (n specialised)."""
    return var.is_python_constant() and not isinstance(var.as_python_constant(), (str, bytes, tuple, list))


_SET_OPERATORS = (operator.and_, operator.or_, operator.sub, operator.xor)
_SET_METHOD_OF = {operator.and_: "intersection", operator.or_: "union", operator.sub: "difference",
                  operator.xor: "symmetric_difference"}


def _is_set(var) -> bool:
    """A set or frozenset tracker, of tensors or constants: `|`, `&`, `-`, `^` take only those."""
    return isinstance(var, SetVariable) or var.is_python_constant() and type(var.as_python_constant()) in (
        set, frozenset)
_COMPARISONS = (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge)


def _view_or_dict_operator(tx, op, plain, args) -> VariableTracker | None:
    """Set operators and comparisons of dict views (`d.keys() & s`, `d1.items() <= d2.items()`),
    and `d1 | d2` of dicts holding tensors; None when op is none of those."""
    if len(args) != 2:
        return None
    if plain in _SET_OPERATORS and any(_is_set_like_view(a) for a in args) \
            and all(a.has_unpack_var_sequence(tx) for a in args):
        return _view_set_operation(tx, plain, *args)
    if plain in _COMPARISONS and any(_is_set_like_view(a) for a in args) and all(_set_like(a) for a in args):
        # d.keys() == e.keys(): equal as sets of keys, whatever order each dict holds them in
        return dict_operations.compare_as_sets(tx, plain, *args)
    if op is operator.or_ and all(isinstance(a, ConstDictVariable) for a in args):
        return dict_operations.union(tx, *args)
    if plain in (operator.eq, operator.ne) and all(isinstance(a, ConstDictVariable) for a in args) \
            and not all(a.is_python_constant() for a in args):  # dicts of constants fold
        return dict_operations.equal(tx, plain, *args)
    return None


def _set_like(var) -> bool:
    """What a keys() or items() view compares with as a set: another such view, or a set."""
    return _is_set_like_view(var) or isinstance(var, SetVariable) or \
        (var.is_python_constant() and isinstance(var.as_python_constant(), frozenset))


def _is_set_like_view(var) -> bool:
    """dict.keys() and dict.items() are set-like (their `&`, `|`, `-`, `^` give sets); .values() is not."""
    return isinstance(var, DictViewVariable) and var.view in ("keys", "items")


def _view_set_operation(tx, op, left, right) -> VariableTracker:
    """`d.keys() & {...}` and the like: as Python's views do, both sides taken as sets of their
    items (by value for constants, by identity for tensors), and a new set made."""
    a, b = (unique_items(side.unpack_var_sequence(tx)) for side in (left, right))
    in_a, in_b = {hash_key(item) for item in a}, {hash_key(item) for item in b}
    if op is operator.or_:
        items = [*a, *b]
    elif op is operator.and_:
        items = [item for item in a if hash_key(item) in in_b]
    elif op is operator.sub:
        items = [item for item in a if hash_key(item) not in in_b]
    else:
        items = [item for item in a if hash_key(item) not in in_b] + [item for item in b if hash_key(item) not in in_a]
    return SetVariable(unique_items(items))


# In-place operators that change a set or dict itself (`s |= t` is `s.update(t)`, and gives s).
_SET_IN_PLACE = {operator.ior: "update", operator.iand: "intersection_update", operator.isub: "difference_update",
                 operator.ixor: "symmetric_difference_update"}


def _in_place(tx, op, args) -> VariableTracker | None:
    """`d |= e`, `s &= t`, `lst *= n`: the left operand changed in place and given back; None otherwise."""
    from .builtin import BuiltinVariable  # cycle: .builtin -> .operators
    if len(args) != 2:  # operator.length_hint(x) and other one-operand calls change nothing in place
        return None
    target = args[0].realize()
    if isinstance(target, ListVariable) and op is operator.imul and args[1].is_python_constant():
        return target.mutated(tx, target.items * args[1].as_python_constant())
    if isinstance(target, ConstDictVariable) and op is operator.ior:
        target.guard_keys()  # as every mutation of a dict from outside
        update = BuiltinVariable(dict).call_function(tx, [args[1]], {}).read_entries()
        return target.mutated(tx, {**target.entries, **update})
    other = args[1]
    if isinstance(target, SetVariable) and target.python_type() is set and op in _SET_IN_PLACE \
            and other.python_type() in (set, frozenset):
        if op is operator.ior:
            return target.mutated(tx, target.items + tuple(other.unpack_var_sequence(tx)))
        if not (target.is_python_constant() and other.is_python_constant()):
            raise Unsupported(f"{_SET_IN_PLACE[op]} on a set holding tensors")
        real = target.as_python_constant()
        getattr(real, _SET_IN_PLACE[op])(other.as_python_constant())
        return target.mutated(tx, [VariableTracker.build(tx, v) for v in real])
    return None


def _fold(tx, op, values: list) -> VariableTracker:
    """op on Python values at trace time; what it raises is raised in the traced program."""
    try:
        return VariableTracker.build(tx, INPLACE_TO_PLAIN.get(op, op)(*values))
    except Exception as error:
        raise observed(error, f"{op.__name__} raised {type(error).__name__}: {error} at trace time") from error


def _default_eq(var) -> bool:
    """Whether `==` on var falls back to identity: a user object without __eq__, or a plain constant."""
    if isinstance(var, UserDefinedObjectVariable):
        return var.python_type().__eq__ is object.__eq__
    return type(var) is ConstantVariable


def _identity_eq(var) -> bool:
    """Whether `==` on var is object.__eq__ (identity), for a tracker that is no constant."""
    try:
        cls = var.python_type()
    except Unsupported:
        return False
    return cls.__eq__ is object.__eq__ and not var.is_python_constant()


def _same_tensor(a, b) -> bool:
    """`a is b` with a tensor on a side: an in-place op returns its input, a new node but the same
    (fake) tensor."""
    return a is b or (isinstance(a, TensorVariable) and isinstance(b, TensorVariable)
                      and (a.node is b.node or a.example is b.example))


def _same_object(a, b) -> bool:
    """`a is b` for trackers: same container, cell or object identity, or same real value; two
    trackers read from one Source at one time are one object."""
    if a is b:
        return True
    if a.source is not None and b.source is not None and a.source == b.source:
        return True
    if type(a) is not type(b):
        return False
    if hasattr(a, "identity"):
        return a.identity() == b.identity()
    for key in ("mutation_id", "cell_id"):
        if hasattr(a, key):
            return getattr(a, key) == getattr(b, key)
    for key in ("value", "fn"):
        if hasattr(a, key):
            return getattr(a, key) is getattr(b, key)
    return False


def _concatenated(tx, a, b) -> VariableTracker | None:
    """`a + b` of two lists or two tuples, as Python types it: a torch.Size on either side makes a
    torch.Size (its `nb_add` takes any tuple), any other tuple pair a plain tuple; None: not a concatenation."""
    a, b = _as_size(a), _as_size(b)
    if isinstance(a, ListVariable) and type(a) is type(b):
        return a.with_items(a.items + b.items)
    if not (isinstance(a, TupleVariable) and isinstance(b, TupleVariable)):
        return None
    items = a.items + tuple(b.unpack_var_sequence(tx))
    if isinstance(a, SizeVariable) or isinstance(b, SizeVariable):
        return SizeVariable(items)
    return TupleVariable(items) if type(a) is not type(b) else a.with_items(items)


def _as_size(var: VariableTracker) -> VariableTracker:
    """A constant torch.Size as the tuple of its items, so that it can join a tuple holding symbolic sizes."""
    if type(var) is ConstantVariable and isinstance(var.value, torch.Size):
        return SizeVariable(tuple(ConstantVariable(item) for item in var.value))
    return var


def _getitem(tx, obj, index):
    if isinstance(obj, (BaseListVariable, ConstDictVariable)):
        return obj.getitem(tx, index)
    if obj.is_python_constant() and index.is_python_constant():
        try:
            return VariableTracker.build(tx, obj.as_python_constant()[index.as_python_constant()])
        except Exception as error:
            raise observed(error, f"indexing raised {type(error).__name__}: {error}") from error
    return obj.call_method(tx, "__getitem__", [index], {})


@dataclass(frozen=True, eq=False)
class OperatorGetterVariable(VariableTracker):
    """operator.itemgetter / attrgetter / methodcaller objects made in the trace."""

    factory: object = None
    keys: tuple = ()

    def call_function(self, tx, args, kwargs):
        (obj,) = args
        if self.factory is operator.itemgetter:
            results = [apply_operator(tx, operator.getitem, [obj, key]) for key in self.keys]
        elif self.factory is operator.attrgetter:
            results = []
            for key in self.keys:
                value = obj
                for part in key.as_python_constant().split("."):
                    value = value.var_getattr(tx, part)
                results.append(value)
        else:
            name, *rest = self.keys
            return obj.var_getattr(tx, name.as_python_constant()).call_function(tx, list(rest), {})
        return results[0] if len(results) == 1 else TupleVariable(tuple(results))

    def short_repr(self) -> str:
        return f"{self.factory.__name__}({', '.join(k.short_repr() for k in self.keys)})"
