"""The headless debugger: recording, navigation both ways, breakpoints, sessions over scripts."""
import textwrap
import tracemalloc

import pytest
import torch

import tracer
from tracer.debug import (LineBreakpoint, Navigator, OffsetBreakpoint, OpcodeBreakpoint, Recorder, Session, TraceEnd,
                          depth_exceeds, graph_break, guard_installed_on, record, top_is_tensor)


class Cfg:
    def __init__(self):
        self.scale = 2


cfg = Cfg()


def leaf(x):
    return x * cfg.scale


def mid(x):
    y = leaf(x)
    return y + 1


def top(x, n):
    a = mid(x)
    b = a.relu()
    return b + n


@pytest.fixture
def timeline():
    tracer.reset()
    opt = tracer.compile(top)
    recorder = record(opt)
    opt(torch.ones(3), 2)
    return recorder.timelines[0]


def test_every_instruction_is_a_snapshot_with_frames_stack_and_locals(timeline):
    functions = [s.frame.function for s in timeline.snapshots]
    assert functions[0] == "top" and "mid" in functions and "leaf" in functions
    assert max(s.depth for s in timeline.snapshots) == 2
    deepest = next(s for s in timeline.snapshots if s.depth == 2)
    assert [f.function for f in deepest.frames] == ["top", "mid", "leaf"]
    mul = next(s for s in timeline.snapshots if s.frame.opname == "BINARY_OP" and s.frame.function == "leaf")
    assert [v.kind for v in mul.frame.stack] == ["LazyVariableTracker", "LazyVariableTracker"]  # an attribute too, as Dynamo
    assert mul.frame.stack[1].lazy and mul.frame.stack[1].source == "G['cfg'].scale"
    after = timeline.snapshots[mul.step + 1]
    assert after.frame.stack[-1].kind == "TensorVariable" and after.frame.stack[-1].node == "mul"
    assert after.node_count == mul.node_count + 2  # the placeholder L_x_, then mul
    assert any(g.source_name == "G['cfg'].scale" for g in timeline.guards_at(after.step))
    ret = timeline.snapshots[-1]
    assert dict(ret.frame.locals)["b"].kind == "TensorVariable"
    assert timeline.outcome.startswith("returned") and timeline.ending is TraceEnd.COMPILED


def _caller(x):
    return leaf(x) + 1


def test_each_event_says_what_happened_before_the_step_it_is_on():
    tracer.reset()
    opt = tracer.compile(_caller)
    recorder = record(opt)
    opt(torch.ones(2))
    timeline = recorder.timelines[0]
    texts = {kind: [e.text for e in timeline.events if e.kind == kind] for kind in ("guard", "node", "realize")}
    assert texts["guard"] == [str(g) for g in timeline.guards] and len(texts["guard"]) >= 3
    assert texts["node"] == ["l_x_ = placeholder L_x_", "mul = call_function operator.mul",
                             "add = call_function operator.add"]
    assert {"realized L['x'] as TensorVariable", "realized G['leaf'] as UserFunctionVariable",
            "realized G['cfg'].scale as ConstantVariable"} <= set(texts["realize"])
    (enter,) = [e for e in timeline.events if e.kind == "inline_enter"]
    (leave,) = [e for e in timeline.events if e.kind == "inline_exit"]
    functions = [s.frame.function for s in timeline.snapshots]
    assert (enter.text, enter.step) == ("enter leaf (depth 1)", functions.index("leaf"))
    assert (leave.text, leave.step) == ("return from leaf", functions.index("_caller", enter.step))
    assert [(e.step, e.text) for e in timeline.events if e.kind == "end"] == [(len(timeline), timeline.outcome)]
    for i, event in enumerate(e for e in timeline.events if e.kind == "guard"):  # before its step: counted there
        assert timeline.snapshots[event.step].guard_count > i >= timeline.snapshots[event.step - 1].guard_count


def test_unchanged_values_share_their_views(timeline):
    snaps = timeline.snapshots
    same_frame = [(a, b) for a, b in zip(snaps, snaps[1:]) if (a.frame.function, a.depth) == (b.frame.function, b.depth)]
    assert len(same_frame) > 10
    shared = 0
    for first, second in same_frame:
        before, after = dict(first.frame.locals), dict(second.frame.locals)
        stored = first.frame.argrepr if first.frame.opname == "STORE_FAST" else None
        for name in before.keys() & after.keys():
            if name != stored and not (before[name].lazy and not after[name].lazy):  # neither stored nor realized
                assert before[name] is after[name], (first.step, name)  # untouched: the very same view
                shared += 1
    assert shared > 20
    stores = [(a, b) for a, b in same_frame if a.frame.opname == "STORE_FAST"]
    assert stores
    for first, second in stores:  # a stored local is a new view
        name = first.frame.argrepr
        assert dict(second.frame.locals)[name] is not dict(first.frame.locals).get(name)


