"""Dict methods and operators as CPython runs them, compared with Dynamo.

Found running PyTorch's own dict tests through both engines: a dict method called with too
few arguments crashed the tracer (IndexError), with too many it ran anyway (`d.copy(1)`,
`{}.update({}, {})` raised nothing: a wrong answer), and `|` of dicts holding tensors,
`__ior__`, `popitem`, `move_to_end`, `(k, v) in d.items()`, `v in d.values()` and the
comparisons of key and item views broke the graph.
"""
import collections
import functools


from differential import T, call, case, parametrize

CASES: list = []


def _type_error(fn):
    try:
        fn()
    except TypeError:
        return True
    return False


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def wrong_argument_counts_raise_type_error(x):
    d = {"a": 1}
    calls = (lambda: d.get(), lambda: d.pop(), lambda: d.setdefault(), lambda: d.copy(1), lambda: d.keys(1),
             lambda: d.items(1), lambda: d.clear(1), lambda: d.update({}, {}), lambda: d.update(1),
             lambda: d.get("a", 1, 2))
    raised = [_type_error(fn) for fn in calls]
    return x + sum(raised), raised, d


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def union_of_dicts_holding_tensors_keeps_the_right_values(x):
    a = {"one": x, "two": x * 2}
    b = {"two": x + 1, "three": x - 1}
    c = a | b
    ordered = collections.OrderedDict(a) | b
    reflected = b | collections.OrderedDict(a)  # dict | OrderedDict is an OrderedDict (its __ror__)
    return c, list(c), type(ordered).__name__, type(reflected).__name__, list(reflected)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def in_place_union_takes_pairs_and_gives_the_dict(x):
    d = {"a": x}
    d |= [("b", x + 1)]
    same = d.__ior__({"c": x * 2}) is d
    return d, same


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def popitem_takes_the_last_entry_and_move_to_end_reorders(x):
    d = {"a": x, "b": x + 1}
    key, value = d.popitem()
    od = collections.OrderedDict.fromkeys("abcd")
    first = od.popitem(last=False)
    od.move_to_end("b")
    od.move_to_end("d", last=False)
    return value * 2, key, d, first, list(od)


STATE = {"first": 1, "second": 2}


@case(CASES, call(T(3)), call(T(3)), compiles="CC", state=lambda: dict(STATE))
def popitem_of_a_dict_from_outside_is_replayed(x):
    key, value = STATE.popitem()
    STATE[key + "!"] = value
    return x * value


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def item_and_value_views_answer_in(x):
    d = {"a": 1, "b": 2}
    with_tensor = {"a": 1, "t": x}
    return (x + 1, ("a", 1) in d.items(), ("a", 2) in d.items(), ("z", 1) in d.items(), 2 in d.values(),
            3 in d.values(), 1 in with_tensor.values(), ("a", 1) in with_tensor.items())


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def key_and_item_views_compare_as_sets(x):
    d1, d2 = {"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3}
    s = {"a", "b", "c"}
    return (x + 1, d1.items() == d2.items(), d1.items() <= d2.items(), d1.items() < d2.items(),
            d1.keys() < s, d2.keys() >= s, d2.keys() > d1.keys(), d1.keys() != d1.items())


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def dicts_with_different_keys_are_unequal_whatever_their_tensors(x):
    a, b = {"one": x}, {"two": x}
    same_tensor = {"one": x}
    return x + 1, a == b, a.__eq__(b), dict.__ne__(a, b), a == same_tensor, next(a.__iter__())


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def a_builtin_method_has_a_name(x):
    return x + 1, dict.fromkeys.__name__, len.__name__, dict.__name__


def _add(a, b):
    return a + b


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def a_partial_made_in_the_trace_is_a_key_by_identity(x):
    one, other = functools.partial(_add, b=1), functools.partial(_add, b=1)
    table = {one: 5}
    table[other] = 7  # equal parts, another object: another key
    return x * table[one] + table[other], len(table), one in {one}, other in {one}


test_dict_methods = parametrize(CASES)
