"""Sequences: lists, tuples, ranges, slices and the iterators the tracer unrolls."""
from __future__ import annotations

import collections
from dataclasses import dataclass, field, replace

import torch

from ..exc import Unsupported, observed
from .base import VariableTracker, new_mutation_id
from .get_attr import GetAttrVariable
from .constant import ConstantVariable
from .generator import GeneratorVariable
from .key_hashes import HashedObjectKey, hashed_object_key
from .tensor import TensorVariable


def _const_args(args, kwargs, what: str):
    if not all(a.is_python_constant() for a in list(args) + list(kwargs.values())):
        raise Unsupported(f"{what} with non-constant arguments")
    return [a.as_python_constant() for a in args], {k: v.as_python_constant() for k, v in kwargs.items()}


@dataclass(frozen=True, eq=False)
class BaseListVariable(VariableTracker):
    items: tuple = ()

    def python_type(self) -> type:
        raise NotImplementedError  # each sequence kind names its type

    def as_python_constant(self):
        return self.python_type()(item.as_python_constant() for item in self.items)

    def is_python_constant(self) -> bool:
        """Asked item by item: asking must not specialise a symbolic size among them."""
        return all(item.is_python_constant() for item in self.items) and super().is_python_constant()

    def as_proxy(self):
        return self.python_type()(item.as_proxy() for item in self.items)

    def truth(self, tx) -> bool:
        return bool(self.items)

    def has_unpack_var_sequence(self, tx) -> bool:
        return True

    def unpack_var_sequence(self, tx):
        return list(self.items)

    def children(self):
        return [(str(i), item) for i, item in enumerate(self.items)]

    def replace_children(self, swap):
        return replace(self, items=tuple(swap(item) for item in self.items))

    def getitem(self, tx, index: VariableTracker):
        index = index.realize()
        if not index.is_python_constant():
            raise Unsupported(f"indexing a {self.python_type().__name__} with {index.describe()}")
        key = index.as_python_constant()
        if isinstance(key, slice):
            return self.with_items(self.items[key], source=None)
        try:
            return self.items[key]
        except IndexError:  # the items are a tuple of trackers: say what Python says of this sequence
            error = IndexError(f"{self.python_type().__name__} index out of range")
            raise observed(error, f"IndexError: {error}") from None
        except TypeError as error:
            error = TypeError(str(error).replace("tuple", self.python_type().__name__, 1))
            raise observed(error, f"TypeError: {error}") from None

    def with_items(self, items, source=None):
        return type(self)(tuple(items), source=source)

    def var_getattr(self, tx, name):
        if callable(getattr(self.python_type(), name, None)):
            return bound_method(self, name)
        if not hasattr(self.python_type(), name):  # `frozenset(...).add`, hasattr(t, "x"): the program's error
            error = AttributeError(f"'{self.python_type().__name__}' object has no attribute {name!r}")
            raise observed(error, f"AttributeError: {error}")
        return super().var_getattr(tx, name)

    def call_method(self, tx, name, args, kwargs):
        check_sequence_arguments(self.python_type(), name, args, kwargs)
        if name == "__getitem__":
            return self.getitem(tx, args[0])
        if name == "__len__":
            return ConstantVariable(len(self.items))
        if name == "__contains__":
            return ConstantVariable(contains_in_order(self.items, args[0].realize()))
        if name == "__iter__":
            return ListIteratorVariable(tuple(self.items), over_a_sequence=True)
        if name in ("__add__", "__mul__", "__rmul__"):
            return self._combined(name, args[0].realize())
        if name in ("index", "count") or name in _COMPARISON_DUNDERS:
            return self._on_constants(name, args, kwargs)
        raise Unsupported(f"{self.python_type().__name__}.{name}()")

    def _combined(self, name, other):
        """`seq.__add__(other)` (a sequence of the same type) and `seq.__mul__(n)` (an int)."""
        kind = self.python_type().__name__
        if name == "__add__":
            if not (isinstance(other, BaseListVariable) and other.python_type() is self.python_type()):
                error = TypeError(f'can only concatenate {kind} (not "{other.python_type().__name__}") to {kind}')
                raise observed(error, f"TypeError: {error}")
            return self.with_items(self.items + other.items)
        count = other.as_python_constant() if other.is_python_constant() else None
        if not isinstance(count, int):
            error = TypeError(f"can't multiply sequence by non-int of type '{other.python_type().__name__}'")
            raise observed(error, f"TypeError: {error}")
        return self.with_items(self.items * count)

    def _on_constants(self, name, args, kwargs):
        """index, count and the comparisons, on the Python values of a sequence of constants (what they
        return or raise is CPython's: `ValueError: 'e' is not in list`, NotImplemented for a non-list)."""
        if not all(a.realize().is_python_constant() for a in (self, *args)):
            raise Unsupported(f"{self.python_type().__name__}.{name}() of items that are not constants")
        values = self.as_python_constant()
        consts, _ = _const_args(args, kwargs, name)
        try:
            return ConstantVariable(getattr(values, name)(*consts))
        except (ValueError, TypeError) as error:
            raise observed(error, f"{type(error).__name__}: {error}") from None

    def short_repr(self) -> str:
        open_, close = ("[", "]") if self.python_type() is list else ("(", ")")
        inner = ", ".join(item.short_repr() for item in self.items[:6])
        more = ", ..." if len(self.items) > 6 else ""
        return f"{open_}{inner}{more}{close}"