def test_forwards_then_backwards_visits_the_same_snapshots(timeline):
    nav = Navigator(timeline)
    forward = [nav.position]
    while nav.step_into() != forward[-1]:
        forward.append(nav.position)
    backward = [nav.position]
    while nav.step_back() != backward[-1]:
        backward.append(nav.position)
    assert forward == list(range(len(timeline))) and backward == forward[::-1]


def test_step_over_out_and_reverse(timeline):
    nav = Navigator(timeline)
    call_in_top = next(s.step for s in timeline.snapshots if s.frame.function == "top" and s.frame.opname == "CALL")
    nav.goto(call_in_top)
    landed = timeline.snapshots[nav.step_over()]
    assert landed.frame.function == "top" and landed.frame.opname == "STORE_FAST"  # mid() ran without stopping
    nav.goto(call_in_top)
    assert timeline.snapshots[nav.step_into()].frame.function == "mid"
    inside_leaf = next(s.step for s in timeline.snapshots if s.frame.function == "leaf")
    nav.goto(inside_leaf)
    out = timeline.snapshots[nav.step_out()]
    assert out.frame.function == "mid" and out.depth == 1
    nav.goto(inside_leaf + 2)
    back = timeline.snapshots[nav.step_back_out()]
    assert back.frame.function == "mid" and back.frame.opname == "CALL" and back.step < inside_leaf
    nav.goto(len(timeline) - 1)
    over_back = timeline.snapshots[nav.step_back_over()]
    assert over_back.depth == 0


def test_breakpoints_hit_counts_and_logpoints(timeline):
    nav = Navigator(timeline, [OpcodeBreakpoint("BINARY_OP")])
    stops = []
    while True:
        before = nav.position
        if nav.continue_() == before or timeline.snapshots[nav.position].frame.opname != "BINARY_OP":
            break  # past the last breakpoint, continue runs to the end of the trace
        stops.append(timeline.snapshots[nav.position].frame.function)
    assert stops == ["leaf", "mid", "top"] and nav.position == len(timeline) - 1
    nav.goto(len(timeline) - 1)
    assert timeline.snapshots[nav.reverse_continue()].frame.function == "top"
    assert timeline.snapshots[nav.reverse_continue()].frame.function == "mid"

    every_second = Navigator(timeline, [OpcodeBreakpoint("BINARY_OP", hit_count=2)])
    assert timeline.snapshots[every_second.continue_()].frame.function == "mid"

    log = Navigator(timeline, [OpcodeBreakpoint("LOAD_FAST", log_message="{function}:{line} {opname}")])
    log.continue_()
    assert log.position == len(timeline) - 1 and log.log and log.log[0].startswith("top:")


def test_line_offset_and_condition_breakpoints(timeline):
    line = leaf.__code__.co_firstlineno + 1
    nav = Navigator(timeline, [LineBreakpoint(filename=__file__, line=line)])
    assert timeline.snapshots[nav.continue_()].frame.function == "leaf"
    ret_offset = [s for s in timeline.snapshots if s.frame.function == "mid"][-1].frame.offset
    nav = Navigator(timeline, [OffsetBreakpoint(function="mid", offset=ret_offset)])
    assert timeline.snapshots[nav.continue_()].frame.opname == "RETURN_VALUE"
    nav = Navigator(timeline, [depth_exceeds(1)])
    assert timeline.snapshots[nav.continue_()].frame.function == "leaf"
    nav = Navigator(timeline, [top_is_tensor()])
    assert timeline.snapshots[nav.continue_()].frame.stack[-1].kind == "TensorVariable"
    nav = Navigator(timeline, [guard_installed_on("G['cfg']*")])
    stop = timeline.snapshots[nav.continue_()]
    first = next(s.step for s in timeline.snapshots
                 if any(g.source_name.startswith("G['cfg']") for g in timeline.guards_at(s.step)))
    assert stop.step == first < len(timeline) - 1  # the panel's own example pattern, brackets and all


