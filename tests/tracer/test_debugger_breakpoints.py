"""Breakpoints as a person sets them: the words each kind shows, the specs it reads and refuses (with the
exact message), what a logpoint writes, and where each condition stops on a small recorded trace."""
import os
import re

import pytest
import torch

import tracer
from tracer.debug import (KINDS, Breakpoint, ConditionBreakpoint, LineBreakpoint, Navigator, OffsetBreakpoint,
                          OpcodeBreakpoint, depth_exceeds, exception_handled, graph_break, guard_installed_on, record,
                          top_is_tensor)


class Cfg:
    scale = 2


cfg = Cfg()


def countdown(x, n):
    return x if n == 0 else countdown(x, n - 1) * cfg.scale


def calls_countdown(x):
    return countdown(x, 2) + 1


def recover(x):
    try:
        raise ValueError("no")
    except ValueError:
        y = x + 1
    return y


def recorded(fn, *args):
    tracer.reset()
    opt = tracer.compile(fn)
    recorder = record(opt)
    opt(*args)
    return recorder.timelines[0]


@pytest.fixture(scope="module")
def timeline():
    return recorded(calls_countdown, torch.ones(2))


@pytest.mark.parametrize("made, describe, text", [
    (OpcodeBreakpoint("CALL"), "every CALL", "CALL"),
    (OffsetBreakpoint(function="forward", offset=28), "forward @ offset 28", "forward:28"),
    (LineBreakpoint(filename="/s.py", line=7), "/s.py:7", "/s.py:7"),
    (top_is_tensor(), "top of stack is a tensor", ""),
    (guard_installed_on("G['cfg']*"), "guard installed on G['cfg']*", "G['cfg']*"),
    (graph_break(), "graph break", ""),
    (exception_handled(), "exception handled", ""),
    (depth_exceeds(3), "inlining depth > 3", "3"),
    (ConditionBreakpoint(predicate=bool, label="my test"), "my test", ""),
])
def test_each_kind_describes_itself_in_the_words_the_panel_shows(made, describe, text):
    assert made.describe() == describe and made.text() == text
    assert (made.enabled, made.hit_count, made.log_message, made.hits) == (True, 1, None, 0)


def test_a_breakpoint_of_no_kind_says_it_has_none():
    with pytest.raises(NotImplementedError, match="^Breakpoint$"):
        Breakpoint().describe()
    with pytest.raises(NotImplementedError, match="^Breakpoint$"):
        Breakpoint().matches(None, None)


def test_the_kinds_a_person_picks_from_are_labelled_with_their_hints():
    assert [(k.label, k.hint) for k in KINDS] == [
        ("Opcode", "opname, e.g. CALL"),
        ("Line", "line number (current file), or file:line"),
        ("Offset", "function:offset, e.g. forward:28"),
        ("Condition: top is tensor", None),
        ("Condition: guard on source", "pattern, e.g. G['cfg']*"),
        ("Condition: graph break", None),
        ("Condition: exception handled", None),
        ("Condition: depth > N", "N, e.g. 1"),
    ]


@pytest.mark.parametrize("kind, text, expected", [
    ("opcode", " LOAD_ATTR ", OpcodeBreakpoint("LOAD_ATTR")),
    ("line", "1", LineBreakpoint(filename="/work/script.py", line=1)),
    ("line", "sub/s.py:3", LineBreakpoint(filename=os.path.abspath("sub/s.py"), line=3)),
    ("offset", "Net.forward:0", OffsetBreakpoint(function="Net.forward", offset=0)),
    ("offset", "a:b:4", OffsetBreakpoint(function="a:b", offset=4)),
    ("guard_on", "", guard_installed_on("*")),
    ("exception_handled", "", exception_handled()),
    ("depth", "0", depth_exceeds(0)),
])
def test_a_spec_at_the_edge_of_what_it_takes_is_read(kind, text, expected):
    assert Breakpoint.from_spec(kind, text, script="/work/script.py") == expected


