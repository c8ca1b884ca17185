"""Which keys of a dict from outside a lookup guards: only the key it asked about, as Dynamo.

`d.get(k, default)`, `d.pop(k, default)` of a missing key and `k in d` depend only on whether
`k` is there (a DICT_CONTAINS guard); `len(d)`, iteration and `d.setdefault(k, v)` depend on
the whole key set (DICT_KEYS_MATCH, as Dynamo's).  Each case is called again after a key the
function never names is added (no recompile where Dynamo has none) and after the key it
looks up appears or goes (a recompile, or the old graph would give the old answer).
"""
import collections

from differential import T, call, case, mutate_with, parametrize, parametrize_against_eager

CASES: list = []
# Where real Dynamo 2.13 is wrong: it gives the old answer after the key appears (an object's
# __dict__ read as a dict, a KeyError caught), or loses a key after `d.pop(k)`.  Compared with
# eager and the tracer's own compile pattern.
AGAINST_EAGER: list = []

POP_TABLE = {"a": 1.0}
GET_TABLE = {"a": 1.0}
IN_TABLE = {"a": 1.0}
PRESENT_TABLE = {"a": 1.0}
SETDEFAULT_TABLE = {"a": 1.0}
LEN_TABLE = {"a": 1.0}
ITER_TABLE = {"a": 1.0}
ITEM_TABLE = {"a": 1.0}
DEFAULTS = collections.defaultdict(float, {"a": 1.0})
DEFAULTS_GET = collections.defaultdict(float, {"a": 1.0})
ORDERED = collections.OrderedDict({"a": 1.0})
KEY_ERROR_TABLE = {"a": 1.0}


class Config:
    def __init__(self):
        self.scale = 2.0


CFG = Config()
CFG_IN = Config()


class Holder:
    a = 1.0


class HolderGet:
    a = 1.0


def put(name, key, value=3.0):
    def m(g):
        g[name][key] = value

    return mutate_with(m, f"{name}[{key!r}] = {value}")


def drop(name, key):
    return mutate_with(lambda g: g[name].pop(key), f"{name}.pop({key!r})")


def attr(name, key, value=3.0):
    return mutate_with(lambda g: setattr(g[name], key, value), f"{name}.{key} = {value}")


def global_calls(name, looked_up="k"):
    """First call, an unrelated key added, then the looked-up key added."""
    return (call(T(3)), call(T(3), mutate=put(name, "unrelated")), call(T(3), mutate=put(name, looked_up)))


def arg_calls(looked_up="k"):
    return (call(T(3), {"a": 1.0}), call(T(3), {"a": 1.0, "unrelated": 0.5}),
            call(T(3), {"a": 1.0, looked_up: 2.0}))


@case(CASES, *global_calls("POP_TABLE"), compiles="C.C")
def pop_missing_key_of_a_global(x):
    return x + POP_TABLE.pop("k", 5.0)


@case(CASES, *arg_calls(), compiles="C.C")
def pop_missing_key_of_an_argument(x, d):
    return x + d.pop("k", 5.0)


@case(CASES, *global_calls("GET_TABLE"), compiles="C.C")
def get_missing_key_of_a_global(x):
    return x * GET_TABLE.get("k", 4.0)


@case(CASES, *arg_calls(), compiles="C.C")
def get_missing_key_of_an_argument(x, d):
    return x * d.get("k", 4.0)


@case(CASES, *global_calls("IN_TABLE"), compiles="C.C")
def missing_key_in_a_global(x):
    if "k" in IN_TABLE:
        return x + 1
    return x - 1


@case(CASES, *arg_calls(), compiles="C.C")
def missing_key_in_an_argument(x, d):
    return x + 1 if "k" in d else x - 1


@case(CASES, call(T(3)), call(T(3), mutate=put("PRESENT_TABLE", "unrelated")),
      call(T(3), mutate=drop("PRESENT_TABLE", "a")), compiles="C.C")
def present_key_in_a_global(x):
    return x + 1 if "a" in PRESENT_TABLE else x - 1


