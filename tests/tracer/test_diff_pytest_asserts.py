"""Functions written in a pytest test module, as PyTorch's own tests are: pytest rewrites their
asserts, and the rewritten code keeps intermediate values in locals named `@py_assert1`, which
no Python signature can name. A graph break with such a local alive hands it to the resume function."""
from __future__ import annotations

import torch

from differential import T, call
from differential_breaks import break_case, parametrize_breaks

CASES = []


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def a_break_inside_a_rewritten_assert(x):
    y = x + 1
    assert y.sum().item() > -100, "a tensor's value, read for the assert: a graph break"
    return y * 2


@break_case(CASES, call(T(3)), call(T(4)))
def a_rewritten_assert_then_a_break(x):
    y = x * 2
    assert y.shape[0] in (3, 4)
    print("between the assert and the rest")
    return torch.relu(y)


test_breaks = parametrize_breaks(CASES)


def test_pytest_rewrote_these_asserts_into_locals_no_signature_can_name():
    for fn in (a_break_inside_a_rewritten_assert, a_rewritten_assert_then_a_break):
        assert any(name.startswith("@py_assert") for name in fn.__code__.co_varnames), fn.__name__
