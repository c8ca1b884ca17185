"""What a missing key reads in a Counter or a dict subclass with `__missing__`, as Dynamo.

A collections.Counter from outside the function is read and counted into as a dict.

A missing key reads 0 (Counter's __missing__), the key set guarded (as Dynamo guards a dict
subclass's keys), so the call after the key appears recompiles instead of answering 0 again;
counts written by the trace are written back into the caller's Counter after the graph.
A dict subclass's own `__missing__` answers a missing key, whether the object comes from
outside or is made in the trace, as dict's C `__getitem__` asks the class for it.
"""
import collections

from differential import T, call, case, mutate_with, parametrize

CASES: list = []

TALLY = collections.Counter()
SEEN = collections.Counter({"relu": 2, "gelu": 1})
UPDATED = collections.Counter({"a": 1})
READ = collections.Counter({"a": 3, "b": 1})


def bump(name, key, by=1):
    def m(g):
        g[name][key] += by

    return mutate_with(m, f"{name}[{key!r}] += {by}")


@case(CASES, call(T(3)), call(T(3)), call(T(3)), compiles="CCC", state=lambda: dict(TALLY))
def count_into_a_global_counter(x):
    TALLY["calls"] += 1
    return x * TALLY["calls"]


@case(CASES, call(T(3)), call(T(3), mutate=bump("SEEN", "unrelated")), call(T(3), mutate=bump("SEEN", "tanh")),
      compiles="CCC")
def missing_key_of_a_counter_reads_zero(x):
    return x + SEEN["tanh"] + SEEN["relu"]


@case(CASES, call(T(3)), call(T(3)), state=lambda: dict(UPDATED))
def update_of_a_global_counter(x):
    UPDATED.update(["a", "b", "b"])
    return x * UPDATED["b"]


@case(CASES, call(T(3)), call(T(3), mutate=bump("READ", "b", 5)), compiles="CC")
def total_and_values_of_a_global_counter(x):
    return x * READ.total() + max(READ.values())


@case(CASES, call(T(3), collections.Counter({"x": 2})), call(T(3), collections.Counter({"x": 2, "y": 1})))
def counter_argument_iterated(x, counts):
    for key, n in counts.items():
        x = x * n + len(key)
    return x


class Fallback(dict):
    def __missing__(self, key):
        return len(key) * 10


class Memo(dict):
    def __missing__(self, key):
        self[key] = value = len(key)
        return value


FALLBACK = Fallback(a=1)


@case(CASES, call(T(3)), call(T(3), mutate=mutate_with(lambda g: g["FALLBACK"].update(bb=2), "FALLBACK['bb'] = 2")),
      compiles="CC")
def missing_key_of_a_dict_subclass_from_outside(x):
    return x * FALLBACK["bb"] + FALLBACK["a"]


@case(CASES, call(T(3)))
def missing_key_of_a_dict_subclass_made_in_the_trace(x):
    memo = Memo()
    return x * memo["abc"] + memo["abc"] + len(memo), dict(memo)


class Doubling(dict):
    def __getitem__(self, key):
        return 2 * dict.__getitem__(self, key)


class Registry(collections.abc.Mapping):
    def __init__(self, **entries):
        self._entries = entries

    def __getitem__(self, key):
        return self._entries[key] + 1

    def __iter__(self):
        return iter(self._entries)

    def __len__(self):
        return len(self._entries)


@case(CASES, call(T(3)))
def dict_of_a_dict_subclass_copies_its_items(x):
    copied = dict(Doubling(a=1.0, b=2.0))  # CPython's fast path: the class's __getitem__ is not asked
    return x * copied["a"] + copied["b"], Doubling(c=3.0)["c"]


@case(CASES, call(T(3)))
def dict_of_a_mapping_asks_keys_and_getitem(x):
    copied = dict(Registry(a=1.0, b=2.0))
    return x * copied["a"] + copied["b"], sorted(copied)


test_missing_keys = parametrize(CASES)
