"""Breaks Dynamo resumes after and we used to run eagerly: at f(*args, **kwargs), with a
container's bound method waiting on the stack, and a slice passed as an argument; a break the
code asks for (`torch._dynamo.graph_break()`), with a reason that says so.  A
function made in the trace and called at the break is compiled as its own frame.
"""
import torch

import tracer
from differential import T, call, case, parametrize
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
PLAIN: list = []
LOG: list = []


def helper(a, b, scale=1):
    print("helper")
    return a * b * scale


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def print_with_star_args_and_kwargs(x):
    args = (x, 2)
    kw = {"sep": "-"}
    print(*args[1:], "a", **kw)
    return args[0] * args[1]


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def star_call_of_a_breaking_helper(x):
    args = (x, 3)
    y = helper(*args, **{"scale": 2})
    return y + 1


@break_case(CASES, call(T(3)), compiles="C", state=lambda: list(LOG))
def a_lists_append_waits_on_the_stack(x):
    with torch.no_grad():
        y = x * 2
        LOG.append(y.sum().item() > -100)
    for i in range(2):
        y = y + i
    return y


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def a_function_made_here_breaks_when_called(x):
    k = 3

    def inner(t, s=2):
        print("inner")
        return t * s * k

    return inner(x + 1) + 1


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def a_graph_break_the_code_asks_for(x):
    y = x * 2
    torch._dynamo.graph_break()
    return y + 1


def test_the_reason_of_a_requested_break_says_so():
    explained = tracer.explain(a_graph_break_the_code_asks_for)(torch.ones(3))
    reasons = [brk.reason for brk in explained.graph_breaks]
    assert reasons == ["torch._dynamo.graph_break(): a graph break the code asks for"], reasons


@case(PLAIN, call(T(5), slice(0, 2)), call(T(5), slice(0, 2)), call(T(5), slice(1, 4)), compiles="C.C")
def slice_argument(x, s):
    return x[s] * 2


@break_case(CASES, call(T(3), 0), call(T(3), 1), call(T(3), 2), compiles="C..", all_frames=True)
def an_argument_the_graph_never_read_crosses_the_break_unguarded(x, n):
    """As Dynamo: `n` goes to the resume function as it is, so only the resume function
    (which reads it) recompiles for a new `n`, not the frame before the break."""
    y = x * 2
    print("break")
    return y + n


test_breaks_more = parametrize_breaks(CASES)
test_plain_more = parametrize(PLAIN)
