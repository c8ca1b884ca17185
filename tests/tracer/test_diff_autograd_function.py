"""Custom torch.autograd.Function, as Dynamo traces it.

Where a gradient can flow, `Fn.apply` is one `autograd_function_apply` op over a forward and a
backward body (compared here through the main graph's op list and its results, and the gradients
the backward body gives against eager's); where none can (no_grad, or no input requiring grad)
forward is inlined.  What Standin cannot trace (a custom vjp, setup_context, ctx.mark_dirty) is a
graph break naming it, the Function then running as it is.
"""
import pytest
import torch

import tracer
from differential import T, call, case, parametrize
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
BREAKS: list = []
W = torch.randn(3, requires_grad=True)


def G(*shape):  # noqa: N802 - as T
    return T(*shape).requires_grad_()


class Sin(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin() * 2

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * x.cos() * 2


class ScaledPair(torch.autograd.Function):
    """Two outputs, a number argument kept on ctx, an intermediate saved, None for the number."""

    @staticmethod
    def forward(ctx, x, y, scale):
        ctx.scale = scale
        prod = x * y
        ctx.save_for_backward(prod, y)
        return prod * scale, x + y

    @staticmethod
    def backward(ctx, grad_a, grad_b):
        prod, y = ctx.saved_tensors
        return grad_a * y * ctx.scale + grad_b, grad_a * prod / y * ctx.scale + grad_b, None


class Identity(torch.autograd.Function):
    """Returns its input: autograd (and so the forward body) gives a view of it."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 3


class CapturesWeight(torch.autograd.Function):
    """Reads a global tensor in forward: an input of the op, with no gradient from backward."""

    @staticmethod
    def forward(ctx, x):
        return x * W.detach()

    @staticmethod
    def backward(ctx, grad):
        return grad * 5


class KeywordArgs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, shift=1.0):
        return x + shift

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class WithJvp(Sin):
    @staticmethod
    def jvp(ctx, t):
        return t


@case(CASES, call(G(3)))
def one_op_over_both_bodies(x):
    return Sin.apply(x + 1) * 3


@case(CASES, call(G(3), G(3)))
def two_outputs_a_number_on_ctx(x, y):
    a, b = ScaledPair.apply(x.cos(), y + 2, 1.5)
    return a * b


@case(CASES, call(G(3)))
def an_input_returned_as_it_is(x):
    return Identity.apply(x * 2) + 1


@case(CASES, call(G(3)))
def a_global_tensor_read_in_forward(x):
    return CapturesWeight.apply(x) - 1


@case(CASES, call(G(3)))
def keyword_arguments_bound_to_forward(x):
    return KeywordArgs.apply(x, shift=2.0) * 2


@case(CASES, call(T(3)))
def no_input_requires_grad_inlines_forward(x):
    return Sin.apply(x + 1) * 3


@case(CASES, call(G(3)))
def under_no_grad_inlines_forward(x):
    with torch.no_grad():
        y = Sin.apply(x + 1)
    return y * 3


@break_case(BREAKS, call(G(3)))
def a_custom_jvp_breaks(x):
    return WithJvp.apply(x + 1) * 3


test_autograd_function = parametrize(CASES)
test_autograd_function_breaks = parametrize_breaks(BREAKS)


@pytest.mark.parametrize("fn, inputs", [(one_op_over_both_bodies, 1), (two_outputs_a_number_on_ctx, 2),
                                        (an_input_returned_as_it_is, 1), (a_global_tensor_read_in_forward, 1),
                                        (keyword_arguments_bound_to_forward, 1)],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_gradients_are_the_backward_bodys(fn, inputs):
    """backward() through the op runs the traced backward body: eager's gradients."""
    torch.manual_seed(0)
    leaves = [torch.randn(3, requires_grad=True) for _ in range(inputs)]
    twins = [leaf.detach().clone().requires_grad_() for leaf in leaves]
    tracer.reset()
    graphs = []
    compiled = tracer.compile(fn, backend=lambda gm, ex: graphs.append(gm) or gm.forward)
    compiled(*leaves).sum().backward()
    fn(*twins).sum().backward()
    assert any("autograd_function_apply" in str(node.target) for gm in graphs for node in gm.graph.nodes)
    for leaf, twin in zip(leaves, twins):
        torch.testing.assert_close(leaf.grad, twin.grad)
