"""A generator made in the trace and returned from it: rebuilt as Dynamo rebuilds it, an iterator
over what it had left to yield (the rest of its body run at the return, in the graph), so the
frame compiles with Dynamo's graph instead of running eagerly.  When the rest of the body would
do something visible (a side effect, an in-place op) the generator is not run early: the caller
sees the effects as the items are asked for, as in eager Python."""
import pytest
import torch
import torch._dynamo

import tracer

LOG: list = []


def counting(compiler, fn):
    ops: list = []

    def backend(gm, example_inputs):
        ops.append([str(n.target) for n in gm.graph.nodes if n.op.startswith("call")])
        return gm.forward

    torch._dynamo.reset()
    tracer.reset()
    return compiler(fn, backend=backend), ops


def three_items(t):
    yield t + 1
    yield t * 2
    yield t.sin()


def return_unstarted(t):
    return three_items(t)


def return_advanced(t):
    gen = three_items(t)
    next(gen)
    return gen


def return_exhausted(t):
    gen = three_items(t)
    for _ in range(3):
        next(gen)
    return gen, t.cos()


def return_two_in_a_tuple(t):
    first, second = three_items(t), three_items(t + 1)
    return (first, second), first


def consumed(value):
    """The items of every iterator in a returned value (what a caller would see)."""
    if isinstance(value, (list, tuple)):
        return [consumed(v) for v in value]
    if hasattr(value, "__next__"):
        return tuple(value)
    return value


@pytest.mark.parametrize("fn", [return_unstarted, return_advanced, return_exhausted])
def test_a_returned_generator_yields_what_eager_yields_with_dynamos_graph(fn):
    t = torch.randn(3)
    expected = consumed(fn(t))
    ours, our_ops = counting(tracer.compile, fn)
    theirs, dynamo_ops = counting(lambda f, backend: torch.compile(f, backend=backend, fullgraph=True), fn)
    got, dynamo_got = consumed(ours(t)), consumed(theirs(t))
    torch.testing.assert_close(got, expected)
    torch.testing.assert_close(dynamo_got, expected)
    assert our_ops == dynamo_ops and len(our_ops) == 1


def test_one_generator_returned_twice_is_one_iterator():
    t = torch.randn(3)
    ours, ops = counting(tracer.compile, return_two_in_a_tuple)
    (first, second), again = ours(t)
    assert again is first
    torch.testing.assert_close(list(first), [t + 1, t * 2, t.sin()])
    torch.testing.assert_close(list(second), [t + 2, (t + 1) * 2, (t + 1).sin()])
    assert len(ops) == 1


def logs_between_items(t):
    yield t + 1
    LOG.append("second")
    yield t + 2


def adds_in_place_between_items(t):
    yield t + 1
    t.add_(1)
    yield t


@pytest.mark.parametrize("make", [logs_between_items, adds_in_place_between_items])
def test_a_generator_whose_rest_has_effects_is_not_run_at_the_return(make):
    def fn(t):
        gen = make(t)
        next(gen)
        return gen

    LOG.clear()
    t = torch.zeros(2)
    ours, _ = counting(tracer.compile, fn)
    gen = ours(t)
    assert LOG == [] and torch.equal(t, torch.zeros(2))  # nothing of the rest has run yet
    assert len(list(gen)) == 1
    assert (LOG, t.tolist()) == ((["second"], [0.0, 0.0]) if make is logs_between_items else ([], [1.0, 1.0]))
