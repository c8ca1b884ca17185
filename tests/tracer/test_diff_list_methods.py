"""List and tuple methods as CPython runs them, compared with Dynamo.

Found running PyTorch's own list tests through both engines: a method called with too few
arguments crashed the tracer (`p.append()`, `p.count()`: IndexError), with too many it ran
anyway (`p.copy(1)`), a value not found made the tracer raise ValueError itself
(`p.index("e")`), `del p[1:1:0]` too, and the unbound dunders (`p.__add__(q)`, `p.__eq__(q)`,
`p.__iadd__(q)`, `p.__iter__()`) broke the graph.
"""
from differential import T, call, case, parametrize

CASES: list = []


def _raised(fn, expected=TypeError):
    try:
        fn()
    except expected:
        return True
    return False


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def wrong_argument_counts_raise_type_error(x):
    p = list("abc")
    calls = (lambda: p.append(), lambda: p.count(), lambda: p.insert(1), lambda: p.copy(1), lambda: p.clear(1),
             lambda: p.extend(1), lambda: p.pop(1, 2), lambda: p.__setitem__(1), lambda: (1, 2).count())
    raised = [_raised(fn) for fn in calls]
    return x + sum(raised), raised, p


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def missing_values_and_zero_steps_raise_value_error(x):
    p = list("abc")
    raised = [_raised(lambda: p.index("e"), ValueError), _raised(lambda: ("a",).index("e"), ValueError),
              _raised(lambda: p.remove("x"), ValueError), _raised(lambda: p.__delitem__(slice(1, 1, 0)), ValueError)]
    return x + sum(raised), raised, p


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def unbound_dunders_of_lists_and_tuples(x):
    p, q = list("ab"), list("abc")
    joined = p.__add__(q)
    grown = p.__iadd__(q)
    first = next(q.__iter__())
    doubled = q.__imul__(2)
    t = (1, 2)
    return (x + len(joined), joined, grown is p, doubled is q, q, first, p.__eq__(q), q.__lt__(p),
            p.__contains__("a"), t.__mul__(2), t.__add__((3,)), _raised(lambda: t.__mul__(2.5)),
            _raised(lambda: p.__add__((1,))))


ITEMS = ["a", "b"]


@case(CASES, call(T(3)), call(T(3)), compiles="CC", state=lambda: list(ITEMS))
def in_place_multiply_of_a_list_from_outside(x):
    ITEMS.__imul__(2)
    return x * len(ITEMS)


test_list_methods = parametrize(CASES)
