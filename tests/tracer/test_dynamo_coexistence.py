"""Standin and real Dynamo compile the same functions in one process, with no reset in between.

torch keeps both engines' cache entries on the same code objects; a lookup in
Standin's region also reads Dynamo's default region.  Each engine must run only
the entries it made: the backends here mark their graphs' outputs (+1000), so an
entry run by the wrong engine shows in the answer, not only in a count.
"""
import pytest
import torch
import torch._dynamo
from differential import CountingBackend

import tracer

MARK = 1000.0


class MarkingBackend(CountingBackend):
    """Counts its graphs, and its compiled graphs answer MARK more than eager: whose code ran shows."""

    def __call__(self, gm, example_inputs):
        super().__call__(gm, example_inputs)

        def marked(*args):
            return [out + MARK for out in gm(*args)]  # every graph here returns tensors

        return marked


@pytest.fixture(autouse=True)
def _reset():
    tracer.reset()
    torch._dynamo.reset()
    yield
    tracer.reset()
    torch._dynamo.reset()


def sine_plus(x):
    return torch.sin(x) + 1


def prints_then_calls(x):
    for i in range(2):
        print("step", i)  # Standin and Dynamo run this frame eagerly, then compile the callee
    return sine_plus(x) * 2


@pytest.mark.parametrize("fn", [sine_plus, prints_then_calls], ids=["root", "callee_of_a_skipped_frame"])
def test_standin_after_dynamo_runs_its_own_entries_never_dynamos(fn, capsys):
    x = torch.randn(4)
    dynamo_backend = MarkingBackend()
    dynamo = torch.compile(fn, backend=dynamo_backend, dynamic=False)
    assert torch.equal(dynamo(x), fn(x) + MARK * (2 if fn is prints_then_calls else 1))
    dynamo_graphs = len(dynamo_backend.graphs)

    standin_backend = CountingBackend()
    standin = tracer.compile(fn, backend=standin_backend)
    for _ in range(2):
        assert torch.equal(standin(x), fn(x))  # Dynamo's entries admit x too: a marked answer is theirs
    assert len(dynamo_backend.graphs) == dynamo_graphs
    assert len(standin_backend.graphs) == 1
    assert [e.hits for frame in standin.all_frames() for e in frame.cache_entries if e.code is not None] == [2]
    assert torch.equal(dynamo(x), fn(x) + MARK * (2 if fn is prints_then_calls else 1))  # Dynamo's still its own


@pytest.mark.parametrize("fn", [sine_plus, prints_then_calls], ids=["root", "callee_of_a_skipped_frame"])
def test_dynamo_after_standin_runs_its_own_entries_never_standins(fn, capsys):
    x = torch.randn(4)
    standin_backend = MarkingBackend()
    standin = tracer.compile(fn, backend=standin_backend)
    assert torch.equal(standin(x), fn(x) + MARK * (2 if fn is prints_then_calls else 1))

    dynamo_backend = CountingBackend()
    dynamo = torch.compile(fn, backend=dynamo_backend, dynamic=False)
    for _ in range(2):
        assert torch.equal(dynamo(x), fn(x))  # Standin's entries admit x too: a marked answer is ours
    assert len(dynamo_backend.graphs) == 1
    assert len(standin_backend.graphs) == 1
    assert torch.equal(standin(x), fn(x) + MARK * (2 if fn is prints_then_calls else 1))


def test_two_standin_roots_of_one_function_run_only_their_own_entries():
    x = torch.randn(4)
    marking, plain = MarkingBackend(), CountingBackend()
    first, second = tracer.compile(sine_plus, backend=marking), tracer.compile(sine_plus, backend=plain)
    assert torch.equal(first(x), sine_plus(x) + MARK)
    assert torch.equal(second(x), sine_plus(x))
    assert torch.equal(first(x), sine_plus(x) + MARK)
    assert (len(marking.graphs), len(plain.graphs)) == (1, 1)