def bound_method(obj: VariableTracker, name: str) -> VariableTracker:
    """`obj.name` for a method the tracker answers itself in call_method."""
    return GetAttrVariable(obj, name)


_COMPARISON_DUNDERS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")

# (fewest, most) positional arguments of the methods of list and tuple; sort takes keywords only.
_SEQUENCE_ARITY = {"append": (1, 1), "extend": (1, 1), "insert": (2, 2), "pop": (0, 1), "remove": (1, 1),
                   "index": (1, 3), "count": (1, 1), "copy": (0, 0), "clear": (0, 0), "reverse": (0, 0),
                   "sort": (0, 0), "__getitem__": (1, 1), "__contains__": (1, 1), "__setitem__": (2, 2),
                   "__delitem__": (1, 1), "__len__": (0, 0), "__iter__": (0, 0), "__add__": (1, 1),
                   "__iadd__": (1, 1), "__mul__": (1, 1), "__rmul__": (1, 1), "__imul__": (1, 1),
                   **{name: (1, 1) for name in _COMPARISON_DUNDERS}}


def check_sequence_arguments(seq_type: type, name: str, args, kwargs) -> None:
    """A list or tuple method called with the wrong arguments raises TypeError in the program."""
    if name not in _SEQUENCE_ARITY:
        return
    fewest, most = _SEQUENCE_ARITY[name]
    if kwargs and name != "sort":
        raise observed(TypeError(f"{seq_type.__name__}.{name}() takes no keyword arguments"))
    if not fewest <= len(args) <= most:
        wanted = f"{fewest}" if fewest == most else f"{fewest} to {most}"
        raise observed(TypeError(f"{seq_type.__name__}.{name}() takes {wanted} argument(s) ({len(args)} given)"))


@dataclass(frozen=True, eq=False)
class TupleVariable(BaseListVariable):
    def python_type(self) -> type:
        return tuple

    def frozen_key(self) -> "TupleKey":
        """What a set or dict tells this tuple apart by, as an item or key: its items' keys (a partial
        or a tensor inside by identity), equal to a tuple of the same items, as CPython's tuple hash."""
        key = TupleKey(hash_key(item) for item in self.items)
        key.tracker = self
        return key


