"""The builtin part of a user object whose class subclasses set, frozenset, list or tuple.

`class Tags(set)` gives objects that are two things at once: a set (its items, which set's C
methods read and change) and a user object (attributes in its `__dict__`, methods written in
Python, `super().add(x)` reaching set.add).  The user part is the UserDefinedObjectVariable
itself; the builtin part is a tracker of the base type (a SetVariable, FrozensetVariable,
ListVariable or TupleVariable) kept in the side-effects record beside the object's attributes,
as a dict subclass keeps its items.  A C method of the base runs on that tracker, a mutation
swaps its versions there, and a rebuilt object gets the items the trace left it with.

An object from outside has its items read through its Source and guarded as a plain container's
would be; what the trace changes in them is written back after the graph by the builtin's own
methods (`list.__setitem__(obj, slice(None), items)`), not the class's.
"""
from __future__ import annotations

import inspect
import operator
import types

from ..exc import Unsupported, observed
from ..source import GetItemSource
from .base import VariableTracker
from .constant import ConstantVariable
from .lists import ListIteratorVariable, ListVariable, TupleVariable, items_of
from .sets import FrozensetVariable, SetVariable, unique_items

# frozenset before set: neither subclasses the other, but the order says which one a class is.
CONTAINER_BASES = (frozenset, set, list, tuple)
IMMUTABLE_BASES = (frozenset, tuple)

# C methods whose arguments are items (kept as they are), not iterables read for their items.
_ITEM_ARGUMENTS = frozenset({"append", "insert", "__setitem__", "add", "remove", "discard", "__contains__",
                             "index", "count", "__getitem__", "__delitem__", "__mul__", "__rmul__", "__imul__",
                             "pop"})
_READS = frozenset({"__getitem__", "__contains__", "__len__", "__iter__", "index", "count", "copy", "union",
                    "intersection", "difference", "symmetric_difference", "issubset", "issuperset",
                    "isdisjoint", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__or__",
                    "__and__", "__sub__", "__xor__", "__ror__", "__rand__", "__rsub__", "__rxor__", "__add__",
                    "__mul__", "__rmul__", "__reversed__"})


def container_base(cls: type) -> type | None:
    """The builtin set, frozenset, list or tuple that objects of the Python class `cls` keep their
    items in, or None (a namedtuple is modelled as a tuple of its own; a C subclass such as
    torch.Size is not a Python class at all)."""
    if not isinstance(cls, type) or cls in CONTAINER_BASES or not cls.__flags__ & _HEAPTYPE:
        return None
    if issubclass(cls, tuple) and (hasattr(cls, "_fields") or hasattr(cls, "n_fields")):  # a structseq too
        return None
    for base in CONTAINER_BASES:
        if issubclass(cls, base):
            return base
    return None


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement


def is_container_object(var) -> bool:
    """Whether var is a user object with a builtin set, frozenset, list or tuple part (a tracker of
    a plain container says list or set: container_base is None for those)."""
    try:
        return container_base(var.python_type()) is not None and hasattr(var, "is_new")
    except Unsupported:
        return False


def items_tracker(base: type, items) -> VariableTracker:
    """The tracker of a `base` holding `items` (trackers), made in the trace."""
    if base is set:
        return SetVariable(unique_items(items))
    if base is frozenset:
        return FrozensetVariable(unique_items(items))
    return ListVariable(tuple(items)) if base is list else TupleVariable(tuple(items))


def new_items(tx, base: type, args, kwargs) -> VariableTracker:
    """What `base.__new__(cls, *args)` leaves in a new object: a tuple's or frozenset's items come
    from its one iterable (no keywords, as CPython's own check says); a list or set starts empty
    (its `__init__` fills it) and its `__new__` ignores what it is given."""
    if base not in IMMUTABLE_BASES:
        return items_tracker(base, ())
    if kwargs:
        raise observed(TypeError(f"{base.__name__}() takes no keyword arguments"))
    if len(args) > 1:
        raise observed(TypeError(f"{base.__name__} expected at most 1 argument, got {len(args)}"))
    return items_tracker(base, items_of(tx, args[0]) if args else ())