@case(CASES, *arg_calls(), compiles="C.C")
def not_in_an_argument(x, d):
    return x + 1 if "k" not in d else x - 1


@case(CASES, call(T(3)), call(T(3), mutate=put("ITEM_TABLE", "unrelated")),
      call(T(3), mutate=put("ITEM_TABLE", "a", 7.0)), compiles="C.C")
def present_item_of_a_global(x):
    return x * ITEM_TABLE["a"]


@case(CASES, *global_calls("SETDEFAULT_TABLE", "a"), compiles="CCC")
def setdefault_of_a_present_key_guards_the_keys(x):
    return x * SETDEFAULT_TABLE.setdefault("a", 9.0)


@case(CASES, *global_calls("LEN_TABLE"), compiles="CCC")
def len_of_a_global_guards_the_keys(x):
    return x + len(LEN_TABLE)


@case(CASES, *global_calls("ITER_TABLE"), compiles="CCC")
def iterating_a_global_guards_the_keys(x):
    for key in ITER_TABLE:
        x = x + len(key)
    return x


@case(CASES, *global_calls("DEFAULTS"), compiles="CCC")
def defaultdict_missing_key_stores_it_and_guards_the_keys(x):
    return x + DEFAULTS["k"]


@case(CASES, *global_calls("DEFAULTS_GET"), compiles="C.C")
def get_missing_key_of_a_defaultdict(x):
    return x + DEFAULTS_GET.get("k", 2.0)


@case(CASES, *global_calls("ORDERED"), compiles="C.C")
def missing_key_in_an_ordered_dict(x):
    return x + 1 if "k" in ORDERED else x - 1


@case(CASES, call(T(3)), call(T(3), mutate=attr("Holder", "unrelated")), call(T(3), mutate=attr("Holder", "k")),
      compiles="CCC")
def key_in_a_class_dict_guards_its_keys(x):
    """A class's __dict__ (a mappingproxy) has its whole key set guarded by a lookup, as Dynamo's."""
    return x + 1 if "k" in Holder.__dict__ else x - 1


@case(CASES, call(T(3)), call(T(3), mutate=attr("HolderGet", "unrelated")), call(T(3), mutate=attr("HolderGet", "k")),
      compiles="CCC")
def get_of_a_class_dict_guards_its_keys(x):
    return x * HolderGet.__dict__.get("k", 2.0)


@case(CASES, *arg_calls(), compiles="CCC")
def key_in_a_dict_the_trace_changed_guards_its_keys(x, d):
    """After a store the answer comes from the trace's entries: the key set is guarded (as Dynamo)."""
    d["z"] = 1.0
    return x + 1 if "k" in d else x - 1


@case(AGAINST_EAGER, call(T(3), {"a": 1.0, "k": 2.0}), call(T(3), {"a": 1.0, "k": 2.0, "unrelated": 0.5}),
      call(T(3), {"a": 1.0, "k": 4.0}), compiles="CCC")
def pop_of_a_present_key_guards_the_keys(x, d):
    """Dynamo guards only the popped value and its replay then drops the unrelated key; the key set is guarded."""
    return x + d.pop("k")


@case(AGAINST_EAGER, *global_calls("KEY_ERROR_TABLE"), compiles="C.C")
def key_error_of_a_missing_key(x):
    try:
        return x + KEY_ERROR_TABLE["k"]
    except KeyError:
        return x - 1


@case(AGAINST_EAGER, call(T(3)), call(T(3), mutate=attr("CFG", "unrelated")), call(T(3), mutate=attr("CFG", "k")),
      compiles="C.C")
def get_missing_key_of_an_object_dict(x):
    return x * CFG.__dict__.get("k", 4.0) * CFG.scale


@case(AGAINST_EAGER, call(T(3)), call(T(3), mutate=attr("CFG_IN", "unrelated")), call(T(3), mutate=attr("CFG_IN", "k")),
      compiles="C.C")
def missing_key_in_an_object_dict(x):
    return x + 1 if "k" in CFG_IN.__dict__ else x - 1


test_dict_guards = parametrize(CASES)
test_object_dict_guards = parametrize_against_eager(AGAINST_EAGER)
