"""What the rewritten code stages at a return or a graph break, and so what it guards: a value
returned as it came, the items a returned container's constant check looks at, the frame's cells
and the cells of closures from outside, a torch.Size.  Tracer-only and fast (the code generator's
mutation selection runs them per mutant); the counts written here are Dynamo's, checked against it
in `test_diff_fuzz_found.py` and `test_reconstruct.py` (dynamic=False: each guarded int recompiles)."""
import copy

import pytest
import torch

import tracer


@pytest.fixture(autouse=True)
def _reset():
    tracer.reset()
    yield
    tracer.reset()


def entries_over(fn, calls):
    """The frame's cache entries after each call of `calls` (argument tuples), each call's result
    checked against eager's."""
    opt = tracer.compile(fn, dynamic=False)
    for args in calls:
        want, got = fn(*args), opt(*args)
        assert repr(got) == repr(want), (got, want)
    return opt.cache_entries


# ---- a returned value: an int from outside the trace never looked at is not guarded ----------------

def returns_a_tensor_and_an_int_argument(x, n):
    return x + 1, n


def returns_two_int_arguments_before_a_tensor(x, n, m):
    return x + 1, (n, m, x)


def returns_an_int_argument_after_a_tensor(x, n):
    return x + 1, (x, n)


def test_an_int_argument_returned_as_it_came_is_not_guarded():
    entries = entries_over(returns_a_tensor_and_an_int_argument, [(torch.ones(2), n) for n in (1, 2, 3)])
    assert len(entries) == 1


def test_a_returned_tuples_constant_check_looks_at_every_leading_constant():
    """(n, m, x) is asked whether it is a constant: n and m are looked at (guarded), so a new m recompiles."""
    entries = entries_over(returns_two_int_arguments_before_a_tensor, [(torch.ones(2), 1, m) for m in (1, 2, 3)])
    assert len(entries) == 3


def test_a_returned_tuples_constant_check_stops_at_its_first_tensor():
    entries = entries_over(returns_an_int_argument_after_a_tensor, [(torch.ones(2), n) for n in (1, 2, 3)])
    assert len(entries) == 1


# ---- a torch.Size rebuilt ----------------------------------------------------------------------------

def returns_a_size(x):
    return x.shape, x + 1


def keeps_a_size_across_a_break(x):
    s, y = x.shape, x + 1
    print("", end="")
    return s, y


@pytest.mark.parametrize("fn", [returns_a_size, keeps_a_size_across_a_break])
def test_a_symbolic_size_comes_back_as_a_torch_size(fn):
    """dynamic=True: the size is the trace's own SizeVariable of symbols, rebuilt by calling torch.Size
    (a static shape is a plain constant)."""
    opt = tracer.compile(fn, dynamic=True)
    size, y = opt(torch.ones(2, 3))
    assert type(size) is torch.Size and size == (2, 3) and torch.equal(y, torch.full((2, 3), 2.0))
    assert opt.cache_entries[0].eager_reason is None and opt.cache_entries[0].graphs


# ---- the frame's own cells at a graph break ----------------------------------------------------------

def breaks_before_a_closure_over_an_argument(x, n):
    y = x * 2
    print("", end="")

    def add(t):
        return t + n
    return add(y)


def breaks_after_writing_a_cell_next_to_an_argument_cell(x, a):
    total = x + 1  # `total` is a cell (the closure below reads it), after the argument cell `a`
    print("", end="")

    def get():
        return total + a
    return get()


def test_an_argument_cell_the_trace_never_reads_is_passed_on_unguarded_at_a_break():
    """The first frame compiles once over three n (as Dynamo's: only the resume function reads n)."""
    entries = entries_over(breaks_before_a_closure_over_an_argument, [(torch.ones(2), n) for n in (1, 2, 3)])
    assert len(entries) == 1


def test_a_cell_written_before_a_break_reaches_the_resume_function_after_an_unread_argument_cell():
    entries = entries_over(breaks_after_writing_a_cell_next_to_an_argument_cell,
                           [(torch.ones(2), a) for a in (1, 2, 3)])
    assert len(entries) == 1


def drops_a_closure_over_an_argument_with_an_effect(x, n, out):
    def add(t):
        return t + n
    out.append(1)  # a side effect: the return stages the cells it must (none here)
    return x * 2


def test_a_dropped_closures_argument_cell_is_not_staged_at_a_return_with_effects():
    entries = entries_over(drops_a_closure_over_an_argument_with_an_effect,
                           [(torch.ones(2), n, []) for n in (1, 2, 3)])
    assert len(entries) == 1


# ---- cells of closures from outside, reached with no source ------------------------------------------

def make_counter():
    k = 0

    def bump():
        nonlocal k
        k += 1
        return k

    def peek():
        return k
    return bump, peek


BUMP, PEEK = make_counter()


def peeks_through_a_copy(x, out):
    out.append(1)  # a side effect: the return stages what it must (the outside cell only read: nothing)
    return x + copy.deepcopy(PEEK)()  # deepcopy returns the function itself, but no source reaches it


def bumps_through_a_copy(x):
    return x + copy.deepcopy(BUMP)()


def test_a_closure_from_outside_that_the_trace_only_reads_compiles():
    BUMP.__closure__[0].cell_contents = 4
    opt, out = tracer.compile(peeks_through_a_copy), []
    assert torch.equal(opt(torch.zeros(2), out), torch.full((2,), 4.0)) and out == [1]
    assert opt.cache_entries[0].eager_reason is None and opt.cache_entries[0].graphs


def test_a_closure_variable_written_through_a_function_no_source_reaches_runs_the_frame_eagerly():
    BUMP.__closure__[0].cell_contents = 0
    opt = tracer.compile(bumps_through_a_copy)
    assert torch.equal(opt(torch.zeros(2)), torch.ones(2)) and PEEK() == 1  # eager's answer, written once
    assert opt.cache_entries[0].eager_reason == ("assigning the closure variable 'k' of a function "
                                                 "the rewritten code cannot reach")
