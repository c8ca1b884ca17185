"""map, filter, functools.reduce, itertools and the collections dicts, made in the trace.

map and filter are lazy as in Python: each item is computed when the consumer
pulls it, so the function's graph ops interleave with the consumer's.  They
ride on GeneratorVariable (the loop and next() already know how to pull one
item at a time); their "frame" is the iterators they read, and so are the
endless itertools.count(), repeat() and cycle().  The other itertools functions take
known sequences (islice pulls only what it needs) and build their items at once.
"""
from __future__ import annotations

import collections
import functools
import itertools
import operator
import types
from dataclasses import dataclass

from ..exc import Unsupported, observed
from .base import VariableTracker
from .constant import ConstantVariable
from .dicts import ConstDictVariable
from .generator import GeneratorVariable
from .lists import (BaseListVariable, DequeVariable, ListIteratorVariable, RangeVariable, TupleVariable, hash_key,
                    items_of)
from .partial import partial_of


def _iter(tx, obj):
    from .builtin import BuiltinVariable  # cycle: .builtin -> .functional
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


class _ZipPull(_Pull):
    """The iterators a lazy zip reads: a row pulls one item from each, left to right, and stops at the
    first exhausted one; with strict=True CPython's checks (and its ValueError texts) at the end."""

    def __init__(self, iterators, strict: bool):
        super().__init__(None, iterators)
        self.strict = strict

    def resume(self, tx):
        items = []
        for i in range(len(self.iterators)):
            item = self._next(tx, i)
            if item is None:
                if self.strict:
                    self._check_lengths(tx, i)
                return None
            items.append(item)
        return TupleVariable(tuple(items)) if items else None

    def _check_lengths(self, tx, i: int) -> None:
        """As zip_next: argument i+1 ran out after the ones before it gave an item (shorter), or the
        first ran out and a later one still has one (longer)."""
        def fail(j, word):
            plural = " " if j == 1 else "s 1-"
            error = ValueError(f"zip() argument {j + 1} is {word} than argument{plural}{j}")
            raise observed(error, f"ValueError: {error}")
        if i > 0:
            fail(i, "shorter")
        for j in range(1, len(self.iterators)):
            if self._next(tx, j) is not None:
                fail(j, "longer")


@dataclass(frozen=True, eq=False)
class LazyIteratorVariable(GeneratorVariable):
    """A map, filter or zip object: pulled one item at a time, like a generator."""

    kind_type: type = map

    def python_type(self) -> type:
        return self.kind_type

    def short_repr(self) -> str:
        return f"{self.kind_type.__name__} object"

    def rebuild_call(self) -> list[VariableTracker]:
        """[fn, *iterators] that `map(...)` / `filter(...)` takes to make the object again, where
        it stands (a graph break while it is alive), as Dynamo rebuilds it."""
        if not isinstance(self.frame, _Pull):  # itertools.count() / repeat(): their state is no call
            raise Unsupported(f"cannot rebuild the {self.qualname} object alive at a graph break")
        if isinstance(self.frame, _ZipPull):
            return list(self.frame.iterators)
        return [self.frame.fn, *self.frame.iterators]

    def rebuild_callable(self):
        """What rebuild_call's parts are passed to: the type, or `zip` with its strict=True kept."""
        if isinstance(self.frame, _ZipPull) and self.frame.strict:
            return functools.partial(zip, strict=True)
        return self.kind_type


def call_map(tx, fn, *iterables):
    if not iterables:
        raise Unsupported("TypeError: map() must have at least two arguments")
    return LazyIteratorVariable(frame=_Pull(fn, [_iter(tx, i) for i in iterables]), qualname="map",
                                kind_type=map)


def call_zip(tx, *iterables, strict=None):
    """zip(...) made in the trace: lazy as Python's (a row is pulled when the consumer asks for it)."""
    if strict is not None and not strict.is_python_constant():
        raise Unsupported(f"zip(strict={strict.describe()})")
    return LazyIteratorVariable(frame=_ZipPull([_iter(tx, i) for i in iterables],
                                               bool(strict.as_python_constant()) if strict is not None else False),
                                qualname="zip", kind_type=zip)


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
    from .builtin import BuiltinVariable  # cycle: .builtin -> .functional
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
    from .builtin import BuiltinVariable  # cycle: .builtin -> .functional
    base = BuiltinVariable(dict).call_function(tx, [source] if source is not None else [], kwargs or {})
    return dict(base.entries)


def call_defaultdict(tx, factory=None, *rest, **kwargs):
    factory = None if factory is None or (factory.is_python_constant() and factory.as_python_constant() is None) \
        else factory
    return ConstDictVariable(_entries(tx, rest[0] if rest else None, kwargs), dict_cls=collections.defaultdict,
                             default_factory=factory)


def call_ordered_dict(tx, source=None, **kwargs):
    return ConstDictVariable(_entries(tx, source, kwargs), dict_cls=collections.OrderedDict)


