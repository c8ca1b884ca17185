"""Differential cases found by running PyTorch-style Dynamo tests (small functions compiled whole
with a counting backend) through both engines: the constructs where Standin differed."""
import collections
import functools
import operator

import numpy as np
import torch

from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(4, 3)), call(T(4, 3)), call(T(2, 3, dtype=torch.float64)), compiles="C.C")
def tensor_new_with_a_shape_is_empty_of_that_shape(x):
    # a Size or ints name a shape; a list is data to copy
    shaped = x.new(x.size()).fill_(2.0)
    by_ints = x.new(2, 5).zero_()
    from_data = x.new([1.0, 2.0])
    return shaped + x, by_ints.shape, from_data * 3


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def operator_length_hint_of_each_item(x):
    lengths = tuple(map(operator.length_hint, [tuple(range(i)) for i in range(4)]))
    return x * sum(lengths), lengths, operator.length_hint((1, 2), 7)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def list_repeated_with_the_count_on_the_left(x):
    parts = 3 * [x]
    more = 2 * (x, 1)
    return sum(parts), len(more), more[2] + 1



@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def hasattr_on_a_partial_answers_from_its_type(x):
    p = functools.partial(torch.add, other=x)
    names = ("__eq__", "__reduce__", "__doc__", "__class__", "__setattr__", "func", "__name__", "__code__")
    return p(x), [hasattr(p, name) for name in names]


@case(CASES, call(T(3), T(3)), call(T(3), T(3)), call(T(3, dtype=torch.float64), T(3)), compiles="C.C")
def tensor_type_names_fold_and_type_classes_convert(a, b):
    half = a.type(torch.HalfTensor)
    return b.type(half.type()), a.type(), a.type("torch.DoubleTensor"), half.type() == "torch.HalfTensor"


COUNTS = collections.defaultdict(int)
ORDERED = collections.OrderedDict(a=1.0)
FACTORIES = collections.defaultdict(lambda: 5)


@case(CASES, call(T(3)), call(T(3)), call(T(3)), state=lambda: (dict(COUNTS), dict(ORDERED), dict(FACTORIES)))
def outside_defaultdict_and_ordereddict_change_in_place(x):
    COUNTS["n"] += 1  # a missing key: int() first
    ORDERED["b"] = ORDERED["a"] + COUNTS["n"]
    return x * COUNTS["n"] + FACTORIES["k"] + len(ORDERED), list(ORDERED)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def in_stops_at_the_first_match_before_any_tensor(x):
    # as CPython: items compared in order, so a match ahead of the tensor never compares with it
    items = [1, 2, 3, x]
    return x * (3 in items), 9 not in [4, 5], "b" in ("a", "b", x)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def dict_keys_views_compare_as_sets(x):
    d = {3: x, 4: x + 1}
    other = {4: "b", 3: 2}
    return x + 1, d.keys() == other.keys(), d.keys() != {3}, {3, 4} == d.keys(), d.keys() == {3: 0}.keys()


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def tensor_class_name_in_an_f_string(x):
    label = f"{x.__class__.__name__} of {x.shape[0]}"
    return x + 1 if label.startswith("Tensor") else x - 1, label, x.__class__ is torch.Tensor


IS_RESERVED = frozenset({"class", "def"}).__contains__
SEPARATOR = ", ".join


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def bound_methods_of_a_frozenset_and_a_string_fold(x):
    # the way collections.namedtuple checks its field names
    names = [n for n in ("x", "class", "y") if not IS_RESERVED(n)]
    return x * len(names), SEPARATOR(names)


@case(CASES, call(T(3), np.iinfo(np.int16)), call(T(3), np.iinfo(np.int16)), call(T(3), np.iinfo(np.int32)),
      call(T(3), np.iinfo(np.int32)), compiles="C.C.")
def numpy_type_info_argument_is_guarded_by_its_dtype(x, info):
    # np.iinfo(...) makes a new object each call, equal to no other: its dtype says what it is
    return x + info.max, info.bits


@case(CASES, call({"a": T(3)}), call({"a": T(3)}), compiles="C.")
def hasattr_on_a_dict_names_only_what_dict_has(d):
    # a dict argument walked like a tensor-or-mapping: `.to` is missing, `.items` is there
    if hasattr(d, "to"):
        return d.to("cpu")
    return torch.cos(d["a"]) if hasattr(d, "items") else d, hasattr(d, "keys"), hasattr(d, "shape")


@case(CASES, call(T(4)), call(T(4)), compiles="C.")
def operator_is_with_a_tensor_is_identity(x):
    y = x.add_(1)  # in place: y is x
    return [op(-10, x) for op in (operator.is_, operator.is_not)], operator.is_(y, x), operator.is_not(x + 1, x)


test_pt_style = parametrize(CASES)
