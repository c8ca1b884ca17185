"""OrderedDict and dict subclasses, made in the trace or changed from outside before a call, compared
with Dynamo.

An OrderedDict subclass keeps its items as an OrderedDict's (order counts in `==`, `popitem(last=False)`
takes the first, `move_to_end` reorders) and OrderedDict's own C methods run on them.  Changed from
outside in the trace, its items are written back by OrderedDict's C methods in the trace's order.
Both broke before ("call to OD.move_to_end, which the tracer cannot look into"; "changing the items of
an OrderedDict subclass from outside").
"""
import collections

from differential import T, call, case, mutate_with, parametrize, parametrize_against_eager

CASES: list = []
AGAINST_EAGER: list = []  # where Dynamo 2.13 gives a wrong answer: compared with eager only


class Ordered(collections.OrderedDict):
    pass


class Plain(dict):
    pass


ORDERED = Ordered(a=1, b=2, c=3)
PLAIN = Plain(a=1, b=2)


def _move_a_to_end(g):
    g["ORDERED"].move_to_end("a")


def _pop_first(g):
    g["ORDERED"].popitem(last=False)


def _add_key(g):
    g["PLAIN"]["z"] = 9
    g["ORDERED"]["z"] = 9


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def ordered_subclass_made_and_reordered(x):
    d = Ordered(a=1, b=2, c=3)
    d.move_to_end("a")
    d.move_to_end("c", last=False)
    first = d.popitem(last=False)
    last = d.popitem()
    d["q"] = 4
    e = Ordered(b=2, q=4)
    return (x + len(d), list(d), first, last, d == e, d == Ordered(q=4, b=2), d == {"q": 4, "b": 2},
            type(d) is Ordered, list(d.items()))


@case(CASES, call(T(3), Ordered(a=1, b=2)), call(T(3), Ordered(a=1, b=2)), call(T(3), Ordered(b=2, a=1)),
      compiles="C.C", fullgraph=True)
def ordered_subclass_argument_reordered_in_place(x, d):
    d.move_to_end("a", last=False)
    key = d.popitem(last=False)
    d["q"] = 4
    d.move_to_end("b")
    return x + d["b"], list(d), key


@case(CASES, call(T(3), Ordered(a=1)), call(T(3), Ordered(a=1)), compiles="C.", fullgraph=True)
def ordered_subclass_argument_cleared_and_refilled(x, d):
    d.clear()
    d["z"] = 1
    d["y"] = 2
    d.move_to_end("z")
    return x + len(d), list(d)


@case(CASES, call(T(3)), call(T(3), mutate=mutate_with(_add_key, "a key added")), call(T(3)),
      compiles="CC.", fullgraph=True)
def dict_subclass_global_gains_a_key(x):
    return x + PLAIN["a"], list(PLAIN), len(PLAIN)


@case(AGAINST_EAGER, call(T(3)), call(T(3), mutate=mutate_with(_move_a_to_end, "move_to_end('a')")),
      call(T(3)), call(T(3), mutate=mutate_with(_pop_first, "popitem(last=False)")),
      call(T(3), mutate=mutate_with(_add_key, "a key added")), fullgraph=True)
def ordered_subclass_global_changed_between_calls(x):  # Dynamo: list(ORDERED) stale after move_to_end
    return x + ORDERED["c"], list(ORDERED), list(ORDERED.items()), len(ORDERED)


test_dict_subclasses = parametrize(CASES)
test_dict_subclasses_against_eager = parametrize_against_eager(AGAINST_EAGER)
