"""The guard engine: failure reasons, provenance, reports, what-if and undoable edits."""
import json

import pytest
import torch
from hypothesis import given, settings, strategies as st

import tracer
from tracer.guards import StateEditor, report_json, report_text, source_tree
from tracer.guards.compiled import GuardSet
from tracer.guards.kinds import KINDS, Guard
from tracer.source import LocalSource


class Config:
    def __init__(self):
        self.scale = 2
        self.flag = True


class WithClassAttr:
    offset = 1.0


CFG = Config()
OBJ = WithClassAttr()
TABLE = {"a": 1}


def helper(t):
    return t * 2


def other_helper(t):
    return t * 3


def reads_everything(x, xs):
    y = x * CFG.scale + OBJ.offset + len(xs)
    for k in TABLE:
        y = y + TABLE[k]
    return helper(y) if CFG.flag else y


@pytest.fixture(autouse=True)
def _restore():
    tracer.reset()
    saved = (CFG.scale, CFG.flag, dict(TABLE), globals()["helper"])
    yield
    CFG.scale, CFG.flag = saved[0], saved[1]
    TABLE.clear()
    TABLE.update(saved[2])
    globals()["helper"] = saved[3]
    OBJ.__dict__.pop("offset", None)
    tracer.reset()


def _reason_after(mutate, x=None, xs=None):
    opt = tracer.compile(reads_everything)
    opt(torch.ones(3), [1, 2])
    args = mutate() or ()
    x = args[0] if args else torch.ones(3)
    xs = args[1] if len(args) > 1 else [1, 2]
    prediction = opt.what_if(x, xs)
    opt(x, xs)
    event = opt.compile_events[-1]
    assert event.kind == "recompile"
    assert prediction.recompiles and prediction.failures[0][1].split("  #")[0] in event.reason
    return event.reason


@pytest.mark.parametrize("mutate, expected", [
    (lambda: setattr(CFG, "scale", 5), "G['CFG'].scale == 2, got 5"),
    (lambda: setattr(OBJ, "offset", 3.0), "not ___dict_contains('offset', G['OBJ'].__dict__)"),
    (lambda: (torch.ones(3, dtype=torch.float64),),
     "tensor 'x' dtype mismatch. expected torch.float32, actual torch.float64"),
    (lambda: (torch.ones(4),), "tensor 'x' size mismatch at index 0. expected 3, actual 4"),
    (lambda: (torch.ones(3, 2)[:, 0],), "tensor 'x' stride mismatch at index 0. expected 1, actual 2"),
    (lambda: (torch.ones(3, requires_grad=True),), "tensor 'x' requires_grad mismatch. expected requires_grad=0"),
    (lambda: (torch.ones(3), [1, 2, 3]), "len(L['xs']) == 2, got len 3"),
    (lambda: TABLE.__setitem__("b", 2), "G['TABLE'].keys()"),
    (lambda: globals().__setitem__("helper", other_helper), "G['helper'].__code__"),
])
def test_failure_reason_names_guard_and_values(mutate, expected):
    assert expected in _reason_after(mutate)


def native_leaves(manager) -> list[str]:
    """The kinds of the leaf guards in a torch guard manager's tree."""
    leaves = [type(leaf).__name__ for leaf in manager.get_leaf_guards()]
    for child in manager.get_child_managers():
        leaves += native_leaves(child)
    return leaves


def test_an_entry_is_checked_by_torchs_native_tree():
    """Each kind reads_everything installs goes into torch's guard manager (what the frame hook's
    lookup runs), built from the compiled frame, and it answers as the guards do."""
    opt = tracer.compile(reads_everything)
    x, xs = torch.ones(3), [1, 2]
    opt(x, xs)
    guards = opt.cache_entries[0].guards
    assert guards.native is not None and guards.native.f_globals is globals()
    leaves = native_leaves(guards.native.root)
    # torch's own leaf for each kind (the tensor's from the frame's tensor; the dict keys as torch's
    # key-order check after a type check): no Python lambda left
    assert all(KINDS[g.kind].native is not None for g in guards) and "LAMBDA_GUARD" not in leaves
    assert {g.kind for g in guards} - {"DICT_KEYS_MATCH"} <= set(leaves) and "MAPPING_KEYS_MATCH" in leaves
    f_locals = {"x": x, "xs": xs}
    assert guards.native.probe(f_locals) and guards.python_check(f_locals, globals())
    assert not guards.native.probe({"x": torch.ones(4), "xs": xs})
    CFG.scale = 5
    assert not guards.native.probe(f_locals) and not guards.python_check(f_locals, globals())


