"""itertools.compress, cycle and tee, compared with Dynamo. cycle and tee read a list, tuple or range
whole (of an iterator or generator they break naming it: reading it ahead would run its items before
Python does); cycle is endless and lazy, as count() and repeat()."""
import itertools

import pytest

import tracer
from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def compress_keeps_the_selected_items(x):
    return list(itertools.compress([x, x + 1, x + 2], [1, 0, True])), list(itertools.compress("abcd", (0, 1)))


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def cycle_goes_round(x):
    c = itertools.cycle([x, 2])
    total = x
    for _, item in zip(range(5), c):
        total = total + item
    return total, next(c), list(zip("ab", itertools.cycle(range(1))))


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def tee_gives_independent_iterators(x):
    a, b = itertools.tee([x, x * 2])
    first = next(a)
    c, d, e = itertools.tee((1, 2), 3)
    return first, list(b), list(a), list(c) + list(d), next(e)


test_itertools_more = parametrize(CASES)


def cycle_of_a_generator(x):
    return x, next(itertools.cycle(i for i in range(3)))


def test_cycle_of_a_generator_breaks_naming_it():
    with pytest.raises(tracer.Unsupported, match=r"itertools.cycle\(\) of .* \(only of a list, tuple or range\)"):
        tracer.compile(cycle_of_a_generator, fullgraph=True)(T(3))
    assert tracer.compile(cycle_of_a_generator)(T(3))[1] == 0
