"""bench/timing.py's GraphKeeper: the graphs a warm compiled call ran, run again alone on the inputs that
call gave them, are the baseline the bench's `overhead` subtracts (so it must be exactly those graphs)."""
import torch

import tracer
from bench.timing import GraphKeeper, paired_ns


def _broken(x):
    y = x.sin() + 1
    print("a break")
    return y.cos() * 2


def test_the_graphs_kept_are_the_ones_the_last_call_ran_with_its_inputs(capsys):
    keeper = GraphKeeper()
    opt = tracer.compile(_broken, backend=keeper, dynamic=False)
    small, large = torch.randn(3), torch.randn(5)
    opt(small)
    opt(large)  # a recompile: two more graphs the next call does not run
    assert len(keeper.graphs) == 4
    keeper.keep_call(lambda: opt(small))
    assert len(keeper.ran) == 2 and keeper.ran[0].last[0] is small
    outputs = []
    for graph in keeper.ran:
        graph.forward = lambda *args, forward=graph.forward: outputs.append(forward(*args))
    keeper.run_graphs()
    assert [o[0].shape for o in outputs] == [torch.Size([3]), torch.Size([3])]
    assert torch.allclose(outputs[1][0], _broken(small))
    tracer.reset()


def test_paired_rounds_time_both_in_every_round_in_alternating_order():
    order = []
    first, second = (lambda: order.append("a")), (lambda: order.append("b"))
    times = paired_ns(first, second, 2, 3)
    assert [len(t) for t in times] == [3, 3] and all(t >= 0 for ts in times for t in ts)
    assert order == ["a", "a", "b", "b", "b", "b", "a", "a", "a", "a", "b", "b"]