def contains_in_order(items, needle: VariableTracker) -> bool:
    """`needle in seq` as CPython's list_contains: each item in order, `is` first, then `==`, the
    first match ends it; an item whose `==` with needle needs tensor data cannot be answered."""
    for item in items:
        item = item.realize()
        if item is needle or (getattr(item, "example", None) is not None
                              and getattr(item, "example", None) is getattr(needle, "example", None)):
            return True
        if not (item.is_python_constant() and needle.is_python_constant()):
            raise Unsupported(f"`in` compares {needle.short_repr()} with {item.short_repr()}, "
                              "whose truth needs tensor data")
        if item.as_python_constant() == needle.as_python_constant():
            return True
    return False


def items_of(tx, obj: VariableTracker) -> list:
    """The items iterating over obj gives (list(), sorted(), zip(), ... take them all at once)."""
    obj = obj.realize()
    if not obj.has_unpack_var_sequence(tx):
        if obj.is_python_constant() and not hasattr(obj.as_python_constant(), "__iter__"):  # list(3), d.update(1)
            error = TypeError(f"'{type(obj.as_python_constant()).__name__}' object is not iterable")
            raise observed(error, f"TypeError: {error}")
        raise Unsupported(f"iterating over {obj.describe()}")
    return obj.unpack_var_sequence(tx)


def make_named_tuple(cls: type, values: list):
    """An instance of a namedtuple class (`cls(*values)`) or a structseq (`cls(values)`)."""
    return cls._make(values) if hasattr(cls, "_make") else cls(values)


def tuple_fields(cls: type) -> tuple:
    return tuple(getattr(cls, "_fields", None) or getattr(cls, "__match_args__", ()))


@dataclass(frozen=True, eq=False)
class NamedTupleVariable(TupleVariable):
    """A namedtuple or a torch.return_types structseq: a tuple whose items have names."""

    tuple_cls: type = tuple

    def python_type(self) -> type:
        return self.tuple_cls

    def as_python_constant(self):
        return make_named_tuple(self.tuple_cls, [item.as_python_constant() for item in self.items])

    def with_items(self, items, source=None):
        return TupleVariable(tuple(items), source=source)

    def var_getattr(self, tx, name):
        fields = tuple_fields(self.tuple_cls)
        if name in fields:
            return self.items[fields.index(name)]
        if name == "_fields" and hasattr(self.tuple_cls, "_fields"):  # a structseq has none: hasattr is False
            return TupleVariable(tuple(ConstantVariable(f) for f in fields))
        if name in ("n_fields", "n_sequence_fields", "n_unnamed_fields") and hasattr(self.tuple_cls, name):
            return ConstantVariable(getattr(self.tuple_cls, name))
        if name.startswith("_") and not hasattr(self.tuple_cls, name):  # hasattr(r, "_fields") on a structseq
            raise observed(AttributeError(f"'{self.tuple_cls.__name__}' object has no attribute '{name}'"),
                           f"{self.tuple_cls.__name__} object has no attribute {name!r}")
        return super().var_getattr(tx, name)

    def call_method(self, tx, name, args, kwargs):
        if name == "_replace" and not args and hasattr(self.tuple_cls, "_make"):
            return self._replaced(kwargs)
        if name == "_asdict" and not args and not kwargs and hasattr(self.tuple_cls, "_asdict"):
            from .dicts import ConstDictVariable  # cycle: .dicts -> .lists
            return ConstDictVariable(dict(zip(tuple_fields(self.tuple_cls), self.items)))  # a new dict
        return super().call_method(tx, name, args, kwargs)

    def _replaced(self, changes: dict):
        """p._replace(x=...): the same class with the named items swapped, as namedtuple's own method."""
        fields = tuple_fields(self.tuple_cls)
        unknown = [name for name in changes if name not in fields]
        if unknown:
            error = ValueError(f"Got unexpected field names: {unknown!r}")
            raise observed(error, f"{self.tuple_cls.__name__}._replace(): {error}")
        items = tuple(changes.get(name, item) for name, item in zip(fields, self.items))
        return NamedTupleVariable(items, tuple_cls=self.tuple_cls)

    def short_repr(self) -> str:
        return f"{self.tuple_cls.__name__}{super().short_repr()}"


