"""Graph breaks inside grad-mode with-blocks: the frame resumes inside the block, as Dynamo's does.

The differential cases (test_diff_breaks.py) compare outputs, graphs and op lists with
Dynamo; these pin what they cannot: an exception at the break, and the blocks Standin
still runs eagerly.
"""
import zlib

import pytest
import torch

import tracer


def raises_inside_no_grad(x, data):
    with torch.no_grad():
        y = x * 2
        zlib.crc32(data)  # an opaque C function: the graph breaks here, and it raises for a str
        y = y + 1
    return y


@pytest.mark.parametrize("compile_", [tracer.compile, lambda f: torch.compile(f, backend="eager", dynamic=False)],
                         ids=["tracer", "dynamo"])
def test_an_exception_at_the_break_leaves_grad_mode_as_the_block_would(compile_):
    opt = compile_(raises_inside_no_grad)
    x = torch.ones(3, requires_grad=True)
    assert opt(x, b"fine").requires_grad is False
    with pytest.raises(TypeError):
        opt(x, "not bytes")
    assert torch.is_grad_enabled()  # the with-block's exit ran, in eager, in Dynamo and in Standin


def test_the_break_inside_the_block_resumes_in_a_resume_function():
    opt = tracer.compile(raises_inside_no_grad)
    opt(torch.ones(3), b"fine")
    frames = opt.all_frames()
    assert [f.cache_entries[0].eager_reason for f in frames] == [None, None]
    (resume,) = frames[1:]
    ops = [node.target for node in resume.cache_entries[0].graphs[0].graph.nodes if node.op == "call_function"]
    assert ops[0] is torch._C._set_grad_enabled and ops[-1] is torch._C._set_grad_enabled


def try_around_with(x):
    try:
        with torch.no_grad():
            y = x * 2
            print("inside")
    except RuntimeError:
        y = x
    return y + 1


class Tracked:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def user_context(x):
    with Tracked():
        y = x * 2
        print("inside")
    return y + 1


@pytest.mark.parametrize("fn, why", [(try_around_with, "try block"), (user_context, "with-block")])
def test_blocks_it_cannot_re_enter_run_the_frame_eagerly_with_a_reason(fn, why, capsys):
    opt = tracer.compile(fn)
    torch.testing.assert_close(opt(torch.ones(3)), fn(torch.ones(3)))
    reason = opt.cache_entries[0].eager_reason or ""
    assert why in reason, reason
