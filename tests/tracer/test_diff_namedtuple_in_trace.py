"""Differential cases: namedtuple classes made inside the compiled function.

`collections.namedtuple(...)` with constant arguments is called at trace time, as Dynamo calls it:
the class is a constant of the trace, its instances tuples with names (fields, `_replace`,
unpacking), alive at a graph break too.  A class statement (a `typing.NamedTuple` subclass, or any
class) breaks the graph at `__build_class__` as in Dynamo, and its body runs as it is: class bodies
are never compiled (their names live in a namespace, not in a frame's locals).

Where Dynamo is not eager: its class's `__module__` is Dynamo's own module (Standin's is the
calling function's, as eager's), compared with eager only.  Like Dynamo, Standin makes the class
once, when it traces: every call's instances share it (eagerly each call makes a new class).
"""
import collections
import typing

import torch

import tracer
from differential import T, call, case, parametrize, parametrize_against_eager
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
AGAINST_EAGER: list = []
BREAKS: list = []


@case(CASES, call(T(3), T(3)), call(T(3), T(3)), compiles="C.", fullgraph=True)
def namedtuple_made_and_used(a, b):
    Point = collections.namedtuple("Point", "x y")
    p = Point(a, b + 1)
    return p.x + p.y, tuple(p), p[1], type(p).__name__, isinstance(p, tuple), len(p)


@case(CASES, call(T(3), T(3)), call(T(3), T(3)), compiles="C.", fullgraph=True)
def namedtuple_with_defaults_replace_and_unpacking(a, b):
    Pair = collections.namedtuple("Pair", ["x", "y"], defaults=[3])
    p = Pair(a)
    q = p._replace(x=b)
    x, y = q
    d = q._asdict()
    d["x"] = d["x"] + 1
    return p.x * p.y, q.x, p._fields, x * y, Pair._fields, d, list(d)


@case(CASES, call(T(3), T(3)), compiles="C", fullgraph=True)
def namedtuple_replace_of_an_unknown_field_raises(a, b):
    Pair = collections.namedtuple("Pair", "x y")
    try:
        Pair(a, b)._replace(z=1)
    except ValueError as error:
        return a + 1, str(error)
    return a


@case(AGAINST_EAGER, call(T(3), T(3)), call(T(3), T(3)), compiles="C.")
def namedtuple_module_is_the_callers(a, b):
    Point = collections.namedtuple("Point", "x y")
    return a * 2, Point.__module__, Point(a, b).__class__.__module__


@break_case(BREAKS, call(T(3), T(3)), call(T(3), T(3)), compiles="C.")
def namedtuple_alive_at_a_break(a, b):
    Point = collections.namedtuple("Point", "x y")
    p = Point(a, b + 1)
    print("break")
    q = Point(p.y, p.x)
    return p.x + p.y, q.x, type(q).__name__, type(p) is type(q)


@break_case(BREAKS, call(T(3), T(3)), call(T(3), T(3)), compiles="C.")
def typing_namedtuple_subclass_defined_in_the_function(a, b):
    class Point(typing.NamedTuple):
        x: torch.Tensor
        y: int = 2
    p = Point(a)
    x, y = p
    return x * y + p[0]


@break_case(BREAKS, call(T(3)), call(T(3)), compiles="C.")
def class_whose_body_names_torch_defined_in_the_function(a):
    class Scaled:
        scale = torch.tensor(2.0)

        def apply(self, t):
            return t * self.scale
    return Scaled().apply(a) + 1


test_namedtuple_in_trace = parametrize(CASES)
test_namedtuple_in_trace_against_eager = parametrize_against_eager(AGAINST_EAGER)
test_namedtuple_in_trace_breaks = parametrize_breaks(BREAKS)


def test_a_returned_instance_is_of_the_class_made_when_traced():
    """Returned, an instance is eager's tuple with eager's names; its class is the one made at trace
    time, shared by every call, as Dynamo's (eagerly each call has its own)."""
    def make(a):
        Point = collections.namedtuple("Point", "x y")
        return Point(a, a + 1)

    tracer.reset()
    compiled = tracer.compile(make, fullgraph=True)
    a = T(3)
    first, second, eager = compiled(a), compiled(a), make(a)
    assert type(first).__name__ == "Point" and type(first)._fields == ("x", "y")
    assert type(first).__module__ == type(eager).__module__
    torch.testing.assert_close(tuple(first), tuple(eager))
    assert type(first) is type(second)