class TensorKey:
    """A tensor as a set item or dict key: hashed and compared by identity, as torch.Tensor is."""

    __slots__ = ("tracker",)

    def __init__(self, tracker):
        self.tracker = tracker

    def __hash__(self) -> int:
        return id(self.tracker.example)

    def __eq__(self, other) -> bool:
        return isinstance(other, TensorKey) and other.tracker.example is self.tracker.example

    def __repr__(self) -> str:
        return f"<tensor {self.tracker.short_repr()}>"


class TupleKey(tuple):
    """A tuple holding what is no constant (a partial, a tensor) as a set item or dict key; it
    remembers its tracker (a namedtuple's class with it), which iterating the set or dict gives back."""

    tracker = None


class ObjectKey:
    """An object hashed by identity (an nn.Module, a user object without its own __hash__/__eq__)
    as a set item or dict key."""

    __slots__ = ("tracker",)

    def __init__(self, tracker):
        self.tracker = tracker

    def __hash__(self) -> int:
        return hash(self.tracker.identity())

    def __eq__(self, other) -> bool:
        return isinstance(other, ObjectKey) and other.tracker.identity() == self.tracker.identity()

    def __repr__(self) -> str:
        return f"<object {self.tracker.short_repr()}>"


def _hashed_by_identity(item) -> bool:
    from .misc import UserDefinedObjectVariable  # cycle: .misc -> .lists
    if getattr(item, "hashed_by_identity", False):  # a tracker whose objects have only object's __hash__/__eq__
        return True
    if not isinstance(item, UserDefinedObjectVariable):
        return False
    cls = item.python_type()
    return cls.__hash__ is object.__hash__ and cls.__eq__ is object.__eq__ or \
        isinstance(item.value, torch.nn.Module)


def _own_hash(item) -> str | None:
    """The name of item's class when it is a user class with a __hash__ other than object's."""
    try:
        cls = item.python_type()
    except Unsupported:
        return None
    if getattr(cls, "__module__", "builtins") == "builtins" or cls.__hash__ in (None, object.__hash__):
        return None
    return cls.__qualname__


def hash_key(item: VariableTracker):
    """What a set or a dict tells an item apart by: a constant's value, a tensor's or an object's identity."""
    item = item.realize()
    if isinstance(item, TensorVariable):
        return TensorKey(item)
    if item.has_own_hash():  # its __hash__ traced, told apart by identity, as Dynamo
        return hashed_object_key(item)
    if _hashed_by_identity(item):
        if getattr(item, "identity_guard", None) is not None:  # one from outside: which object it is counts
            item.identity_guard()
        return ObjectKey(item)
    if hasattr(item, "frozen_key") and not item.is_python_constant():  # a frozenset of tensors, by its items
        return item.frozen_key()
    if not item.is_python_constant():
        own_hash = _own_hash(item)
        if own_hash is not None:
            raise Unsupported(f"a {own_hash} object as a set item or dict key: its class's own __hash__ "
                              "is not written in Python")
        raise Unsupported(f"a set item or dict key {item.describe()} that is neither a constant nor a tensor")
    value = item.as_python_constant()
    try:
        hash(value)
    except TypeError as error:
        raise observed(error, f"TypeError: unhashable type: {type(value).__name__!r}") from error
    return value


def key_tracker(key) -> VariableTracker:
    """The tracker a set item or dict key stands for again (iterating, .keys(), rebuilding); a tuple
    key (`(device, dtype)`) comes back as the tuple it is, so it can be unpacked."""
    if isinstance(key, TupleKey):
        return key.tracker
    if type(key) is tuple:
        return TupleVariable(tuple(key_tracker(part) for part in key))
    if isinstance(key, frozenset) and getattr(key, "tracker", None) is not None:  # a frozenset of tensors
        return key.tracker
    return key.tracker if isinstance(key, (TensorKey, ObjectKey, HashedObjectKey)) else ConstantVariable(key)