def base_items(tx, obj) -> VariableTracker:
    """The current tracker of obj's builtin part (read and guarded on first use for one from outside)."""
    effects = tx.output.side_effects
    items = effects.base_items.get(obj.identity())
    if items is None:
        base = container_base(obj.python_type())
        items = items_tracker(base, ()) if obj.is_new() else _outside_items(tx, obj, base)
        effects.store_base_items(obj, items)
    return items


def _outside_items(tx, obj, base: type) -> VariableTracker:
    """The items of a set, frozenset, list or tuple subclass from outside, guarded as a plain one's:
    a list's or tuple's length and each item where it is read, a set's whole value (its items
    constants).  The guards go through the class's len(), indexing and ==: one that overrides them
    in Python would run in every guard check, so it is not read."""
    cls, source = obj.python_type(), obj.source
    overridden = [name for name in ("__len__", "__getitem__", "__iter__", "__contains__")
                  if isinstance(inspect.getattr_static(cls, name, None), types.FunctionType)]
    if overridden or source is None:
        why = f"it overrides {', '.join(overridden)}" if source is not None else "no source"
        raise Unsupported(f"reading the items of {obj.describe()}, a {cls.__qualname__} from outside ({why})")
    value = obj.value
    tx.output.install_guard(source, "LENGTH_CHECK", base.__len__(value))
    if base in (list, tuple):
        items = [VariableTracker.build(tx, base.__getitem__(value, i), GetItemSource(source, i), lazy=True)
                 for i in range(base.__len__(value))]
        return items_tracker(base, items)
    plain = list(base.__iter__(value))
    if not all(type(item) in (int, float, bool, str, type(None)) for item in plain):
        raise Unsupported(f"reading the items of {obj.describe()}, a {cls.__qualname__} from outside holding "
                          "objects that are not constants")
    for item in plain:  # as Dynamo: each item's membership, through set's C __contains__
        tx.output.install_guard(source, "DICT_CONTAINS", (item, True))
    return items_tracker(base, [ConstantVariable(item) for item in plain])


def container_base_call(tx, obj, name: str, args, kwargs):
    """`base.name(obj, *args)`: the builtin's C method on obj's items.  A set subclass among the
    arguments of an operation that reads iterables (`s | t`, `s.union(t)`) is read for its items;
    a method that gives the container itself back (`__iadd__`, `__ior__`) gives obj."""
    base = container_base(obj.python_type())
    effects = tx.output.side_effects
    if name == "__init__":
        return _init(tx, obj, base, args, kwargs)
    items = base_items(tx, obj)
    if name not in _READS and not obj.is_new():
        effects.change_base_items(obj)  # replayed on the real object after the graph
    if name not in _ITEM_ARGUMENTS:
        args = [base_items(tx, a.realize()) if is_container_object(a.realize()) else a for a in args]
    if name in ("__contains__", "remove", "discard") and base in (set, frozenset) and len(args) == 1:
        args = [_as_frozenset_key(tx, args[0])]
    if name == "copy" and base is frozenset and not args and not kwargs:
        return items.with_items(items.items)  # a new plain frozenset (an exact one's copy is itself)
    if name == "__iter__" and not args:
        return ListIteratorVariable(tuple(items.unpack_var_sequence(tx)))
    if name == "__reversed__" and not args and base in (list, tuple):
        return ListIteratorVariable(tuple(reversed(items.unpack_var_sequence(tx))))
    if name in _SET_OPERATOR_METHODS and base in (set, frozenset) and len(args) == 1:
        if not _is_set(args[0]):  # set.__or__(s, [1]): NotImplemented, as CPython's
            return ConstantVariable(NotImplemented)
        name = _SET_OPERATOR_METHODS[name]
    result = items.call_method(tx, name, list(args), dict(kwargs)).realize()
    current = effects.base_items.get(obj.identity())
    if getattr(result, "mutation_id", None) is not None and result.mutation_id == getattr(current, "mutation_id", -1):
        return obj  # the builtin part itself: the object it belongs to
    return result


