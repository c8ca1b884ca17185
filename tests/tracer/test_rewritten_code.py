"""The rewritten code object of a cache entry is real, runnable bytecode.

For a compiled function, ``opt.cache_entries[0].code`` has the original's
signature; ``types.FunctionType(code, fn.__globals__)`` called directly computes
what the original computes.  Its disassembly shows the graph call (a LOAD_CONST
of the compiled graph, named ``__compiled_fn_...``), how graph inputs are
reconstructed from their sources (LOAD_FAST x, LOAD_GLOBAL cfg + LOAD_ATTR w)
and, after a graph break, the call of the resume function
(``torch_dynamo_resume_in_<fn>_at_...``).
"""
import contextlib
import dis
import io
import types

import pytest
import torch

import tracer


class Cfg:
    def __init__(self):
        self.w = torch.tensor([1.0, 2.0, 3.0])
        self.scale = 2.0


cfg = Cfg()


@pytest.fixture(autouse=True)
def _reset():
    tracer.reset()
    yield
    tracer.reset()


def compiled_code(fn, *args, **kwargs):
    opt = tracer.compile(fn)
    out = StdoutOf(opt, *args, **kwargs)
    assert opt.cache_entries, "nothing was compiled"
    entry = opt.cache_entries[0]
    assert isinstance(entry.code, types.CodeType), f"entry.code is {entry.code!r}"
    return opt, entry, out


def StdoutOf(f, *args, **kwargs):  # noqa: N802 - reads as a noun: the stdout of a call
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = f(*args, **kwargs)
    return result, buf.getvalue()


def instrs(code):
    return list(dis.Bytecode(code))


def has(code, opname, argrepr=None):
    return any(i.opname == opname and (argrepr is None or i.argrepr == argrepr) for i in instrs(code))


def graph_calls(code):
    return [i for i in instrs(code) if i.opname == "LOAD_CONST" and repr(i.argval).startswith("__compiled_fn_")]


def resume_calls(code):
    return [i for i in instrs(code) if i.opname == "LOAD_CONST" and "torch_dynamo_resume_in_" in repr(i.argval)]


def global_attr_loaded(code, glob, attr):
    ins = instrs(code)
    return any(a.opname == "LOAD_GLOBAL" and a.argval == glob and b.opname in ("LOAD_ATTR", "LOAD_METHOD")
               and b.argval == attr for a, b in zip(ins, ins[1:]))


def same_signature(code, original):
    assert code.co_argcount == original.co_argcount
    assert code.co_kwonlyargcount == original.co_kwonlyargcount
    assert code.co_posonlyargcount == original.co_posonlyargcount
    n = original.co_argcount + original.co_kwonlyargcount
    assert code.co_varnames[:n] == original.co_varnames[:n]
    assert code.co_flags & 0x0C == original.co_flags & 0x0C  # *args / **kwargs


