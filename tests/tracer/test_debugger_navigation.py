"""Moving over a recorded trace: where each move lands (checked against a plain scan of the snapshots), that
a move with nowhere to go stays put, and how a timeline's snapshots index, slice and walk."""
import pytest
import torch

import tracer
from tracer.debug import Navigator, OpcodeBreakpoint, record


class Cfg:
    scale = 3


cfg = Cfg()


def inner(x):
    y = x * cfg.scale
    return y - 1


def outer(x):
    a = inner(x)
    b = inner(a)
    return a + b


@pytest.fixture(scope="module")
def timeline():
    tracer.reset()
    opt = tracer.compile(outer)
    recorder = record(opt)
    opt(torch.ones(2))
    return recorder.timelines[0]


def first(timeline, start, predicate, direction=1):
    """The first step from start on (either way) where predicate holds: what each move is specified as."""
    steps = range(start, len(timeline)) if direction > 0 else range(start, -1, -1)
    return next((i for i in steps if predicate(timeline.snapshots[i])), None)


def test_a_navigator_starts_at_the_first_step_with_no_breakpoints_and_no_log(timeline):
    nav = Navigator(timeline)
    assert (nav.position, nav.breakpoints, nav.log) == (0, [], [])
    assert nav.continue_() == len(timeline) - 1  # nothing to stop at: the end
    shared = []
    assert Navigator(timeline, shared).breakpoints is shared  # the panel's list, edited in place


def test_moves_with_nowhere_to_go_stay_put(timeline):
    nav = Navigator(timeline)
    assert nav.step_back() == 0 and nav.reverse_continue() == 0 and nav.step_back_over() == 0
    assert nav.goto(-1) == 0 and nav.goto(len(timeline)) == 0
    last = len(timeline) - 1
    assert nav.goto(last) == last
    assert nav.step_into() == last and nav.step_over() == last and nav.continue_() == last
    assert nav.goto(last - 1) == last - 1 and nav.step_into() == last


def test_step_over_and_out_land_where_a_scan_says(timeline):
    snaps = timeline.snapshots
    nav = Navigator(timeline)
    for start in range(len(timeline) - 1):
        depth = snaps[start].depth
        over = first(timeline, start + 1, lambda s: s.depth <= depth)
        out = first(timeline, start + 1, lambda s: s.depth < depth)
        nav.goto(start)
        assert nav.step_over() == (len(timeline) - 1 if over is None else over), start
        nav.goto(start)
        assert nav.step_out() == (len(timeline) - 1 if out is None else out), start
    call = first(timeline, 0, lambda s: s.frame.opname == "CALL" and s.depth == 0)
    nav.goto(call)
    assert snaps[nav.step_over()].frame.opname == "STORE_FAST" and snaps[nav.position].depth == 0


def test_step_back_over_and_out_land_where_a_scan_says(timeline):
    snaps = timeline.snapshots
    nav = Navigator(timeline)
    for start in range(1, len(timeline)):
        depth = snaps[start].depth
        over = first(timeline, start - 1, lambda s: s.depth <= depth, -1)
        out = first(timeline, start - 1, lambda s: s.depth < depth, -1)
        nav.goto(start)
        assert nav.step_back_over() == (0 if over is None else over), start
        nav.goto(start)
        assert nav.step_back_out() == (0 if out is None else out), start
    second_call_inside = [s.step for s in snaps if s.frame.function == "inner" and s.frame.opname == "RESUME"][1]
    nav.goto(second_call_inside + 1)
    back = snaps[nav.step_back_out()]
    assert (back.frame.function, back.frame.opname, back.depth) == ("outer", "CALL", 0)


def test_run_to_a_line_or_an_offset_stops_at_its_next_visit(timeline):
    snaps = timeline.snapshots
    line = inner.__code__.co_firstlineno + 2  # return y - 1: run twice, once per call
    visits = [s.step for s in snaps if s.frame.line == line and s.frame.filename == __file__]
    nav = Navigator(timeline)
    assert nav.run_to_line(__file__, line) == visits[0] and nav.run_to_line(__file__, line) == visits[1]
    nav.goto(visits[-1])
    assert nav.run_to_line(__file__, line) == len(timeline) - 1  # no visit after the last
    nav.goto(0)
    assert nav.run_to_line("/other.py", line) == len(timeline) - 1
    offset = snaps[visits[0]].frame.offset
    at_offset = [s.step for s in snaps if s.frame.offset == offset and s.frame.function == "inner"]
    assert len(at_offset) == 2
    nav.goto(0)
    assert nav.run_to_offset("inner", offset) == at_offset[0]
    assert nav.run_to_offset("inner", offset) == at_offset[1]
    assert nav.run_to_offset("inner", offset) == len(timeline) - 1
    nav.goto(0)
    assert nav.run_to_offset("outer", offset) == first(timeline, 1, lambda s: s.frame.offset == offset
                                                       and s.frame.function == "outer")


