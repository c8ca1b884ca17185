"""Differential cases: in-place and foreach ops -- methods reached through getattr (on the
tensor or on torch.Tensor, unbound), an in-place op's result being its input (`y.add_(1) is y`),
and torch._foreach_* over lists of tensors, in place and not."""
import torch

from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def inplace_through_getattr(x):
    y = x.clone()
    for name in ("mul_", "add_", "sub_"):
        getattr(y, name)(2)
    getattr(torch.Tensor, "div_")(y, 4)
    torch.Tensor.add_(y, 1)
    return y, torch.Tensor.neg(y)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def inplace_result_is_its_input(x):
    y = x.clone()
    z = y.add_(1)
    w = z.mul_(2).sub_(1)
    return z is y, w is y, (y + 0) is y, y


@case(CASES, call(T(3), T(3)), call(T(3), T(3)), compiles="C.")
def inplace_on_inputs(a, b):
    a.add_(1)
    b.mul_(2).clamp_(min=0)
    return a + b


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def foreach_ops(x):
    params = [x.clone(), x.clone() + 1]
    grads = [x * 0.1, x * 0.2]
    torch._foreach_add_(params, grads, alpha=-0.1)
    torch._foreach_mul_(params, [2.0, 3.0])
    torch._foreach_addcmul_(params, grads, grads, value=0.5)
    return params, torch._foreach_add(params, 1), torch._foreach_norm(params), \
        torch._foreach_sqrt([p.abs() for p in params]), torch._foreach_maximum(params, grads)


test_inplace_foreach = parametrize(CASES)