def test_a_what_if_or_a_failure_reason_asks_the_native_tree_without_counting_a_hit():
    """Asked from Python (what-if, why a guard failed), the native tree answers without counting a hit:
    the entry's hits and the call list stay what the calls did."""
    opt = tracer.compile(reads_everything)
    x, xs = torch.ones(3), [1, 2]
    opt(x, xs)
    opt(x, xs)
    entry = opt.cache_entries[0]
    hits, calls = entry.hits, list(opt.calls)
    assert hits == 2 and len(calls) == 2 and calls[-1] == entry.compile_id
    assert not opt.what_if(x, xs).recompiles and entry.guards.check({"x": x, "xs": xs}, globals())
    assert entry.guards.first_failure({"x": x, "xs": xs}, globals()) is None
    assert entry.guards.native.failing_parts({"x": x, "xs": xs}) == []
    assert (entry.hits, list(opt.calls)) == (hits, calls)
    opt(x, xs)
    assert (entry.hits, list(opt.calls)) == (hits + 1, calls + [entry.compile_id])
    (part,) = entry.guards.native.failing_parts({"x": torch.ones(4), "xs": xs})
    assert part.startswith("tensor 'check_tensor(L['x'], Tensor, torch.float32") and \
        part.endswith("size mismatch at index 0. expected 3, actual 4")


def test_guards_torch_cannot_hold_are_checked_by_the_python_check(monkeypatch):
    """If torch's tree cannot be built, the entry keeps no native tree and the generated Python
    check guards the cache: hits stay hits, a changed value still recompiles."""
    import tracer.guards.native

    def cannot(*args):
        raise RuntimeError("torch cannot hold this guard")

    monkeypatch.setattr(tracer.guards.native, "NativeGuards", cannot)
    opt = tracer.compile(reads_everything)
    x, xs = torch.ones(3), [1, 2]
    first = opt(x, xs)
    assert opt.cache_entries[0].guards.native is None
    assert torch.equal(opt(x, xs), first) and len(opt.cache_entries) == 1
    CFG.scale = 5
    opt(x, xs)
    assert len(opt.cache_entries) == 2 and "G['CFG'].scale == 2, got 5" in opt.compile_events[-1].reason


def test_a_guard_set_checks_the_globals_it_is_given():
    """The native tree holds the compile-time globals: a check over another namespace (the same
    code under other globals) must read that one."""
    opt = tracer.compile(reads_everything)
    x, xs = torch.ones(3), [1, 2]
    opt(x, xs)
    guards, f_locals = opt.cache_entries[0].guards, {"x": x, "xs": xs}
    other = dict(globals(), CFG=Config())
    other["CFG"].scale = 5
    assert guards.check(f_locals, globals()) and not guards.check(f_locals, other)
    assert guards.first_failure(f_locals, other).startswith("G['CFG'].scale == 2, got 5")


def test_a_global_that_is_gone_is_named_with_the_error():
    opt = tracer.compile(reads_everything)
    x, xs = torch.ones(3), [1, 2]
    opt(x, xs)
    gone = {k: v for k, v in globals().items() if k != "CFG"}
    assert opt.cache_entries[0].guards.first_failure({"x": x, "xs": xs}, gone) == \
        "G['CFG']: cannot be read (KeyError: 'CFG')"


def test_a_guard_set_without_guards_holds_for_any_frame():
    guards = GuardSet([])
    assert guards.check({}, {}) and guards.python_check({"x": 1}, {}) and guards.first_failure({}, {}) is None


def test_a_guard_whose_check_raises_fails_and_is_named():
    """A check that raises on the value it reads (a tuple iterator's length of an int) does not
    hold: both the check and the failure's text say so."""
    guards = GuardSet([Guard(LocalSource("it"), "TUPLE_ITERATOR_LEN", 2)])
    assert guards.check({"it": iter((1, 2))}, {}) and guards.first_failure({"it": iter((1, 2))}, {}) is None
    assert not guards.check({"it": 5}, {})
    assert guards.first_failure({"it": 5}, {}) == "___tuple_iterator_len(L['it']) == 2, got 5"


