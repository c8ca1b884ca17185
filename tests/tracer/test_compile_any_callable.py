"""tracer.compile takes what torch.compile takes: a builtin, a partial of one, a class, a generator or
coroutine function, each through a frame that calls it (Dynamo's wrap_inline), with Dynamo's graphs
(a coroutine's own frame is left alone, where Dynamo compiles it)."""
import asyncio
import functools

import pytest
import torch
import torch._dynamo

import tracer


def helper(x):
    return x.cos() + 1


def generator(x):
    yield helper(x)
    yield x * 2


async def coroutine(x):
    return helper(x)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)


def _graphs(compiler, fn, run):
    ops = []

    def backend(gm, example_inputs):
        ops.append([str(n.target) for n in gm.graph.nodes if n.op.startswith("call")])
        return gm.forward

    torch._dynamo.reset()
    tracer.reset()
    return run(compiler(fn, backend=backend)), ops


CALLABLES = {
    "builtin": (torch.sin, lambda c: c(torch.ones(3))),
    "partial of a builtin": (functools.partial(torch.add, other=2), lambda c: c(torch.ones(3))),
    "builtin method": (torch.ones(3).mul, lambda c: c(4)),
    "class": (Net, lambda c: type(c())),
    "generator function": (generator, lambda c: list(c(torch.ones(3)))),
}


@pytest.mark.parametrize("name", list(CALLABLES))
def test_compiles_what_torch_compile_compiles(name):
    fn, run = CALLABLES[name]
    expected = run(fn)
    ours, our_ops = _graphs(tracer.compile, fn, run)
    theirs, their_ops = _graphs(torch.compile, fn, run)
    for got in (ours, theirs):
        if isinstance(expected, type):
            assert got is expected
        else:
            torch.testing.assert_close(got, expected)
    assert our_ops == their_ops


def test_a_coroutine_function_runs_and_awaits_as_it_is():
    """Its own frame is left alone (Dynamo compiles it when the call creates the coroutine): the README."""
    compiled = tracer.compile(coroutine)
    torch.testing.assert_close(asyncio.run(compiled(torch.ones(3))), helper(torch.ones(3)))


def test_a_value_that_is_not_callable_is_refused():
    with pytest.raises(tracer.UserError, match="needs a Python function, got int 3"):
        tracer.compile(3)
