"""The Watch pane's model, without widgets: what `top`, paths and tracker fields read at a step."""
from __future__ import annotations

import torch

import tracer
from app.models.watch import WatchContext, parse_path
from tracer.debug import record

SCALE = 2


def scaled(x):
    y = x * SCALE
    return y + 1


def recorded_timeline():
    opt = tracer.compile(scaled, backend="eager", dynamic=False)
    recorder = record(opt)
    opt(torch.ones(3, 4))
    return recorder.timelines[0]


def context_at(timeline, step):
    snapshot = timeline.snapshots[step]
    following = timeline.snapshots[step + 1].guard_count if step + 1 < len(timeline.snapshots) else None
    return WatchContext(snapshot, timeline.guards[:following], timeline.nodes_at(step), scaled.__globals__)


def step_after(timeline, opname, argval=None):
    """The step just after the first instruction `opname` (its result is on top of the stack)."""
    for snapshot in timeline.snapshots:
        frame = snapshot.frame
        if frame.opname == opname and (argval is None or argval in frame.argrepr):
            return snapshot.step + 1
    raise AssertionError(f"no {opname} {argval or ''} in the timeline")


def test_top_is_the_value_on_top_of_the_stack_with_its_source_and_guards():
    timeline = recorded_timeline()
    context = context_at(timeline, step_after(timeline, "LOAD_FAST", "x"))
    top = context.evaluate("top")
    assert not top.error and top.source == "L['x']"
    assert context.evaluate("top.source").value == "L['x']"
    assert context.evaluate("top.kind").value in ("TensorVariable", "LazyVariableTracker")


def test_top_of_an_op_result_is_its_graph_node_with_the_shape():
    timeline = recorded_timeline()
    context = context_at(timeline, step_after(timeline, "BINARY_OP", "*"))
    top = context.evaluate("top")
    assert top.value.startswith("Tensor") and "3x4 float32" in top.value
    assert context.evaluate("top.shape").value == "3x4"
    assert context.evaluate("top.node").value == "mul"
    assert context.evaluate("top.source").value == "(none: made during the trace)"


def test_top_on_an_empty_stack_is_an_error_naming_the_function():
    timeline = recorded_timeline()
    context = context_at(timeline, 0)
    assert context.snapshot.frame.stack == ()
    top = context.evaluate("top")
    assert top.error and top.value == "top is not a local of scaled at this step, nor a module global"


def test_a_global_shows_the_module_value_and_what_the_trace_assumed():
    timeline = recorded_timeline()
    before = context_at(timeline, 0).evaluate("SCALE")
    assert before.value == "2 in the module now; not read by the trace yet"
    after = context_at(timeline, step_after(timeline, "LOAD_GLOBAL", "SCALE")).evaluate("SCALE")
    assert after.value == "2 in the module now; EQUALS_MATCH: G['SCALE'] == 2" and after.source == "G['SCALE']"


def test_a_path_the_tracker_does_not_have_is_an_error_not_a_guess():
    timeline = recorded_timeline()
    context = context_at(timeline, step_after(timeline, "BINARY_OP", "*"))
    missing = context.evaluate("top.weight")
    assert missing.error and "has no 'weight'" in missing.value
    bad = context.evaluate("top + 1")
    assert bad.error and bad.value.startswith("a watch is a name with attributes or constant indexes")


def test_parse_path_reads_attributes_and_constant_indexes():
    assert parse_path("self.fc.weight") == ("self", ["fc", "weight"])
    assert parse_path("xs[0].shape") == ("xs", [0, "shape"])
    assert parse_path(" d['k'] ") == ("d", ["k"])
