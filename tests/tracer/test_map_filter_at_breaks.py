"""A map or filter object still alive at a graph break is made again after the graph, as
Dynamo rebuilds it: `map(fn, *iterators)` over what its iterators have left, one object however
many names hold it.  The frame before the break compiles its graph instead of running eagerly.

The resume function meets the rebuilt object as one from outside; like Dynamo 2.13, which has no
tracker for a map or filter from outside, it breaks where it uses it (the object runs for real).
"""
import itertools

import pytest
import torch

import tracer
from differential_breaks import T, break_case, call, parametrize_breaks


def map_half_consumed(x):
    m = map(lambda t: t * 2, [x, x + 1])
    first = next(m)
    print("break")
    return first + sum(m)


def map_under_two_names(x):
    m = map(lambda t: t * 2, [x, x + 1])
    n = m
    print("break")
    return next(m) + next(n)  # one object: the second next() gets the second item


def map_over_two_iterables(x):
    m = map(lambda a, b: a * b, [x, x + 1], (2, 3))
    print("break")
    return list(m)


def filter_with_none(x):
    f = filter(None, [0, 1, 2])
    print("break")
    return x * sum(f)


@pytest.mark.parametrize("fn", [map_half_consumed, map_under_two_names, map_over_two_iterables, filter_with_none])
def test_a_lazy_iterator_alive_at_a_break_is_rebuilt(fn, capsys):
    opt = tracer.compile(fn)
    x = torch.randn(3)
    torch.testing.assert_close(opt(x), fn(x))
    root = opt.cache_entries[0]
    assert root.eager_reason is None, root.eager_reason
    assert "print()" in root.graph_break.reason


def count_alive_at_a_break(x):
    c = itertools.count(3)
    print("break")
    return x * next(c)


def test_an_endless_counter_alive_at_a_break_runs_the_frame_eagerly_with_a_reason(capsys):
    opt = tracer.compile(count_alive_at_a_break)
    x = torch.randn(3)
    torch.testing.assert_close(opt(x), count_alive_at_a_break(x))
    assert "count object alive at a graph break" in (opt.cache_entries[0].eager_reason or "")


# Against Dynamo: it has no tracker for a map or filter from outside either ("missing tp_iter"), so its
# resume function breaks where it uses the rebuilt object, as ours does: the same graphs.
BREAKS: list = []
for _fn in (map_half_consumed, map_over_two_iterables, filter_with_none):
    break_case(BREAKS, call(T(3)), call(T(3)), compiles="C.")(_fn)

test_the_resume_function_breaks_where_dynamo_does = parametrize_breaks(BREAKS)