def _init(tx, obj, base: type, args, kwargs):
    """list.__init__ / set.__init__: the items replaced by those of the one iterable."""
    if base in IMMUTABLE_BASES:  # object.__init__: the items came with __new__
        return ConstantVariable(None)
    if kwargs:
        raise observed(TypeError(f"{base.__name__}() takes no keyword arguments"))
    if len(args) > 1:
        raise observed(TypeError(f"{base.__name__} expected at most 1 argument, got {len(args)}"))
    if not obj.is_new():
        raise Unsupported(f"{base.__name__}.__init__ on {obj.describe()}, from outside")
    items = items_of(tx, args[0]) if args else ()
    tx.output.side_effects.store_base_items(obj, items_tracker(base, items))
    return ConstantVariable(None)


def container_operator(tx, op, args, apply_operator, part_of):
    """`op(*args)` where a user dict, set, frozenset, list or tuple subclass without a Python dunder
    for op is an operand: the builtin's C operator on its items, `part_of(tx, obj)` (`s | t` gives a
    plain set, as CPython's set_or does; `l += [1]` changes l and gives l itself).  None when no
    operand is such an object."""
    if op in (operator.is_, operator.is_not):
        return None
    # a dict subclass's `d[k]` and `k in d` go through its methods (a __missing__ answers a missing key)
    parts = [part_of(tx, a) if op in _DICT_OPERATORS or not _is_dict(a) else None for a in args]
    if all(part is None for part in parts):
        return None
    first_only = op in (operator.getitem, operator.contains)  # the item or index is kept as it is
    left = args[0]
    if op in _IN_PLACE and parts[0] is not None and not left.is_new() \
            and container_base(left.python_type()) not in IMMUTABLE_BASES:
        tx.output.side_effects.change_base_items(left)  # replayed on the real object after the graph
    unwrapped = [part if part is not None and (i == 0 or not first_only) else a
                 for i, (a, part) in enumerate(zip(args, parts))]
    result = apply_operator(tx, op, unwrapped).realize()
    if parts[0] is not None and getattr(result, "mutation_id", None) is not None \
            and result.mutation_id == getattr(part_of(tx, left), "mutation_id", -1):
        return left  # `s |= t` gives s itself
    return result


_DICT_OPERATORS = frozenset({operator.eq, operator.ne, operator.or_, operator.ior})


def _is_dict(var) -> bool:
    try:
        return issubclass(var.realize().python_type(), dict)
    except Unsupported:
        return False


_IN_PLACE = frozenset({operator.iadd, operator.imul, operator.ior, operator.iand, operator.isub, operator.ixor})
def _as_frozenset_key(tx, item) -> VariableTracker:
    """The key a set looks a set or frozenset subclass up by: the frozenset of its items (CPython
    retries an unhashable set as one; a frozenset subclass hashes and compares as its items)."""
    item = item.realize()
    if is_container_object(item) and container_base(item.python_type()) in (set, frozenset):
        inner = base_items(tx, item)
        if inner.is_python_constant():
            return ConstantVariable(frozenset(inner.as_python_constant()))
    return item


def container_text(tx, obj) -> VariableTracker:
    """repr() / str() of a set, frozenset, list or tuple subclass whose class keeps the builtin's:
    the builtin's own repr of an object of the class holding the same constants (`Tags({1, 2})`,
    `[1, 2]` for a list's), made now by the builtin's C methods alone."""
    cls = obj.python_type()
    base = container_base(cls)
    obj.guard_class_lacks(tx, "__repr__", "__str__")  # a class that gains one answers instead
    items = base_items(tx, obj)
    if not items.is_python_constant():
        raise Unsupported(f"repr() of a {cls.__qualname__} holding {items.short_repr()}, not constants")
    values = [item.as_python_constant() for item in items.items]
    real = base.__new__(cls, values) if base in IMMUTABLE_BASES else base.__new__(cls)
    if base is list:
        list.extend(real, values)
    elif base is set:
        set.update(real, values)
    return ConstantVariable(base.__repr__(real))


_SET_OPERATOR_METHODS = {"__or__": "union", "__and__": "intersection", "__sub__": "difference",
                         "__xor__": "symmetric_difference"}


def _is_set(var) -> bool:
    try:
        return issubclass(var.realize().python_type(), (set, frozenset))
    except Unsupported:
        return False