def _counts(tx, iterable=None, kwargs=None) -> dict:
    """What Counter(iterable, **kwargs) counts: a mapping's values, or each item once."""
    counts = {}
    if iterable is not None:
        iterable = iterable.realize()
        if isinstance(iterable, ConstDictVariable):
            counts = dict(iterable.read_entries())
        else:
            for item in items_of(tx, iterable):
                key = hash_key(item)
                counts[key] = ConstantVariable(counts[key].as_python_constant() + 1 if key in counts else 1)
    counts.update(kwargs or {})
    return counts


def call_counter(tx, iterable=None, **kwargs):
    return ConstDictVariable(_counts(tx, iterable, kwargs), dict_cls=collections.Counter)


COUNTER_METHODS = frozenset({"update", "subtract", "total", "elements", "most_common"})


def counter_method(tx, counter: ConstDictVariable, name: str, args, kwargs):
    """Counter's own methods, on counts known at trace time."""
    if name in ("update", "subtract"):
        sign = 1 if name == "update" else -1
        entries = dict(counter.entries)
        for key, count in _counts(tx, args[0] if args else None, kwargs).items():
            before = entries[key].as_python_constant() if key in entries else 0
            entries[key] = ConstantVariable(before + sign * count.as_python_constant())
        counter.guard_keys()
        tx.replace_all(counter, ConstDictVariable(entries, mutation_id=counter.mutation_id, dict_cls=counter.dict_cls,
                                                  source=counter.source))
        return ConstantVariable(None)
    if name == "elements":  # the keys, each as often as its count, in insertion order
        counter.guard_keys()
        return ListIteratorVariable(tuple(ConstantVariable(k) for k, v in counter.entries.items()
                                          for _ in range(v.as_python_constant())))
    real = counter.as_python_constant()  # total(), most_common(n): folded
    counter.guard_keys()
    return VariableTracker.build(tx, getattr(real, name)(*[a.as_python_constant() for a in args]))


class _Count:
    """itertools.count(start, step): endless, so pulled one item at a time."""

    def __init__(self, start, step):
        self.next_value, self.step = start, step

    def resume(self, tx):
        value, self.next_value = self.next_value, self.next_value + self.step
        return ConstantVariable(value)


class _Repeat:
    """itertools.repeat(obj) without a count: the same tracker, endlessly."""

    def __init__(self, item):
        self.item = item

    def resume(self, tx):
        return self.item


class _Cycle:
    """itertools.cycle(iterable): pulls the iterable lazily, saving what it gives, then goes
    round the saved items endlessly (none saved: it stops), as the real object does."""

    def __init__(self, source: _Pull):
        self.source, self.saved, self.index, self.exhausted = source, [], 0, False

    def resume(self, tx):
        if not self.exhausted:
            item = self.source._next(tx, 0)
            if item is not None:
                self.saved.append(item)
                return item
            self.exhausted = True
        if not self.saved:
            return None
        item, self.index = self.saved[self.index % len(self.saved)], self.index + 1
        return item


def _constant(var, default=None):
    if var is None:
        return default
    if not var.is_python_constant():
        raise Unsupported(f"itertools argument {var.describe()} is not a constant")
    return var.as_python_constant()


def call_count(tx, start=None, step=None):
    return LazyIteratorVariable(frame=_Count(_constant(start, 0), _constant(step, 1)), qualname="count",
                                kind_type=itertools.count)


def call_repeat(tx, item, times=None):
    if times is not None:
        return ListIteratorVariable((item,) * max(_constant(times), 0))
    return LazyIteratorVariable(frame=_Repeat(item), qualname="repeat", kind_type=itertools.repeat)


def call_cycle(tx, iterable):
    return LazyIteratorVariable(frame=_Cycle(_Pull(None, [_iter(tx, iterable)])), qualname="cycle",
                                kind_type=itertools.cycle)


def pull(tx, iterable, limit=None) -> list:
    """Up to `limit` items of an iterable, taken one at a time (an endless iterator is fine)."""
    source = _Pull(None, [_iter(tx, iterable)])
    items = []
    while limit is None or len(items) < limit:
        item = source._next(tx, 0)
        if item is None:
            break
        items.append(item)
        if len(items) > GeneratorVariable.MAX_ITEMS:
            raise Unsupported(f"iterating over more than {GeneratorVariable.MAX_ITEMS} items")
    return items


class _Slice:
    """An islice of a generator (or map, filter): pulled one item at a time as the consumer asks, so
    the generator's ops and side effects interleave with the consumer's; `count` and `next` are
    CPython's islice counters (items taken from the source, index of the next one to give)."""

    def __init__(self, iterator, start, stop, step):
        self.source, self.stop, self.step = _Pull(None, [iterator]), stop, step
        self.count, self.next = 0, start

    def resume(self, tx):
        while self.count < self.next:  # the items skipped before the next one given
            if self.source._next(tx, 0) is None:
                return None
            self.count += 1
        if self.stop is not None and self.count >= self.stop:
            return None
        item = self.source._next(tx, 0)
        if item is None:
            return None
        self.count += 1
        self.next += self.step
        if self.stop is not None and self.next > self.stop:
            self.next = self.stop
        return item