def test_a_failure_only_torchs_tree_sees_is_named_from_it():
    """An inference-mode tensor matches every Python premise (type, dtype, device, sizes, strides)
    but not the dispatch keys torch's tensor check compares: the reason comes from the native tree."""
    opt = tracer.compile(reads_everything)
    x, xs = torch.ones(3), [1, 2]
    opt(x, xs)
    guards = opt.cache_entries[0].guards
    with torch.inference_mode():
        f_locals = {"x": torch.ones(3), "xs": xs}
    assert guards.python_check(f_locals, globals()) and not guards.check(f_locals, globals())
    reason = guards.first_failure(f_locals, globals())
    assert reason.startswith("tensor 'check_tensor(L['x'], Tensor, torch.float32") and "dispatch key set mismatch" in reason
    assert reason.endswith("failed in torch's native check (which also compares a tensor's dispatch keys and "
                           "more global state)")


def test_grad_mode_change_is_named():
    opt = tracer.compile(reads_everything)
    opt(torch.ones(3), [1])
    with torch.no_grad():
        opt(torch.ones(3), [1])
    assert "grad_mode=False" in opt.compile_events[-1].reason


@pytest.mark.parametrize("switch", ["autocast", "deterministic_algorithms"])
def test_global_switches_recompile_as_dynamo_does(switch):
    def matmul(x, w):
        return x @ w

    def under_switch(call):
        if switch == "autocast":
            with torch.autocast("cpu"):
                return call()
        torch.use_deterministic_algorithms(True)
        try:
            return call()
        finally:
            torch.use_deterministic_algorithms(False)

    x, w = torch.randn(4, 4), torch.randn(4, 4)
    compiles = {}
    for name, compile_ in (("dynamo", lambda f: torch.compile(f, backend=counter(compiles, "dynamo"), dynamic=False)),
                           ("tracer", lambda f: tracer.compile(f, backend=counter(compiles, "tracer")))):
        compiled = compile_(matmul)
        compiled(x, w)
        out = under_switch(lambda: compiled(x, w))
        compiled(x, w)  # back to the first entry: a hit
        compiles.setdefault(name + "_dtype", out.dtype)
    assert compiles["tracer"] == compiles["dynamo"] == 2
    assert compiles["tracer_dtype"] == compiles["dynamo_dtype"]


def counter(counts: dict, name: str):
    def backend(gm, example_inputs):
        counts[name] = counts.get(name, 0) + 1
        return gm.forward
    return backend


def test_reason_includes_the_line_that_installed_the_guard():
    opt = tracer.compile(reads_everything)
    opt(torch.ones(3), [1, 2])
    CFG.scale = 7
    opt(torch.ones(3), [1, 2])
    assert "y = x * CFG.scale + OBJ.offset + len(xs)" in opt.compile_events[-1].reason


def test_cache_hits_and_the_limit_are_recorded():
    opt = tracer.compile(reads_everything, cache_size_limit=1)
    opt(torch.ones(3), [1])
    opt(torch.ones(3), [1])
    CFG.scale = 9
    with pytest.warns(tracer.CacheLimitExceeded):
        opt(torch.ones(3), [1])
    # the entry each call ran: the compiling call's new one, a hit, none past the limit (it ran as it is)
    assert list(opt.calls) == ["0/0", "0/0", None]
    assert [e.kind for e in opt.compile_events] == ["compile", "cache_limit"]
    assert opt.cache_entries[0].hits == 2  # the compiling call runs the new entry too
    assert opt.compile_events[-1].kind == "cache_limit" and "G['CFG'].scale == 2, got 9" in opt.compile_events[-1].reason
    assert opt.what_if(torch.ones(3), [1]).cache_limit_reached


def test_provenance_links_guards_to_instruction_and_tracker():
    opt = tracer.compile(reads_everything)
    opt(torch.ones(3), [1, 2])
    guard = next(g for g in opt.cache_entries[0].guards if g.source_name == "G['CFG'].scale")
    at = guard.installed_at
    assert at.function == "reads_everything" and at.line == reads_everything.__code__.co_firstlineno + 1
    line = at.source_line
    # read lazily, as Dynamo: guarded by the instruction that first uses it, the multiplication
    assert line[at.col_span[0]:at.col_span[1]] == "x * CFG.scale"
    assert guard.installed_by == "ConstantVariable"
    tensor_guard = next(g for g in opt.cache_entries[0].guards if g.kind == "TENSOR_MATCH")
    assert tensor_guard.installed_by == "TensorVariable"


def test_source_tree_lists_guards_per_node():
    opt = tracer.compile(reads_everything)
    opt(torch.ones(3), [1, 2])
    guards = list(opt.cache_entries[0].guards)
    tree = {node["source"]: node for node in source_tree(guards)}
    cfg = tree["G['CFG']"]
    assert [guards[i].kind for i in cfg["guards"]] == ["TYPE_MATCH"]
    children = {child["source"]: child for child in cfg["children"]}
    assert {"G['CFG'].scale", "G['CFG'].flag"} <= set(children)


