"""map, filter, functools.reduce, itertools and the collections dicts, made in the trace.

map and filter are lazy as in Python: each item is computed when the consumer
pulls it, so the function's graph ops interleave with the consumer's.  They
ride on GeneratorVariable (the loop and next() already know how to pull one
item at a time); their "frame" is the iterators they read.  The itertools
functions here only take known sequences and build their items at once.
"""
from __future__ import annotations

import collections
import functools
import itertools
import operator
from dataclasses import dataclass

from ..exc import Unsupported
from .constant import ConstantVariable
from .dicts import ConstDictVariable, _key
from .generator import GeneratorVariable
from .lists import ListIteratorVariable, TupleVariable, items_of
from .partial import partial_of


def _iter(tx, obj):
    from .builtin import BuiltinVariable
    return BuiltinVariable(iter).call_function(tx, [obj], {})


class _Pull:
    """The iterators a lazy map/filter reads, advanced in place (as the real object's state)."""

    def __init__(self, fn, iterators, keep_if=None):
        self.fn, self.iterators, self.keep_if = fn, list(iterators), keep_if

    def _next(self, tx, i):
        it = self.iterators[i]
        step = it.next_item(tx)
        if step is None:
            return None
        item, advanced = step
        if advanced is not it:
            tx.replace_all(it, advanced)  # other holders of this iterator see it advance
            self.iterators[i] = advanced
        return item

    def resume(self, tx):
        if self.keep_if is None:  # map: one item from every iterator, or stop at the shortest
            items = []
            for i in range(len(self.iterators)):
                item = self._next(tx, i)
                if item is None:
                    return None
                items.append(item)
            return self.fn.call_function(tx, items, {})
        while (item := self._next(tx, 0)) is not None:  # filter: skip items the predicate rejects
            verdict = item if self.keep_if == "truth" else self.fn.call_function(tx, [item], {})
            if verdict.realize().truth(tx):
                return item
        return None


@dataclass(frozen=True, eq=False)
class LazyIteratorVariable(GeneratorVariable):
    """A map or filter object: pulled one item at a time, like a generator."""

    kind_type: type = map

    def python_type(self) -> type:
        return self.kind_type

    def short_repr(self) -> str:
        return f"{self.kind_type.__name__} object"


def call_map(tx, fn, *iterables):
    if not iterables:
        raise Unsupported("TypeError: map() must have at least two arguments")
    return LazyIteratorVariable(frame=_Pull(fn, [_iter(tx, i) for i in iterables]), qualname="map",
                                kind_type=map)


def call_filter(tx, fn, iterable):
    none = fn.is_python_constant() and fn.as_python_constant() is None
    return LazyIteratorVariable(frame=_Pull(fn, [_iter(tx, iterable)], "truth" if none else "call"),
                                qualname="filter", kind_type=filter)


def call_reduce(tx, fn, iterable, *initial):
    it = _iter(tx, iterable)
    pull = _Pull(None, [it])
    total = initial[0] if initial else pull._next(tx, 0)
    if total is None:
        raise Unsupported("TypeError: reduce() of empty iterable with no initial value")
    while (item := pull._next(tx, 0)) is not None:
        total = fn.call_function(tx, [total, item], {})
    return total


def call_chain(tx, *iterables):
    return ListIteratorVariable(tuple(item for i in iterables for item in items_of(tx, i)))


def call_chain_from_iterable(tx, iterable):
    return call_chain(tx, *items_of(tx, iterable))


def call_product(tx, *iterables, repeat=None):
    pools = [tuple(items_of(tx, i)) for i in iterables]
    pools *= repeat.as_python_constant() if repeat is not None else 1
    return ListIteratorVariable(tuple(TupleVariable(row) for row in itertools.product(*pools)))


def call_accumulate(tx, iterable, func=None, *, initial=None):
    from .builtin import BuiltinVariable
    func = func if func is not None and not (func.is_python_constant() and func.as_python_constant() is None) \
        else BuiltinVariable(operator.add)
    items = list(items_of(tx, iterable))
    if initial is not None and not (initial.is_python_constant() and initial.as_python_constant() is None):
        items.insert(0, initial)
    out = items[:1]
    for item in items[1:]:
        out.append(func.call_function(tx, [out[-1], item], {}))
    return ListIteratorVariable(tuple(out))


def _entries(tx, source=None, kwargs=None):
    from .builtin import BuiltinVariable
    base = BuiltinVariable(dict).call_function(tx, [source] if source is not None else [], kwargs or {})
    return dict(base.entries)


def call_defaultdict(tx, factory=None, *rest, **kwargs):
    factory = None if factory is None or (factory.is_python_constant() and factory.as_python_constant() is None) \
        else factory
    return ConstDictVariable(_entries(tx, rest[0] if rest else None, kwargs), dict_cls=collections.defaultdict,
                             default_factory=factory)


def call_ordered_dict(tx, source=None, **kwargs):
    return ConstDictVariable(_entries(tx, source, kwargs), dict_cls=collections.OrderedDict)


def call_counter(tx, iterable=None, **kwargs):
    entries = {}
    if iterable is not None:
        iterable = iterable.realize()
        if isinstance(iterable, ConstDictVariable):
            entries = dict(iterable.entries)
        else:
            for item in items_of(tx, iterable):
                key = _key(item)
                entries[key] = ConstantVariable(entries[key].value + 1 if key in entries else 1)
    entries.update(kwargs)
    return ConstDictVariable(entries, dict_cls=collections.Counter)


# The callables modelled here: a class (map, itertools.chain) or a function (functools.reduce).
HANDLERS = {
    map: call_map, filter: call_filter, functools.reduce: call_reduce,
    itertools.chain: call_chain, itertools.chain.from_iterable: call_chain_from_iterable,
    itertools.product: call_product, itertools.accumulate: call_accumulate,
    collections.defaultdict: call_defaultdict, collections.OrderedDict: call_ordered_dict,
    collections.Counter: call_counter, functools.partial: partial_of,
}


def handler_for(fn):
    try:
        return HANDLERS.get(fn)
    except TypeError:  # unhashable
        return None
