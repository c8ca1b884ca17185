"""Differential cases: a dict from outside the compiled function (a global, an argument) keyed by
tensors, parameters or modules -- objects hashed by identity, as an optimizer's `state[p]`.  Each
key gets a source of its own (`list(dict.keys(d))[i]`) and an identity guard, so reads, writes
and membership by such a key trace into one graph, and replacing a key recompiles, as Dynamo."""

import collections

import torch

from differential import T, call, case, mutate_with, parametrize
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
BREAK_CASES: list = []

W = torch.nn.Parameter(T(3))
B = T(3)
STATE = {W: T(3), B: T(3)}
SCALES = {W: 2.0, B: 3.0}
LINEAR = torch.nn.Linear(3, 3)
BY_MODULE = {LINEAR: 0.5}
MOMENTUM = collections.defaultdict(int)
PARAMS = [torch.nn.Parameter(T(3)), torch.nn.Parameter(T(3))]


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def read_by_tensor_key(x):
    return x * STATE[W] + STATE[B] * SCALES[B]


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def read_by_module_key(x):
    return LINEAR(x) * BY_MODULE[LINEAR]


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True, state=lambda: list(STATE.values()))
def write_by_tensor_key(x):
    STATE[W] = STATE[W] * 0.9 + x
    STATE[B] = x * 2
    return x * STATE[W]


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def membership_by_tensor_key(x):
    fresh = x + 1
    return x * (W in STATE), B in SCALES, fresh in STATE, fresh not in SCALES


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def get_by_tensor_key(x):
    return x * SCALES.get(W, 0.0) + SCALES.get(x, 5.0)


def _replace_key(g):
    old = g["B"]
    new = old.clone()
    g["B"] = new
    g["SCALES"] = {g["W"]: 2.0, new: 4.0}


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=mutate_with(_replace_key, "B and SCALES' key replaced")),
      call(T(3)), compiles="C.C.")
def key_replaced_between_calls(x):
    return x * SCALES[B]


@case(CASES, call(T(3)), call(T(3)), call(T(3)), compiles="CC.", fullgraph=True,
      state=lambda: [MOMENTUM[p] for p in PARAMS])
def defaultdict_keyed_by_parameters(x):
    """The first call meets missing keys (default_factory), the second the keys it stored."""
    total = x
    for p in PARAMS:
        MOMENTUM[p] = MOMENTUM[p] * 0.9 + p
        total = total + MOMENTUM[p]
    return total


WIDER = T(4)


def _resize_value(g):
    g["STATE"][g["W"]] = g["WIDER"]


@case(CASES, call(T(4)), call(T(4)), call(T(4), mutate=mutate_with(_resize_value, "STATE[W] = WIDER")),
      call(T(4)), compiles="C.C.")
def value_under_tensor_key_resized(x):
    return x + STATE[W].sum() * STATE[W].shape[0]


def _add_key(g):
    g["SCALES"][g["PARAMS"][0]] = 7.0


@case(CASES, call(T(3)), call(T(3), mutate=mutate_with(_add_key, "SCALES[PARAMS[0]] = 7.0")), call(T(3)),
      compiles="CC.")
def items_of_tensor_keyed_dict(x):
    total = x
    for key, scale in SCALES.items():
        total = total + key * scale
    return total, len(SCALES)


@case(CASES, call({W: 2.0, B: 3.0}, T(3)), call({W: 2.0, B: 3.0}, T(3)), compiles="C.", fullgraph=True)
def argument_dict_keyed_by_tensors(scales, x):
    return x * scales[W] + scales[B]


BUFFERS = {W: T(3), B: T(3)}


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True, state=lambda: list(BUFFERS))
def new_tensor_key_stored(x):
    """A key the trace adds (an input tensor) is replayed into the dict after the graph."""
    BUFFERS[x] = x * BUFFERS[W]
    return BUFFERS.pop(x) + len(BUFFERS)


OPT_STATE = {p: {"exp_avg": T(3), "step": torch.zeros(())} for p in PARAMS}


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True,
      state=lambda: [[s["exp_avg"], s["step"]] for s in OPT_STATE.values()])
def optimizer_style_state_per_parameter(lr):
    for p in PARAMS:
        state = OPT_STATE[p]
        state["step"] = state["step"] + 1
        state["exp_avg"] = state["exp_avg"] * 0.9 + p.detach() * 0.1
    return [p - lr * OPT_STATE[p]["exp_avg"] / OPT_STATE[p]["step"] for p in PARAMS]


NESTED = {"a": {"step": torch.zeros(())}}


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True, state=lambda: NESTED["a"]["step"])
def inner_dict_written_then_read_through_outer(x):
    """The outer dict is not mutated, the inner one is: reading it again through the outer sees the write."""
    inner = NESTED["a"]
    inner["step"] = inner["step"] + 1
    return x / NESTED["a"]["step"]


class Slot:
    """A plain object: hashed by identity."""


SLOT = Slot()
BY_SLOT = {SLOT: T(3), "bias": 1.0}


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def read_by_plain_object_key(x):
    return x * BY_SLOT[SLOT] + BY_SLOT["bias"], SLOT in BY_SLOT


test_outside_tensor_keys = parametrize(CASES)

EXP_AVG = {W: T(3), B: T(3)}


@break_case(BREAK_CASES, call(T(3)), call(T(3)), compiles="C.", state=lambda: list(EXP_AVG.values()))
def tensor_keyed_dict_written_around_break(x):
    EXP_AVG[W] = EXP_AVG[W] * 0.5 + x
    print("break")
    y = x + 1
    EXP_AVG[B] = EXP_AVG[B] + y
    return EXP_AVG[B] * y


test_outside_tensor_keys_at_breaks = parametrize_breaks(BREAK_CASES)
