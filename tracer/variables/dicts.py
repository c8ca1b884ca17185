"""ConstDictVariable: a dict whose keys are known at trace time.

Lookups resolve while tracing; only the values can be tensors.  A dict that
came from outside guards its keys only when the trace depends on them (it
iterates, takes len, tests membership, copies it, reads it whole as a
constant), as Dynamo does.  A copy is the trace's own dict and has no source,
so the key set is guarded where the copy reads it.
"""
from __future__ import annotations

import collections
import operator
import types
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..exc import Unsupported, observed
from . import dict_operations
from .base import VariableTracker, new_mutation_id
from .get_attr import GetAttrVariable
from .constant import ConstantVariable
from .dict_operations import check_arguments
from .lists import ListIteratorVariable, TensorKey, TupleVariable, hash_key, key_tracker


def _key(v: VariableTracker):
    """A dict key: a constant, or a tensor by identity (TensorKey)."""
    return hash_key(v)


@dataclass(frozen=True, eq=False)
class ConstDictVariable(VariableTracker):
    entries: dict = field(default_factory=dict)  # constant key -> tracker; never mutated in place
    mutation_id: int = field(default_factory=new_mutation_id)
    dict_cls: type = dict  # or a collections dict made in the trace: defaultdict, OrderedDict, Counter
    default_factory: VariableTracker | None = None  # a defaultdict's
    # A dict from outside: installs the guard on the key set it had when the trace met it.  Held
    # here because as_python_constant(), which reads every key, is asked without a translator.
    keys_guard: Callable[[], None] | None = field(default=None, repr=False)
    # The same dict's narrower guard, on whether one constant key is in it (what `k in d`, a missing
    # `d.get(k)` or `d.pop(k, default)` depend on): installs DICT_CONTAINS for the key given.
    key_guard: Callable[[object], None] | None = field(default=None, repr=False)

    def python_type(self) -> type:
        return self.dict_cls

    def as_python_constant(self):
        if any(isinstance(k, TensorKey) for k in self.entries):
            raise Unsupported("a dict with tensor keys is not a Python constant")
        plain = {k: v.as_python_constant() for k, v in self.entries.items()}
        self.guard_keys()
        if self.dict_cls is dict:
            return plain
        if self.dict_cls is collections.defaultdict:
            factory = self.default_factory.as_python_constant() if self.default_factory is not None else None
            return collections.defaultdict(factory, plain)
        return self.dict_cls(plain)

    def rebuild_call(self):
        """(constructor, leading argument trackers) that remake this dict around a plain one."""
        if self.dict_cls is collections.defaultdict:
            return self.dict_cls, [self.default_factory if self.default_factory is not None
                                   else ConstantVariable(None)]
        return self.dict_cls, []

    def as_proxy(self):
        return {k: v.as_proxy() for k, v in self.entries.items()}

    def truth(self, tx) -> bool:
        self.guard_keys()
        return bool(self.entries)

    def children(self):
        return [(repr(k), v) for k, v in self.entries.items()]

    def replace_children(self, swap):
        return replace(self, entries={k: swap(v) for k, v in self.entries.items()})

    def guard_keys(self) -> None:
        """The trace depends on which keys there are (and in what order)."""
        if self.keys_guard is not None:
            self.keys_guard()

    def guard_key(self, tx, key) -> None:
        """The trace depends on whether `key` is there.  While the trace has not changed the dict its
        entries are the outside dict's, so that one key is guarded (as Dynamo); once it has, the
        answer comes from the mutations too and the whole key set is (already) guarded."""
        if self.key_guard is None or isinstance(key, TensorKey) or tx.output.side_effects.is_mutated(self):
            self.guard_keys()
            return
        self.key_guard(key)

    def read_entries(self) -> dict:
        """Every entry, for an operation that reads the whole dict (dict(d), e.update(d), f(**d))."""
        self.guard_keys()
        return self.entries

    def copied(self, **changes) -> ConstDictVariable:
        """A new dict of the trace with the same entries: it has no source, so the keys are guarded here."""
        self.guard_keys()
        return replace(self, entries=dict(self.entries), mutation_id=new_mutation_id(), source=None,
                       keys_guard=None, key_guard=None, **changes)

    def has_unpack_var_sequence(self, tx) -> bool:
        return True

    def unpack_var_sequence(self, tx):
        self.guard_keys()
        return [key_tracker(k) for k in self.entries]

    def var_getattr(self, tx, name):
        if callable(getattr(self.dict_cls, name, None)):
            return GetAttrVariable(self, name)
        if not hasattr(self.dict_cls, name):  # a dict has no instance attributes: hasattr(d, "to") is False
            raise observed(AttributeError(f"{self.dict_cls.__name__!r} object has no attribute {name!r}"),
                           f"{self.dict_cls.__name__} object has no attribute {name!r}")
        return super().var_getattr(tx, name)

    def getitem(self, tx, key_var):
        key = _key(key_var)
        if key not in self.entries:
            return self._missing(tx, key)
        return self.entries[key]

    def _missing(self, tx, key):
        """__missing__: a Counter answers 0; a defaultdict stores and returns default_factory()."""
        if self.dict_cls is collections.Counter:
            self.guard_key(tx, key)  # a Counter from outside that gains the key answers its count
            return ConstantVariable(0)
        if self.dict_cls is collections.defaultdict and self.default_factory is not None:
            self.guard_keys()  # it stores the key: a mutation, whose replay needs the key set (as Dynamo)
            value = self.default_factory.call_function(tx, [], {})
            tx.replace_all(self, replace(self, entries={**self.entries, key: value}))
            return value
        self.guard_key(tx, key)
        raise observed(KeyError(key))

    def call_method(self, tx, name, args, kwargs):
        check_arguments(self.dict_cls, name, args, kwargs)
        if name == "__getitem__":
            return self.getitem(tx, args[0])
        if name in _OPERATIONS:
            return _OPERATIONS[name](tx, self, args, kwargs)
        if self.dict_cls is collections.Counter:
            from .functional import COUNTER_METHODS, counter_method  # cycle: .functional -> .dicts
            if name in COUNTER_METHODS:
                return counter_method(tx, self, name, args, kwargs)
        if name == "get":
            key = _key(args[0])
            if key in self.entries:
                return self.entries[key]
            self.guard_key(tx, key)
            return args[1] if len(args) > 1 else ConstantVariable(None)
        if name == "__contains__":
            key = _key(args[0])
            self.guard_key(tx, key)
            return ConstantVariable(key in self.entries)
        if name in ("__len__", "keys", "values", "items"):
            self.guard_keys()
            if name == "__len__":
                return ConstantVariable(len(self.entries))
            return DictViewVariable(self, name)
        if name == "copy":
            return self.copied()
        mutators = {"__setitem__", "update", "pop", "setdefault", "__delitem__", "clear"}
        if name not in mutators:
            raise Unsupported(f"dict.{name}()")
        if self.dict_cls is types.MappingProxyType:  # a class's __dict__ cannot be written through
            raise observed(TypeError(f"'mappingproxy' object does not support {name}"))
        if name == "pop" and _key(args[0]) not in self.entries:  # changes nothing: only that key's absence counts
            self.guard_key(tx, _key(args[0]))
            if len(args) > 1:
                return args[1]
            raise observed(KeyError(_key(args[0])))
        if name != "clear":  # what clear() leaves does not depend on the keys (the replay empties it whole)
            self.guard_keys()  # as Dynamo: a dict from outside that is mutated has its keys guarded
        entries = dict(self.entries)
        result = ConstantVariable(None)
        if name == "__setitem__":
            entries[_key(args[0])] = args[1]
        elif name == "update":
            entries.update(self.update_entries(tx, args, kwargs))
        elif name == "pop":
            key = _key(args[0])
            if key in entries:
                result = entries.pop(key)
            elif len(args) > 1:
                result = args[1]
            else:
                raise observed(KeyError(key))
        elif name == "setdefault":
            key = _key(args[0])
            result = entries.setdefault(key, args[1] if len(args) > 1 else ConstantVariable(None))
        elif name == "__delitem__":
            key = _key(args[0])
            if key not in entries:
                raise observed(KeyError(key))
            del entries[key]
        elif name == "clear":
            entries.clear()
        else:
            raise Unsupported(f"dict.{name}()")
        self.mutated(tx, entries)
        return result

    def update_entries(self, tx, args, kwargs) -> dict:
        """The entries d.update(*args, **kwargs) writes: a dict's, or (key, value) pairs'."""
        other = args[0].realize() if args else ConstDictVariable({})
        if not isinstance(other, ConstDictVariable):  # an iterable of (key, value) pairs
            from .builtin import BuiltinVariable  # cycle: .builtin -> .dicts
            other = BuiltinVariable(dict).call_function(tx, [other], {})
        return {**other.read_entries(), **kwargs}

    def mutated(self, tx, entries: dict) -> ConstDictVariable:
        """The next version of this dict, swapped in wherever the trace holds it."""
        new = replace(self, entries=entries)
        tx.replace_all(self, new)
        return new

    def short_repr(self) -> str:
        inner = ", ".join(f"{k!r}: {v.short_repr()}" for k, v in list(self.entries.items())[:4])
        more = ", ..." if len(self.entries) > 4 else ""
        return "{" + inner + more + "}"


def _iterate(tx, target, args, kwargs):
    return ListIteratorVariable(tuple(target.unpack_var_sequence(tx)))


def _union(tx, target, args, kwargs):
    other = args[0].realize()
    if not isinstance(other, ConstDictVariable):  # dict.__or__(d, 1): NotImplemented, as CPython's
        return ConstantVariable(NotImplemented)
    return dict_operations.union(tx, target, other)


def _union_in_place(tx, target, args, kwargs):
    """d.__ior__(other): d.update(other) (other a mapping or pairs), and d itself given back."""
    if target.dict_cls is types.MappingProxyType:
        raise observed(TypeError("'mappingproxy' object does not support |="))
    target.guard_keys()  # as every mutation of a dict from outside
    return target.mutated(tx, {**target.entries, **target.update_entries(tx, args, {})})


def _comparison(op):
    """d.__eq__(other) / d.__ne__(other): as `==` / `!=`, NotImplemented for what is not a dict."""
    def compare(tx, target, args, kwargs):
        other = args[0].realize()
        if not isinstance(other, ConstDictVariable):
            return ConstantVariable(NotImplemented)
        if target.is_python_constant() and other.is_python_constant():
            return ConstantVariable(op(target.as_python_constant(), other.as_python_constant()))
        return dict_operations.equal(tx, op, target, other)
    return compare


