"""Differential cases: @torch.no_grad() / @torch.enable_grad() / @torch.inference_mode() on the
compiled function itself -- the decorator's wrapper is traced, its with-block recorded as
Dynamo records it."""
import torch

from differential import T, call, case, parametrize

CASES: list = []


def _grad(*shape):
    return T(*shape).requires_grad_()


@case(CASES, call(_grad(3)), call(_grad(3)), call(_grad(4)), compiles="C.C")
@torch.no_grad()
def compiled_under_no_grad(x):
    return x * 2, torch.is_grad_enabled()


@case(CASES, call(_grad(3)), call(_grad(3)), compiles="C.")
@torch.enable_grad()
def compiled_under_enable_grad(x):
    return x * 2, torch.is_grad_enabled()


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
@torch.inference_mode()
def compiled_under_inference_mode(x):
    return x * 2 + 1


test_grad_decorators = parametrize(CASES)
