"""Modules built inside the function from modules built there too, compared with Dynamo:
`nn.Sequential(nn.ReLU(), nn.Tanh())`, `nn.ModuleList([...])` of parameter-free modules are built at
trace time (the same every call) and called as any module; one holding a module the trace changed, or
one with parameters, still breaks naming it."""
import pytest
from torch import nn

import tracer
from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def a_sequential_of_modules_made_in_the_trace(x):
    block = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sequential(nn.Sigmoid()))
    return block(x), len(block)


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def a_module_list_of_modules_made_in_the_trace(x):
    layers = nn.ModuleList([nn.ReLU(), nn.GELU()])
    for layer in layers:
        x = layer(x) + 1
    return x


test_modules_made_in_trace = parametrize(CASES)


def sequential_of_a_changed_module(x):
    act = nn.ReLU()
    act.flag = 1
    return nn.Sequential(act)(x)


def test_a_module_the_trace_changed_breaks_naming_it():
    with pytest.raises(tracer.Unsupported, match="constructing the module Sequential inside the trace from"):
        tracer.compile(sequential_of_a_changed_module, fullgraph=True)(T(3))