def call_islice(tx, iterable, *bounds):
    """islice(it, stop) / islice(it, start, stop[, step]): pulls no more than `stop` items; lazily when
    it reads a generator, whose items are made as they are pulled."""
    values = [_constant(b) for b in bounds]
    start, stop, step = (0, values[0], 1) if len(values) == 1 else (values + [None])[:3]
    if isinstance(iterable, GeneratorVariable):
        return LazyIteratorVariable(frame=_Slice(iterable, start or 0, stop, step or 1), qualname="islice",
                                    kind_type=itertools.islice)
    items = pull(tx, iterable, stop)
    return ListIteratorVariable(tuple(items[start or 0::step or 1]))


def _rows(rows):
    return ListIteratorVariable(tuple(TupleVariable(tuple(row)) for row in rows))


def call_combinations(tx, iterable, r):
    return _rows(itertools.combinations(items_of(tx, iterable), _constant(r)))


def call_permutations(tx, iterable, r=None):
    return _rows(itertools.permutations(items_of(tx, iterable), _constant(r)))


def call_zip_longest(tx, *iterables, fillvalue=None):
    fill = fillvalue if fillvalue is not None else ConstantVariable(None)
    return _rows(itertools.zip_longest(*(items_of(tx, i) for i in iterables), fillvalue=fill))


def call_pairwise(tx, iterable):
    return _rows(itertools.pairwise(items_of(tx, iterable)))


def call_starmap(tx, fn, iterable):
    return ListIteratorVariable(tuple(fn.call_function(tx, items_of(tx, args), {}) for args in items_of(tx, iterable)))


def _while(tx, predicate, iterable, keep_taking: bool):
    taken, rest = [], list(items_of(tx, iterable))
    while rest and predicate.call_function(tx, [rest[0]], {}).realize().truth(tx):
        taken.append(rest.pop(0))
    return ListIteratorVariable(tuple(taken if keep_taking else rest))


def call_takewhile(tx, predicate, iterable):
    return _while(tx, predicate, iterable, True)


def call_dropwhile(tx, predicate, iterable):
    return _while(tx, predicate, iterable, False)


def call_compress(tx, data, selectors):
    kept = [item for item, chosen in zip(items_of(tx, data), items_of(tx, selectors)) if chosen.realize().truth(tx)]
    return ListIteratorVariable(tuple(kept))


def _known_items(tx, iterable, what: str):
    """The items of a list, tuple or range: read whole without changing what the code holds (an iterator
    or generator would be advanced ahead of Python's lazy reads)."""
    if not isinstance(iterable.realize(), (BaseListVariable, RangeVariable)):
        raise Unsupported(f"itertools.{what}() of {iterable.describe()} (only of a list, tuple or range)")
    return items_of(tx, iterable)


def call_tee(tx, iterable, n=None):
    items = tuple(_known_items(tx, iterable, "tee"))
    return TupleVariable(tuple(ListIteratorVariable(items) for _ in range(_constant(n, 2))))


def call_deque(tx, iterable=None, maxlen=None):
    limit = _constant(maxlen)
    items = tuple(items_of(tx, iterable)) if iterable is not None else ()
    return DequeVariable(items[len(items) - limit:] if limit is not None and len(items) > limit else items,
                         maxlen=limit)


# The callables modelled here: a class (map, itertools.chain) or a function (functools.reduce).
HANDLERS = {
    map: call_map, filter: call_filter, functools.reduce: call_reduce,
    itertools.chain: call_chain, itertools.chain.from_iterable: call_chain_from_iterable,
    itertools.product: call_product, itertools.accumulate: call_accumulate,
    collections.defaultdict: call_defaultdict, collections.OrderedDict: call_ordered_dict,
    collections.Counter: call_counter, functools.partial: partial_of, collections.deque: call_deque,
    itertools.count: call_count, itertools.repeat: call_repeat, itertools.cycle: call_cycle, itertools.islice: call_islice,
    itertools.combinations: call_combinations, itertools.permutations: call_permutations,
    itertools.zip_longest: call_zip_longest, itertools.pairwise: call_pairwise, itertools.starmap: call_starmap,
    itertools.takewhile: call_takewhile, itertools.dropwhile: call_dropwhile, itertools.compress: call_compress,
    itertools.tee: call_tee,
}


def _key(fn):
    """By identity, never by hash (a user's __hash__ would run); a classmethod read off its class
    (`itertools.chain.from_iterable`, a new bound object per read) by its class and name."""
    owner = getattr(fn, "__self__", None)
    if isinstance(fn, types.BuiltinMethodType) and isinstance(owner, type):
        return (id(owner), fn.__name__)
    return id(fn)


_BY_KEY = {_key(fn): handler for fn, handler in HANDLERS.items()}


def handler_for(fn):
    return _BY_KEY.get(_key(fn))
