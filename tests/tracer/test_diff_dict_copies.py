"""A dict from outside read whole through a copy, a conversion or its text.

`dict(d)`, `d.copy()`, `f"{d}"`, `str(d)`, `e.update(d)` and friends read every key
of `d`; the copy they make is the trace's own dict and carries no source, so the
key set must be guarded where it was read.  Each case calls with a key added and
then removed (arguments) or mutates a global dict between calls; Dynamo
recompiles, and without the guard the old graph returns the old answer.
"""
import collections
import functools

from differential import T, call, case, mutate_with, parametrize, parametrize_against_eager

CASES: list = []

ONE, TWO, OTHER = {"a": 1.0}, {"a": 1.0, "b": 2.0}, {"b": 2.0}
KEY_SETS = (ONE, TWO, OTHER)
TABLE = {"a": 1.0, "b": 2.0}


def arg_calls():
    """The same function called with a key added, then the first key gone."""
    return [call(T(3), dict(d)) for d in KEY_SETS] + [call(T(3), dict(ONE))]


def table(change, desc):
    return mutate_with(lambda g: change(g["TABLE"]), desc)


def global_calls():
    return (call(T(3), mutate=table(lambda t: t.pop("c", None), "TABLE.pop('c')")), call(T(3)),
            call(T(3), mutate=table(lambda t: t.__setitem__("c", 3.0), "TABLE['c'] = 3.0")),
            call(T(3), mutate=table(lambda t: t.pop("a"), "TABLE.pop('a')")))


@case(CASES, *arg_calls(), compiles="CCC.")
def dict_of_an_argument(x, d):
    c = dict(d)
    return x + len(c)


@case(CASES, *arg_calls(), compiles="CCC.")
def copy_of_an_argument_returned(x, d):
    c = d.copy()
    return x * len(c), c


@case(CASES, *arg_calls(), compiles="CCC.")
def len_of_a_copy(x, d):
    return x + len(d.copy())


@case(CASES, *arg_calls(), compiles="CCC.")
def copy_then_setdefault(x, d):
    c = d.copy()
    return x * c.setdefault("b", 5.0)


@case(CASES, *arg_calls(), compiles="CCC.")
def dict_then_pop_with_default(x, d):
    c = dict(d)
    return x + c.pop("a", 7.0) + len(c)


@case(CASES, *arg_calls(), compiles="CCC.")
def update_an_empty_dict(x, d):
    e = {}
    e.update(d)
    return x + len(e)


@case(CASES, *arg_calls(), compiles="CCC.")
def ordered_dict_of_an_argument(x, d):
    return x + len(collections.OrderedDict(d))


@case(CASES, *global_calls(), compiles="C.CC")
def copy_of_a_global_iterated(x):
    for k, v in TABLE.copy().items():
        x = x + v * len(k)
    return x


@case(CASES, *global_calls(), compiles="C.CC")
def dict_of_a_global_keys_counted(x):
    return x * len(dict(TABLE))


def scaled(x, a=1.0, b=0.0):
    return x * a + b


SCALED = functools.partial(scaled, a=2.0)


def keywords(change, desc):
    return mutate_with(lambda g: change(g["SCALED"].keywords), desc)


@case(CASES, call(T(3), mutate=keywords(lambda k: k.pop("b", None), "SCALED.keywords.pop('b')")), call(T(3)),
      call(T(3), mutate=keywords(lambda k: k.__setitem__("b", 5.0), "SCALED.keywords['b'] = 5.0")),
      compiles="C.C")
def partial_whose_keywords_gain_one(x):
    return SCALED(x)


test_dict_copies = parametrize(CASES)


# ---- where Dynamo 2.13 itself returns the stale text: compared with eager only ----------------
AGAINST_EAGER: list = []


@case(AGAINST_EAGER, *arg_calls(), compiles="CCC.")
def formatted_into_an_f_string(x, d):
    return x + len(f"{d}")


@case(AGAINST_EAGER, *arg_calls(), compiles="CCC.")
def str_of_an_argument(x, d):
    return x + len(str(d))


@case(AGAINST_EAGER, *arg_calls(), compiles="CCC.")
def repr_of_an_argument(x, d):
    return x + len(repr(d))


@case(AGAINST_EAGER, *[call(T(3), [dict(d)]) for d in KEY_SETS], call(T(3), [dict(ONE)]), compiles="CCC.")
def str_of_a_list_holding_a_dict(x, ds):
    return x + len(str(ds))


test_dict_text_against_eager = parametrize_against_eager(AGAINST_EAGER)
