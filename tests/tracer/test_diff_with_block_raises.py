"""Differential cases: a graph break inside grad-mode with-blocks, then an exception in the block.

The resume function re-enters the blocks and jumps into the middle of their try region.
Its exception table must keep the block's depth there (it kept a depth of 32768, and
the exception unwound past the stack: a segfault), and nested blocks must re-enter
in order.  Each case is called with a str that makes the block raise after the break
(the same programs with an int are plain with-block breaks, see test_diff_breaks.py);
grad mode after the call is part of the state compared with eager and Dynamo.
"""
import torch

from differential_breaks import T, break_case, call, parametrize_breaks

CASES: list = []


def grad_mode():
    return torch.is_grad_enabled()


@break_case(CASES, call(T(2), "a"), state=grad_mode, raises=True)
def raise_after_break_in_no_grad(x, n):
    with torch.no_grad():
        print("val")
        n = n - 1
    return x + n


@break_case(CASES, call(T(2), "a"), state=grad_mode, raises=True)
def raise_after_break_in_enable_grad(x, n):
    with torch.enable_grad():
        print("val")
        n = n - 1
    return x + n


@break_case(CASES, call(T(2), "a"), state=grad_mode, raises=True)
def raise_after_break_in_set_grad_enabled(x, n):
    with torch.set_grad_enabled(False):
        print("val")
        n = n - 1
    return x * n


@break_case(CASES, call(T(2), "a"), state=grad_mode, raises=True)
def raise_after_break_in_nested_blocks(x, n):
    with torch.no_grad():
        with torch.enable_grad():
            print("inner")
            y = x * 2
            n = n - 1
        z = x + n
    return y, z


@break_case(CASES, call(T(2), "a"), state=grad_mode, raises=True)
def raise_in_outer_block_after_break_in_inner(x, n):
    with torch.set_grad_enabled(False):
        with torch.enable_grad():
            print("inner")
            y = x * 2
        n = n - 1
    return y + n


@break_case(CASES, call(T(2), "a"), state=grad_mode, raises=True)
def raise_after_two_breaks_in_nested_blocks(x, n):
    with torch.no_grad():
        print("outer")
        with torch.enable_grad():
            print("inner")
            n = n - 1
            y = x * n
        y = y + n
    return y


@break_case(CASES, call(T(2), "a"), state=grad_mode, raises=True)
def raise_after_break_with_values_on_the_stack(x, n):
    with torch.no_grad():
        y = [x + 1, print("val"), n - 1]
    return y[0]


# The resume point sits mid-expression, with values of the pending call on the stack above the
# blocks' __exit__: the try regions restarted there keep the blocks' own depth (the bytecode
# package gave them the depth at the resume point, and the checker refused the code).

def _plus_one(a):
    return a + 1


@break_case(CASES, call(T(2), torch.tensor(3.0)), call(T(2), torch.tensor(4.0)), state=grad_mode)
def break_in_a_conditional_argument_inside_nested_blocks(x, t):
    with torch.set_grad_enabled(False):
        with torch.enable_grad():
            x = x * 2
            y = _plus_one(int(t) if t.sum() > 0 else 0)
    return x + y


@break_case(CASES, call(T(2), torch.tensor(3.0)), state=grad_mode)
def break_in_an_argument_inside_three_blocks(x, t):
    with torch.set_grad_enabled(True):
        with torch.no_grad():
            with torch.set_grad_enabled(True):
                y = _plus_one(int(t))
    return x * y


test_with_block_raises = parametrize_breaks(CASES)
