"""Bugs the random-program fuzzer (fuzz_run.py) found, one small case each.

Each case is the reduced program, rewritten by hand where that made it clearer.
"""
import warnings

import pytest
import torch
from differential import T, call, case, parametrize, parametrize_against_eager, set_attr
from differential_breaks import break_case, parametrize_breaks

import tracer

CASES: list = []


@case(CASES, call(T(3), {"a": 1.0}), call(T(3), {"a": 1.0, "b": 2.0}), compiles="CC")
def del_of_a_missing_key_is_caught(x, d):
    try:
        del d["b"]
    except KeyError as e:
        return x + len(e.args)
    return x - 1


# ---- an attribute that is missing: what answered "no" is guarded, so gaining it recompiles ----

class Bare:
    pass


class BareChild(Bare):
    pass


class Scaled:
    def __mul__(self, other):
        return 2


BARE = Bare()
BARE_CHILD = BareChild()


def _fallback(self, name):
    return 4.0


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("Bare.zz", 4.0)), compiles="C.C")
def getattr_default_while_the_class_lacks_it(x):
    return x * getattr(BARE, "zz", 1.0)


@case(CASES, call(T(3)), call(T(3), mutate=set_attr("Bare.yy", 4.0)), compiles="CC")
def hasattr_while_a_base_lacks_it(x):
    return x + hasattr(BARE_CHILD, "yy")


@case(CASES, call(T(3)), call(T(3), mutate=set_attr("BareChild.__getattr__", _fallback)), compiles="CC")
def hasattr_while_the_class_has_no_getattr(x):
    return x + hasattr(BARE_CHILD, "ww")


@case(CASES, call(T(3)), call(T(3), mutate=set_attr("Scaled.__rmul__", lambda self, other: 5)), compiles="CC")
def hasattr_of_a_class_that_gains_the_method(x):
    return x + hasattr(Scaled, "__rmul__")


# seed 300174: a float from a dict argument changes, so the recompile makes it symbolic (dynamic=None); the
# frame returns it as it came: it was staged as a graph output the emitted code never collected
@case(CASES, call(T(3), {"a": 1.0, "b": 2.0}), call(T(3), {"b": 2.0, "a": 0.5}), call(T(3), {"b": 2.0, "a": 0.7}),
      compiles="CC.", dynamic=None)
def a_symbolic_float_returned_as_it_came(x, d):
    y = x * d["b"]
    return d["a"], {**d, "z": 1.0}, y


# ---- fuzz_families (nested 2): an int argument returned as it came does not specialise the frame; Dynamo
# keeps it lazy (unguarded) at the return, unless its codegen asks a container holding it whether it is a
# constant, which looks at the items in order up to the first that is not one ----

@case(CASES, call(T(3), 1), call(T(3), 2), call(T(3), 3), compiles="C..")
def an_int_argument_returned_as_it_came(x, n):
    return x + 1, n


@case(CASES, call(T(3), 1), call(T(3), 2), call(T(3), 3), compiles="C..")
def an_int_argument_returned_after_a_tensor_in_a_tuple(x, n):
    return x + 1, (x, n), {"t": x, "n": n}


@case(CASES, call(T(3), 1), call(T(3), 2), call(T(3), 3), compiles="CCC")
def an_int_argument_returned_first_in_a_tuple(x, n):
    return x + 1, (n, x)


@case(CASES, call(T(3), 1, 0.5, "a"), call(T(3), 2, 1.5, "b"), compiles="C.")
def a_float_and_a_str_argument_returned_as_they_came(x, n, s, name):
    return x * 2, s, name, n


# fuzz_families (dynamic 25): F.pad's C++ kernel read the sizes of a symbolic fake as ints, which specialised
# them (a recompile per size under dynamic=True); Dynamo runs ops on fakes through the Python dispatcher
@case(CASES, call(T(2, 4)), call(T(4, 4)), call(T(5, 4)), compiles="C..", dynamic=True, same_placeholders=True)
def a_composite_op_on_symbolic_sizes(x):
    return torch.nn.functional.pad(x, (1, 0))[:, 1:] + 1


@case(CASES, call(T(2, 4)), call(T(4, 4)), call(T(5, 4)), compiles="CC.", dynamic=None, same_placeholders=True,
      name="a_composite_op_on_sizes_that_change")
def a_composite_op_on_sizes_that_change(x):
    return torch.nn.functional.pad(x, (0, 2), value=1.0) * x.shape[0]


