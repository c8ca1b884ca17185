"""Differential cases: sets and dicts holding tensors -- a tensor is hashed and compared by
identity, so `{t1, t2}`, `t in s`, `s.add(t)`, `d[t]` and dicts keyed by tensors (built, iterated,
alive at a graph break) behave as eagerly."""

from differential import T, call, case, parametrize
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
BREAK_CASES: list = []


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def set_of_tensors(x):
    y = x + 1
    s = {x, y, x}
    return len(s), x in s, (x * 2) in s, y not in s, 3 in s


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def set_add_and_discard_tensors(x):
    s = set()
    s.add(x)
    s.add(x)
    s.add(1)
    y = x * 2
    s.add(y)
    s.discard(x)
    return len(s), y in s, x in s, x + 1


@case(CASES, call(T(3), T(3)), call(T(3), T(3)), compiles="C.")
def unique_parameters_by_identity(a, b):
    seen, total = set(), 0
    for t in [a, b, a, b, a]:
        if t not in seen:
            seen.add(t)
            total = total + t
    return total, len(seen)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def dict_with_tensor_keys(x):
    y = x + 1
    d = {x: 1, y: 2}
    d[x] = 3
    return d[x] * x + d[y] * y, len(d), x in d, (x * 1) in d


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def dict_with_tensor_keys_iterated(x):
    d = {x: 1.5, x + 1: 2.5}
    by_key = [k * v for k, v in d.items()]
    return by_key, [k + 1 for k in d], {t: i for i, t in enumerate([x, x * 2])}[x]


test_tensor_keys = parametrize(CASES)


@break_case(BREAK_CASES, call(T(3)), call(T(3)), compiles="C.")
def tensor_keyed_dict_and_set_alive_at_break(x):
    y = x * 2
    d = {x: "a", y: "b"}
    s = {y}
    print("break")
    return [v + str(len(s)) for v in d.values()], y in s, d[y]


test_tensor_keys_at_breaks = parametrize_breaks(BREAK_CASES)
