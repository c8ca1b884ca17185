"""The comparison's parts on their own: the diff of two records, value summaries, observed calls, log parsing."""
import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tracer
from tracer.compare import compare
from tracer.compare.calls import CallLog, name_of
from tracer.compare.diff import first_graph_difference, match_frames
from tracer.compare.dynamo_side import DynamoObserver
from tracer.compare.records import BreakRecord, CompileRecord, FrameRecord, GuardRecord, RunRecord
from tracer.compare.values import difference, summarize

FILE = "/work/user/train.py"


def run(engine: str, *frames: FrameRecord) -> RunRecord:
    return RunRecord(engine, FILE, frames=list(frames))


def frame(name="f", line=3, *compiles) -> FrameRecord:
    return FrameRecord(name, FILE, line, list(compiles) or [CompileRecord("0/0", "compile", graphs=[["torch.sin"]])])


def aspect(diff, name):
    return next(a for a in diff.aspects if a.name == name)


def test_equal_records_agree():
    comparison = compare(run("standin", frame()), run("dynamo", frame()))
    assert comparison.agree and [f.same for f in comparison.frames] == [True]


def test_first_differing_op_is_named_with_its_position():
    assert first_graph_difference([["torch.sin", "operator.add"]], [["torch.sin", "operator.mul"]]) == \
        "graph 0, op 1: Standin operator.add, Dynamo operator.mul"
    assert first_graph_difference([["torch.sin"]], [["torch.sin", "operator.mul"]]) == \
        "graph 0: Standin 1 op, Dynamo 2 ops; from op 1 only Dynamo has operator.mul"
    assert first_graph_difference([["a"], ["b"]], [["a", "b"]]) == "Standin made 2 graphs, Dynamo 1 graph"
    assert first_graph_difference([["a"], []], [["a"], []]) is None


def test_a_break_on_one_side_only_keeps_its_reason_verbatim():
    reason = "Encountered graph break when attempting to trace CALL:\n\nFailed to trace builtin operator `print`"
    broken = CompileRecord("0/0", "compile", graphs=[["torch.sin"]], breaks=[BreakRecord(FILE, 7, reason)])
    comparison = compare(run("standin", frame()), run("dynamo", frame("f", 3, broken)))
    breaks = aspect(comparison.frames[0], "breaks")
    assert not breaks.same and breaks.standin == "no breaks" and breaks.dynamo == "1 break at train.py:7"
    assert breaks.details == [f"compile 1 [0/0]: only Dynamo breaks at train.py:7 (Standin does not break there): {reason}"]


def guarded(*sources):
    return CompileRecord("0/0", "compile", guards=[GuardRecord(s, "EQUALS_MATCH", f"{s} == 1") for s in sources])


def test_guards_differ_by_source():
    standin = frame("f", 3, guarded("", "L['x']", "type(G['cfg']).scale"))
    dynamo = frame("f", 3, guarded("", "L['x']", "dict(type(G['cfg']).__dict__)['scale']"))
    comparison = compare(run("standin", standin), run("dynamo", dynamo))
    guards = aspect(comparison.frames[0], "guards")
    assert guards.details == ["compile 1 [0/0]: only Dynamo guards dict(type(G['cfg']).__dict__)['scale']",
                              "compile 1 [0/0]: only Standin guards type(G['cfg']).scale"]
    assert comparison.not_compared == []


def test_builtins_guarded_on_both_sides_agree_whatever_their_dicts_number():
    same = compare(run("standin", frame("f", 3, guarded("L['x']", "G['__builtins_dict___0']['len']"))),
                   run("dynamo", frame("f", 3, guarded("L['x']", "G['__builtins_dict___2']['len']"))))
    assert same.agree
    one_side = compare(run("standin", frame("f", 3, guarded("L['x']"))),
                       run("dynamo", frame("f", 3, guarded("L['x']", "G['__builtins_dict___2']['len']"))))
    assert aspect(one_side.frames[0], "guards").details == \
        ["compile 1 [0/0]: only Dynamo guards G['__builtins_dict__']['len']"]


def test_recompiles_differ_with_both_engines_reasons():
    standin = frame("f", 3, CompileRecord("0/0", "compile"), CompileRecord("0/1", "recompile", "0/0: L['n'] == 1, got 2"))
    dynamo = frame("f", 3, CompileRecord("0/0", "compile"))
    compiles = aspect(compare(run("standin", standin), run("dynamo", dynamo)).frames[0], "compiles")
    assert not compiles.same and (compiles.standin, compiles.dynamo) == ("2 compiles", "1 compile")
    assert compiles.details == ["Standin recompiled [0/1]: 0/0: L['n'] == 1, got 2"]


def test_resume_functions_match_by_name_when_their_first_lines_differ():
    standin = [frame("f", 3), frame("torch_dynamo_resume_in_f_at_9", 3)]
    dynamo = [frame("torch_dynamo_resume_in_f_at_9", 9), frame("f", 3), frame("helper", 20)]
    pairs = [(s and s.name, d and (d.name, d.first_line)) for s, d in match_frames(standin, dynamo)]
    assert pairs == [("f", ("f", 3)), ("torch_dynamo_resume_in_f_at_9", ("torch_dynamo_resume_in_f_at_9", 9)),
                     (None, ("helper", 20))]
    extra = compare(run("standin", *standin), run("dynamo", *dynamo)).frames[-1]
    assert not extra.same and (aspect(extra, "frame").standin, aspect(extra, "frame").dynamo) == \
        ("not compiled", "1 compile")