# fuzz_families (containers 37): clear() of a global dict guarded its keys, so the emptied dict failed the
# guard on the next call (Dynamo guards only its type)
STORE = {"a": 1.0, "b": 2.0}


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=lambda g: g["STORE"].update(c=3.0)), compiles="C..",
      state=lambda: dict(STORE))
def clear_of_a_global_dict(x):
    STORE.clear()
    return x + 1


# fuzz_families2 (hf 6): one config object read through two modules is one tracker, named by the source it was
# first reached under; a flag changed on it names that source in the recompile reason, as Dynamo's
class SharedConfig:
    def __init__(self):
        self.on = True
        self.scale = 0.5


class ConfiguredInner(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config

    def forward(self, x):
        return x * self.config.scale


class ConfiguredOuter(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.inner = ConfiguredInner(config)

    def forward(self, x):
        if self.config.on:
            return self.inner(x) + 1
        return x


SHARED_CONFIG = SharedConfig()
CONFIGURED = ConfiguredOuter(SHARED_CONFIG)


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("SHARED_CONFIG.scale", 2.0)), compiles="C.C")
def a_config_shared_by_two_modules_changed_between_calls(x):
    return CONFIGURED(x)


# fuzz_families2 (sizes 7): `not` of a symbolic size expression is a graph node (a symbolic bool), as Dynamo
# records it (returned, it is then specialised, so the other parity recompiles)
@case(CASES, call(T(4, 3)), call(T(3, 3)), call(T(8, 3)), compiles="CCC", dynamic=None, same_placeholders=True)
def not_of_a_size_expression(x):
    b = not x.shape[0] % 2
    return x * 2, b


# fuzz_families2 (sizes 103, 104, 110, 115, 117): sum() of a list of ints and symbolic sizes is one
# torch.sym_sum node, as Dynamo records it, not a chain of additions
@case(CASES, call(T(4, 3), 1), call(T(3, 3), 1), call(T(5, 3), 1), compiles="CC.", dynamic=None,
      same_placeholders=True)
def sum_of_a_list_of_sizes(x, n):
    k = sum([x.shape[0], x.shape[1], n])
    return x * k, k


# fuzz_families2 (sizes 109): bool() of a symbolic size expression is a symbolic bool (`!= 0`), as Dynamo
# records it, not a specialisation: a tensor op then takes it as it is
@case(CASES, call(T(4, 3)), call(T(3, 3)), call(T(6, 3)), compiles="CC.", dynamic=None, same_placeholders=True)
def bool_of_a_size_expression(x):
    b = bool(x.shape[0] % 2)
    return x + b


# fuzz_families (classes 64, 70): a plain class attribute an instance reads from a base is guarded where the
# MRO finds it (type(o).__mro__[1].__dict__['factor']), as Dynamo, so changing it there names that guard
class Factored:
    factor = 2.0


class FactoredChild(Factored):
    pass


FACTORED = FactoredChild()


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("Factored.factor", 3.0)), compiles="C.C")
def a_base_class_attribute_changed_between_calls(x):
    return x * FACTORED.factor


# Dynamo 2.13 guards no absence in the instance's own class there (it keeps 2.0): eager is the reference
AGAINST_EAGER: list = []


@case(AGAINST_EAGER, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("FactoredChild.factor", 5.0)),
      compiles="C.C")
def a_child_class_gains_the_attribute_a_base_had(x):
    return x * FACTORED.factor


test_fuzz_found_against_eager = parametrize_against_eager(AGAINST_EAGER)


test_fuzz_found = parametrize(CASES)

BREAK_CASES: list = []


@break_case(BREAK_CASES, call(T(3), 1), call(T(3), 1), call(T(3), 2), compiles="C..")
def an_int_argument_returned_by_a_resume_function(x, n):
    t = x * 1
    print("at")
    return t * 2, n


# fuzz_families (nested 35): an argument a closure reads lives in a cell; at a graph break the cell the trace
# never looked at was staged again from its tracker, which guarded the argument in the root frame
@break_case(BREAK_CASES, call(T(3), 1), call(T(3), 1), call(T(3), 2), compiles="C..")
def an_argument_in_a_cell_passed_over_a_break(x, n):
    t = x * 1
    print("at")
    return (lambda v: v + n)(t)


@break_case(BREAK_CASES, call(T(3), 1), call(T(3), 1), call(T(3), 2), compiles="C.C",
            name="a_closure_made_before_a_break_over_an_argument")
