"""The public API: tracer.compile, reset, bad input, fullgraph, cache limits."""

import pytest
import torch

import tracer


class Config:
    def __init__(self):
        self.scale = 2


cfg = Config()


def seed(x, n):
    return x * cfg.scale + n


class Counter:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward


@pytest.fixture(autouse=True)
def _restore():
    tracer.reset()
    yield
    cfg.scale = 2
    tracer.reset()


def test_seed_example_bakes_constants_and_recompiles_on_cfg_change():
    backend = Counter()
    opt = tracer.compile(seed, backend=backend)
    x = torch.randn(4)
    torch.testing.assert_close(opt(x, 3), seed(x, 3))
    assert len(backend.graphs) == 1
    gm = backend.graphs[0]
    assert [n.target for n in gm.graph.nodes if n.op == "placeholder"] == ["L_x_"]  # n and cfg.scale baked in
    assert [n.args[1] for n in gm.graph.nodes if n.op == "call_function"] == [2, 3]
    guards = {g.expr for g in opt.cache_entries[0].guards}
    assert "G['cfg'].scale == 2" in guards and "L['n'] == 3" in guards

    opt(torch.randn(4), 3)  # same premises: a cache hit
    assert len(backend.graphs) == 1 and opt.cache_entries[0].hits == 2

    cfg.scale = 3
    torch.testing.assert_close(opt(x, 3), seed(x, 3))
    assert len(backend.graphs) == 2
    event = opt.compile_events[-1]
    assert event.kind == "recompile" and event.compile_id == "0/1"
    assert "G['cfg'].scale == 2" in event.reason and "got 3" in event.reason


def test_guard_records_where_it_was_installed():
    opt = tracer.compile(seed)
    opt(torch.randn(2), 1)
    guard = next(g for g in opt.cache_entries[0].guards if g.source_name == "G['cfg'].scale")
    assert guard.kind == "EQUALS_MATCH"
    assert guard.installed_at.line == seed.__code__.co_firstlineno + 1
    assert "cfg.scale" in guard.installed_at.source_line
    assert guard.installed_at.function == "seed"


def test_decorator_forms():
    @tracer.compile
    def f(x):
        return x + 1

    @tracer.compile(backend="eager")
    def g(x):
        return x * 2

    x = torch.ones(2)
    torch.testing.assert_close(f(x), x + 1)
    torch.testing.assert_close(g(x), x * 2)


def test_a_functools_partial_compiles_its_function_with_the_bound_arguments():
    import functools

    def scaled(x, *rest, scale=1.0, **extra):
        return x * scale + sum(rest) + extra.get("shift", 0)

    bound = functools.partial(functools.partial(scaled, scale=2.0), shift=1)
    opt = tracer.compile(bound)
    torch.testing.assert_close(opt(torch.ones(3), 1, 2), bound(torch.ones(3), 1, 2))
    assert opt.fn is scaled and len(opt.cache_entries) == 1 and opt.cache_entries[0].graphs
    assert opt.what_if(torch.ones(3), 1, 2).hit == "0/0"


def test_empty_graph_never_reaches_the_backend():
    backend = Counter()
    opt = tracer.compile(lambda x, n: (x, n + 1), backend=backend, fullgraph=True)
    x = torch.ones(2)
    out = opt(x, 1)
    assert out[0] is x and out[1] == 2
    assert backend.graphs == []
    assert opt.cache_entries[0].graphs == []
    assert opt(x, 2)[1] == 3  # the entry was guarded on n: a recompile
    assert [e.kind for e in opt.compile_events] == ["compile", "recompile"]


def test_frame_without_graph_ops_is_skipped_as_dynamo_does():
    backend = Counter()
    opt = tracer.compile(lambda x, n: (x.shape[0], n + 1), backend=backend)
    assert opt(torch.ones(2), 1) == (2, 2)
    assert opt(torch.ones(5), 2) == (5, 3)  # no recompile: the frame runs eagerly now
    assert backend.graphs == []
    assert [e.kind for e in opt.compile_events] == ["compile", "eager_fallback"]
    assert "No ops traced" in opt.cache_entries[0].eager_reason


@pytest.mark.parametrize("bad", [42, "fn", object()])
def test_non_callable_is_a_clear_error(bad):
    with pytest.raises(tracer.UserError, match="needs a Python function"):
        tracer.compile(bad)


def test_unknown_backend_is_a_clear_error():
    with pytest.raises(tracer.UserError, match="backend"):
        tracer.compile(seed, backend="no-such-backend")


def test_user_exception_propagates_unchanged():
    class Boom(ValueError):
        pass

    def f(x):
        if x.dim() == 1:
            raise Boom("bad input")
        return x

    opt = tracer.compile(f)
    with pytest.raises(Boom, match="bad input"):
        opt(torch.ones(2))


def test_wrong_arguments_raise_pythons_type_error():
    opt = tracer.compile(seed)
    with pytest.raises(TypeError):
        opt(torch.ones(2))


