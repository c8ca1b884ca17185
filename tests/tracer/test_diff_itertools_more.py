"""itertools.compress, cycle and tee, compared with Dynamo. tee reads a list, tuple or range whole (of an
iterator or generator it breaks naming it: reading it ahead would run its items before Python does);
cycle is endless and lazy, as count() and repeat(), and pulls its iterable only as it is asked."""
import itertools


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


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def cycle_of_a_generator_pulls_it_lazily(x):
    seen = []
    c = itertools.cycle(seen.append(i) or i for i in range(3))
    first = next(c)
    return x + first, list(seen), [next(c) for _ in range(4)], list(seen)


test_itertools_more = parametrize(CASES)
