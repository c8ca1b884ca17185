"""Snapshots are made from recorded steps when read: any order of reading shows the same states.

The recorder keeps what the translator held at each step and makes views later,
so what a view shows must not depend on when it is read: a lazy shell realized
at step r looks lazy in every snapshot before r and realized from r on, in a
local, on the stack, inside a container and in a paused caller's frame.
"""
import dataclasses
import dis

import torch
from hypothesis import given, settings, strategies as st

import tracer
from tracer.debug import Navigator, OpcodeBreakpoint, TrackerView, record
from tracer.variables.base import VariableTracker


class Cfg:
    scale = 3


cfg = Cfg()


def helper(pair):
    return pair[0] * cfg.scale


def packs(x, n):
    pair = (x, n)
    y = helper(pair)
    return y + pair[1]


def recorded(fn=packs, *args):
    tracer.reset()
    opt = tracer.compile(fn)
    recorder = record(opt)
    opt(*(args or (torch.ones(3), 2)))
    return recorder.timelines[0]


def first(timeline, predicate):
    return next(s for s in timeline.snapshots if predicate(s))


def test_a_shell_is_lazy_before_its_realization_and_realized_after_whatever_is_read_first():
    timeline = recorded()
    last = timeline.snapshots[-1]  # read first: x is realized by then
    assert dict(last.frame.locals)["x"].kind == "TensorVariable"
    start = timeline.snapshots[0]
    assert dict(start.frame.locals)["x"].lazy and dict(start.frame.locals)["x"].text == "lazy Tensor L['x']"
    realized_at = next(e.step for e in timeline.events if e.kind == "realize" and "L['x']" in e.text)
    before, after = timeline.snapshots[realized_at - 1], timeline.snapshots[realized_at]
    assert dict(before.frame.locals)["pair"].children[0][1].lazy  # inside the tuple, in helper's frame
    assert dict(after.frame.locals)["pair"].children[0][1].kind == "TensorVariable"
    assert dict(before.frames[0].locals)["x"].lazy, "the paused caller's view is of the step helper was entered"


def test_a_view_is_shared_while_its_tracker_and_lazy_state_are_unchanged():
    timeline = recorded()
    views = [dict(s.frames[0].locals).get("x") for s in timeline.snapshots if s.depth == 0]
    distinct = {id(v) for v in views if v is not None}
    assert len(distinct) == 2, "one view while lazy, one once realized"


def _in_order(timeline):
    return [timeline.snapshots[i] for i in range(len(timeline))]


@settings(max_examples=15, deadline=None)
@given(st.randoms(use_true_random=False))
def test_reading_in_any_order_makes_the_same_snapshots(rng):
    expected = _in_order(recorded())
    timeline = recorded()
    order = list(range(len(timeline)))
    rng.shuffle(order)
    got = {i: timeline.snapshots[i] for i in order}
    assert [got[i] for i in range(len(timeline))] == expected  # views compare by value


def test_walks_and_slices_agree_with_indexing():
    timeline = recorded()
    snapshots = timeline.snapshots
    assert list(snapshots) == [snapshots[i] for i in range(len(snapshots))]
    assert list(snapshots.walk(len(snapshots) - 1, -1)) == list(reversed(list(snapshots)))
    assert snapshots[3:9] == [snapshots[i] for i in range(3, 9)] and snapshots[::5][1] is snapshots[5]
    assert snapshots[-1] is snapshots[len(snapshots) - 1]
    try:
        snapshots[len(snapshots)]
    except IndexError as error:
        assert "timeline of" in str(error)
    else:
        raise AssertionError("reading past the end must raise IndexError")


