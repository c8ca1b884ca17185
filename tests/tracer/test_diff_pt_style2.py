"""Differential cases found by running files of PyTorch's test/dynamo suite (test_functions,
test_ctx_manager) through both engines: the constructs where Standin differed."""
import torch

from differential import T, call, case, parametrize, parametrize_against_eager

CASES: list = []
AGAINST_EAGER: list = []


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


test_pt_style2 = parametrize(CASES)
test_pt_style2_against_eager = parametrize_against_eager(AGAINST_EAGER)
