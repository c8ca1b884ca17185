"""In-place operators that change a dict, set or list itself.

`d |= e` is `d.update(e)`, `s &= t` is `s.intersection_update(t)`, `lst *= 2`
repeats the list in place: the caller's object changes and the name still holds
it.  The trace folded them into new objects, so the argument was left as it
was (a wrong answer in the state after the call).
"""
from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(3), {"a": 1.0}), call(T(3), {"a": 1.0}), compiles="C.")
def dict_or_equals_updates_the_argument(x, d):
    d |= {"z": 2.0}
    return x + len(d)


@case(CASES, call(T(3), {"a": 1.0}), compiles="C")
def dict_or_equals_with_pairs(x, d):
    alias = d
    d |= [("b", 3.0)]
    return x * alias["b"]


@case(CASES, call(T(3), {1, 2, 3}), compiles="C")
def set_operators_change_the_argument(x, s):
    s |= {9}
    s &= {1, 2, 9}
    s -= {2}
    s ^= {4}
    return x + len(s)


@case(CASES, call(T(3), [1, 2]), compiles="C")
def list_times_equals_repeats_the_argument(x, lst):
    alias = lst
    lst *= 2
    return x + len(alias)


test_in_place_operators = parametrize(CASES)