def a_closure_made_before_a_break_over_an_argument(x, n):
    t = x * 1
    f = lambda v: v + n  # noqa: E731 - the closure is the point
    print("at")
    return f(t)


@break_case(BREAK_CASES, call(T(3), 1), call(T(3), 1), call(T(3), 2), compiles="C.C")
def an_argument_cell_assigned_before_a_break(x, n):
    n = n + 1
    print("at")
    return (lambda v: v + n)(x)


# fuzz_families (bad 3): an exception no handler in the frame catches makes no graph, and the frame runs
# eagerly from then on (Dynamo skips it), even for arguments that would not raise
TABLE = {"a": 1.0}


@break_case(BREAK_CASES, call(T(3), 0), call(T(3), 1), call(T(3), 1), call(T(3), 2), compiles="CC..",
            breaks=None, raises=True)
def a_raise_no_handler_catches(x, n):
    t = x * 2
    if n == 1:
        raise ValueError(f"bad n {n}")
    return t + 1


@break_case(BREAK_CASES, call(T(3), 0), call(T(3), 1), call(T(3), 2), compiles="CC.", breaks=None, raises=True)
def a_missing_key_no_handler_catches(x, n):
    t = x.sin()
    if n == 1:
        t = t + TABLE["b"]
    return t + 1


# fuzz_families (bad 39, bad 62): a failing assert was a graph break of its own; it raises AssertionError as
# any raise does (caught by a handler in the frame: one graph; uncaught: the frame runs eagerly, as Dynamo).
# Compiled from text: pytest rewrites the asserts of a test module.
exec(compile('''
def an_assert_no_handler_catches(x, n):
    t = x * 2
    if n:
        assert n > 100, f"n is {n}"
    return t + 1


def an_assert_caught_in_the_frame(x, n):
    t = x * 2
    try:
        assert n > 100, f"n is {n}"
    except Exception as e:
        t = t + len(str(e))
    return t + 1
''', __file__ + ":asserts", "exec"))
break_case(BREAK_CASES, call(T(3), 0), call(T(3), 1), call(T(3), 1), call(T(3), 2), compiles="CC..", breaks=None,
           raises=True)(an_assert_no_handler_catches)  # noqa: F821 - defined by the exec above
break_case(BREAK_CASES, call(T(3), 0), call(T(3), 1), call(T(3), 1), call(T(3), 2), compiles="CC.C",
           breaks=False)(an_assert_caught_in_the_frame)  # noqa: F821


# fuzz_families (bad 61): a recursion 50 calls deep inside a try is inlined whole into one graph, as Dynamo
# inlines it (its only bound is Python's recursion limit); a depth limit of 32 broke the graph inside the try,
# so the frame ran eagerly and every level was compiled on its own until the cache limit
def recurse(k, t):
    if k <= 0:
        return t
    return recurse(k - 1, t + 1)


@break_case(BREAK_CASES, call(T(3), 1), call(T(3), 1), compiles="C.", breaks=False)
def a_recursion_fifty_calls_deep_inside_try(x, n):
    t = x * 2
    try:
        t = recurse(50, t)
    except KeyError as e:
        t = t + len(str(e))
    return t + n


test_fuzz_found_breaks = parametrize_breaks(BREAK_CASES)


def del_of_a_missing_key_escapes(x, d):
    del d["b"]
    return x


def test_del_of_a_missing_key_raises_the_programs_key_error():
    tracer.reset()
    opt = tracer.compile(del_of_a_missing_key_escapes)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tracer.InternalTracerWarning)  # it was an internal error
        with pytest.raises(KeyError, match="'b'"):
            opt(torch.ones(2), {"a": 1.0})


# ---- found by probing beside the fuzzer; real Dynamo answers these wrong too, so eager is the oracle ----

ORDERED = __import__("collections").OrderedDict(a=1.0, b=2.0)


def first_key_of_an_ordered_dict(x):
    return x + (list(ORDERED)[0] == "a") + len(ORDERED)


def test_an_ordered_dict_reordered_between_calls_is_read_in_its_new_order():
    tracer.reset()
    opt = tracer.compile(first_key_of_an_ordered_dict)
    x = torch.ones(2)
    torch.testing.assert_close(opt(x), first_key_of_an_ordered_dict(x))
    ORDERED.move_to_end("a")  # the order OrderedDict iterates changes; the dict under it does not
    try:
        torch.testing.assert_close(opt(x), first_key_of_an_ordered_dict(x))
        torch.testing.assert_close(opt(x), first_key_of_an_ordered_dict(x))
        assert len(opt.cache_entries) == 2  # one per order, not a recompile on every call
    finally:
        ORDERED.move_to_end("b")