def test_reverse_continue_counts_hits_as_continue_does(timeline):
    binary_ops = [s.step for s in timeline.snapshots if s.frame.opname == "BINARY_OP"]
    assert len(binary_ops) == 5  # x * scale, y - 1 twice, then a + b
    nav = Navigator(timeline, [OpcodeBreakpoint("BINARY_OP")])
    nav.goto(len(timeline) - 1)
    assert [nav.reverse_continue() for _ in binary_ops] == binary_ops[::-1]
    assert nav.reverse_continue() == 0
    every_second = OpcodeBreakpoint("BINARY_OP", hit_count=2)
    nav = Navigator(timeline, [every_second])
    assert nav.continue_() == binary_ops[1] and every_second.hits == 2
    assert nav.continue_() == binary_ops[3] and every_second.hits == 4
    assert nav.continue_() == len(timeline) - 1 and every_second.hits == 5
    two = [OpcodeBreakpoint("BINARY_OP"), OpcodeBreakpoint("RETURN_VALUE", log_message="ret")]
    nav = Navigator(timeline, two)
    stops = [nav.continue_() for _ in binary_ops]
    assert stops == binary_ops and nav.log == ["ret"] * sum(
        1 for s in timeline.snapshots[: binary_ops[-1] + 1] if s.frame.opname == "RETURN_VALUE")


def test_snapshots_index_slice_and_walk_both_ways(timeline):
    snaps = timeline.snapshots
    n = len(snaps)
    assert snaps[-n] is snaps[0] and snaps[n - 1] is snaps[-1]
    for bad in (n, -n - 1):
        with pytest.raises(IndexError, match=rf"^step {bad} of a timeline of {n} steps$"):
            snaps[bad]
    assert snaps[2:7] == [snaps[i] for i in range(2, 7)] and snaps[5:2] == []
    assert snaps[::3] == [snaps[i] for i in range(0, n, 3)] and snaps[::-1] == [snaps[i] for i in range(n - 1, -1, -1)]
    assert snaps[-3:] == [snaps[n - 3], snaps[n - 2], snaps[n - 1]]
    assert snaps.read(-5, 3) == snaps[0:3] and snaps.read(n - 2, n + 9) == snaps[n - 2:]
    middle = n // 2
    assert [s.step for s in snaps.walk(middle, -1)] == list(range(middle, -1, -1))
    assert [s.step for s in snaps.walk(middle)] == list(range(middle, n))
    assert list(snaps.walk(n)) == [] and list(snaps.walk(-1, -1)) == []
    assert [s.step for s in snaps] == list(range(n))
    assert repr(snaps) == f"<{n} snapshots, {n} made>"


def test_a_timeline_tells_the_guards_and_nodes_made_before_a_step(timeline):
    for snapshot in timeline.snapshots:
        assert timeline.guards_at(snapshot.step) == timeline.guards[:snapshot.guard_count]
        assert timeline.nodes_at(snapshot.step) == timeline.nodes[:snapshot.node_count]
    last = timeline.snapshots[-1]
    assert [n.target for n in timeline.nodes_at(last.step)] == ["L_x_", "operator.mul", "operator.sub", "operator.mul",
                                                                 "operator.sub", "operator.add"]
    assert timeline.nodes_at(0) == [] and timeline.guards_at(0) == []


def test_run_to_a_line_or_an_offset_from_every_step_lands_on_the_next_visit(timeline):
    line = inner.__code__.co_firstlineno + 1  # y = x * cfg.scale
    offset = next(s.frame.offset for s in timeline.snapshots if s.frame.line == line)
    nav = Navigator(timeline)
    for start in range(len(timeline)):
        to_line = first(timeline, start + 1, lambda s: s.frame.line == line and s.frame.filename == __file__)
        to_offset = first(timeline, start + 1, lambda s: s.frame.offset == offset and s.frame.function == "inner")
        nav.goto(start)
        assert nav.run_to_line(__file__, line) == (len(timeline) - 1 if to_line is None else to_line), start
        nav.goto(start)
        assert nav.run_to_offset("inner", offset) == (len(timeline) - 1 if to_offset is None else to_offset), start


def tiny(x):
    return x + 1


def calls_tiny(x):
    a = tiny(x)
    b = tiny(a)
    return tiny(a * b)


def test_every_move_over_short_calls_lands_where_a_scan_says():
    """Calls of a few steps put the caller's step 5 to 8 steps behind the step after the return: where a
    walk that skipped part of its second batch would land elsewhere."""
    tracer.reset()
    opt = tracer.compile(calls_tiny)
    recorder = record(opt)
    opt(torch.ones(2))
    timeline = recorder.timelines[0]
    snaps, last = timeline.snapshots, len(timeline) - 1
    nav = Navigator(timeline)
    for start in range(len(timeline)):
        depth = snaps[start].depth
        expected = {
            nav.step_over: first(timeline, start + 1, lambda s: s.depth <= depth),
            nav.step_out: first(timeline, start + 1, lambda s: s.depth < depth),
            nav.step_back_over: first(timeline, start - 1, lambda s: s.depth <= depth, -1) if start else None,
            nav.step_back_out: first(timeline, start - 1, lambda s: s.depth < depth, -1) if start else None,
        }
        for move, landing in expected.items():
            nav.goto(start)
            backwards = move in (nav.step_back_over, nav.step_back_out)
            assert move() == (landing if landing is not None else 0 if backwards else last), (start, move.__name__)


def test_a_breakpoint_short_of_its_hit_count_does_not_keep_the_next_one_from_stopping(timeline):
    binary_ops = [s.step for s in timeline.snapshots if s.frame.opname == "BINARY_OP"]
    waiting, plain = OpcodeBreakpoint("BINARY_OP", hit_count=2), OpcodeBreakpoint("BINARY_OP")
    nav = Navigator(timeline, [waiting, plain])
    assert nav.continue_() == binary_ops[0] and (waiting.hits, plain.hits) == (1, 1)
    assert nav.continue_() == binary_ops[1] and (waiting.hits, plain.hits) == (2, 2)
