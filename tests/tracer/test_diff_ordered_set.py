"""Differential cases: torch's OrderedSet (torch.utils._ordered_set), traced through its Python as
Dynamo traces it (the module is on Dynamo's inline list), and the TypeErrors its tests expect:
a call with missing arguments, an operator both sides decline, raised for the program to catch."""
from torch.utils._ordered_set import OrderedSet

from differential import T, call, case, parametrize, parametrize_against_eager

CASES: list = []
AGAINST_EAGER: list = []  # where Dynamo 2.13 breaks: compared with eager only


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


@case(CASES, call(T(3)), compiles="C", fullgraph=True)
def not_equal_to_what_is_not_an_ordered_set(x):  # super().__ne__: object.__ne__ inverts Set.__eq__
    s = OrderedSet([1, 2])
    return x + 1, s != {1, 2}, s != {3}, s != frozenset([2, 1]), s != [1, 2], s == [1, 2], [1, 2] != s, s != 5


@case(CASES, call(T(3)), compiles="C", fullgraph=True)
def frozenset_of_an_ordered_set(x):
    s = OrderedSet([3, 1, 2])
    f = frozenset(s)
    held = frozenset(OrderedSet([x, x + 1]))
    return x + len(f) + len(held), f == frozenset({1, 2, 3}), sorted(f), type(f) is frozenset, set(s) == f, x in held


class Version:
    """__ne__ through super(): object's, which inverts this class's __eq__."""

    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return self.n == other.n if isinstance(other, Version) else NotImplemented

    def __ne__(self, other):
        return super().__ne__(other)


@case(AGAINST_EAGER, call(T(3)), compiles="C", fullgraph=True)
def user_class_ne_through_object(x):  # Dynamo breaks on super().__ne__ (object's) of a user class
    a, b, c = Version(1), Version(1), Version(2)
    return x + 1, a != b, a != c, a == b, a != 1, a == "v", object.__eq__(a, a), object.__eq__(a, b)


test_ordered_set = parametrize(CASES)
test_ordered_set_against_eager = parametrize_against_eager(AGAINST_EAGER)
