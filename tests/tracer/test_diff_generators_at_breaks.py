"""A generator made in the trace and still alive at a graph break, compared with Dynamo.

No bytecode can hand the resume function a suspended generator, so Dynamo runs what it has left
to its end at the break and hands on an iterator over those items (as at a return).  Standin did
that only at a return; at a break the frame ran eagerly ("cannot rebuild GeneratorVariable").
A rest with side effects cannot run early: the frame then runs eagerly, under both.  Exceptions
made in the trace alive at a break are rebuilt, chain and all.
"""
import torch

import tracer
from differential_breaks import T, break_case, call, parametrize_breaks

CASES: list = []
LOG: list = []
X = T(3)


def takes(items, _):
    return list(items)


def logged(n):
    for i in range(n):
        LOG.append(i)
        yield i


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def generator_half_consumed(x):
    g = (i * 2 for i in range(4))
    first = next(g)
    print("break")
    return x + first + next(g), list(g)


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def generator_on_the_stack_under_two_names(x):
    g = (i * 3 for i in range(4))
    h = g
    first = next(g)
    return x + first + sum(takes(h, print("break")))


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def generators_in_a_list(x):
    gs = [(i for i in range(2)), (i + 5 for i in range(3))]
    print("break")
    return x + 1, [list(g) for g in gs]


@break_case(CASES, call(T(3)), call(T(3)), state=lambda: list(LOG))
def generator_whose_rest_logs(x):  # its rest would log too early: the frame runs eagerly, as Dynamo's
    g = logged(3)
    first = next(g)
    print("break")
    return x + first, list(g)


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def exception_with_an_attribute(x):
    e = ValueError("boom", 3)
    e.note = 4
    print("break")
    return x + e.note, e.args, type(e)


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def chained_exception(x):
    try:
        try:
            raise KeyError("k")
        except KeyError:
            raise ValueError("v")
    except ValueError as err:
        e = err
    print("break")
    return x + 1, type(e.__context__), e.__context__.args, e.args


@break_case(CASES, call(T(3)), call(T(3)))
def generator_of_tensors_over_a_list(x):
    y = x + 1
    g = (t * 2 for t in [y, y + 1, x])
    first = next(g)
    print("break")
    return first + sum(g)


@break_case(CASES, call(T(3), [T(3), T(3)]), call(T(3), [T(3), T(3)]))
def any_over_a_list_argument(x, items):
    t = x * 1
    if any(v.sum() > 0 for v in items):  # the generator is on the stack when its truth breaks
        t = t + 1
    return t


test_generators_at_breaks = parametrize_breaks(CASES)


def generator_over_an_iterator_a_name_holds(x):
    it = iter([1, 2, 3])
    g = (i for i in it)
    print("break")
    return x + next(it), list(g)


def test_a_generator_advancing_its_list_iterator_is_not_drained_at_a_break(capsys):
    """Dynamo counts the advance of a generator's own iterator over a list or tuple as a mutation
    ("Generator reconstruction with mutations") and runs the frame eagerly; so does Standin, naming it
    (an iterator over a range it drains, as Dynamo: `generator_half_consumed`)."""
    opt = tracer.compile(generator_of_tensors_over_a_list)
    torch.testing.assert_close(opt(X), generator_of_tensors_over_a_list(X))
    reasons = [e.reason for e in opt.all_frames()[0].compile_events if e.kind == "eager_fallback"]
    assert len(reasons) == 1 and "advances its iterator over a list or tuple" in reasons[0], reasons


def test_a_generator_that_would_use_up_an_iterator_a_name_holds_is_not_drained(capsys):
    """Draining it at the break would leave `it` empty before next(it) runs: the frame runs eagerly
    with a reason naming the shared iterator (without it, a wrong answer)."""
    opt = tracer.compile(generator_over_an_iterator_a_name_holds)
    (got, rest), (want, want_rest) = opt(X), generator_over_an_iterator_a_name_holds(X)
    torch.testing.assert_close(got, want)
    assert rest == want_rest == [2, 3]
    reasons = [e.reason for e in opt.all_frames()[0].compile_events if e.kind == "eager_fallback"]
    assert len(reasons) == 1 and "iterator the code after it holds too" in reasons[0], reasons
