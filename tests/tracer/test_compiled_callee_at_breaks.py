"""A tracer.compile'd function the compiled one calls is inlined; left to run at a graph break (a
break inside it) it is called as the wrapper it is, so its own cache entries and its own backend
compile it, as Dynamo runs a torch.compile'd callee there. Compared with Dynamo's counts."""
import torch
from torch._dynamo.testing import CompileCounter

import tracer


def _inner(x):
    y = x * 2
    print("inner break")
    return y + 1


def _run(compile_fn):
    inner_counter, outer_counter = CompileCounter(), CompileCounter()
    inner = compile_fn(_inner, backend=inner_counter)

    def outer(x):
        return inner(x + 1) - 1

    out = compile_fn(outer, backend=outer_counter)(torch.ones(2))
    return out, inner, (inner_counter.frame_count, inner_counter.op_count), \
        (outer_counter.frame_count, outer_counter.op_count)


def test_a_compiled_callee_left_to_run_at_a_break_goes_through_its_own_wrapper(capsys):
    tracer.reset()
    out, inner, inner_counts, outer_counts = _run(tracer.compile)
    torch._dynamo.reset()
    want, _, dynamo_inner, dynamo_outer = _run(torch.compile)
    torch.testing.assert_close(out, want)
    assert (inner_counts, outer_counts) == (dynamo_inner, dynamo_outer) == ((2, 2), (2, 2))
    assert [e.compile_id.split("/")[1] for e in inner.cache_entries] == ["0"]  # its own entry, its own call
    assert len(inner.calls) == 1 and inner.last_call is not None


def test_a_recursive_compiled_call_leaves_call_again_the_outermost_arguments():
    def down(x, n):
        if n == 0:
            return x * 2
        print("level", n)
        return compiled(x + 1, n - 1)

    compiled = tracer.compile(down)
    compiled(torch.ones(2), 2)
    args, _ = compiled.last_call
    assert args[1] == 2
