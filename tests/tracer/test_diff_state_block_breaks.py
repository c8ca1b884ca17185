"""A graph break inside an autocast or inference-mode block resumes inside it, as Dynamo's does.

The graph leaves the block at the break, the unsupported instruction runs with the block
entered again around it (and left after it, also when it raises), and the resume function
enters the block once more where its body goes on, so the rest of the body runs in the
block's state and the state after it is the one from before it.  Nested with grad-mode
blocks, each block is left and entered in its order.
"""
import zlib

import torch

from differential import T, call
from differential_breaks import break_case, parametrize_breaks

CASES: list = []


@break_case(CASES, call(T(3, 3)), call(T(3, 3)), compiles="C.")
def break_inside_autocast(x):
    y = x + 1
    with torch.autocast("cpu", dtype=torch.bfloat16):
        z = torch.mm(y, y)
        print("inside autocast:", torch.is_autocast_enabled("cpu"))
        w = torch.mm(z, y)
    return w.dtype, w.float() + 1, torch.is_autocast_enabled("cpu")


@break_case(CASES, call(T(3, 3)), call(T(3, 3)), compiles="C.")
def break_inside_inference_mode(x):
    y = x + 1
    with torch.inference_mode():
        z = y * 2
        print("inside inference mode")
        w = z + 1
    return w, torch.is_grad_enabled()


@break_case(CASES, call(T(3, 3).requires_grad_()), compiles="C")
def no_grad_around_autocast(x):
    with torch.no_grad():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            z = torch.mm(x, x)
            print("inside both")
            w = torch.mm(z, x)
        v = x * 2
    return w.float(), v, torch.is_grad_enabled(), torch.is_autocast_enabled("cpu")


@break_case(CASES, call(T(3, 3).requires_grad_()), compiles="C")
def autocast_around_enable_grad(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with torch.no_grad():
            z = torch.mm(x, x)
            with torch.enable_grad():
                print("inside three blocks")
                w = torch.mm(z, x)
    return w.float(), z.float(), torch.is_grad_enabled()


@break_case(CASES, call(T(3, 3), b"bytes"), call(T(3, 3), "text"), compiles="CC", raises=True)
def an_exception_at_the_break_leaves_autocast(x, data):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = torch.mm(x, x)
        zlib.crc32(data)  # an opaque C function: the graph breaks here, and it raises for a str
        y = torch.mm(y, x)
    return y.float(), torch.is_autocast_enabled("cpu")


@break_case(CASES, call(T(3, 3), 0), call(T(3, 3), 1), compiles="C.", raises=True)
def an_exception_after_the_break_leaves_inference_mode(x, n):
    with torch.inference_mode():
        y = x * 2
        print("break")
        if n:
            raise ValueError("raised in the resumed block")
        y = y + 1
    return y


test_state_block_breaks = parametrize_breaks(CASES)