def test_unsupported_call_breaks_the_graph_with_a_recorded_reason(capsys):
    def f(x):
        y = x + 1
        print("side effect")
        return y * 2

    backend = Counter()
    opt = tracer.compile(f, backend=backend)
    torch.testing.assert_close(opt(torch.ones(2)), (torch.ones(2) + 1) * 2)
    assert capsys.readouterr().out == "side effect\n"
    events = [e for e in opt.compile_events if e.kind == "graph_break"]
    assert events and "print" in events[0].reason
    assert len(backend.graphs) == 2  # before the break, and the resume function's
    (resume,) = opt.frames
    assert resume.cache_entries[0].compile_id == "1/0"


def test_unsupported_construct_in_a_loop_skips_the_frame():
    def f(x):
        for i in range(2):
            x = x + i
            print(i)
        return x

    backend = Counter()
    opt = tracer.compile(f, backend=backend)
    torch.testing.assert_close(opt(torch.ones(2)), f(torch.ones(2)))
    reasons = [e.reason for e in opt.compile_events if e.kind == "eager_fallback"]
    assert "loop" in reasons[0] and backend.graphs == []


def test_fullgraph_raises_naming_construct_and_line():
    def f(x):
        y = x + 1
        print("side effect")
        return y

    opt = tracer.compile(f, fullgraph=True)
    with pytest.raises(tracer.Unsupported) as info:
        opt(torch.ones(2))
    assert "print" in str(info.value)
    assert info.value.location.line == f.__code__.co_firstlineno + 2
    assert info.value.location.filename == __file__


def test_data_dependent_branch_is_reported():
    def f(x):
        if x.sum() > 0:
            return x + 1
        return x - 1

    opt = tracer.compile(f, fullgraph=True)
    with pytest.raises(tracer.Unsupported, match="data-dependent"):
        opt(torch.ones(2))
    broken = tracer.compile(f)
    for x in (torch.ones(2), -torch.ones(2)):  # both branches, each in its own resume function
        torch.testing.assert_close(broken(x), f(x))
    assert [e.kind for e in broken.compile_events] == ["compile", "graph_break"]
    assert len(broken.frames) == 2


def test_cache_limit_falls_back_to_eager_with_a_warning():
    backend = Counter()
    opt = tracer.compile(lambda x, n: x + n, backend=backend, cache_size_limit=2, dynamic=False)
    x = torch.ones(2)
    opt(x, 1)
    opt(x, 2)
    with pytest.warns(tracer.CacheLimitExceeded):
        torch.testing.assert_close(opt(x, 3), x + 3)
    assert len(backend.graphs) == 2
    assert opt.compile_events[-1].kind == "cache_limit"
    assert "L['n'] == 2" in opt.compile_events[-1].reason


def test_reset_forgets_entries():
    backend = Counter()
    opt = tracer.compile(seed, backend=backend)
    opt(torch.ones(2), 1)
    tracer.reset()
    assert opt.cache_entries == []
    opt(torch.ones(2), 1)
    assert len(backend.graphs) == 2
    assert opt.cache_entries[0].compile_id.endswith("/0")


def test_global_state_change_recompiles():
    backend = Counter()
    opt = tracer.compile(lambda x: x * 2, backend=backend)
    x = torch.ones(2, requires_grad=True)
    opt(x)
    with torch.no_grad():
        opt(x)
    assert len(backend.graphs) == 2
    assert "grad_mode" in opt.compile_events[-1].reason


@pytest.mark.expects_internal_error
def test_internal_errors_fall_back_to_eager_with_a_warning(monkeypatch):
    from tracer import symbolic_convert

    def broken(self, inst):
        raise KeyError("engine bug")

    monkeypatch.setitem(symbolic_convert.InstructionTranslator.dispatch, "BINARY_OP", broken)
    opt = tracer.compile(lambda x: x + 1)
    with pytest.warns(tracer.InternalTracerWarning, match="engine bug"):
        torch.testing.assert_close(opt(torch.ones(2)), torch.ones(2) + 1)


def test_inductor_settings_are_checked_as_torch_checks_them_then_ignored():
    with pytest.warns(UserWarning, match="ignores {'mode': 'reduce-overhead'}"):
        opt = tracer.compile(lambda x: x + 1, mode="reduce-overhead")
    torch.testing.assert_close(opt(torch.ones(2)), torch.full((2,), 2.0))
    with pytest.warns(UserWarning, match="ignores {'options'"):
        tracer.compile(lambda x: x, options={"triton.cudagraphs": False})
    with pytest.raises(tracer.UserError, match="Unrecognized mode=fast, should be one of: default, lite"):
        tracer.compile(lambda x: x, mode="fast")
    with pytest.raises(tracer.UserError, match="Either mode or options can be specified"):
        tracer.compile(lambda x: x, mode="default", options={})


def test_disable_returns_the_function_itself():
    def fn(x):
        return x * 2

    assert tracer.compile(fn, disable=True) is fn
    assert tracer.compile(disable=True)(fn) is fn