@pytest.mark.parametrize("kind, text, says", [
    ("opcode", "call", "an opcode name such as CALL or LOAD_ATTR, not 'call'"),
    ("opcode", "", "an opcode name such as CALL or LOAD_ATTR, not ''"),
    ("opcode", "LOAD-ATTR", "an opcode name such as CALL or LOAD_ATTR, not 'LOAD-ATTR'"),
    ("line", "s.py:x", "a line breakpoint is FILE:LINE or LINE, not 's.py:x'"),
    ("offset", ":3", "an offset breakpoint is FUNCTION:OFFSET, e.g. forward:28, not ':3'"),
    ("depth", "-1", "depth > N needs a whole number N, not '-1'"),
    ("nope", "", "unknown breakpoint kind 'nope' (one of opcode, line, offset, top_is_tensor, guard_on, "
                 "graph_break, exception_handled, depth)"),
])
def test_a_spec_that_does_not_parse_says_exactly_why(kind, text, says):
    with pytest.raises(ValueError, match=f"^{re.escape(says)}$"):
        Breakpoint.from_spec(kind, text, script="/work/script.py")


def test_a_spec_without_text_takes_the_kinds_default():
    assert Breakpoint.from_spec("guard_on") == guard_installed_on("*")
    assert Breakpoint.from_spec("top_is_tensor") == top_is_tensor()


def test_a_bare_line_needs_an_open_script():
    with pytest.raises(ValueError, match=r"^a bare line number needs an open script; give FILE:LINE$"):
        Breakpoint.from_spec("line", "4")
    assert Breakpoint.from_spec("line", "/a.py:4") == LineBreakpoint(filename="/a.py", line=4)


def test_a_python_condition_stops_where_it_holds_and_has_no_spec(timeline):
    bp = ConditionBreakpoint(predicate=lambda s, t: s.frame.opname == "BINARY_OP" and t is timeline,
                             label="a multiply")
    stop = Navigator(timeline, [bp]).continue_()
    assert stop == next(s.step for s in timeline.snapshots if s.frame.opname == "BINARY_OP")
    with pytest.raises(ValueError, match=r"^the condition 'a multiply' is a Python predicate: it has no spec$"):
        bp.to_spec()


def test_a_logpoint_writes_every_field_it_offers(timeline):
    bp = OpcodeBreakpoint("BINARY_OP", log_message="{opname}|{line}|{offset}|{function}|{depth}|{top}")
    nav = Navigator(timeline, [bp])
    nav.continue_()
    multiplies = [s.frame for s in timeline.snapshots if s.frame.opname == "BINARY_OP"]
    assert len(multiplies) >= 3
    assert nav.log == [f"BINARY_OP|{f.line}|{f.offset}|{f.function}|{f.depth}|{f.stack[-1].text}"
                       for f in multiplies]
    assert {f.depth for f in multiplies} >= {0, 1, 2} and all(f.stack[-1].text for f in multiplies)
    start = OpcodeBreakpoint("RESUME", log_message="[{top}]")
    assert start.message(timeline.snapshots[0]) == "[]"  # nothing on the stack yet
    assert OpcodeBreakpoint("RESUME").message(timeline.snapshots[0]) == ""  # not a logpoint: no text


def test_a_logpoint_with_a_hit_count_writes_every_nth_hit(timeline):
    bp = OpcodeBreakpoint("BINARY_OP", hit_count=2, log_message="{depth}")
    nav = Navigator(timeline, [bp])
    nav.continue_()
    depths = [str(s.depth) for s in timeline.snapshots if s.frame.opname == "BINARY_OP"]
    assert nav.log == depths[1::2] and bp.hits == len(depths)


