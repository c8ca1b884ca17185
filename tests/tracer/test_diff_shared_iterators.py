"""An iterator held by a name while a loop, an unpacking or a generator uses it, compared with Dynamo.

A list iterator is a new tracker per position; a for-loop advanced only the copy on its stack and
`list(it)`, `sum(it)`, `a, *b = it` read the items without using the iterator up, so a name
holding it still saw it at its start: `for i in it: break` then `next(it)` gave the first item
again, a wrong answer.  Now each advance reaches every holder, as next() already did.
"""
from differential import T, call, case, parametrize, parametrize_against_eager

CASES: list = []
AGAINST_EAGER: list = []  # where Dynamo 2.13 gives a wrong answer: compared with eager only


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def loop_stops_early_then_next(x):
    it = iter([1, 2, 3])
    for first in it:
        break
    return x + next(it), first


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def consumed_whole_then_read_again(x):
    it = iter([1, 2, 3])
    kt = iter([6, 7, 8])
    a, c = list(it), [i for i in kt]
    return x + len(list(it)) + len(list(kt)), a, c


@case(AGAINST_EAGER, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def summed_then_read_again(x):  # Dynamo: sum(it) leaves `it` at its start
    it = iter([4, 5])
    total = sum(it)
    return x + len(list(it)), total


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def starred_unpacking_uses_it_up(x):
    it = iter([x, x + 1, x + 2])
    a, *rest = it
    return a + len(rest) + len(list(it))


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def generator_over_an_iterator_a_name_holds(x):
    it = iter([1, 2, 3])
    g = (i * 10 for i in it)
    first = next(g)
    return x + next(it), first, list(g)


test_shared_iterators = parametrize(CASES)
test_shared_iterators_against_eager = parametrize_against_eager(AGAINST_EAGER)
