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
    """What tracing `x * cfg.scale + n + len(xs)` plus a read of `d['a']` installs."""
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


class OtherCfg:
    scale = 2


def _cfg(scale, cls=Cfg):
    cfg = cls()
    cfg.scale = scale
    return cfg


# Every input the guard set of `_guards(Cfg with scale 2, ones(3), 1, [0, 0])` is checked on, labelled
# by hand with whether the premise it was built on still holds (the oracle: no guard code involved).
# A field left at its first variant is the very value the guards were made from.
VARIANTS = {
    "cfg": [
        ("the same object", True, lambda base: base),
        ("another Cfg, scale 2", True, lambda base: _cfg(2)),
        ("scale 3", False, lambda base: _cfg(3)),
        ("scale 2.0: equal but a float", False, lambda base: _cfg(2.0)),
        ("scale '2'", False, lambda base: _cfg("2")),
        ("another class with scale 2", False, lambda base: _cfg(2, OtherCfg)),
        ("missing", False, lambda base: None),
    ],
    "x": [
        ("a fresh ones(3)", True, lambda base: torch.ones(3)),
        ("other values, same metadata", True, lambda base: torch.full((3,), 7.0)),
        ("size 4", False, lambda base: torch.ones(4)),
        ("rank 2", False, lambda base: torch.ones(3, 1)),
        ("float64", False, lambda base: torch.ones(3, dtype=torch.float64)),
        ("requires grad", False, lambda base: torch.ones(3, requires_grad=True)),
        ("stride 2", False, lambda base: torch.ones(3, 2)[:, 0]),
        ("a Parameter", False, lambda base: torch.nn.Parameter(torch.ones(3), requires_grad=False)),
        ("a list", False, lambda base: [1.0, 1.0, 1.0]),
    ],
    "n": [
        ("1", True, lambda base: 1),
        ("int('1')", True, lambda base: int("1")),
        ("2", False, lambda base: 2),
        ("1.0: equal but a float", False, lambda base: 1.0),
        ("True: equal but a bool", False, lambda base: True),
        ("None", False, lambda base: None),
    ],
    "xs": [
        ("[0, 0]", True, lambda base: [0, 0]),
        ("other items, length 2", True, lambda base: ["a", None]),
        ("length 3", False, lambda base: [0, 0, 0]),
        ("empty", False, lambda base: []),
        ("a tuple of 2", False, lambda base: (0, 0)),
    ],
    "d": [
        ("{'a': None}", True, lambda base: {"a": None}),
        ("{'a': 0}", False, lambda base: {"a": 0}),
        ("an extra key", False, lambda base: {"a": None, "b": None}),
        ("key 'a' missing", False, lambda base: {"b": None}),
        ("empty", False, lambda base: {}),
    ],
    "grad_mode": [
        ("enabled", True, lambda base: True),
        ("disabled", False, lambda base: False),
    ],
}


@st.composite
def guard_inputs(draw):
    """A choice of variant per field: most fields stay as built, so accepted inputs are common."""
    changed = draw(st.lists(st.sampled_from(sorted(VARIANTS)), max_size=2, unique=True))
    return {field: draw(st.integers(0, len(VARIANTS[field]) - 1)) if field in changed else 0 for field in VARIANTS}


def _check_all_ways(choice, base_cfg, guard_set, seen):
    picked = {field: VARIANTS[field][i] for field, i in choice.items()}
    meant = all(accepted for _, accepted, _ in picked.values())
    values = {field: make(base_cfg) for field, (_, _, make) in picked.items()}
    f_globals = {} if values["cfg"] is None else {"cfg": values["cfg"]}
    f_locals = {"x": values["x"], "n": values["n"], "xs": values["xs"], "d": values["d"]}
    with torch.set_grad_enabled(values["grad_mode"]):
        fast = guard_set.check(f_locals, f_globals)
        failure = guard_set.first_failure(f_locals, f_globals)
    labels = {field: label for field, (label, _, _) in picked.items()}
    assert fast is meant, f"compiled check says {fast} for {labels}"
    assert (failure is None) is meant, f"first_failure says {failure!r} for {labels}"
    seen[meant] += 1


def test_compiled_guards_accept_exactly_the_inputs_their_premises_allow():
    """The compiled check and the slow path agree with the hand-labelled expectation on every input,
    and the inputs include accepted ones (equal but not identical values) as well as rejected ones."""
    base_cfg = _cfg(2)
    guard_set = GuardSet(_guards(base_cfg, torch.ones(3), 1, [0, 0]))
    seen = {True: 0, False: 0}

    @settings(max_examples=200, deadline=None, derandomize=True, database=None)
    @given(guard_inputs())
    def check(choice):
        _check_all_ways(choice, base_cfg, guard_set, seen)

    check()
    assert seen[True] >= 30 and seen[False] >= 100, seen


@pytest.mark.parametrize("field, index", [(f, i) for f, vs in VARIANTS.items() for i in range(1, len(vs))],
                         ids=[f"{f}: {v[0]}" for f, vs in VARIANTS.items() for v in vs[1:]])
def test_each_variant_alone(field, index):
    """Every single change from the values the guards were built on, on its own."""
    base_cfg = _cfg(2)
    guard_set = GuardSet(_guards(base_cfg, torch.ones(3), 1, [0, 0]))
    seen = {True: 0, False: 0}
    _check_all_ways({f: (index if f == field else 0) for f in VARIANTS}, base_cfg, guard_set, seen)


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
