"""The rewritten code reads a path that several graph inputs share once (tracer/input_loading.py).

A stack of layers hands the graph every parameter as
`L['self']._modules['layers']._modules['<i>']._parameters['<name>']`: the code reads
`self._modules['layers']._modules` once and each layer's `_parameters` once, keeps
them in temporaries it deletes after the graph call, and still computes what eager
computes when a parameter is replaced between calls (differential cases).
"""
import dis

import torch
import torch.nn as nn

import tracer
from differential import Case, T, call, mutate_with, parametrize

CASES: list = []


class Stack(nn.Module):
    def __init__(self, n: int = 4):
        super().__init__()
        torch.manual_seed(0)
        self.layers = nn.ModuleList(nn.Linear(3, 3) for _ in range(n))
        self.scale = nn.Parameter(torch.full((3,), 0.5))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x * self.scale


def loads(code, opname: str, argrepr: str) -> int:
    return sum(1 for i in dis.get_instructions(code) if i.opname == opname and i.argrepr == argrepr)


def test_each_shared_path_is_read_once():
    net, x = Stack(4), torch.randn(2, 3)
    opt = tracer.compile(net, backend="eager", dynamic=False)
    torch.testing.assert_close(opt(x), net(x))
    code = opt.cache_entries[0].code
    assert loads(code, "LOAD_ATTR", "_modules") == 2  # self._modules, then the list's, once each
    assert loads(code, "LOAD_ATTR", "_parameters") == 5  # one per layer, one for self.scale


def test_the_kept_paths_are_deleted_after_the_graph_call():
    opt = tracer.compile(Stack(3), backend="eager", dynamic=False)
    opt(torch.randn(2, 3))
    instructions = list(dis.get_instructions(opt.cache_entries[0].code))
    stored = [i.argval for i in instructions if i.opname == "STORE_FAST" and i.argval.startswith("___input_path")]
    deleted = [i.argval for i in instructions if i.opname == "DELETE_FAST"]
    assert stored and sorted(stored) == sorted(deleted)
    graph_call = next(n for n, i in enumerate(instructions) if i.opname == "STORE_FAST" and i.argval == "___graph_out")
    assert all(n > graph_call for n, i in enumerate(instructions) if i.opname == "DELETE_FAST")


STACK = Stack(3)
STASH: dict = {}


def stack_forward(x):
    return STACK(x)


def _replace_weight(g):
    STASH["weight"] = g["STACK"].layers[1].weight
    g["STACK"].layers[1].weight = nn.Parameter(torch.linspace(-1.0, 1.0, 9).reshape(3, 3))


def _put_back_weight(g):
    g["STACK"].layers[1].weight = STASH.pop("weight")


def _replace_layer(g):
    STASH["layer"] = g["STACK"].layers[2]
    replacement = nn.Linear(3, 3)
    with torch.no_grad():
        replacement.weight.copy_(torch.eye(3))
        replacement.bias.fill_(0.5)
    g["STACK"].layers[2] = replacement


def _put_back_layer(g):
    g["STACK"].layers[2] = STASH.pop("layer")


CASES.append(Case(stack_forward, [call(T(2, 3)), call(T(2, 3)),
                                  call(T(2, 3), mutate=mutate_with(_replace_weight, "layers[1].weight = new")),
                                  call(T(2, 3), mutate=mutate_with(_put_back_weight, "layers[1].weight back"))],
                  None, None, False, "a_parameter_replaced_between_calls"))
CASES.append(Case(stack_forward, [call(T(2, 3)), call(T(2, 3)),
                                  call(T(2, 3), mutate=mutate_with(_replace_layer, "layers[2] = new Linear")),
                                  call(T(2, 3), mutate=mutate_with(_put_back_layer, "layers[2] back"))],
                  None, None, False, "a_layer_replaced_between_calls"))

test_diff_input_loading = parametrize(CASES)
