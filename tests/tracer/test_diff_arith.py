"""Differential cases: arithmetic / unary / comparison ops on tensors and constants."""

import re

import torch

from differential import T, call, case, check_case, Case, parametrize, set_attr, set_global

CASES: list = []


class Cfg:
    def __init__(self, scale):
        self.scale = scale


cfg = Cfg(2)
K = 5
UNUSED = 0
W = T(4, 3)
B = T(3)


# the seed example: a global object's attribute is specialized; changing it recompiles
@case(CASES, call(T(3), 1), call(T(3), 1), call(T(3), 1, mutate=set_attr("cfg.scale", 3)),
      call(T(3), 1), compiles="C.C.")
def arith_seed_cfg_scale(x, n):
    return x * cfg.scale + n


@case(CASES, call(T(3), T(3)), call(T(3), T(3)), call(T(2, 3), T(2, 3)), compiles="C.C")
def arith_binops(x, y):
    return (x + y) * (x - y) / 2 - x ** 2 + (-y) + x % 3 + y // 2


@case(CASES, call(T(4)), call(T(4, dtype=torch.float64)), compiles="CC")
def arith_inplace_on_intermediate(x):
    y = x * 1
    y += 2
    y *= x
    y -= 1
    y /= 4
    return y


@case(CASES, call(T(3), 2), call(T(3), 2), call(T(3), 7), compiles="C.C")
def arith_int_arg_specialized(x, n):
    return x * n + n ** 2 - n // 2


@case(CASES, call(T(2, 2)), call(T(2, 2)), compiles="C.")
def arith_constant_folding(x):
    k = (3 + 4) * 2 // 3 % 5
    m = 2 ** 3 - k * 1.5
    return x * k - m, k, m


@case(CASES, call(T(5), T(5)), call(T(5), T(5)), compiles="C.")
def arith_compare_ops(x, y):
    return x > 0, x <= y, x == y, (x != 0).float() + (y >= x).float(), x < 0.5


@case(CASES, call(torch.tensor([1, 2, 3, 12]), torch.tensor([5, 6, 7, 8])),
      call(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([3, 3], dtype=torch.int32)),
      compiles="CC")
def arith_bitwise_int_tensors(a, b):
    return a & b, a | b, a ^ b, ~a, a << 1, b >> 1


@case(CASES, call(T(3), 0.5), call(T(3), 0.5), call(T(3), 1.5), compiles="C.C")
def arith_float_arg(x, s):
    return x * s + s * 2.0


@case(CASES, call(T(2, 4)), call(T(2, 4)), call(T(2, 4), mutate=set_global("K", 9)),
      call(T(2, 4), mutate=set_global("UNUSED", 17)), compiles="C.C.")
def arith_global_tensors_and_int(x):
    return (x @ W + B) * K


@case(CASES, call(T(3)), call(T(3), mutate=set_global("UNUSED", 5)),
      call(T(3), mutate=set_attr("cfg.other", 1)), compiles="C..")
def arith_unread_mutations_no_recompile(x):
    return abs(-x) + x.neg() * K


test_arith = parametrize(CASES)


def test_seed_recompile_reason_names_cfg_scale():
    """The seed example: recompile after cfg.scale = 3 names G['cfg'].scale."""
    c = Case(arith_seed_cfg_scale, [call(T(3), 1), call(T(3), 1, mutate=set_attr("cfg.scale", 3))],
             compiles="CC")
    res = check_case(c)
    assert cfg.scale == 2, "mutation was not undone"
    assert res.tracer.calls[1].kinds == ["recompile"]
    reason, = res.tracer.calls[1].reasons
    # the guard, the value it expected, the value now, and the line that installed it
    assert re.fullmatch(r"recompile: \d+/0: G\['cfg'\]\.scale == 2, got 3  # .*test_diff_arith\.py:\d+ "
                        r"in arith_seed_cfg_scale: return x \* cfg\.scale \+ n", reason), reason
    # Dynamo names the same guard
    assert [r.split(": ", 1)[1] for r in res.dynamo.calls[1].reasons] == ["G['cfg'].scale == 2"]