_OPERATIONS = {"__iter__": _iterate, "__or__": _union, "__ior__": _union_in_place, "__eq__": _comparison(operator.eq),
               "__ne__": _comparison(operator.ne), "popitem": dict_operations.popitem, "move_to_end": dict_operations.move_to_end}


@dataclass(frozen=True, eq=False)
class DictViewVariable(VariableTracker):
    """dict.keys(), .values() or .items() of a ConstDictVariable."""

    dict_var: ConstDictVariable = None
    view: str = "keys"

    def python_type(self) -> type:
        return type(getattr({}, self.view)())

    def _items(self):
        entries = self.dict_var.entries
        if self.view == "keys":
            return [key_tracker(k) for k in entries]
        if self.view == "values":
            return list(entries.values())
        return [TupleVariable((key_tracker(k), v)) for k, v in entries.items()]

    def has_unpack_var_sequence(self, tx) -> bool:
        return True

    def unpack_var_sequence(self, tx):
        return self._items()

    def call_method(self, tx, name, args, kwargs):
        if name == "__len__":
            return ConstantVariable(len(self.dict_var.entries))
        if name == "__contains__" and len(args) == 1:
            return ConstantVariable(dict_operations.view_contains(self, args[0]))
        if name == "__iter__":
            return ListIteratorVariable(tuple(self._items()))
        raise Unsupported(f"dict_{self.view}.{name}()")

    def children(self):
        return [(str(i), v) for i, v in enumerate(self._items())]

    def replace_children(self, swap):
        return replace(self, dict_var=swap(self.dict_var))

    def short_repr(self) -> str:
        return f"dict_{self.view}({len(self.dict_var.entries)})"
