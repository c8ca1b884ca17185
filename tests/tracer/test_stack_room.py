"""Deep recursion: Standin never turns a program that works eagerly into a RecursionError.

Real Dynamo is no oracle here (it raises InternalTorchDynamoError on the 400-deep
helper), so each case compares with eager Python and requires that no internal
error was warned about.  See tracer/stack_room.py.
"""
import contextlib
import io
import sys
import warnings

import pytest
import torch

import tracer
from tracer.exc import InternalTracerWarning
from tracer.stack_room import MAX_NESTED_COMPILED_CALLS


@pytest.fixture(autouse=True)
def _reset():
    tracer.reset()
    yield
    tracer.reset()


def count_down(n):
    return 0 if n == 0 else 1 + count_down(n - 1)


def deep_helper(x):
    return x + count_down(400)


def countdown_with_break(x, n):
    if n == 0:
        return x
    print(n, end=" ")  # a graph break at every level: the recursive call runs compiled, as a frame
    return countdown_with_break(x + 1, n - 1)


def at_depth(depth, thunk):
    return at_depth(depth - 1, thunk) if depth else thunk()


def compiled_run(fn, *args):
    """fn's result and stdout compiled, with every warning an error (an internal error fails the test).

    dynamic=False: with automatic dynamic the int of a recursion through breaks becomes a symbol, one
    cache entry then serves every level, torch's C lookup runs those hits and the nesting limit never
    sees them -- a RecursionError at 700 levels, as real Dynamo raises with dynamic=None (not yet solved)."""
    out = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error", InternalTracerWarning)
        with contextlib.redirect_stdout(out):
            result = tracer.compile(fn, dynamic=False)(*args)
    return result, out.getvalue()


def eager_run(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*args)
    return result, out.getvalue()


def test_a_helper_recursing_400_deep_returns_what_eager_returns():
    x = torch.ones(2)
    torch.testing.assert_close(compiled_run(deep_helper, x)[0], deep_helper(x))


@pytest.mark.parametrize("depth", [100, 400])
def test_a_compiled_call_deep_in_the_stack_returns_what_eager_returns(depth):
    x = torch.ones(2)
    expected = at_depth(depth, lambda: deep_helper(x))
    actual = at_depth(depth, lambda: compiled_run(deep_helper, x)[0])
    torch.testing.assert_close(actual, expected)


def test_a_recursion_through_graph_breaks_runs_plain_below_the_nesting_limit():
    x = torch.zeros(1)
    expected, printed = eager_run(countdown_with_break, x, 700)
    result, compiled_printed = compiled_run(countdown_with_break, x, 700)
    torch.testing.assert_close(result, expected)
    assert compiled_printed == printed


def test_shallow_recursion_through_breaks_still_compiles_each_level():
    opt = tracer.compile(countdown_with_break, dynamic=False)  # static ints: an entry per level
    with contextlib.redirect_stdout(io.StringIO()):
        opt(torch.zeros(1), 3)
    # as Dynamo: one frame for the code, a cache entry per level (n = 3, 2, 1; 0 is inlined)
    frames = [f for f in opt.all_frames() if f.code is countdown_with_break.__code__]
    assert len(frames) == 1 and [e.compile_id for e in frames[0].cache_entries] == ["0/0", "0/1", "0/2"]
    assert MAX_NESTED_COMPILED_CALLS > 3


def test_under_a_low_recursion_limit_the_trace_stops_inlining_with_a_reason():
    def helper(x, n):
        return x if n == 0 else helper(x * 1.5, n - 1)

    def f(x):
        return helper(x, 30)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(_stack()) + 300)
    try:
        opt = tracer.compile(f)
        with warnings.catch_warnings():
            warnings.simplefilter("error", InternalTracerWarning)
            result = opt(torch.ones(2))
    finally:
        sys.setrecursionlimit(limit)
    torch.testing.assert_close(result, f(torch.ones(2)))
    reasons = [e.reason for frame in opt.all_frames() for e in frame.compile_events if e.kind == "graph_break"]
    assert any("tracing cannot go deeper" in reason for reason in reasons)


def _stack():
    frames, frame = [], sys._getframe()
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames
