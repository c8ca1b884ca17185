"""Calls a graph cannot hold break it, as in Dynamo: the global RNG state read or set,
a new leaf with requires_grad=True, autograd run or reconfigured (backward,
requires_grad_, retain_grad), an input's shape or strides changed in place
(unsqueeze_, t_, resize_).  Recorded as graph nodes they ran at the wrong time
or, under an autograd-compiling backend, lost what autograd tracks.  A requires_grad_()
that asks for what the tensor already has changes nothing and is traced through, as in
Dynamo (transformers' gradient checkpointing hooks an embedding's output with one).
"""
import torch

from differential import T, call, case, parametrize
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
TRACED: list = []
W = torch.ones(3, requires_grad=True)


@break_case(CASES, call(T(3)), compiles="C")
def rng_state_saved_and_restored(x):
    state = torch.get_rng_state()
    a = torch.rand(3) + x
    torch.set_rng_state(state)
    b = torch.rand(3) + x
    return (a - b).abs().sum()  # the same draws: 0 (the draws themselves differ from run to run)


@break_case(CASES, call(T(3)), compiles="C")
def a_leaf_made_with_requires_grad(x):
    w = torch.ones(3, requires_grad=True)
    return (w * x).sum(), w


@break_case(CASES, call(T(3)), compiles="C")
def requires_grad_switched_on(x):
    y = x.clone()
    y.requires_grad_()
    return (y * 3).sum()


@break_case(CASES, call(T(3)), compiles="C", state=lambda: None if W.grad is None else W.grad.tolist())
def backward_inside_the_function(x):
    W.grad = None
    loss = (W * x).sum()
    loss.backward()
    return loss.detach()


@break_case(CASES, call(T(3)), compiles="C")
def an_input_unsqueezed_in_place(x):
    v = x[1:]
    v.mul_(2)
    x.unsqueeze_(0)
    return x.shape, v.sum()


@break_case(CASES, call(T(2, 3)), call(T(3, 2)), compiles="CC")
def an_input_transposed_and_resized_in_place(x):
    x.t_()
    x.resize_(6)
    return x * 1


test_autograd_breaks = parametrize_breaks(CASES)


@case(TRACED, call(T(3)), call(T(3).requires_grad_()))
def requires_grad_asking_for_what_autograd_already_tracks(x):
    y = x * W
    y.requires_grad_(True)  # computed from W: it requires grad already
    x.requires_grad_(x.requires_grad)
    return y + 1, y.requires_grad


test_traced = parametrize(TRACED)
