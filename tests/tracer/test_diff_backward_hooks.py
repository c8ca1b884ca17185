"""Backward hooks registered inside compiled code, as Dynamo handles each kind.

`t.register_hook(fn)` on a tensor the graph computes: the hook body is traced into a subgraph
(`hook_body_0`) the graph registers with torch's `register_hook` higher-order op, tensors of
the frame it reads lifted into its inputs; on a graph input the hook is registered on the real
tensor after the graph, and `handle.remove()` in the trace cancels that.  A hook with side
effects breaks the graph, as in Dynamo.  A module with full backward hooks (or pre-hooks) is a
graph break in Dynamo 2.13 without compiled autograd, the module called whole: the same here.
Each case is compared on its graphs, op lists and outputs, and on the gradients backward gives.
"""
import pytest
import torch
import torch.nn as nn

import tracer
from differential import T, call, case, parametrize
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
BREAKS: list = []
SEEN: list = []
W = nn.Parameter(torch.randn(3, generator=torch.Generator().manual_seed(3)))


def tripled(grad):
    return grad * 3


def leaf():
    return T(3).requires_grad_()


@case(CASES, call(leaf()), call(leaf()), compiles="C.")
def a_lambda_hook_on_an_intermediate(x):
    y = x * 2
    y.register_hook(lambda grad: grad * 3)
    return y.sum()


@case(CASES, call(leaf()), compiles="C")
def a_global_hook_on_an_intermediate_used_twice(x):
    y = x.sin()
    y.register_hook(tripled)
    return (y * y).sum() + y.mean()


@case(CASES, call(leaf()), compiles="C")
def a_hook_reading_a_tensor_of_the_frame(x):
    y = x * 2
    scale = x.detach().cos()
    y.register_hook(lambda grad: grad * scale)
    return y.sum()


OUTSIDE = torch.full((3,), 7.0)


@case(CASES, call(leaf()), call(leaf()), compiles="C.")
def a_hook_reading_a_global_tensor(x):
    y = x * 2
    y.register_hook(lambda grad: grad * OUTSIDE)
    return y.sum()


SCALES = [3.0, 4.0]


@case(CASES, call(leaf()), call(leaf()), compiles="C.")
def a_hook_reading_a_global_list(x):  # a read, not a side effect
    y = x * 2
    y.register_hook(lambda grad: grad * SCALES[1])
    return y.sum()


@case(CASES, call(leaf()), compiles="C")
def a_closure_hook_on_a_module_output(x):
    k = 6.0

    def hook(grad):
        return grad * k

    out = nn.functional.linear(x, W.expand(3, 3))
    out.register_hook(hook)
    return out.sum()


@case(CASES, call(leaf()), compiles="C")
def a_hook_returning_none(x):
    y = x * 2
    y.register_hook(lambda grad: None)
    return y.sum()


@case(CASES, call(leaf()), call(leaf()), compiles="C.")
def a_hook_on_an_input(x):
    x.register_hook(tripled)
    return (x * 2).sum()


@case(CASES, call(leaf()), compiles="C")
def a_hook_on_an_input_removed_again(x):
    handle = x.register_hook(tripled)
    handle.remove()
    return (x * 2).sum()


@case(CASES, call(leaf()), compiles="C")
def a_hook_on_a_global_parameter(x):
    W.register_hook(lambda grad: grad * 10)
    return (x * W).sum()


def halve_the_gradient(param):
    param.grad.mul_(0.5)


@case(CASES, call(leaf()), compiles="C")
def a_post_accumulate_grad_hook_on_a_global_parameter(x):
    W.register_post_accumulate_grad_hook(halve_the_gradient)
    return (x * W).sum()


@case(CASES, call(leaf()), compiles="C")
def hooks_on_an_input_and_an_intermediate(x):
    x.register_hook(lambda grad: grad + 1)
    y = x.exp()
    y.register_hook(tripled)
    return y.sum()


test_backward_hooks = parametrize(CASES)


@break_case(BREAKS, call(leaf()), call(leaf()), compiles="C.", state=lambda: list(SEEN))
def a_hook_with_a_side_effect(x):
    y = x * 2
    y.register_hook(lambda grad: SEEN.append("hook"))
    return y.sum()


class Scale(nn.Module):
    def forward(self, x):
        return x * 4


FULL_BACKWARD = Scale()
FULL_BACKWARD.register_full_backward_hook(lambda module, grad_in, grad_out: (grad_in[0] * 2,))
FULL_BACKWARD_PRE = Scale()
FULL_BACKWARD_PRE.register_full_backward_pre_hook(lambda module, grad_out: (grad_out[0] * 5,))


@break_case(BREAKS, call(leaf()), call(leaf()), compiles="C.")
def a_module_with_a_full_backward_hook(x):
    return FULL_BACKWARD(x + 1).sum()


@break_case(BREAKS, call(leaf()), call(leaf()), compiles="C.")
def a_module_with_a_full_backward_pre_hook(x):
    return FULL_BACKWARD_PRE(x + 1).sum()


test_backward_hook_breaks = parametrize_breaks(BREAKS)


def _grads(fn, seed: int) -> list:
    """The gradients one call and its backward give, of the argument and of W."""
    x = torch.randn(3, generator=torch.Generator().manual_seed(seed)).requires_grad_()
    W.grad = None
    for hooks in (W._backward_hooks, getattr(W, "_post_accumulate_grad_hooks", None)):
        if hooks:  # the hooks an earlier run registered on the global parameter
            hooks.clear()
    fn(x).backward()
    return [x.grad.clone(), W.grad.clone() if W.grad is not None else None]


@pytest.mark.parametrize("fn", [c.fn for c in CASES + BREAKS], ids=lambda fn: fn.__name__)
def test_backward_runs_the_hooks_as_eager_and_dynamo_do(fn):
    torch._dynamo.reset()
    eager = _grads(fn, 0)
    ours = _grads(tracer.compile(fn, backend="eager"), 0)
    theirs = _grads(torch.compile(fn, backend="eager", dynamic=False), 0)
    SEEN.clear()
    for name, grads in (("standin", ours), ("dynamo", theirs)):
        for got, want in zip(grads, eager):
            if want is None:
                assert got is None, name
            else:
                torch.testing.assert_close(got, want, msg=f"{name}'s gradient differs from eager's")



def an_input_hook_handle_returned(x):
    handle = x.register_hook(tripled)
    return (x * 2).sum(), handle


@pytest.mark.parametrize("remove", [False, True], ids=["kept", "removed_after_the_call"])
def test_an_input_hooks_handle_leaves_the_graph_as_in_dynamo(remove):
    """The registration after the graph hands back the real handle (one graph, as Dynamo's)."""
    grads, graphs = {}, {}
    for who, compile_ in (("eager", None), ("standin", tracer.compile), ("dynamo", torch.compile)):
        torch._dynamo.reset()
        made = []

        def backend(gm, example_inputs, made=made):
            made.append(gm)
            return gm.forward

        fn = an_input_hook_handle_returned if compile_ is None else compile_(an_input_hook_handle_returned,
                                                                            backend=backend)
        x = torch.ones(3, requires_grad=True)
        loss, handle = fn(x)
        if remove:
            handle.remove()
        loss.backward()
        grads[who], graphs[who] = x.grad.tolist(), len(made)
    assert grads["standin"] == grads["eager"] == grads["dynamo"] == ([2.0] * 3 if remove else [6.0] * 3)
    assert graphs["standin"] == graphs["dynamo"] == 1
