"""Inlining's edges: bad input falls back with a recorded reason, never a wrong result."""
import pytest
import torch

import tracer


@pytest.fixture(autouse=True)
def _reset():
    tracer.reset()
    yield
    tracer.reset()


def eager_reasons(opt):
    """Why frames ran eagerly or broke, across the root frame and the frames compiled from it."""
    return [e.reason for frame in opt.all_frames() for e in frame.compile_events
            if e.kind in ("eager_fallback", "graph_break")]


def test_unbounded_recursion_hits_the_depth_limit_and_runs_eagerly():
    def countdown(x, n):
        return x if n == 0 else countdown(x + 1, n - 1)

    def f(x):
        return countdown(x, 300)

    opt = tracer.compile(f)
    torch.testing.assert_close(opt(torch.zeros(2)), f(torch.zeros(2)))
    # the depth limit, or the room left on the stack when pytest's frames leave less than it needs
    assert "inlining depth limit" in eager_reasons(opt)[0] or "tracing cannot go deeper" in eager_reasons(opt)[0]


def test_a_generator_consumed_in_the_trace_is_inlined_whole():
    def gen(x):
        for i in range(3):
            yield x + i

    def f(x):
        return list(gen(x)), tuple(v * 2 for v in gen(x))

    graphs = []
    opt = tracer.compile(f, backend=lambda gm, ex: graphs.append(gm) or gm.forward)
    torch.testing.assert_close(opt(torch.zeros(2)), f(torch.zeros(2)))
    assert len(graphs) == 1 and eager_reasons(opt) == []


class Meta(type):
    def __getattr__(cls, name):
        return 42


class Dynamic(metaclass=Meta):
    def __getattr__(self, name):
        return 7


DYNAMIC = Dynamic()


def test_class_with_getattr_is_traced_inline():
    """The instance's __getattr__ answers a missing attribute (the metaclass's is for the class)."""
    def f(x):
        return x * DYNAMIC.anything

    opt = tracer.compile(f)
    torch.testing.assert_close(opt(torch.ones(2)), f(torch.ones(2)))
    assert eager_reasons(opt) == [] and len(opt.cache_entries[0].graphs) == 1


def test_break_inside_inlined_call_names_the_user_stack():
    def inner(x):
        print("side effect")
        return x

    def outer(x):
        return inner(x + 1)

    opt = tracer.compile(outer, fullgraph=True)
    with pytest.raises(tracer.Unsupported) as info:
        opt(torch.ones(2))
    stack = info.value.user_stack
    assert [frame.function for frame in stack] == ["outer", "inner"]
    assert "User stack" in str(info.value)


def test_hooks_of_a_module_compiled_directly_run_with_its_graph():
    """As Dynamo: the call inlines nn.Module.__call__, so the hook runs (its append replayed) and one graph is made."""
    calls = []
    module = torch.nn.Linear(2, 2)
    module.register_forward_hook(lambda mod, inp, out: calls.append("hook"))
    opt = tracer.compile(module)
    x = torch.ones(2)
    torch.testing.assert_close(opt(x), module(x))
    assert calls == ["hook", "hook"]
    entries = [entry for frame in opt.all_frames() for entry in frame.cache_entries]
    assert [(entry.eager_reason, len(entry.graphs)) for entry in entries] == [(None, 1)]


def test_submodule_forward_pre_hooks_are_traced_into_the_graph():
    outer = torch.nn.Sequential(torch.nn.Linear(2, 2))
    outer[0].register_forward_pre_hook(lambda mod, inp: (inp[0] * 3,))
    opt = tracer.compile(outer)
    torch.testing.assert_close(opt(torch.ones(2)), outer(torch.ones(2)))
    assert not eager_reasons(opt) and len(opt.cache_entries) == 1


def test_compiled_module_still_answers_as_the_module():
    module = torch.nn.Linear(2, 3)
    opt = tracer.compile(module)
    assert opt.out_features == 3
    assert len(list(opt.parameters())) == 2


def test_inlining_stack_is_visible_to_a_hook():
    seen = []

    class Hook:
        def on_step(self, tx, inst):
            seen.append(tuple(t.code.co_name for t in tx.inlining_stack()))

        def on_inline_enter(self, tx):
            pass

        def on_inline_exit(self, tx):
            pass

    def leaf(x):
        return x * 2

    def mid(x):
        return leaf(x) + 1

    def top(x):
        return mid(x) - 1

    opt = tracer.compile(top)
    opt.hook = Hook()
    opt(torch.ones(2))
    assert ("top", "mid", "leaf") in seen


def test_an_endless_loop_in_traced_code_stops_at_the_instruction_budget(monkeypatch):
    from tracer import symbolic_convert
    monkeypatch.setattr(symbolic_convert, "INSTRUCTION_BUDGET", 5_000)

    def spins(x, n):
        while n > 0:  # n stays positive: the tracer would unroll this forever
            n = n + 1
            if n > 10_000_000:
                break
        return x + 1

    opt = tracer.compile(spins, fullgraph=True)
    with pytest.raises(tracer.Unsupported, match="5,000 instructions without returning"):
        opt(torch.ones(2), 1)