def test_graph_break_condition_and_restart_attempts():
    def f(x):
        y = x + 1
        print("io")
        return y

    opt = tracer.compile(f)
    recorder = record(opt)
    opt(torch.ones(2))
    first, second = recorder.timelines[:2]
    assert (first.attempt, second.attempt) == (1, 2) and "restarting" in first.outcome
    assert (first.ending, second.ending) == (TraceEnd.RESTARTING, TraceEnd.GRAPH_BREAK)
    print_line = f.__code__.co_firstlineno + 2
    for timeline in (first, second):
        bp = graph_break()
        nav = Navigator(timeline, [bp])
        stop = timeline.snapshots[nav.continue_()]
        # it stops on the instruction that breaks the graph (the call of print), once
        assert (stop.frame.opname, stop.frame.line) == ("CALL", print_line)
        assert stop.event.startswith("graph break: print()") and stop.event_kinds == ("graph_break",)
        assert bp.hits == 1
        assert [s.step for s in timeline.snapshots if s.event] == [stop.step]
        assert [(e.step, e.text) for e in timeline.events if e.kind == "graph_break"] == \
            [(stop.step, stop.event.removeprefix("graph break: "))]
        logpoint = graph_break()
        logpoint.log_message = "{opname} at line {line}"
        nav = Navigator(timeline, [logpoint])
        nav.continue_()
        assert nav.log == [f"CALL at line {print_line}"]
    resumed = [t for t in recorder.timelines if t.frame.startswith("torch_dynamo_resume")]
    assert resumed and not any(s.event for s in resumed[0].snapshots), "the resume's trace starts clean"


def test_a_recorder_that_keeps_no_steps_still_records_each_traces_events():
    def f(x):
        y = x + 1
        print("io")
        return y

    opt = tracer.compile(f)
    recorder = record(opt, Recorder(max_steps=0))
    opt(torch.ones(2))
    first = recorder.timelines[0]
    assert len(first) == 0 and first.ending == TraceEnd.RESTARTING
    breaks = [(e.step, e.kind, e.text) for e in first.events if e.kind == "graph_break"]
    assert len(breaks) == 1 and breaks[0][:2] == (0, "graph_break")  # no step shows it: the trace's own
    assert breaks[0][2].startswith("print() has a side effect outside the graph")


def _helper_that_breaks(x):
    x = x * 2
    print("inside")
    return x


def test_graph_break_condition_stops_inside_the_inlined_helper_then_at_its_call():
    def f(x):
        return _helper_that_breaks(x + 1) - 1

    opt = tracer.compile(f)
    recorder = record(opt)
    opt(torch.ones(2))
    first, second = recorder.timelines[:2]
    stops = []
    for timeline in (first, second):
        nav = Navigator(timeline, [graph_break()])
        stops.append(timeline.snapshots[nav.continue_()])
    # the first attempt raised inside the helper; the restart stops before calling it
    assert (stops[0].frame.function, stops[0].depth) == ("_helper_that_breaks", 1)
    assert (stops[1].frame.function, stops[1].frame.opname, stops[1].depth) == ("f", "CALL", 0)
    assert all(s.event.startswith("graph break: print()") for s in stops)


def test_a_trace_of_100k_instructions_fits_in_memory():
    def long(x):
        acc = 0
        for i in range(11000):
            acc = acc + i * 2
        return x + acc

    opt = tracer.compile(long)
    recorder = record(opt)
    tracemalloc.start()
    opt(torch.ones(2))
    timeline = recorder.timelines[0]
    assert len(timeline) > 99_000
    assert [s.step for s in timeline.snapshots] == list(range(len(timeline)))  # every snapshot made
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 600 * 2**20


SCRIPT = textwrap.dedent('''
    import torch

    class Config:
        def __init__(self):
            self.scale = 2

    cfg = Config()

    @torch.compile
    def f(x):
        return x * cfg.scale + 1

    out = f(torch.ones(3))
    print("done", out.sum().item())
''')


def test_session_runs_an_unmodified_script_and_edits_globals(tmp_path):
    path = tmp_path / "user_script.py"
    path.write_text(SCRIPT)
    session = Session(str(path)).run()
    assert session.error is None and "done 9.0" in session.stdout
    (f,) = session.functions
    assert session.timelines and session.timelines[0].frame == "f"
    assert "G['cfg'].scale" in session.guarded_globals(f)
    first_id = f.cache_entries[0].compile_id
    outcome = session.call_again(f)
    assert not outcome.compiled and outcome.hit == first_id
    editor = session.editor(f)
    editor.set_expression("cfg.scale", "5")
    prediction = session.predict(f)
    assert prediction.recompiles and "G['cfg'].scale == 2, got 5" in prediction.failures[0][1]
    outcome = session.call_again(f)
    assert outcome.compiled and "G['cfg'].scale == 2, got 5" in str(outcome)
    assert outcome.timelines and len(f.cache_entries) == 2
    torch.testing.assert_close(outcome.result, torch.full((3,), 6.0))
    editor.undo()
    assert session.call_again(f).hit == first_id


