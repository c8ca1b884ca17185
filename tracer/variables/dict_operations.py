"""What a dict does beyond lookup and assignment, as CPython does it: the argument checks of its
methods, `|` and `|=` (with the result type CPython's operator dispatch gives), popitem,
OrderedDict.move_to_end, and the membership and comparisons of its keys() and items() views.

Kept apart from ConstDictVariable, which models the dict's contents; these functions read or
make new versions of it.
"""
from __future__ import annotations

import collections
import operator

from ..exc import Unsupported, observed
from .constant import ConstantVariable
from .lists import TupleVariable, contains_in_order, hash_key, key_tracker

# (fewest, most) positional arguments of each dict method, and whether it takes keywords.
_ARITY = {"get": (1, 2, False), "pop": (1, 2, False), "setdefault": (1, 2, False), "update": (0, 1, True),
          "copy": (0, 0, False), "keys": (0, 0, False), "values": (0, 0, False), "items": (0, 0, False),
          "clear": (0, 0, False), "popitem": (0, 0, False), "__len__": (0, 0, False), "__iter__": (0, 0, False),
          "__getitem__": (1, 1, False), "__contains__": (1, 1, False), "__delitem__": (1, 1, False),
          "__setitem__": (2, 2, False), "__or__": (1, 1, False), "__ior__": (1, 1, False),
          "__eq__": (1, 1, False), "__ne__": (1, 1, False), "move_to_end": (1, 2, True)}
_ORDERED_ARITY = {"popitem": (0, 1, True)}  # OrderedDict.popitem(last=True)


def check_arguments(dict_cls: type, name: str, args, kwargs) -> None:
    """A call with the wrong number of arguments raises TypeError in the program, as CPython's does."""
    table = {**_ARITY, **_ORDERED_ARITY} if issubclass(dict_cls, collections.OrderedDict) else _ARITY
    if name not in table:
        return
    fewest, most, keywords = table[name]
    if kwargs and not keywords:
        raise observed(TypeError(f"{dict_cls.__name__}.{name}() takes no keyword arguments"))
    count = len(args)
    if fewest <= count <= most:
        return
    if fewest == most == 0:
        message = f"{dict_cls.__name__}.{name}() takes no arguments ({count} given)"
    elif count < fewest:
        message = f"{name} expected at least {fewest} argument{'s' * (fewest > 1)}, got {count}"
    else:
        message = f"{name} expected at most {most} argument{'s' * (most > 1)}, got {count}"
    raise observed(TypeError(message))


def union_type(left, right):
    """The dict `left | right` makes, as CPython's dispatch picks it: the right operand's reflected
    `__ror__` when its type is a proper subclass overriding it (dict | OrderedDict is an
    OrderedDict), else the left's `__or__`.  Returns (dict_cls, default_factory)."""
    lcls, rcls = left.dict_cls, right.dict_cls
    if rcls is not lcls and issubclass(rcls, lcls) and rcls.__ror__ is not lcls.__ror__:
        return rcls, right.default_factory
    return lcls, left.default_factory


def union(tx, left, right):
    """`left | right` of two dicts: a new dict of the type CPython's dispatch gives, the right's
    values winning."""
    if right.dict_cls not in _UNION_TYPES:
        raise observed(TypeError(f"unsupported operand type(s) for |: '{left.dict_cls.__name__}' and "
                                 f"'{right.dict_cls.__name__}'"))
    dict_cls, factory = union_type(left, right)
    return type(left)({**left.read_entries(), **right.read_entries()}, dict_cls=dict_cls, default_factory=factory)


_UNION_TYPES = (dict, collections.OrderedDict, collections.defaultdict, collections.Counter)


def equal(tx, op, left, right):
    """`d1 == d2` as CPython's dict_equal: different lengths or keys decide it without a value
    compared; then each value pair, the same object equal at once (as PyObject_RichCompareBool);
    two OrderedDicts must also hold their keys in the same order."""
    mine, theirs = left.read_entries(), right.read_entries()
    same = mine.keys() == theirs.keys()
    if same and all(issubclass(d.dict_cls, collections.OrderedDict) for d in (left, right)):
        same = list(mine) == list(theirs)
    same = same and all(contains_in_order([theirs[key]], value.realize()) for key, value in mine.items())
    return ConstantVariable(same if op is operator.eq else not same)


def popitem(tx, target, args, kwargs):
    """d.popitem(): the last entry (LIFO); an OrderedDict's popitem(last=False) the first."""
    last = (args or [kwargs.get("last", ConstantVariable(True))])[0]
    if not last.is_python_constant():
        raise Unsupported(f"OrderedDict.popitem(last={last.describe()})")
    if not target.entries:
        raise observed(KeyError("popitem(): dictionary is empty"))
    target.guard_keys()
    key = list(target.entries)[-1 if last.as_python_constant() else 0]
    entries = dict(target.entries)
    value = entries.pop(key)
    target.mutated(tx, entries)
    return TupleVariable((key_tracker(key), value))


def move_to_end(tx, target, args, kwargs):
    """OrderedDict.move_to_end(key, last=True)."""
    if not issubclass(target.dict_cls, collections.OrderedDict):
        raise observed(AttributeError(f"'{target.dict_cls.__name__}' object has no attribute 'move_to_end'"))
    key = hash_key(args[0])
    last = args[1] if len(args) > 1 else kwargs.get("last", ConstantVariable(True))
    if not last.is_python_constant():
        raise Unsupported(f"OrderedDict.move_to_end(last={last.describe()})")
    target.guard_keys()
    if key not in target.entries:
        raise observed(KeyError(key))
    entries = dict(target.entries)
    value = entries.pop(key)
    entries = {**entries, key: value} if last.as_python_constant() else {key: value, **entries}
    target.mutated(tx, entries)
    return ConstantVariable(None)


def view_contains(view, item) -> bool:
    """`x in d.values()` (each value in order, as list's `in`) and `(k, v) in d.items()` (the key
    looked up, then its value compared)."""
    entries = view.dict_var.entries
    if view.view == "values":
        return contains_in_order(list(entries.values()), item.realize())
    if view.view == "keys":
        return hash_key(item) in entries
    item = item.realize()
    if not (isinstance(item, TupleVariable) and len(item.items) == 2):
        return False
    key = hash_key(item.items[0])
    return key in entries and contains_in_order([entries[key]], item.items[1].realize())


_COMPARISONS = {operator.eq: operator.eq, operator.ne: operator.ne, operator.lt: operator.lt,
                operator.le: operator.le, operator.gt: operator.gt, operator.ge: operator.ge}


def compare_as_sets(tx, op, left, right):
    """`d.keys() <= s`, `d1.items() == d2.items()`: set-like views compare as sets of their items
    (constants by value, tensors by identity)."""
    if op not in _COMPARISONS:
        raise Unsupported(f"operator {op.__name__} on dict views")
    sides = []
    for side in (left, right):
        try:
            sides.append({hash_key(item) for item in side.unpack_var_sequence(tx)})
        except TypeError as error:  # an unhashable value inside items(): CPython compares item by item
            raise Unsupported(f"comparing dict views whose items are not hashable: {error}") from error
    return ConstantVariable(_COMPARISONS[op](*sides))
