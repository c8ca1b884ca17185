"""Sources name themselves as Dynamo prints them; compiled guards agree with the slow path."""
import pytest
import torch
from hypothesis import given, settings, strategies as st

import bytecode as bc

from tracer.codegen import PyCodegen
from tracer.side_effects import SideEffects
from tracer.guards import Guard, GuardSet, TensorMeta, global_state
from tracer.source import AttrSource, GetItemSource, GlobalSource, LocalSource


class Cfg:
    scale = 2


def _uses_cfg():
    return Cfg


@pytest.mark.parametrize("source, name, placeholder", [
    (LocalSource("x"), "L['x']", "L_x_"),
    (GlobalSource("cfg"), "G['cfg']", "G_cfg_"),
    (AttrSource(GlobalSource("cfg"), "scale"), "G['cfg'].scale", "G_cfg_scale"),
    (GetItemSource(LocalSource("d"), "k"), "L['d']['k']", "L_d_k_"),
    (GetItemSource(LocalSource("xs"), 0), "L['xs'][0]", "L_xs_0_"),
    (GetItemSource(AttrSource(GetItemSource(AttrSource(LocalSource("self"), "_modules"), "fc1"),
                              "_parameters"), "weight"),
     "L['self']._modules['fc1']._parameters['weight']", "L_self_modules_fc1_parameters_weight_"),
])
def test_source_names_match_dynamo(source, name, placeholder):
    assert source.name() == name
    assert source.graph_input_name() == placeholder


def test_source_fetches_and_reconstructs():
    cfg = Cfg()
    cfg.scale = 5
    f_locals, f_globals = {"d": {"k": [10, 20]}}, {"cfg": cfg}
    assert AttrSource(GlobalSource("cfg"), "scale").get_value(f_locals, f_globals) == 5
    assert GetItemSource(GetItemSource(LocalSource("d"), "k"), 1).get_value(f_locals, f_globals) == 20
    codegen = PyCodegen(_uses_cfg.__code__, SideEffects())
    GetItemSource(AttrSource(GlobalSource("cfg"), "scale"), 0).reconstruct(codegen)
    assert [(i.name, i.arg) for i in codegen.instructions] == [
        ("LOAD_GLOBAL", (False, "cfg")), ("LOAD_ATTR", "scale"), ("LOAD_CONST", 0), ("BINARY_SUBSCR", bc.UNSET)]
    chain = GetItemSource(AttrSource(GlobalSource("cfg"), "items"), 0).chain()
    assert [s.name() for s in chain] == ["G['cfg']", "G['cfg'].items", "G['cfg'].items[0]"]


def _guards(cfg, x, n, xs):
    return [
        Guard(None, "GLOBAL_STATE", global_state()),
        Guard(GlobalSource("cfg"), "TYPE_MATCH", type(cfg)),
        Guard(AttrSource(GlobalSource("cfg"), "scale"), "EQUALS_MATCH", cfg.scale),
        Guard(LocalSource("x"), "TENSOR_MATCH", TensorMeta.of(x)),
        Guard(LocalSource("n"), "EQUALS_MATCH", n),
        Guard(LocalSource("xs"), "TYPE_MATCH", list),
        Guard(LocalSource("xs"), "LENGTH_CHECK", len(xs)),
        Guard(GetItemSource(LocalSource("d"), "a"), "ID_MATCH", None),
        Guard(LocalSource("d"), "DICT_KEYS_MATCH", ("a",)),
    ]


tensors = st.sampled_from([
    torch.ones(3), torch.ones(4), torch.ones(3, dtype=torch.float64), torch.ones(3, 1)[:, 0],
    torch.ones(3, requires_grad=True), torch.ones(2, 3).t(),
])
values = st.one_of(st.integers(-3, 3), st.floats(-2, 2, allow_nan=False), st.booleans(), st.none(), st.text(max_size=2))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(scale=values, x=tensors, n=values, xs_len=st.integers(0, 3), d=st.dictionaries(st.sampled_from("ab"), st.none()),
       drop_cfg=st.booleans())
def test_compiled_guards_accept_exactly_what_the_slow_path_accepts(scale, x, n, xs_len, d, drop_cfg):
    base_cfg = Cfg()
    base_cfg.scale = 2
    guard_set = GuardSet(_guards(base_cfg, torch.ones(3), 1, [0, 0]))
    cfg = Cfg()
    cfg.scale = scale
    f_globals = {} if drop_cfg else {"cfg": cfg}
    f_locals = {"x": x, "n": n, "xs": [0] * xs_len, "d": d}
    fast = guard_set.check(f_locals, f_globals)
    slow = guard_set.first_failure(f_locals, f_globals) is None
    assert fast == slow


def test_failure_reason_names_guard_and_actual_value():
    cfg = Cfg()
    cfg.scale = 2
    guard_set = GuardSet(_guards(cfg, torch.ones(3), 1, [0, 0]))
    ok_locals = {"x": torch.ones(3), "n": 1, "xs": [0, 0], "d": {"a": None}}
    assert guard_set.check(ok_locals, {"cfg": cfg})
    cfg.scale = 3
    assert guard_set.first_failure(ok_locals, {"cfg": cfg}) == "G['cfg'].scale == 2, got 3"
    cfg.scale = 2
    reason = guard_set.first_failure({**ok_locals, "x": torch.ones(5)}, {"cfg": cfg})
    assert reason.startswith("tensor 'x' size mismatch at index 0. expected 3, actual 5")  # Dynamo's words
    assert "cannot be read" in guard_set.first_failure(ok_locals, {})