def test_session_reports_a_missing_script():
    with pytest.raises(tracer.UserError):
        Session("/no/such/script.py")


def test_no_recorder_means_no_hook_calls():
    opt = tracer.compile(top)
    assert opt.hook is None
    opt(torch.ones(3), 1)


def test_a_disabled_breakpoint_never_stops_nor_counts(timeline):
    enabled = OpcodeBreakpoint("BINARY_OP")
    stop = Navigator(timeline, [enabled]).continue_()
    assert timeline.snapshots[stop].frame.opname == "BINARY_OP" and enabled.hits == 1
    disabled = OpcodeBreakpoint("BINARY_OP", enabled=False)
    nav = Navigator(timeline, [disabled])
    assert nav.continue_() == len(timeline) - 1 and disabled.hits == 0
    assert nav.reverse_continue() == 0 and disabled.hits == 0
    logpoint = OpcodeBreakpoint("BINARY_OP", enabled=False, log_message="{opname}")
    nav = Navigator(timeline, [logpoint])
    nav.continue_()
    assert nav.log == [] and logpoint.hits == 0


@pytest.mark.parametrize("kind, text, expected", [
    ("opcode", "CALL", OpcodeBreakpoint("CALL")),
    ("line", "/tmp/s.py:7", LineBreakpoint(filename="/tmp/s.py", line=7)),
    ("line", "7", LineBreakpoint(filename="/work/script.py", line=7)),
    ("offset", "forward:28", OffsetBreakpoint(function="forward", offset=28)),
    ("top_is_tensor", "", top_is_tensor()),
    ("guard_on", "G['cfg']*", guard_installed_on("G['cfg']*")),
    ("graph_break", "", graph_break()),
    ("depth", "2", depth_exceeds(2)),
])
def test_each_breakpoint_kind_round_trips_through_its_spec(kind, text, expected):
    from tracer.debug import Breakpoint
    made = Breakpoint.from_spec(kind, text, script="/work/script.py")
    assert made == expected and made.kind == kind
    again = Breakpoint.from_spec(*made.to_spec())
    assert again == made and again.describe() == expected.describe()


@pytest.mark.parametrize("kind, text, says", [
    ("opcode", "call", "an opcode name such as CALL"), ("line", "x:y", "FILE:LINE or LINE"),
    ("line", "0", "FILE:LINE or LINE"), ("offset", "28", "FUNCTION:OFFSET"), ("depth", "two", "whole number"),
    ("bogus", "", "unknown breakpoint kind 'bogus'"),
])
def test_a_spec_that_does_not_parse_says_why(kind, text, says):
    from tracer.debug import Breakpoint
    with pytest.raises(ValueError, match=says):
        Breakpoint.from_spec(kind, text, script="/work/script.py")


def test_the_kinds_a_person_picks_from_are_the_kinds_a_spec_names():
    from tracer.debug import KINDS, Breakpoint
    assert [k.id for k in KINDS] == ["opcode", "line", "offset", "top_is_tensor", "guard_on", "graph_break",
                                     "exception_handled", "depth"]
    for kind in KINDS:
        assert Breakpoint.from_spec(kind.id, "CALL" if kind.id == "opcode" else "f:2" if kind.id == "offset"
                                    else "3", script="/s.py").kind == kind.id


def branches_on_a_size(x):
    if x.shape[0] > 4:
        return torch.relu(x) * x.shape[0]
    return x - 1


def test_the_recorded_graph_has_every_node_another_recorded_node_reads():
    """A size read of a symbolic shape (x.shape[0]: size(), then getitem) is recorded as it is made: the graph
    as it grows, which the app shows, never names a node it does not list."""
    tracer.reset()
    opt = tracer.compile(branches_on_a_size, dynamic=True)
    recorder = record(opt)
    opt(torch.ones(8, 3))
    nodes = recorder.timelines[0].nodes
    names = {node.name for node in nodes}
    assert any(node.target.endswith("getitem") for node in nodes), [(n.name, n.target) for n in nodes]
    for node in nodes:
        assert set(node.inputs) <= names, f"{node.name} reads {set(node.inputs) - names}, not recorded"