@dataclass(frozen=True, eq=False)
class ListVariable(BaseListVariable):
    """A list; its mutation_id ties together the versions that mutations make."""

    mutation_id: int = field(default_factory=new_mutation_id)

    def python_type(self) -> type:
        return list

    def with_items(self, items, source=None):
        return ListVariable(tuple(items), source=source)

    def mutated(self, tx, items) -> "ListVariable":
        """The next version of this list, swapped in wherever the trace holds it."""
        new = replace(self, items=tuple(items))
        tx.replace_all(self, new)
        return new

    def extended_one_by_one(self, tx, generator, add) -> "ListVariable":
        """extend() from a generator (or map, filter): as CPython, each item is added before the next
        is pulled, so a generator reading this list sees the items added so far."""
        current = self
        while (step := generator.next_item(tx)) is not None:
            current = current.mutated(tx, add(list(current.items), step[0]))
        return current

    def call_method(self, tx, name, args, kwargs):
        mutators = {"append", "extend", "insert", "pop", "clear", "reverse", "__setitem__",
                    "__delitem__", "remove", "sort", "__iadd__", "__imul__"}
        if name not in mutators:
            if name == "copy" and not args:
                return ListVariable(self.items)
            return super().call_method(tx, name, args, kwargs)
        check_sequence_arguments(list, name, args, kwargs)
        items = list(self.items)
        if name in ("extend", "__iadd__") and len(args) == 1 and not kwargs and isinstance(args[0], GeneratorVariable):
            grown = self.extended_one_by_one(tx, args[0], lambda so_far, item: [*so_far, item])
            return grown if name == "__iadd__" else ConstantVariable(None)
        if name == "append":
            items.append(args[0])
        elif name in ("extend", "__iadd__"):
            items.extend(items_of(tx, args[0]))
        elif name == "__imul__":
            items = list(self._combined("__mul__", args[0].realize()).items)
        elif name in ("insert", "pop", "__setitem__", "__delitem__"):
            try:
                result = _by_index(tx, name, items, args)
            except (IndexError, TypeError, ValueError) as error:  # a list of trackers says what the list would say
                raise observed(error, f"list.{name}() raised {type(error).__name__}: {error}") from None
            if name == "pop":
                self.mutated(tx, items)
                return result
        elif name == "clear":
            items.clear()
        elif name == "reverse":
            items.reverse()
        elif name == "remove":
            del items[_index_of(items, args[0])]
        else:  # sort
            items = sorted_items(tx, items, kwargs)
        new = self.mutated(tx, items)
        return new if name in ("__iadd__", "__imul__") else ConstantVariable(None)  # `+=` gives the list


def _by_index(tx, name: str, items: list, args):
    """list.insert / pop / __setitem__ / __delitem__ on the list of trackers `items`, in place."""
    if name == "insert":
        return items.insert(args[0].as_python_constant(), args[1])
    if name == "pop":
        return items.pop(*[a.as_python_constant() for a in args])
    key = args[0].as_python_constant()
    if name == "__delitem__":
        del items[key]
    elif isinstance(key, slice):
        items[key] = args[1].realize().unpack_var_sequence(tx)
    else:
        items[key] = args[1]
    return None