def test_continue_reads_little_beyond_the_breakpoint():
    timeline = recorded(long_loop, torch.ones(2))
    nav = Navigator(timeline, [OpcodeBreakpoint(opname="BINARY_OP")])
    stop = nav.continue_()
    assert timeline.snapshots[stop].frame.opname == "BINARY_OP"
    assert timeline.snapshots.made < 2 * stop + 8 < len(timeline)  # batches double from 4
    assert nav.continue_() > stop and nav.reverse_continue() == stop
    nav.breakpoints[:] = [OpcodeBreakpoint(opname="RETURN_VALUE")]
    assert nav.continue_() == len(timeline) - 1 and timeline.snapshots.made == len(timeline) - 1  # all but 0


def nests(x, n):
    deep = [[[[[n]]]]]  # noqa: F841 - read by the test, in the snapshots: the shell five levels down
    m = n + 1
    return x + m


def _innermost(view):
    while view.children:
        view = view.children[0][1]
    return view


def test_a_shell_deep_in_a_container_is_realized_in_its_view_whatever_is_read_first():
    timeline = recorded(nests, torch.ones(2), 3)
    early = next(s for s in timeline.snapshots if "deep" in dict(s.frame.locals))  # read first, n still lazy
    assert _innermost(dict(early.frame.locals)["deep"]).lazy
    last = dict(timeline.snapshots[-1].frame.locals)
    assert not last["n"].lazy and _innermost(last["deep"]) is last["n"]  # the same view as the local's


def views(x, n):
    a = 1
    z = None  # read between an int and a float (views are made in the locals' order)
    b = 1.0
    c = True
    d = 2.5
    s = "s" * 100  # noqa: F841 - the locals are what the test reads
    many = [a] * 70  # noqa: F841
    pair = (x, n)  # noqa: F841
    return x + a + b + c + d if z is None else x


def test_a_view_shows_kind_text_type_source_node_constant_and_64_children():
    timeline = recorded(views, torch.ones(2), 3)
    seen = dict(timeline.snapshots[-1].frame.locals)
    x = TrackerView("TensorVariable", "l_x_: float32[2]", "Tensor", "L['x']", "l_x_", None, False)
    n = TrackerView("LazyVariableTracker", "lazy int L['n']", "int", "L['n']", None, None, True)
    assert (seen["x"], seen["n"]) == (x, n)
    assert [(seen[k].text, seen[k].python_type, seen[k].constant) for k in "abc"] == \
        [("1", "int", "1"), ("1.0", "float", "1.0"), ("True", "bool", "True")]  # 1, 1.0 and True apart
    assert (seen["d"].text, seen["d"].constant) == ("2.5", "2.5")  # another float's own words
    assert seen["z"] == TrackerView("ConstantVariable", "None", "NoneType", None, None, "None", False)
    earlier = dict(next(s for s in timeline.snapshots if "d" in dict(s.frame.locals)).frame.locals)
    assert all(earlier[k] is seen[k] for k in "abcdz")  # one tracker, read at two steps: the very same view
    assert seen["a"] == TrackerView("ConstantVariable", "1", "int", None, None, "1", False)
    assert seen["s"].constant == repr("s" * 100)[:80] and seen["s"].kind == "ConstantVariable"
    assert seen["pair"] == TrackerView("TupleVariable", "(l_x_: float32[2], lazy int L['n'])", "tuple", None,
                                       None, None, False, (("0", x), ("1", n)))
    many = seen["many"]
    assert (many.kind, many.python_type, len(many.children)) == ("ListVariable", "list", 64)
    assert [label for label, _ in many.children] == [str(i) for i in range(64)]
    assert all(view is seen["a"] for _, view in many.children)  # one tracker: one view


def test_each_frame_shows_its_instruction_as_dis_reads_it():
    timeline = recorded()
    for snapshot in timeline.snapshots:
        for depth, frame in enumerate(snapshot.frames):
            code = timeline.codes[frame.code_key]
            ((index, inst),) = [(i, inst) for i, inst in enumerate(dis.get_instructions(code))
                                if inst.offset == frame.offset]
            assert (frame.function, frame.filename, frame.first_line, frame.depth) == \
                (code.co_name, code.co_filename, code.co_firstlineno, depth)
            assert (frame.opname, frame.argrepr, frame.columns) == \
                (inst.opname, inst.argrepr, (inst.positions.col_offset, inst.positions.end_col_offset))
            assert frame.line == inst.positions.lineno and frame.index == index
    assert {f.function for s in timeline.snapshots for f in s.frames} == {"packs", "helper"}


