"""Constructors Dynamo traces: `torch.Tensor(...)` (and `type(x)(x)`) is a graph node, as in Dynamo's
graph (it had been a user object, rebuilt with object.__new__: a TypeError after the trace);
`complex(...)`, `int.from_bytes`, `float.fromhex` of constants fold."""
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


test_legacy_constructors = parametrize(CASES)