@dataclass(frozen=True, eq=False)
class DequeVariable(ListVariable):
    """A collections.deque: a list whose ends both grow, trimmed to `maxlen` as it grows."""

    maxlen: int | None = None

    def python_type(self) -> type:
        return collections.deque

    def as_python_constant(self):
        return collections.deque((item.as_python_constant() for item in self.items), self.maxlen)

    def with_items(self, items, source=None):
        return DequeVariable(tuple(items), maxlen=self.maxlen, source=source)

    def var_getattr(self, tx, name):
        if name == "maxlen":
            return ConstantVariable(self.maxlen)
        return super().var_getattr(tx, name)

    def _trimmed(self, items: list, keep_right: bool) -> list:
        if self.maxlen is None or len(items) <= self.maxlen:
            return items
        return items[len(items) - self.maxlen:] if keep_right else items[:self.maxlen]

    def call_method(self, tx, name, args, kwargs):
        items = list(self.items)
        if name in ("extend", "extendleft") and len(args) == 1 and isinstance(args[0], GeneratorVariable):
            add_right = name == "extend"
            self.extended_one_by_one(tx, args[0], lambda so_far, item: self._trimmed(
                [*so_far, item] if add_right else [item, *so_far], keep_right=add_right))
            return ConstantVariable(None)
        if name in ("append", "extend"):
            added = [args[0]] if name == "append" else items_of(tx, args[0])
            self.mutated(tx, self._trimmed(items + list(added), keep_right=True))
            return ConstantVariable(None)
        if name in ("appendleft", "extendleft"):
            added = [args[0]] if name == "appendleft" else items_of(tx, args[0])
            self.mutated(tx, self._trimmed(list(reversed(added)) + items, keep_right=False))
            return ConstantVariable(None)
        if name in ("pop", "popleft"):
            if not items:
                raise observed(IndexError(f"{name} from an empty deque"))
            result = items.pop() if name == "pop" else items.pop(0)
            self.mutated(tx, items)
            return result
        if name == "rotate":
            steps = args[0].as_python_constant() if args else 1
            if items:
                steps %= len(items)
                self.mutated(tx, items[len(items) - steps:] + items[:len(items) - steps])
            return ConstantVariable(None)
        if name == "copy":
            return DequeVariable(self.items, maxlen=self.maxlen)
        if name == "insert" and self.maxlen is not None and len(items) >= self.maxlen:
            raise observed(IndexError("deque already at its maximum size"))
        return super().call_method(tx, name, args, kwargs)

    def short_repr(self) -> str:
        return f"deque({super().short_repr()}, maxlen={self.maxlen})"


def _index_of(items: list, wanted: VariableTracker) -> int:
    """list.index for trackers: the same tracker, or an equal constant (list.remove's test)."""
    for i, item in enumerate(items):
        if item is wanted:
            return i
        if item.is_python_constant() and wanted.is_python_constant() \
                and item.as_python_constant() == wanted.as_python_constant():
            return i
        if not (item.is_python_constant() and wanted.is_python_constant()):
            raise Unsupported(f"list.remove() comparing {item.describe()} with {wanted.describe()}")
    raise observed(ValueError("list.remove(x): x not in list"))


def sorted_items(tx, items: list, kwargs: dict) -> list:
    """sorted()/list.sort() with key= and reverse=, when every sort key is a Python constant (the key
    traced per item): the items themselves, tensors included, in their new order."""
    unknown = set(kwargs) - {"key", "reverse"}
    if unknown:
        raise Unsupported(f"list.sort() with {', '.join(sorted(unknown))}")
    key = kwargs.get("key")
    reverse = kwargs["reverse"].as_python_constant() if "reverse" in kwargs else False
    keyed = []
    for item in items:
        sort_key = item if key is None or key.is_python_constant() and key.as_python_constant() is None \
            else key.call_function(tx, [item], {})
        if not sort_key.is_python_constant():
            raise Unsupported(f"list.sort() by {sort_key.describe()}, not a constant")
        keyed.append((sort_key.as_python_constant(), item))
    order = sorted(range(len(keyed)), key=lambda i: keyed[i][0], reverse=reverse)
    return [keyed[i][1] for i in order]