def test_a_line_breakpoint_stops_once_per_visit_even_back_from_a_call_on_the_same_line(timeline):
    line = countdown.__code__.co_firstlineno + 1
    nav = Navigator(timeline, [LineBreakpoint(filename=__file__, line=line)])
    stops = []
    while (stop := nav.continue_()) != len(timeline) - 1:
        stops.append(stop)
    snaps = timeline.snapshots
    visits = [s.step for s in snaps if s.frame.line == line and s.frame.function == "countdown"
              and (snaps[s.step - 1].frame.line != line or snaps[s.step - 1].depth != s.depth)]
    assert stops == visits
    # in, in, in (the three recursive calls), then back at depths 2 and 1 after each return
    assert [snaps[s].depth for s in stops] == [1, 2, 3, 2, 1]
    assert Navigator(timeline, [LineBreakpoint(filename="/other.py", line=line)]).continue_() == len(timeline) - 1


def test_an_offset_breakpoint_in_another_file_does_not_stop(timeline):
    first = next(s.frame for s in timeline.snapshots if s.frame.function == "countdown")
    here = OffsetBreakpoint(function="countdown", offset=first.offset, filename=__file__)
    assert timeline.snapshots[Navigator(timeline, [here]).continue_()].frame == first
    elsewhere = OffsetBreakpoint(function="countdown", offset=first.offset, filename="/other.py")
    assert Navigator(timeline, [elsewhere]).continue_() == len(timeline) - 1


def test_a_guard_condition_stops_on_the_step_right_after_the_guard(timeline):
    name = next(g.source_name for g in timeline.guards if "['cfg']" in g.source_name)  # brackets and all
    nav = Navigator(timeline, [guard_installed_on(name)])
    stops = []
    while (stop := nav.continue_()) != len(timeline) - 1:
        stops.append(stop)
    first = next(s.step for s in timeline.snapshots if any(g.source_name == name for g in timeline.guards_at(s.step)))
    assert stops == [first]  # installed once: one stop, on the first step that has it
    nav.goto(len(timeline) - 1)
    assert nav.reverse_continue() == first


def test_a_depth_condition_is_strictly_deeper(timeline):
    deepest = max(s.depth for s in timeline.snapshots)
    assert Navigator(timeline, [depth_exceeds(deepest)]).continue_() == len(timeline) - 1
    stop = Navigator(timeline, [depth_exceeds(deepest - 1)]).continue_()
    assert stop == next(s.step for s in timeline.snapshots if s.depth == deepest)


def test_the_exception_condition_stops_where_the_handler_starts():
    timeline = recorded(recover, torch.ones(2))
    bp = exception_handled()
    stop = timeline.snapshots[Navigator(timeline, [bp]).continue_()]
    assert stop.frame.opname == "PUSH_EXC_INFO" and stop.event_kinds == ("exception",)
    assert stop.event == "exception: ValueError('no') handled in recover at offset 34" and bp.hits == 1
    assert [s.step for s in timeline.snapshots if s.event_kinds] == [stop.step]
    assert Navigator(timeline, [graph_break()]).continue_() == len(timeline) - 1  # no break in this trace


def test_the_tensor_on_top_condition_stops_at_the_first_such_step(timeline):
    tops = [s.step for s in timeline.snapshots if s.frame.stack and s.frame.stack[-1].kind == "TensorVariable"]
    assert len(tops) > 3 and tops[0] < len(timeline) - 1
    nav = Navigator(timeline, [top_is_tensor()])
    assert [nav.continue_() for _ in tops] == tops
    assert timeline.snapshots[0].frame.stack == () and not top_is_tensor().matches(timeline.snapshots[0], timeline)


def one_liner(x): return x + 1  # noqa: E704 - every instruction, RESUME included, on the def line


def test_a_line_breakpoint_counts_the_first_step_once_when_the_whole_trace_is_one_line():
    timeline = recorded(one_liner, torch.ones(2))
    line = one_liner.__code__.co_firstlineno
    assert {s.frame.line for s in timeline.snapshots} == {line}
    bp = LineBreakpoint(filename=__file__, line=line, log_message="{offset}")
    nav = Navigator(timeline, [bp])
    nav.goto(len(timeline) - 1)
    assert nav.reverse_continue() == 0 and bp.hits == 1 and nav.log == ["0"]  # step 0: the visit's first step
