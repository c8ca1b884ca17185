"""Set operations on dict views, traced into one graph as Dynamo traces them: `d.keys()` and
`d.items()` are set-like (`&`, `|`, `-`, `^` give a new set; the other side may be any iterable),
`.values()` is not.
"""

from differential import T, call, case, parametrize

CASES: list = []
CONFIG = {"lr": 0.1, "momentum": 0.9, "decay": 0.0}


@case(CASES, call(T(3)), compiles="C")
def keys_and_a_set(x):
    d = {"a": 1, "b": 2, "c": 3}
    common = d.keys() & {"a", "c", "z"}
    return x * len(common), sorted(common)


@case(CASES, call(T(3)), compiles="C")
def keys_or_sub_xor(x):
    d = {"a": x, "b": x + 1}
    union = d.keys() | ["q"]
    missing = {"a", "q"} - d.keys()
    either = d.keys() ^ {"a", "y"}
    return d["a"] * len(union) + len(missing), sorted(union), sorted(missing), sorted(either)


@case(CASES, call(T(3)), compiles="C")
def items_and_a_set(x):
    d = {"a": 1, "b": 2}
    same = d.items() & {("a", 1), ("b", 5)}
    return x + len(same), sorted(same)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def keys_of_a_global_dict(x):
    known = CONFIG.keys() & {"lr", "beta"}
    return x * len(known) + CONFIG["lr"], sorted(known)


@case(CASES, call(T(3)), compiles="C")
def keys_of_a_dict_with_tensor_keys(x):
    y = x + 1
    d = {x: 1, y: 2}
    left = d.keys() - {x}
    return [t * 2 for t in left]


test_dict_views = parametrize(CASES)