@dataclass(frozen=True, eq=False)
class RangeVariable(VariableTracker):
    value: range = range(0)

    def python_type(self) -> type:
        return range

    def as_python_constant(self):
        return self.value

    def is_python_constant(self) -> bool:
        return True

    def has_unpack_var_sequence(self, tx) -> bool:
        return True

    def unpack_var_sequence(self, tx):
        return [ConstantVariable(i) for i in self.value]

    def call_method(self, tx, name, args, kwargs):
        consts, kw = _const_args(args, kwargs, f"range.{name}()")
        result = getattr(self.value, name)(*consts, **kw)
        if isinstance(result, range):
            return RangeVariable(result)
        return ConstantVariable(result)

    def var_getattr(self, tx, name):
        if name in ("start", "stop", "step"):
            return ConstantVariable(getattr(self.value, name))
        return super().var_getattr(tx, name)

    def short_repr(self) -> str:
        return repr(self.value)


@dataclass(frozen=True, eq=False)
class SliceVariable(VariableTracker):
    start: VariableTracker = None
    stop: VariableTracker = None
    step: VariableTracker = None

    def python_type(self) -> type:
        return slice

    def parts(self):
        return [p for p in (self.start, self.stop, self.step)]

    def as_python_constant(self):
        return slice(*(p.as_python_constant() for p in self.parts()))

    def as_proxy(self):
        return slice(*(p.as_proxy() for p in self.parts()))

    def var_getattr(self, tx, name):
        if name in ("start", "stop", "step"):
            return getattr(self, name)
        if name == "indices" and self.is_python_constant():  # s.indices(n): a pure method of a constant slice
            return GetAttrVariable(self, name)
        return super().var_getattr(tx, name)

    def call_method(self, tx, name, args, kwargs):
        if name == "indices" and self.is_python_constant() and all(a.is_python_constant() for a in args) \
                and not kwargs:
            try:
                return VariableTracker.build(tx, self.as_python_constant().indices(
                    *[a.as_python_constant() for a in args]))
            except (TypeError, ValueError) as error:
                raise observed(error, f"slice.indices(): {type(error).__name__}: {error}") from error
        return super().call_method(tx, name, args, kwargs)

    def short_repr(self) -> str:
        return ":".join("" if p.is_python_constant() and p.as_python_constant() is None else p.short_repr()
                        for p in self.parts())


@dataclass(frozen=True, eq=False)
class ListIteratorVariable(VariableTracker):
    """An iterator over known items; advancing it makes a new tracker."""

    items: tuple = ()
    index: int = 0
    mutation_id: int = field(default_factory=new_mutation_id)
    over_a_sequence: bool = False  # iter() of a list or tuple: Dynamo counts its advance as a mutation

    def python_type(self) -> type:
        return type(iter([]))

    def next_item(self, tx=None):
        """(item, advanced iterator), or None when exhausted (tx: as GeneratorVariable.next_item)."""
        if self.index >= len(self.items):
            return None
        return self.items[self.index], replace(self, index=self.index + 1)

    def has_unpack_var_sequence(self, tx) -> bool:
        return True

    def unpack_var_sequence(self, tx):
        """What is left; reading it uses the iterator up, so a name holding it sees it exhausted."""
        if tx is not None and self.index < len(self.items):
            tx.replace_all(self, replace(self, index=len(self.items)))
        return list(self.items[self.index:])

    def var_getattr(self, tx, name):
        if name == "__iter__":  # it.__iter__() is the iterator itself
            return bound_method(self, name)
        return super().var_getattr(tx, name)

    def call_method(self, tx, name, args, kwargs):
        if name == "__iter__" and not args and not kwargs:
            return self
        return super().call_method(tx, name, args, kwargs)

    def children(self):
        """What is still ahead, for display (the next 8)."""
        return [(str(i), item) for i, item in enumerate(self.items[self.index:self.index + 8], self.index)]

    def replace_children(self, swap):
        return replace(self, items=tuple(swap(item) for item in self.items))

    def short_repr(self) -> str:
        return f"iterator at {self.index}/{len(self.items)}"