def assert_same(a, b):
    if isinstance(b, torch.Tensor):
        torch.testing.assert_close(a, b)
    elif isinstance(b, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    else:
        assert a == b


# --------------------------------------------------------------------------
# no graph break
# --------------------------------------------------------------------------


def scale_by_cfg(x):
    return x * cfg.w + 1


def test_no_break_runs_directly_and_shows_graph_call_and_sources():
    x = torch.randn(3)
    opt, entry, _ = compiled_code(scale_by_cfg, x)
    code = entry.code
    assert entry.original_code is scale_by_cfg.__code__
    same_signature(code, scale_by_cfg.__code__)
    fn = types.FunctionType(code, scale_by_cfg.__globals__)
    assert_same(fn(x), scale_by_cfg(x))
    y = torch.randn(3)
    assert_same(fn(y), scale_by_cfg(y))
    assert len(graph_calls(code)) == 1, dis.Bytecode(code).dis()
    assert has(code, "LOAD_FAST", "x"), dis.Bytecode(code).dis()
    assert global_attr_loaded(code, "cfg", "w"), dis.Bytecode(code).dis()
    assert not resume_calls(code)


def two_args_with_kwonly(x, n, *, bias):
    return (x + bias) * n, n + 1


def test_signature_with_kwonly_and_python_outputs():
    x, b = torch.randn(2, 2), torch.randn(2)
    opt, entry, _ = compiled_code(two_args_with_kwonly, x, 3, bias=b)
    code = entry.code
    same_signature(code, two_args_with_kwonly.__code__)
    fn = types.FunctionType(code, two_args_with_kwonly.__globals__)
    assert_same(fn(x, 3, bias=b), two_args_with_kwonly(x, 3, bias=b))
    assert len(graph_calls(code)) == 1
    assert has(code, "LOAD_FAST", "x") and has(code, "LOAD_FAST", "bias"), dis.Bytecode(code).dis()


def list_input(xs):
    return xs[0] * xs[1] + len(xs)


def test_list_element_sources():
    xs = [torch.randn(3), torch.randn(3)]
    opt, entry, _ = compiled_code(list_input, xs)
    code = entry.code
    fn = types.FunctionType(code, list_input.__globals__)
    assert_same(fn(xs), list_input(xs))
    assert len(graph_calls(code)) == 1
    assert has(code, "LOAD_FAST", "xs"), dis.Bytecode(code).dis()


# --------------------------------------------------------------------------
# one graph break
# --------------------------------------------------------------------------


def print_between(x):
    y = x.sin() + 1
    print("between")
    return y * cfg.scale


def test_break_runs_directly_and_calls_resume_function():
    x = torch.randn(3)
    opt, entry, (res, out) = compiled_code(print_between, x)
    assert out == "between\n"
    code = entry.code
    same_signature(code, print_between.__code__)
    assert entry.graph_break is not None
    assert "print" in entry.graph_break.reason
    fn = types.FunctionType(code, print_between.__globals__)
    got, printed = StdoutOf(fn, x)
    assert printed == "between\n"
    assert_same(got, print_between(x))
    # graph call, then print, then the resume function
    ins = instrs(code)
    text = dis.Bytecode(code).dis()
    g = graph_calls(code)
    r = resume_calls(code)
    assert len(g) == 1 and len(r) == 1, text
    assert ins.index(g[0]) < ins.index(r[0]), text
    assert has(code, "LOAD_FAST", "x"), text
    assert "torch_dynamo_resume_in_print_between_at_" in repr(r[0].argval), text


def test_break_resume_frame_is_listed_and_compiled_once():
    x = torch.randn(3)
    opt, entry, _ = compiled_code(print_between, x)
    frames = opt.all_frames()
    assert frames[0] is opt
    resumes = [f for f in frames if f.code.co_name.startswith("torch_dynamo_resume_in_print_between_at_")]
    assert len(resumes) == 1
    assert len(resumes[0].cache_entries) == 1
    fn = types.FunctionType(entry.code, print_between.__globals__)
    StdoutOf(fn, torch.randn(3))  # same shapes: the resume function's entry is reused
    assert len(resumes[0].cache_entries) == 1
    assert [e.kind for e in resumes[0].compile_events if e.kind != "cache_hit"] == ["compile"]


def mixed_return_after_break(x, n):
    y = x * n
    print("ret")
    return (y, n, "s", [n, y + 1])


def test_break_before_mixed_return():
    x = torch.randn(2)
    opt, entry, _ = compiled_code(mixed_return_after_break, x, 2)
    fn = types.FunctionType(entry.code, mixed_return_after_break.__globals__)
    got, printed = StdoutOf(fn, x, 2)
    assert printed == "ret\n"
    assert_same(got, mixed_return_after_break(x, 2))
    assert resume_calls(entry.code) and graph_calls(entry.code)


def branch_on_data(x):
    y = x + 1
    if y.sum() > 0:
        return y * 2
    return y - 3


def test_data_dependent_branch_both_ways():
    pos, neg = torch.ones(3), -torch.ones(3) * 5
    opt, entry, _ = compiled_code(branch_on_data, pos)
    code = entry.code
    fn = types.FunctionType(code, branch_on_data.__globals__)
    assert_same(fn(pos), branch_on_data(pos))
    assert_same(fn(neg), branch_on_data(neg))
    text = dis.Bytecode(code).dis()
    assert len(graph_calls(code)) == 1, text
    assert resume_calls(code), text
    assert all("torch_dynamo_resume_in_branch_on_data_at_" in repr(i.argval) for i in resume_calls(code)), text


def uses_global_after_break(x):
    a = x * cfg.w
    print("mid")
    return a + cfg.w


def test_break_with_global_tensor_on_both_sides():
    x = torch.randn(3)
    opt, entry, _ = compiled_code(uses_global_after_break, x)
    code = entry.code
    text = dis.Bytecode(code).dis()
    assert global_attr_loaded(code, "cfg", "w"), text
    fn = types.FunctionType(code, uses_global_after_break.__globals__)
    got, printed = StdoutOf(fn, x)
    assert printed == "mid\n"
    assert_same(got, uses_global_after_break(x))
