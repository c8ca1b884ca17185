"""A collections.Counter from outside the function: read and counted into as a dict, as Dynamo.

A missing key reads 0 (Counter's __missing__), the key set guarded (as Dynamo guards a dict
subclass's keys), so the call after the key appears recompiles instead of answering 0 again;
counts written by the trace are written back into the caller's Counter after the graph.
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


test_counters = parametrize(CASES)
