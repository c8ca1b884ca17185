"""Differential cases: ops Dynamo decomposes before they reach the graph, so that a scalar argument
given as a 0-d tensor (an optimizer's betas or step size) stays a tensor operand -- `addcmul_` /
`addcdiv_` with `value=` (mul or div, `prims.fma`, `copy_`), `add_` with a tensor `alpha=`,
`torch.addcdiv(..., value=)`, `torch.full` of a 0-d tensor, `_foreach_lerp_` with one weight (a
number below or from 0.5, or a 0-d tensor) and `_foreach_pow` of a 0-d tensor base; and the calls
of the same ops Dynamo leaves as they are (no `value=`, a list of weights, a number base)."""
import torch

from differential import T, call, case, parametrize

CASES: list = []


def _calls(*shapes):
    return call(*[T(*s) for s in shapes]), call(*[T(*s) for s in shapes])


@case(CASES, *_calls((3,), (3,), (3,)), compiles="C.", fullgraph=True)
def addcmul_with_a_0d_tensor_value(a, b, c):
    a = a.clone()
    a.addcmul_(b, c, value=torch.tensor(0.5))
    return a


@case(CASES, *_calls((3,), (3,), (3,)), compiles="C.", fullgraph=True)
def addcmul_and_addcdiv_with_number_values_and_none(a, b, c):
    y = a.clone()
    r = y.addcmul_(b, c, value=0.5)
    y.addcdiv_(b, c.abs() + 1, value=2)
    y.addcmul_(b, c)
    y.addcdiv_(b, c.abs() + 1)
    return y, r is y


@case(CASES, *_calls((3,), (3,), (3,)), compiles="C.", fullgraph=True)
def addcmul_unbound_and_through_getattr(a, b, c):
    y = a.clone()
    torch.Tensor.addcmul_(y, b, c, value=0.5)
    getattr(y, "addcdiv_")(b, c.abs() + 1, value=torch.tensor(2.0))
    return y


@case(CASES, *_calls((3,), (3,), (3,)), compiles="C.", fullgraph=True)
def addcdiv_with_a_0d_tensor_value(a, b, c):
    a = a.clone()
    a.addcdiv_(b, c.abs() + 1, value=torch.tensor(-0.25))
    return a


@case(CASES, *_calls((3,), (3,), (3,)), compiles="C.", fullgraph=True)
def inplace_on_an_input_decomposed(a, b, c):
    a.addcmul_(b, c, value=torch.tensor(0.5))
    return a * 2


@case(CASES, *_calls((3,), (3,)), compiles="C.", fullgraph=True)
def add_with_a_tensor_alpha(a, b):
    y = a.clone()
    y.add_(b, alpha=torch.tensor(2.0))
    y.add_(b, alpha=3.0)
    y.sub_(b, alpha=torch.tensor(0.5))
    return y, torch.add(a, b, alpha=torch.tensor(2.0))


@case(CASES, *_calls((3,), (3,), (3,)), compiles="C.", fullgraph=True)
def torch_addcdiv_and_addcmul_functions(a, b, c):
    v = torch.tensor(0.5)
    return torch.addcdiv(a, b, c.abs() + 1, value=v), torch.addcdiv(a, b, c.abs() + 1, value=3), \
        torch.addcdiv(a, b, c.abs() + 1), torch.addcmul(a, b, c, value=v), a.addcdiv(b, c.abs() + 1, value=v)


@case(CASES, *_calls((3,)), compiles="C.", fullgraph=True)
def full_of_a_0d_tensor(a):
    fill = a.sum()
    return torch.full((2, 3), fill), torch.full(size=(2,), fill_value=fill, dtype=torch.float64), \
        torch.full((2,), 7.0)


@case(CASES, *_calls((3,), (3,)), compiles="C.", fullgraph=True)
def foreach_lerp_inplace_low_weight(a, b):
    p = [a.clone(), b.clone()]
    r = torch._foreach_lerp_(p, [b, a], 0.1)
    return p, r is p


@case(CASES, *_calls((3,), (3,)), compiles="C.", fullgraph=True)
def foreach_lerp_inplace_high_and_negative_weights(a, b):
    p = [a.clone(), b.clone()]
    torch._foreach_lerp_(p, [b, a], 0.7)
    torch._foreach_lerp_(p, [a, b], -0.6)
    torch._foreach_lerp_(p, [a, b], 1)
    return p


@case(CASES, *_calls((3,), (3,)), compiles="C.", fullgraph=True)
def foreach_lerp_inplace_0d_tensor_weight(a, b):
    p = [a.clone(), b.clone()]
    torch._foreach_lerp_(p, [b, a], torch.tensor(0.1))
    torch._foreach_lerp_(p, [b, a], (a.sum() > 0).float())
    return p


@case(CASES, *_calls((3,), (3,)), compiles="C.", fullgraph=True)
def foreach_lerp_left_as_it_is(a, b):
    p = [a.clone(), b.clone()]
    torch._foreach_lerp_(p, [b, a], [a, b])
    return p, torch._foreach_lerp([a, b], [b, a], 0.3)


@case(CASES, *_calls((3,), (3,)), compiles="C.", fullgraph=True)
def foreach_pow_of_a_0d_tensor_base(a, b):
    return torch._foreach_pow(torch.tensor(0.9), [a, b]), torch._foreach_pow(0.9, [a, b]), \
        torch._foreach_pow([a.abs(), b.abs()], 2.0)


@case(CASES, *_calls((3,), (3,)), compiles="C.", fullgraph=True)
def optimizer_style_update_with_tensor_hyperparameters(param, grad):
    """An Adam-like step written by hand with its betas and step size as 0-d tensors."""
    p, m, v = param.clone(), torch.zeros_like(param), torch.zeros_like(param)
    beta1, beta2, lr = torch.tensor(0.9), torch.tensor(0.999), torch.tensor(0.01)
    torch._foreach_lerp_([m], [grad], 1 - beta1)
    v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    p.addcdiv_(m, v.sqrt() + 1e-8, value=-lr)
    return p, m, v


@case(CASES, call(T(3), T(3)), call(T(5), T(5)), call(T(7), T(7)), compiles="CC.", dynamic=None)
def decomposed_under_dynamic_shapes(a, b):
    p = [a.clone()]
    torch._foreach_lerp_(p, [b], torch.tensor(0.3))
    p[0].addcmul_(a, b, value=torch.tensor(0.5))
    return p[0]


test_decompositions = parametrize(CASES)