def test_a_tracker_with_no_python_type_is_shown_with_a_question_mark():
    timeline = recorded()  # packs calls helper: a NULL is pushed before it
    nulls = [v for s in timeline.snapshots for v in s.frame.stack if v.kind == "NullVariable"]
    assert nulls and all(v.python_type == "?" for v in nulls)


def test_a_walk_reads_in_batches_that_double_from_four():
    timeline = recorded(long_loop, torch.ones(2))
    walk = timeline.snapshots.walk(0)
    next(walk)
    assert timeline.snapshots.made == 4  # a step over made only the first batch
    for _ in range(4):
        next(walk)
    assert timeline.snapshots.made == 4 + 8
    back = timeline.snapshots.walk(len(timeline) - 1, -1)
    next(back)
    assert timeline.snapshots.made == 4 + 8 + 4


def long_loop(x):
    acc = 0
    for i in range(300):
        acc = acc + i
    return x + acc


def numbers(n):
    for i in range(n):
        yield i


def drain(items):
    total = 0
    for item in items:
        total = total + item
    return total


def made_here_drained_there(x):
    return x + drain(numbers(3))


def test_a_generator_runs_under_the_frame_that_asks_for_its_next_item():
    timeline = recorded(made_here_drained_there, torch.ones(2))
    inside = [s for s in timeline.snapshots if s.frame.function == "numbers"]
    assert inside and all([f.function for f in s.frames] == ["made_here_drained_there", "drain", "numbers"]
                          for s in inside)
    entered = [e for e in timeline.events if e.kind == "inline_enter" and "numbers" in e.text]
    assert len(entered) == 4, "entered once per next(): three items, then the return"


def take_one(items):
    return next(items)


def asked_from_two_frames(x):
    items = numbers(3)
    first = next(items)  # from this frame
    second = take_one(items)  # then from a callee
    return x + first + second


def test_a_generator_entered_again_from_elsewhere_shows_its_new_callers():
    timeline = recorded(asked_from_two_frames, torch.ones(2))
    callers = [tuple(f.function for f in s.frames[:-1]) for s in timeline.snapshots if s.frame.function == "numbers"]
    assert dict.fromkeys(callers) == {("asked_from_two_frames",): None, ("asked_from_two_frames", "take_one"): None}
    assert callers.index(("asked_from_two_frames", "take_one")) > callers.index(("asked_from_two_frames",))


def looks_up(x, table):
    try:
        bias = table["bias"]
    except KeyError:
        bias = 0.5
    return x + bias


def test_an_exception_handled_in_the_trace_is_an_event_and_a_breakpoint():
    from tracer.debug import exception_handled
    timeline = recorded(looks_up, torch.ones(2), {})
    events = [e for e in timeline.events if e.kind == "exception"]
    assert len(events) == 1 and "KeyError('bias')" in events[0].text and "looks_up" in events[0].text
    nav = Navigator(timeline, [exception_handled()])
    stop = nav.continue_()
    snapshot = timeline.snapshots[stop]
    assert snapshot.event.startswith("exception") and snapshot.frame.opname == "PUSH_EXC_INFO"
    assert snapshot.frame.stack[-1].kind == "ExceptionVariable"


def test_every_tracker_class_compares_by_identity():
    """The recorder tells unchanged locals by dict equality and keys views by tracker: identity only."""
    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    import tracer.variables  # noqa: F401  (every tracker module)
    for cls in [VariableTracker, *subclasses(VariableTracker)]:
        assert cls.__eq__ is object.__eq__ and cls.__hash__ is object.__hash__, cls.__name__
        assert not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.eq, cls.__name__