class Formatted:
    def __str__(self):
        return "ab"


FORMATTED = Formatted()


def f_string_of_a_user_object(x):
    return x + len(f"{FORMATTED}")  # str() while the class has no __format__ of its own


def test_an_f_string_sees_a_format_method_the_class_gains_between_calls():
    tracer.reset()
    opt = tracer.compile(f_string_of_a_user_object)
    x = torch.ones(2)
    torch.testing.assert_close(opt(x), x + 2)
    Formatted.__format__ = lambda self, spec: "abcdefg"
    try:
        torch.testing.assert_close(opt(x), f_string_of_a_user_object(x))
    finally:
        del Formatted.__format__
    torch.testing.assert_close(opt(x), x + 2)


# ---- a class that gains a special method between calls (real Dynamo keeps the old answer too) ----

class Gains:
    def __repr__(self):
        return "G"


class GainsDict(dict):
    pass


GAINS, OTHER, GAINS_DICT = Gains(), Gains(), GainsDict(a=1)


def equal_objects(x):
    return x + (GAINS == OTHER) + 2 * (GAINS != OTHER)


def str_through_repr(x):
    return x + len(str(GAINS))


def stored_attribute(x):
    GAINS.val = 2.0
    return x * GAINS.val


def dict_subclass_item(x):
    return x + GAINS_DICT["a"]


def _store_tripled(self, name, value):
    object.__setattr__(self, name, value * 3)


@pytest.mark.parametrize("fn, name, method", [
    (equal_objects, "__eq__", lambda self, other: True),
    (equal_objects, "__ne__", lambda self, other: False),
    (str_through_repr, "__str__", lambda self: "0123456789"),
    (stored_attribute, "__setattr__", _store_tripled),
], ids=lambda v: v if isinstance(v, str) else getattr(v, "__name__", ""))
def test_a_special_method_the_class_gains_between_calls_is_used(fn, name, method):
    tracer.reset()
    opt = tracer.compile(fn)
    x = torch.ones(2)
    torch.testing.assert_close(opt(x), fn(x))
    setattr(Gains, name, method)
    try:
        torch.testing.assert_close(opt(x), fn(x))
    finally:
        delattr(Gains, name)
    torch.testing.assert_close(opt(x), fn(x))


def test_a_dict_subclass_that_gains_getitem_between_calls_uses_it():
    tracer.reset()
    opt = tracer.compile(dict_subclass_item)
    x = torch.ones(2)
    torch.testing.assert_close(opt(x), x + 1)
    GainsDict.__getitem__ = lambda self, key: 10
    try:
        torch.testing.assert_close(opt(x), x + 10)
    finally:
        del GainsDict.__getitem__


# ---- fuzz_families (containers 29, classes 5): a list or sum() that raises at trace time raised our own
# error (an internal error, the frame eager) instead of the program's ----

STACK: list = []


def del_of_a_missing_index(x):
    del STACK[0]
    return x


def store_past_the_end(x, lst):
    lst[5] = 1.0
    return x


def store_with_a_str_index(x, lst):
    lst["a"] = 1.0
    return x


def pop_of_an_empty_list(x, lst):
    return x + lst.pop()


def insert_with_a_str_index(x, lst):
    lst.insert("a", 1)
    return x


def sum_of_a_tuple_holding_a_tuple(x):
    return x + sum((1, 1.0, ()))


@pytest.mark.parametrize("fn, args", [
    (del_of_a_missing_index, ()), (store_past_the_end, ([1.0],)), (store_with_a_str_index, ([],)),
    (pop_of_an_empty_list, ([],)), (insert_with_a_str_index, ([],)), (sum_of_a_tuple_holding_a_tuple, ()),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_list_or_sum_that_raises_at_trace_time_raises_the_programs_error(fn, args):
    x = torch.ones(2)
    with pytest.raises(Exception) as expected:
        fn(x, *args)
    tracer.reset()
    opt = tracer.compile(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tracer.InternalTracerWarning)
        with pytest.raises(type(expected.value)) as got:
            opt(x, *args)
    assert got.value.args == expected.value.args