def test_reports_text_and_json():
    opt = tracer.compile(reads_everything)
    opt(torch.ones(3), [1, 2])
    entry = opt.cache_entries[0]
    text = report_text(entry)
    assert text.startswith("TREE_GUARD_MANAGER:") and "+- GuardManager: source=G['CFG']" in text
    assert "EQUALS_MATCH: G['CFG'].scale == 2" in text and "reads_everything" in text
    doc = json.loads(json.dumps(report_json(entry, "reads_everything")))
    assert doc["schema"] == "standin.guards/1" and doc["compile_id"] == "0/0"
    scale = next(g for g in doc["guards"] if g["source"] == "G['CFG'].scale")
    assert scale == {**scale, "kind": "EQUALS_MATCH", "expression": "G['CFG'].scale == 2", "expected": "2"}
    assert scale["installed_at"]["line"] == reads_everything.__code__.co_firstlineno + 1


def test_state_editor_is_undoable():
    editor = StateEditor(globals())
    editor.set_expression("CFG.scale", "CFG.scale + 10")
    editor.set("TABLE['new']", 5)
    editor.set("BRAND_NEW", 1)
    assert CFG.scale == 12 and TABLE["new"] == 5 and BRAND_NEW == 1  # noqa: F821
    editor.undo_all()
    assert CFG.scale == 2 and "new" not in TABLE and "BRAND_NEW" not in globals()
    with pytest.raises(ValueError):
        editor.set("CFG.scale + 1", 3)


MUTATIONS = st.lists(st.one_of(
    st.tuples(st.just("scale"), st.sampled_from([2, 3, 2.0])),
    st.tuples(st.just("flag"), st.booleans()),
    st.tuples(st.just("table"), st.sampled_from(["a", "b"])),
    st.tuples(st.just("shape"), st.sampled_from([3, 4])),
    st.tuples(st.just("xs"), st.integers(1, 3)),
    st.tuples(st.just("unread"), st.integers(0, 5)),
), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(MUTATIONS)
def test_what_if_predicts_the_next_call(mutations):
    tracer.reset()
    opt = tracer.compile(reads_everything, cache_size_limit=64)
    shape, xs_len = 3, 2
    opt(torch.ones(shape), [0] * xs_len)
    with StateEditor(globals()) as editor:
        for kind, value in mutations:
            if kind == "scale":
                editor.set("CFG.scale", value)
            elif kind == "flag":
                editor.set("CFG.flag", value)
            elif kind == "table":
                editor.set(f"TABLE[{value!r}]", 1)
            elif kind == "shape":
                shape = value
            elif kind == "xs":
                xs_len = value
            else:
                editor.set("UNREAD", value)
            x, xs = torch.ones(shape), [0] * xs_len
            prediction = opt.what_if(x, xs)
            before = len(opt.cache_entries)
            opt(x, xs)
            compiled = len(opt.cache_entries) > before
            assert compiled == prediction.recompiles
            if not compiled:
                assert list(opt.calls)[-1] == prediction.hit
    TABLE.pop("b", None)
    globals().pop("UNREAD", None)


class Scaled(torch.nn.Module):
    shift = 1.0  # a class attribute: not in the instance's __dict__

    def __init__(self):
        super().__init__()
        self.factor = 2.0
        self._gain = 3.0

    @property
    def gain(self):  # a data descriptor of the class, read through getattr, never the __dict__
        return self._gain

    @gain.setter
    def gain(self, value):
        self._gain = value

    def forward(self, x):
        return x * self.factor * self.gain + self.shift


def test_a_modules_own_attributes_class_attributes_and_properties_hit_the_native_tree_and_fail_it():
    model = Scaled()
    opt = tracer.compile(model)
    x = torch.ones(2)
    opt(x)
    opt(x)
    entry = opt.cache_entries[0]
    assert entry.guards.native is not None and len(opt.cache_entries) == 1 and list(opt.calls)[-1] == entry.compile_id
    f_locals = {"self": model, "x": x}
    assert entry.guards.native.probe(f_locals)
    for name, value in (("factor", 5.0), ("gain", 4.0), ("shift", -1.0)):
        saved = getattr(model, name)
        setattr(type(model) if name == "shift" else model, name, value)
        try:
            assert not entry.guards.native.probe(f_locals), name
            torch.testing.assert_close(opt(x), model.forward(x))
        finally:
            setattr(type(model) if name == "shift" else model, name, saved)
    assert entry.guards.native.probe(f_locals)
