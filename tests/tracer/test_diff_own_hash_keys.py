"""Objects whose class has its own __hash__ as set items and dict keys, compared with Dynamo.

Dynamo traces the class's __hash__ and tells keys apart by identity; so does Standin
(tracer/variables/key_hashes.py). Two different objects with equal hashes would need the class's own
__eq__, which Python calls and Dynamo does not (it answers by identity: a KeyError where eager finds
the key): Standin breaks the graph there, naming __eq__, and the frame gives eager's answer.
Looking a function up among the ones Standin answers itself (polyfills, builtins) is by identity
too, so a user's __hash__ or __eq__ never runs at trace time where Python would not run it.
"""
import dataclasses

import pytest
import torch

import tracer
from differential import T, call, case, parametrize, parametrize_against_eager

CASES: list = []
AGAINST_EAGER: list = []  # where Dynamo 2.13 runs a user's __hash__ at trace time: compared with eager only


class Point:
    """A class with its own __hash__ and __eq__."""

    def __init__(self, x):
        self.x = x

    def __hash__(self):
        return hash(self.x)

    def __eq__(self, other):
        return isinstance(other, Point) and self.x == other.x


class Tag:
    """Its own __hash__, object's __eq__: keys told apart by identity in Python too."""

    def __init__(self, name):
        self.name = name

    def __hash__(self):
        return len(self.name)


@dataclasses.dataclass(frozen=True)
class Spec:
    scale: int
    name: str


P = Point(2)
HASHES: list = []


class Counted:
    """A __hash__ with a side effect: how often Python hashes shows in HASHES."""

    def __hash__(self):
        HASHES.append("hash")
        return 7

    def __call__(self, x):
        return x + 1


COUNTED = Counted()


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def own_hash_objects_as_keys_of_a_dict(x):
    a, b = Point(1), Point(2)
    d = {a: 2, b: 3}
    d[a] = 4
    return x * d[a] + d[b], len(d), a in d, [k.x for k in d]


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def own_hash_objects_in_a_set(x):
    a, b = Tag("ab"), Tag("cd")  # equal hashes, object's __eq__: two items
    s = {a, b}
    s.add(a)
    return x + len(s), a in s, b in s, Tag("ab") in s


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def a_frozen_dataclass_as_a_key(x):
    spec = Spec(2, "w")
    d = {spec: x * spec.scale}
    return d[spec] + 1, spec in d, hash(spec) == hash((2, "w"))


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def an_own_hash_object_from_outside_as_a_key(x):
    d = {P: x, "k": 1}
    return d[P] * P.x + d["k"], P in d, hash(P)


BY_POINT = {P: 2, Point(3): 5, "k": 1}


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def a_dict_from_outside_keyed_by_own_hash_objects(x):
    total = x + BY_POINT[P]
    for key, value in BY_POINT.items():
        if isinstance(key, Point):
            total = total * key.x + value
    return total, len(BY_POINT)


class MinusOne:
    def __hash__(self):
        return -1  # CPython makes it -2 (-1 is its C error value)


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def hash_of_an_own_hash_object(x):
    return x + hash(Point(5)) + hash(Tag("abc")), hash(Spec(1, "a" * 40))


@case(AGAINST_EAGER, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def a_hash_of_minus_one_is_minus_two(x):  # Dynamo 2.13 answers -1
    return x, hash(MinusOne()), {MinusOne(): 1}.popitem()[1]


@case(AGAINST_EAGER, call(T(3)), call(T(3)), compiles="C.", state=lambda: list(HASHES))
def a_callable_object_with_its_own_hash_is_looked_up_by_identity(x):
    return COUNTED(x)  # Dynamo 2.13 hashes it at trace time (HASHES grows); Python never hashes it


test_own_hash_keys = parametrize(CASES)
test_own_hash_keys_against_eager = parametrize_against_eager(AGAINST_EAGER)


def equal_points_as_keys(x):
    return x + {Point(1): 2}[Point(1)]


def test_equal_objects_with_equal_hashes_break_naming_eq():
    """Eager finds the key by Point.__eq__; Dynamo, comparing by identity, raises KeyError. Standin
    breaks naming __eq__ (Unsupported under fullgraph=True) and the frame gives eager's answer."""
    with pytest.raises(tracer.Unsupported, match="Point object: its class's own __eq__ is not traced"):
        tracer.compile(equal_points_as_keys, fullgraph=True)(T(3))
    x = T(3)
    torch.testing.assert_close(tracer.compile(equal_points_as_keys)(x), equal_points_as_keys(x))


class BadHash:
    def __hash__(self):
        return "no"


def bad_hash_key(x):
    try:
        {BadHash(): 1}
    except TypeError as error:
        return x + 1, str(error)
    return x, ""


def test_a_hash_that_is_no_int_raises_cpythons_type_error():
    x = T(3)
    out, text = tracer.compile(bad_hash_key, fullgraph=True)(x)
    torch.testing.assert_close(out, x + 1)
    assert text == bad_hash_key(x)[1] == "__hash__ method should return an integer"


def own_hash_keys_returned(x):
    a = Point(1)
    return {a: x, Point(2): 3}, {a}, a


def test_a_dict_and_set_of_own_hash_objects_are_rebuilt_after_the_trace():
    d, s, a = tracer.compile(own_hash_keys_returned, fullgraph=True)(T(2))
    assert {k.x: v for k, v in d.items() if not isinstance(v, torch.Tensor)} == {2: 3}
    assert list(d)[0] is a and next(iter(s)) is a and a in d and Point(2) in d
