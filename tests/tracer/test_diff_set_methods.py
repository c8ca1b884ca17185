"""Set and frozenset methods as CPython runs them, compared with Dynamo.

Found running PyTorch's own set tests through both engines: `s.update(a, b)` kept only `a`
(a wrong answer), `s.add()` crashed the tracer instead of raising TypeError, the unbound
methods of frozenset (`frozenset.__and__(p, q)`) and its comparisons broke the graph, a set of
functions from outside could not be read, and `isdisjoint` ran a generator to its end where
Python stops at the first common item.
"""
import torch

from differential import T, call, case, mutate_with, parametrize, parametrize_against_eager

CASES: list = []
AGAINST_EAGER: list = []  # where Dynamo 2.13 differs from CPython: compared with eager only


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def update_and_intersection_update_take_every_iterable(x):
    s = {1, 2}
    s.update({3}, [4, 5], (6,))
    t = {1, 2, 3, 4}
    t.intersection_update({1, 2, 3}, [2, 3])
    u = {1, 2, 3}
    u.difference_update([1], {2})
    return x * len(s), sorted(s), sorted(t), sorted(u)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def wrong_argument_counts_raise_type_error(x):
    s = {"a", "b"}
    caught = 0
    for bad in (lambda: s.add(), lambda: s.add(1, 2), lambda: s.discard(), lambda: s.clear(1)):
        try:
            bad()
        except TypeError:
            caught += 1
    return x + caught, sorted(s)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def unbound_frozenset_methods_and_comparisons_fold(x):
    p, q, r = frozenset("abc"), frozenset("bef"), frozenset("ab")
    folded = (sorted(frozenset.__and__(p, q)), sorted(frozenset.__or__(p, q)), sorted(frozenset.__sub__(p, q)),
              frozenset.__lt__(r, p), frozenset.__le__(p, p), frozenset.__contains__(p, "a"),
              p.__eq__(set(p)), p.__ne__(q), r < p, p >= r)
    return x * sum(folded[3:]), folded


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def a_bound_method_of_a_constant_has_a_name(x):
    s = frozenset("ab")
    return x + 1, s.union.__name__, "abc".upper.__name__


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def with_traceback_none_gives_the_same_exception(x):
    try:
        raise ValueError("bad")
    except ValueError as e:
        same = e.with_traceback(None) is e
    return x + int(same)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def frozenset_methods_given_bad_arguments_raise_type_error(x):
    p = frozenset("abc")
    raised = []
    for bad in (lambda: p.copy(1), lambda: p.issubset(), lambda: p.union(1), lambda: p.isdisjoint([[]])):
        try:
            bad()
            raised.append(False)
        except TypeError:
            raised.append(True)
    return x + sum(raised), raised


class _Box:
    def size(self):
        return 1


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def a_bound_method_of_a_user_object_has_its_function_names(x):
    method = _Box().size
    return x + method(), method.__name__


HOOKS = {torch.sin, torch._C._set_grad_enabled, "name"}


def _swap_hooks(g):
    g["HOOKS"].discard(torch.sin)
    g["HOOKS"].add(torch.cos)


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=mutate_with(_swap_hooks, "swap sin for cos")),
      compiles="C.C")
def a_set_of_functions_from_outside_is_guarded_item_by_item(x):
    if torch.sin in HOOKS:
        return x.sin()
    return x.cos() + len(HOOKS)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def isdisjoint_stops_at_the_first_common_item(x):
    pulled = []

    def gen(values):
        for v in values:
            pulled.append(v)
            yield v

    disjoint = {2, 4, 5}.isdisjoint(gen([1, 2, 3]))
    return x * len(pulled), disjoint, pulled


@case(AGAINST_EAGER, call(T(3)), call(T(3)), compiles="C.")
def issuperset_stops_at_the_first_missing_item(x):
    # Dynamo 2.13 runs the generator to its end here (pulled == [1, 7, 2]); CPython stops at 7
    pulled = []

    def gen(values):
        for v in values:
            pulled.append(v)
            yield v

    superset = {1, 2}.issuperset(gen([1, 7, 2]))
    return x * len(pulled), superset, pulled


@case(AGAINST_EAGER, call(T(3)), call(T(3)), compiles="C.")
def a_set_stands_for_its_frozenset_when_looked_up(x):
    # Dynamo 2.13's discard() leaves the item in (len 2); CPython retries the set as a frozenset
    s = {frozenset("ab"), "c"}
    found = {"a", "b"} in s
    s.discard({"a", "b"})
    return x + int(found), len(s)


test_set_methods = parametrize(CASES)
test_set_methods_against_eager = parametrize_against_eager(AGAINST_EAGER)
