"""Every frame under a compiled call is compiled, as with Dynamo's frame hook (issue #15).

A frame Standin runs eagerly (skipped for a break in a loop, a decorator's wrapper,
a `torch._dynamo.disable`d helper's caller) still has its callees compiled as frames
of their own, each with its cache entries.  Compared with Dynamo on outputs, stdout,
state, graphs per call and op lists (all frames), the root frame's (re)compiles and,
with `all_frames=True`, which frames got a new cache entry on each call.
"""
import functools

import torch
import torch.nn as nn

from differential import T, call
from differential_breaks import break_case, module_break_case, parametrize_breaks

CASES: list = []


def inner(x):
    return torch.sin(x) * 2 + 1


@break_case(CASES, call(T(3)), call(T(3)), call(T(4)), compiles="C..", all_frames=True)
def loop_break_then_callee(x):
    for i in range(3):
        print("step", i)  # a break in a loop: the frame runs eagerly (Dynamo too)
    return inner(x)  # ... and inner compiles as its own frame


def helper_a(x):
    return x.cos() + 1


def helper_b(x, k):
    return x * k - 2


@break_case(CASES, call(T(2, 3)), call(T(2, 3)), call(T(5)), compiles="C..", all_frames=True)
def skipped_frame_with_two_callees(x):
    total = 0
    for i in range(2):
        print("loop", i)
        total = total + i
    return helper_b(helper_a(x), total)  # a new shape recompiles the callees, not the skipped frame


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        for key, value in kwargs.items():  # the wrapper loops over kwargs and prints: it runs eagerly
            print("kw", key, type(value).__name__)
        out = fn(*args, **kwargs)
        print("done", fn.__name__)
        return out
    return wrapper


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    @logged
    def forward(self, x, scale=1.0):
        return torch.relu(self.lin(x)) * scale


BLOCK = Block()


def call_block(x, scale):
    return BLOCK(x, scale=scale)


break_case(CASES, call(T(2, 4), 2.0), call(T(2, 4), 2.0), call(T(3, 4), 2.0), compiles="C.C",
           all_frames=True, name="wraps_wrapper_around_forward")(call_block)


@torch._dynamo.disable
def disabled_helper(x):
    return torch.cos(x) + 3  # runs eagerly: no graph for it


@torch.compiler.disable
def disabled_by_compiler(x):
    return inner(x) - 1  # disabled recursively: inner does not compile under it


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", all_frames=True)
def calls_disabled_helpers(x):
    y = x * 2
    z = disabled_helper(y)
    w = disabled_by_compiler(z)
    return inner(w) + y


def countdown(x, n):
    if n == 0:
        return x
    print("depth", n)
    return countdown(x + 1, n - 1)


@break_case(CASES, call(T(3), 2), call(T(3), 2), compiles="C.", all_frames=True)
def recursion_through_a_break(x, n):
    return countdown(x * 2, n)


class Wrapped(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        for i in range(2):
            print("wrapped", i)
        return self.inner_step(x)

    def inner_step(self, x):
        return self.lin(x).sigmoid()


module_break_case(CASES, "module_forward_skipped_method_compiles", Wrapped(), call(T(2, 3)), call(T(2, 3)),
                  compiles="C.", all_frames=True)


test_frame_hook = parametrize_breaks(CASES)
