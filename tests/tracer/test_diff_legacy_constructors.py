"""Constructors and C objects, compared with Dynamo. `torch.Tensor(...)` (and `type(x)(x)`) is a graph
node, as in Dynamo's graph (it had been a user object, rebuilt with object.__new__: a TypeError after
the trace); `complex(...)`, `int.from_bytes`, `float.fromhex` of constants fold; `sys.version_info` is a
constant; an object of a C class Standin cannot model (itertools.cycle) breaks naming it rather than be
rebuilt wrongly."""
import itertools
import sys

import torch

from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def legacy_tensor_constructor(x):
    return type(x)(x) + 1, torch.Tensor(x) * 2, torch.Tensor([1.0, 2.0, 3.0]) + x, torch.Tensor(2, 3).shape


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def complex_and_alternative_constructors_fold(x):
    z = complex(1, 2)
    return x * z.real + abs(3 + 4j), z.imag, int.from_bytes(b"\x01\x02", "little")


def alternative_constructors(x):  # Dynamo 2.13 breaks on these two: checked against eager
    return x + float.fromhex("0x1.8p1"), bytes.fromhex("ff")


def test_float_and_bytes_fromhex_fold():
    import tracer
    x = T(3)
    out, raw = tracer.compile(alternative_constructors, fullgraph=True)(x)
    torch.testing.assert_close(out, x + 3.0)
    assert raw == b"\xff"



@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def sys_version_info_is_a_constant(x):  # its class cannot make instances: it was a TypeError in the trace
    return x + sys.version_info.major, sys.version_info >= (3, 8), sys.version_info[:2], sys.float_info.max > 1


def a_c_iterator_alive_at_a_break(x):
    c = itertools.cycle([1, 2])
    y = x + 1
    print("break")
    return y + next(c) + next(c) + next(c)


def test_a_c_iterator_alive_at_a_break_runs_the_frame_eagerly_naming_it():
    """itertools.cycle(...) alive at a break was rebuilt with object.__new__ after it: a TypeError. It cannot
    be rebuilt, so the frame runs as it is, saying why; Dynamo compiles nothing there either."""
    import tracer
    opt = tracer.compile(a_c_iterator_alive_at_a_break)
    x = T(3)
    torch.testing.assert_close(opt(x), a_c_iterator_alive_at_a_break(x))
    assert [e.eager_reason for e in opt.cache_entries] == ["cannot rebuild the cycle object alive at a graph break"]


test_legacy_constructors = parametrize(CASES)