def test_a_frame_run_eagerly_on_one_side_differs():
    eager = CompileRecord("0/0", "compile", eager_reason="graph break inside a try block: the frame runs eagerly")
    diff = compare(run("standin", frame("f", 3, eager)), run("dynamo", frame())).frames[0]
    assert aspect(diff, "eager").details == [
        "compile 1 [0/0]: only Standin runs it eagerly: graph break inside a try block: the frame runs eagerly"]


def test_how_the_script_ended_is_compared():
    raised = RunRecord("dynamo", FILE, error="RuntimeError: boom")
    comparison = compare(RunRecord("standin", FILE), raised)
    assert not comparison.agree and comparison.status.dynamo == "raised RuntimeError: boom"
    both = compare(RunRecord("standin", FILE, error="RuntimeError: boom!"), raised)
    assert both.agree  # the same exception type under both engines: the same ending
    assert not compare(RunRecord("standin", FILE, exit_status=3), RunRecord("dynamo", FILE)).agree


# ---- values --------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=1, max_size=80))
def test_a_tensor_equals_itself_and_not_a_changed_copy(values):
    t = torch.tensor(values)
    assert difference(summarize(t), summarize(t.clone())) is None
    changed = t.clone()
    changed[0] = 1e6 if not (math.isfinite(values[0]) and abs(values[0] - 1e6) < 1) else -1e6
    assert difference(summarize(t), summarize(changed)) is not None


def test_value_differences_in_words():
    assert difference(summarize((torch.ones(2), 3)), summarize((torch.ones(2), 4))) == "output[1]: 3 vs 4"
    assert difference(summarize(torch.ones(2)), summarize(torch.ones(3))) == "output: shape [2] vs [3]"
    assert difference(summarize({"a": torch.zeros(1)}), summarize({"a": torch.zeros(1, dtype=torch.int64)})) == \
        "output['a']: dtype torch.float32 vs torch.int64"
    assert difference(summarize(torch.tensor([1.0, float("nan")])), summarize(torch.tensor([1.0 + 1e-7, float("nan")]))) is None
    assert difference(summarize(object()), summarize(object())) is None  # reprs without their addresses


# ---- observed calls ---------------------------------------------------------------------------------


class Scale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(2))

    def forward(self, x):
        return x * self.w


def test_observed_modules_keep_their_type_and_record_each_call():
    for compiled in (tracer.compile(Scale()), torch.compile(Scale(), backend="eager")):
        ids = []
        log = CallLog(lambda: list(ids))
        base = type(compiled)
        observed = log.observe(compiled, name_of(Scale()))
        assert observed is compiled and type(observed) is not base and isinstance(observed, base)
        assert len(list(observed.parameters())) == 1
        ids.append("0/0")
        observed(torch.ones(2))
        assert [(c.function, c.index, c.output["values"]) for c in log.calls] == [("Scale", 1, [1.0, 1.0])]


def test_an_observed_function_records_what_it_raised_and_still_raises():
    log = CallLog(list)

    def fails(x):
        raise ValueError("bad x")

    observed = log.observe(fails, "fails")
    try:
        observed(1)
    except ValueError:
        pass
    else:
        raise AssertionError("the observed function swallowed its exception")
    assert observed.__name__ == "fails" and log.calls[0].error == "ValueError: bad x"


# ---- Dynamo's logs ---------------------------------------------------------------------------------

GUARD_TREE = """
TREE_GUARD_MANAGER:
+- RootGuardManager
| +- GLOBAL_STATE: ___check_global_state() against {"grad_mode":true}
| +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor(key='x', framelocals_idx=0), type=<class 'torch.Tensor'>
| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, torch.float32, size=[2], stride=[1])  # y = x * 2  # f.py:3 in f
| +- GuardManager: source=G, accessed_by=GlobalsGuardAccessor, type=<class 'dict'>
| | +- GuardManager: source=G['cfg'], accessed_by=DictGetItemGuardAccessor('cfg'), type=<class 'Cfg'>
| | | +- TYPE_MATCH: ___check_type_id(G['cfg'], 94), type=<class 'Cfg'>  # y = x * cfg.k  # f.py:3 in f
| +- DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None  # _dynamo/output_graph.py:1122 in init_ambient_guards
"""


def test_the_guard_tree_gives_each_leaf_the_source_of_its_manager():
    observer = DynamoObserver()
    observer.guards_logged("0/0", GUARD_TREE)
    assert [(g.source, g.kind) for g in observer.guards["0/0"]] == [
        ("", "GLOBAL_STATE"), ("L['x']", "TENSOR_MATCH"), ("G['cfg']", "TYPE_MATCH"), ("", "DEFAULT_DEVICE")]
    assert observer.guards["0/0"][1].expr == "check_tensor(L['x'], Tensor, torch.float32, size=[2], stride=[1])"


def test_a_graph_break_log_gives_file_line_and_the_whole_reason():
    observer = DynamoObserver()
    text = ("Graph break in user code at /w/f.py:11\nGraph Break Reason: Encountered graph break:\n\n"
            "Failed to trace builtin operator\n  Hint: ...\n\nUser code traceback:\n  File \"/w/f.py\", line 11")
    observer.graph_break_logged("0/0", text)
    observer.graph_break_logged("0/0", text)  # a restarted trace logs it again: kept once
    assert observer.breaks["0/0"] == [BreakRecord(
        "/w/f.py", 11, "Encountered graph break:\n\nFailed to trace builtin operator\n  Hint: ...")]
