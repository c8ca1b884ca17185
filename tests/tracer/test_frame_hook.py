"""The frame hook around a compiled call: what it compiles, what it leaves, and that it always goes.

Differential cases are in test_diff_frame_hook.py; these check the hook's contract
with torch's eval-frame state, threads, nested compiled functions, and that the
debugger, explain and the API see every frame it compiled.
"""
import threading

import pytest
import torch
import torch._dynamo
from torch._C._dynamo import eval_frame as native

import tracer
from tracer.debug import record

from differential import CountingBackend


@pytest.fixture(autouse=True)
def _reset():
    tracer.reset()
    yield
    tracer.reset()


def square_plus(x):
    return x * x + 1


def loops_then_calls(x):
    for i in range(2):
        print("i", i)
    return square_plus(x)


def test_a_skipped_frames_callee_is_a_frame_of_the_root_with_its_own_entries(capsys):
    opt = tracer.compile(loops_then_calls)
    x = torch.ones(3)
    torch.testing.assert_close(opt(x), loops_then_calls(x))
    opt(x)
    opt(torch.ones(5))
    names = [f.code.co_name for f in opt.all_frames()]
    assert names == ["loops_then_calls", "square_plus"]
    callee = opt.all_frames()[1]
    assert callee.parent is opt and not callee.is_resume
    assert [e.compile_id for e in callee.cache_entries] == ["1/0", "1/1"]
    assert [e.hits for e in callee.cache_entries] == [2, 1]
    assert list(callee.calls) == ["1/0", "1/0", "1/1"]  # each call's entry, a compiling call's the new one
    assert [e.kind for e in callee.compile_events] == ["compile", "recompile"]
    assert "size mismatch" in callee.compile_events[1].reason
    assert opt.cache_entries[0].eager_reason is not None  # the looping frame runs as it is
    assert opt.guard_report().startswith("TREE_GUARD_MANAGER")


def test_explain_and_the_recorder_see_a_frame_the_hook_compiled(capsys):
    report = tracer.explain(loops_then_calls)(torch.ones(3))
    assert report.graph_count == 1
    assert any(key.startswith("square_plus [") for key in report.guards)
    opt = tracer.compile(loops_then_calls)
    recorder = record(opt)
    opt(torch.ones(3))
    assert [(t.frame, t.compile_id) for t in recorder.timelines if t.frame == "square_plus"] == [("square_plus", "1/0")]
    assert opt.all_frames()[1].hook is recorder


def test_the_hook_is_gone_after_a_return_and_after_a_raise():
    assert native.get_eval_frame_callback() is None
    region = native.get_eval_frame_isolate_recompiles_id()
    opt = tracer.compile(square_plus)
    opt(torch.ones(2))
    assert native.get_eval_frame_callback() is None
    assert native.get_eval_frame_isolate_recompiles_id() == region

    def raises(x):
        x = x + 1
        raise KeyboardInterrupt("stop")

    with pytest.raises(KeyboardInterrupt):
        tracer.compile(raises)(torch.ones(2))
    assert native.get_eval_frame_callback() is None
    assert native.get_eval_frame_isolate_recompiles_id() == region


def test_dynamo_runs_after_standin_on_the_same_function():
    opt = tracer.compile(loops_then_calls)
    opt(torch.ones(3))
    tracer.reset()  # gives torch's per-code state back
    backend = CountingBackend()
    torch._dynamo.reset()
    try:
        dyn = torch.compile(loops_then_calls, backend=backend, dynamic=False)
        dyn(torch.ones(3))
        assert len(backend.graphs) == 1  # square_plus, compiled by Dynamo, not skipped by a mark of ours
    finally:
        torch._dynamo.reset()


def inner_double(x):
    return x * 2 + 1


def test_a_compiled_function_calling_another_compiled_function_as_dynamo():
    x = torch.randn(3)

    def run(compile_):
        backend = CountingBackend()
        inner = compile_(inner_double, backend)

        def outer(x):
            y = x.sin()
            return inner(y) - 1

        opt = compile_(outer, backend)
        outs = [opt(x), opt(x)]
        return outs, [[n.op for n in gm.graph.nodes if n.op == "call_function"] for gm in backend.graphs]

    torch._dynamo.reset()
    try:
        dyn_out, dyn_graphs = run(lambda f, b: torch.compile(f, backend=b, dynamic=False))
    finally:
        torch._dynamo.reset()
    ours_out, our_graphs = run(lambda f, b: tracer.compile(f, backend=b))
    torch.testing.assert_close(ours_out, dyn_out)
    assert len(our_graphs) == len(dyn_graphs)


def test_a_callee_called_from_two_threads_compiles_once_and_both_answers_are_right():
    opt = tracer.compile(loops_then_calls)
    x = torch.randn(4)
    results, errors = [None, None], []

    def work(i):
        try:
            results[i] = opt(x)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for out in results:
        torch.testing.assert_close(out, loops_then_calls(x))
    callee = [f for f in opt.all_frames() if f.code.co_name == "square_plus"]
    assert len(callee) == 1 and len(callee[0].cache_entries) == 1
    assert native.get_eval_frame_callback() is None


def test_torch_and_standard_library_frames_are_not_compiled():
    import collections

    def uses_library(x):
        for i in range(2):
            print(i)
        Pair = collections.namedtuple("Pair", "a b")
        return torch.nn.functional.relu(Pair(x, 1).a)

    opt = tracer.compile(uses_library)
    opt(torch.ones(2))
    assert [f.code.co_name for f in opt.all_frames()] == ["uses_library"]


def returns_its_argument(x):
    return x


def test_a_code_skipped_for_good_says_its_later_calls_are_not_counted():
    opt = tracer.compile(returns_its_argument)
    for value in range(3):
        assert opt(torch.full((2,), float(value)))[0] == value
    entry, = opt.cache_entries
    assert entry.code is None and entry.hits == 1  # torch ran the next two calls without asking us
    assert entry.hits_counted is False
    assert list(opt.calls) == [None]
