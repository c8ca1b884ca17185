"""SetVariable: a set of constants and tensors, and the methods CPython's set runs on it.

Items are told apart by hash_key (a constant's value, a tensor's or an object's identity).  A set
of constants runs each method on a real set of the same values, so results, errors and the
iteration order are CPython's; a set holding tensors runs it on the items' keys.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..exc import Unsupported, observed
from .base import VariableTracker, new_mutation_id
from .constant import ConstantVariable
from .generator import GeneratorVariable
from .lists import (BaseListVariable, ListIteratorVariable, TensorKey, TupleVariable, hash_key, items_of,
                    key_tracker)


@dataclass(frozen=True, eq=False)
class SetVariable(BaseListVariable):
    """A set of constants and tensors (what tensor code builds sets of: keys, indices, names, params)."""

    mutation_id: int = field(default_factory=new_mutation_id)
    MUTATORS = frozenset({"add", "discard", "remove", "clear", "pop", "update", "intersection_update",
                          "difference_update", "symmetric_difference_update"})

    def python_type(self) -> type:
        return set

    def as_python_constant(self):
        return {item.as_python_constant() for item in self.items}

    def with_items(self, items, source=None):
        return SetVariable(unique_items(items), source=source)

    def mutated(self, tx, items) -> SetVariable:
        """The next version of this set, swapped in wherever the trace holds it."""
        new = replace(self, items=unique_items(items))
        tx.replace_all(self, new)
        return new

    def keys(self) -> list:
        return [hash_key(item) for item in self.items]

    def call_method(self, tx, name, args, kwargs):
        if name == "__contains__" and len(args) == 1:
            return ConstantVariable(set_lookup_key(args[0]) in self.keys())
        if name == "__len__" and not args:
            return ConstantVariable(len(self.items))
        if name in ("isdisjoint", "issuperset") and len(args) == 1 and _is_iterator(args[0]):
            return self._stop_early(tx, name, args[0].realize())
        args = [_iterable_argument(tx, a) for a in args]
        if all(a.is_python_constant() for a in [self, *args, *kwargs.values()]):
            return self._call_on_constants(tx, name, args, kwargs)
        return self._call_on_keys(tx, name, args, kwargs)

    def _call_on_constants(self, tx, name, args, kwargs):
        """A set of constants: the method runs on a real set of the same values, so what it returns,
        raises (a missing argument, an unhashable item) and leaves behind is CPython's."""
        real = self.as_python_constant()
        before = set(real)
        method = getattr(real, name, None)
        if method is None:
            raise observed(AttributeError(f"'{self.python_type().__name__}' object has no attribute {name!r}"))
        try:
            result = method(*[a.as_python_constant() for a in args],
                            **{k: v.as_python_constant() for k, v in kwargs.items()})
        except Exception as error:  # pop() from an empty set, a bad argument: the program's exception
            raise observed(error, f"set.{name}() raised {type(error).__name__}: {error}") from error
        current = self
        if real != before:  # add(), pop(), difference_update(), ...: the set itself changed
            current = self.mutated(tx, [VariableTracker.build(tx, v) for v in real])
        if result is real:  # set.__ior__ and friends give the set itself
            return current
        return VariableTracker.build(tx, result)

    def _call_on_keys(self, tx, name, args, kwargs):
        """A set holding tensors (or other objects told apart by identity): the method on the items'
        hash keys, as CPython's set does on their hashes."""
        if kwargs:
            raise observed(TypeError(f"set.{name}() takes no keyword arguments"))
        arity = _SET_ARITY.get(name)
        if name in self.MUTATORS and self.python_type() is frozenset:
            raise observed(AttributeError(f"'frozenset' object has no attribute {name!r}"))
        if arity is None:
            raise Unsupported(f"{self.python_type().__name__}.{name}() on a set holding tensors")
        if arity >= 0 and len(args) != arity:
            wanted = "exactly one argument" if arity == 1 else "no arguments"
            raise observed(TypeError(f"set.{name}() takes {wanted} ({len(args)} given)"))
        if name in ("add", "discard", "remove"):
            return self._change_one(tx, name, args[0])
        if name == "clear":
            self.mutated(tx, [])
            return ConstantVariable(None)
        if name == "copy":
            return self.with_items(self.items)
        others = [unique_items(items_of(tx, a)) for a in args]
        own = {hash_key(item) for item in self.items}
        other_keys = [{hash_key(item) for item in other} for other in others]
        if name in ("issubset", "issuperset", "isdisjoint"):
            theirs = other_keys[0]
            return ConstantVariable(own <= theirs if name == "issubset" else
                                    own >= theirs if name == "issuperset" else not own & theirs)
        kept = list(self.items)
        for other, keys in zip(others, other_keys):
            if name in ("union", "update"):
                kept = kept + list(other)
            elif name in ("intersection", "intersection_update"):
                kept = [item for item in kept if hash_key(item) in keys]
            elif name in ("difference", "difference_update"):
                kept = [item for item in kept if hash_key(item) not in keys]
            else:  # symmetric_difference(_update)
                mine = {hash_key(item) for item in kept}
                kept = [item for item in kept if hash_key(item) not in keys] + \
                       [item for item in other if hash_key(item) not in mine]
        if name.endswith("update"):
            self.mutated(tx, kept)
            return ConstantVariable(None)
        return self.with_items(kept)

    def _stop_early(self, tx, name, it):
        """isdisjoint / issuperset of an iterator: pulled one item at a time, stopping where CPython
        does (at the first item in the set, or the first not in it), so a generator runs as far."""
        own = set(self.keys())
        while (step := it.next_item(tx)) is not None:
            item, advanced = step
            if advanced is not it:  # a list iterator is a new tracker per position
                tx.replace_all(it, advanced)
                it = advanced
            if (hash_key(item) in own) == (name == "isdisjoint"):
                return ConstantVariable(False)
        return ConstantVariable(True)

    def _change_one(self, tx, name, item):
        """add, discard or remove of one item."""
        items = list(self.items)
        if name == "add":
            hash_key(item)  # an unhashable item raises TypeError, as in Python
            self.mutated(tx, [*items, item])
            return ConstantVariable(None)
        keys, target = self.keys(), set_lookup_key(item)
        if target not in keys:
            if name == "remove":
                raise observed(KeyError(key_tracker(target).short_repr() if isinstance(target, TensorKey)
                                        else target))
            return ConstantVariable(None)
        del items[keys.index(target)]
        self.mutated(tx, items)
        return ConstantVariable(None)


