"""Differential cases: torch's OrderedSet (torch.utils._ordered_set), traced through its Python as
Dynamo traces it (the module is on Dynamo's inline list), and the TypeErrors its tests expect:
a call with missing arguments, an operator both sides decline, raised for the program to catch."""
from torch.utils._ordered_set import OrderedSet

from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(3)), compiles="C", fullgraph=True)
def set_algebra(x):
    p, q = OrderedSet("abc"), OrderedSet("bcd")
    return x * len(p | q), list(p | q), list(p & q), list(p - q), list(p ^ q), p <= (p | q)


@case(CASES, call(T(3)), compiles="C", fullgraph=True)
def update_copy_pop_clear(x):
    s = OrderedSet(range(4))
    s.update([7, 8])
    s.discard(1)
    s.add(3)
    t = s.copy()
    t.difference_update([0, 7])
    first = t.pop()
    s.clear()
    return x - first, list(t), len(s), s == OrderedSet()


@case(CASES, call(T(2)), compiles="C", fullgraph=True)
def missing_argument_is_a_type_error(x):
    s = OrderedSet([1])
    try:
        s.add()
    except TypeError:
        return x + 1
    return x - 1


@case(CASES, call(T(2)), compiles="C", fullgraph=True)
def operator_declined_by_both_sides_is_a_type_error(x):
    s = OrderedSet([1])
    try:
        s - 1
    except TypeError:
        return x * 2
    return x


test_ordered_set = parametrize(CASES)
