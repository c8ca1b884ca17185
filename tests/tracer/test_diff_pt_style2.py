"""Differential cases found by running files of PyTorch's test/dynamo suite (test_functions,
test_ctx_manager) through both engines: the constructs where Standin differed."""
import contextlib

import torch

from differential import T, call, case, parametrize, parametrize_against_eager
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
AGAINST_EAGER: list = []
BREAK_CASES: list = []


@case(AGAINST_EAGER, call(T(3), 1.0), call(T(3), 1.5), call(T(3), 2.0), call(T(3), 2.5), call(T(3), 3.0),
      compiles="CCC..", dynamic=None, fullgraph=True)
def float_is_integer_of_a_symbolic_float(x, m):
    # a float that changed between calls is symbolic: is_integer() is a node and the branch guards on
    # it, so one entry serves every integral value and one every other (Dynamo specialises the float)
    return x * 2 if m.is_integer() else x - 1


@case(CASES, call(T(3), 0), call(T(3), 1), call(T(3), 6), call(T(3), 7), dynamic=None, fullgraph=True)
def int_methods_of_a_symbolic_int(x, n):
    # as_integer_ratio() and conjugate() answer symbolically; bit_length() specialises the int
    num, den = n.as_integer_ratio()
    return x * num + den, x + n.conjugate(), n.bit_length()


@case(CASES, call(T(3), 0.5), call(T(3), 2.0), call(T(3), 2.0), dynamic=None, fullgraph=True)
def float_hex_and_ratio_of_a_symbolic_float(x, m):
    return x + len(m.hex()), m.as_integer_ratio()[1]




def _sine(x):
    return x.sin()


@case(CASES, call(T(4).requires_grad_()), call(T(4).requires_grad_()), compiles="C.", fullgraph=True)
def grad_mode_objects_decorating_functions_inside_the_trace(x):
    with torch.no_grad():
        on = torch.enable_grad()(_sine)
        off = torch.no_grad(_sine)  # the class itself, given a function
        still_off = torch.is_grad_enabled()
    with torch.no_grad():
        a = on(x)
    with torch.enable_grad():
        b = off(x)
    return a, b, a.requires_grad, b.requires_grad, still_off


@case(CASES, call(T(4).requires_grad_()), call(T(4).requires_grad_()), compiles="C.", fullgraph=True)
def set_grad_enabled_decorating_a_function_gives_back_the_mode(x):
    with torch.set_grad_enabled(True):
        @torch.set_grad_enabled(False)
        def inner(y):
            return y * 2
        mode = torch.is_grad_enabled()  # the decorator put back the mode it found
    out = inner(x)
    return out, out.requires_grad, mode, torch.is_grad_enabled()


@case(AGAINST_EAGER, call(T(4)), call(T(4)), compiles="C.")
def set_grad_enabled_object_alive_at_a_break(x):
    # made (and applied) before the break, entered after it: rebuilt with the mode it found, so its
    # exit gives that mode back (Dynamo 2.13 rebuilds it by calling it again: grad mode stays off)
    x = x + 1
    ctx = torch.set_grad_enabled(False)
    torch._dynamo.graph_break()
    with ctx:
        x = x * 2
    return x, torch.is_grad_enabled()


@break_case(BREAK_CASES, call(T(4)), call(T(4)), compiles="C.")
def inactive_contexts_alive_at_a_break(x):
    # as PyTorch's test_inactive_context_graph_break_local: rebuilt after the break, traced in the resume
    x = x + 1
    ctx, null = torch.set_grad_enabled(True), contextlib.nullcontext()
    torch._dynamo.graph_break()
    with ctx:
        x = x * 2
    with null as nothing:
        x = x + (nothing is None)
    return x


@case(AGAINST_EAGER, call(T(4).requires_grad_()), call(T(4).requires_grad_()), compiles="C.")
def no_grad_object_alive_at_a_break(x):
    # its block runs without grad in the resume function, and grad mode is on again after it
    # (Dynamo 2.13 records no switch in the resume graph and leaves grad mode off)
    x = x + 1
    quiet = torch.no_grad()
    torch._dynamo.graph_break()
    with quiet:
        y = x * 2
    return y, y.requires_grad, torch.is_grad_enabled()


@case(AGAINST_EAGER, call(T(4)), call(T(4)), compiles="C.")
def nullcontext_with_a_value_alive_at_a_break(x):
    # rebuilt with its value (Dynamo 2.13 raises an internal error rebuilding it)
    x = x + 1
    null = contextlib.nullcontext(3)
    torch._dynamo.graph_break()
    with null as three:
        x = x + three
    return x


def _passes_on(ctx):
    torch._dynamo.graph_break()
    return ctx


@case(AGAINST_EAGER, call(T(4)), call(T(4)), compiles="C.")
def grad_mode_object_returned_through_a_break(x):
    # the resume function traces the with-block on the object the callee handed back (Dynamo 2.13
    # breaks again there, one graph fewer)
    x = x + 1
    ctx = _passes_on(torch.enable_grad())
    with ctx:
        x = x + 1
    return x


class _Scale:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        return x * self.k


class _ScaleAfterABreak(_Scale):
    def apply(self, x):
        y = x + 1
        torch._dynamo.graph_break()
        return super().apply(y) - 1  # zero-argument super() in the resume function


SCALE = _ScaleAfterABreak(3)


@break_case(BREAK_CASES, call(T(4)), call(T(4)), compiles="C.")
def zero_argument_super_after_a_break(x):
    return SCALE.apply(x) + 2


@break_case(BREAK_CASES, call(T(4)), call(T(4)), compiles="C.")
def graph_break_inside_null_and_profiler_blocks(x):
    # as PyTorch's test_torch_profiler: the resume function goes on inside both blocks
    y = x * 2
    with contextlib.nullcontext():
        y = y + 1
        with torch.profiler.record_function("region"):
            z = y ** 3
            z.tolist()  # a graph break
            z = z + 1
    return z


test_pt_style2 = parametrize(CASES)
test_pt_style2_against_eager = parametrize_against_eager(AGAINST_EAGER)
test_pt_style2_breaks = parametrize_breaks(BREAK_CASES)
