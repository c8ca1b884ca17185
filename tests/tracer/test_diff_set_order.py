"""A set of constants iterates in its hash table's order, as CPython's does.

`list({1, 7, 2})` is `[1, 2, 7]`: a trace that kept insertion order returned a
list in the wrong order (found by the fuzzer).  Each case builds, grows or
shrinks a set and looks at its order.
"""
from differential import T, call, case, parametrize, parametrize_against_eager

CASES: list = []
AGAINST_EAGER: list = []  # where Dynamo 2.13 itself keeps insertion order: compared with eager only


@case(AGAINST_EAGER, call(T(3), [7, 2]), call(T(3), [7, 2]), compiles="C.")
def display_with_a_starred_list(x, lst):
    s = {1, *lst}
    return x + s.pop(), list(s)


@case(AGAINST_EAGER, call(T(3), [9, 4, 1]), compiles="C")
def set_of_an_argument_then_add(x, lst):
    s = set(lst)
    s.add(0)
    return x * len(s), list(s)


@case(CASES, call(T(3)), compiles="C")
def discard_then_iterate(x):
    s = {10, 3, 8, 1}
    s.discard(8)
    total = x
    for v in s:
        total = total * 2 + v
    return total


@case(CASES, call(T(3)), compiles="C")
def in_place_methods_change_the_set(x):
    s = {1, 2, 3, 4}
    s.difference_update({2})
    s.intersection_update({1, 3, 4, 5})
    s.symmetric_difference_update({4, 6})
    return x * len(s) + sum(s)


@case(CASES, call(T(3)), compiles="C")
def pop_until_empty(x):
    s = {5, 6}
    total = x
    try:
        while True:
            total = total + s.pop()
    except KeyError as e:
        total = total + len(e.args)
    return total


test_set_order = parametrize(CASES)


@case(AGAINST_EAGER, call(T(3), [7, 2]), call(T(3), [7, 2]), compiles="C.")
def list_of_a_set_display(x, lst):
    return x + 1, list({1, *lst})


test_set_order_against_eager = parametrize_against_eager(AGAINST_EAGER)