@dataclass(frozen=True, eq=False)
class FrozensetVariable(SetVariable):
    """A frozenset holding tensors or objects (one of constants is a ConstantVariable): a set whose
    methods never change it; what they make is a frozenset again, as CPython's frozenset methods."""

    def python_type(self) -> type:
        return frozenset

    def as_python_constant(self):
        return frozenset(item.as_python_constant() for item in self.items)

    def with_items(self, items, source=None):
        return FrozensetVariable(unique_items(items), source=source)

    def mutated(self, tx, items):
        raise Unsupported("a frozenset changed in place")  # no method of frozenset mutates it

    def frozen_key(self) -> "FrozensetKey":
        """What a set or dict tells this frozenset apart by, as an item or key: its items' keys."""
        key = FrozensetKey(hash_key(item) for item in self.items)
        key.tracker = self
        return key


class FrozensetKey(frozenset):
    """A frozenset of tensors as a set item or dict key: equal to one of the same items, as CPython
    compares frozensets; it remembers its tracker, which iterating the set or dict gives back."""

    tracker = None


# How many arguments each set method takes (-1: any number of iterables).
_SET_ARITY = {"add": 1, "discard": 1, "remove": 1, "clear": 0, "copy": 0, "issubset": 1, "issuperset": 1,
              "isdisjoint": 1, "union": -1, "update": -1, "intersection": -1, "intersection_update": -1,
              "difference": -1, "difference_update": -1, "symmetric_difference": 1,
              "symmetric_difference_update": 1}


def set_lookup_key(item: VariableTracker):
    """The key `x in s`, `s.remove(x)` and `s.discard(x)` look up: a set given as the item stands for
    the frozenset of its items (CPython retries an unhashable set as a frozenset)."""
    item = item.realize()
    if isinstance(item, SetVariable) and item.is_python_constant():
        return frozenset(item.as_python_constant())
    return hash_key(item)


def _is_iterator(arg: VariableTracker) -> bool:
    return isinstance(arg.realize(), (GeneratorVariable, ListIteratorVariable))


def _iterable_argument(tx, arg: VariableTracker) -> VariableTracker:
    """A generator or iterator handed to a set method that consumes it whole (update, union, ...),
    taken as the tuple of what it yields."""
    real = arg.realize()
    if not _is_iterator(real):
        return arg
    items = tuple(real.unpack_var_sequence(tx))
    if isinstance(real, ListIteratorVariable):
        tx.replace_all(real, replace(real, index=len(real.items)))
    return TupleVariable(items)


def unique_items(items) -> tuple:
    """The items a set keeps: the first of each equal constant or same tensor, in the order
    iterating the set gives.

    A set of constants iterates in its hash table's order, not in insertion order
    (`list({1, 7, 2})` is `[1, 2, 7]`): a real set of the keys, filled in the same order,
    says what it is.  A tensor hashes by its identity, which the trace's fake tensors do
    not share with the real ones, so a set holding one keeps insertion order.
    """
    kept: dict = {}
    for item in items:
        kept.setdefault(hash_key(item), item)
    if any(isinstance(key, TensorKey) for key in kept):
        return tuple(kept.values())
    return tuple(kept[key] for key in set(kept))
