"""A failing `assert` inside a try block, its AssertionError caught, as Dynamo handles it.

Dynamo cannot compile a partial graph inside a try block, so it runs the frame as the break
harness of test_diff_try_breaks describes: the graph up to the last checkpoint, or the whole
frame eagerly.  A passing assert folds away.

PYTEST_DONT_REWRITE: the asserts of the traced functions must stay plain asserts.
"""
import pytest
import torch

import tracer
from differential_breaks import T, break_case, call, parametrize_breaks

ASSERTS: list = []


@break_case(ASSERTS, call(T(3)), call(T(3)), compiles="C.", breaks=None)
def failing_assert_caught_in_try(x):
    y = x + 1
    try:
        assert y.shape[0] == 5, "not five"
    except AssertionError:
        return y - 1
    return y * 2


@break_case(ASSERTS, call(T(3)), call(T(3)), compiles="C.", breaks=None)
def failing_assert_in_try_after_a_checkpoint(x):
    y = x + 1
    z = y.cos()
    try:
        assert z.dim() == 0
        y = y * 2
    except AssertionError:
        y = y - 1
    return y + z


@break_case(ASSERTS, call(T(3)), call(T(3)), compiles="C.", breaks=False)
def passing_assert_in_try(x):
    y = x + 1
    try:
        assert y.shape[0] == 3, "three"
    except AssertionError:
        return y - 1
    return y * 2


test_failing_asserts_in_try = parametrize_breaks(ASSERTS)


# On purpose: an assert on a tensor breaks the graph (its truth needs the data), where Dynamo records
# torch._assert_async, which raises RuntimeError instead of AssertionError when it fails.
def tensor_assert(x):
    y = x + 1
    assert (y > 0).all(), "not positive"
    return y * 2


def test_a_failing_tensor_assert_raises_assertion_error_as_eager():
    opt = tracer.compile(tensor_assert)
    torch.testing.assert_close(opt(torch.ones(3)), tensor_assert(torch.ones(3)))
    with pytest.raises(AssertionError, match="not positive"):
        opt(-torch.ones(3) * 5)
