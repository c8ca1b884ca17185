"""`functools.wraps` / `update_wrapper` on functions made in the trace, as Dynamo traces them: the
wrapper is the same function with the names, doc, `__dict__` entries and `__wrapped__` copied onto it
(and any attribute a decorator sets); calling it is inlined, and at a break or return it is rebuilt with
what was written on it.  What this opens: decorators applied inside the compiled function, and
`@contextlib.contextmanager` applied there.
"""
import contextlib
import functools

import pytest
import torch

import tracer

from differential import T, call, case, parametrize, parametrize_against_eager
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
BREAKS: list = []
LOG: list = []


def log_state():
    return list(LOG)


def counting(fn):
    """A decorator from outside: counts its calls on the wrapper, as a user's decorator would."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        wrapper.calls += 1
        return fn(*args, **kwargs) + wrapper.calls
    wrapper.calls = 0
    return wrapper


def scaled(a, b=2.0):
    """Scales a."""
    return a * b


scaled.tag = "outside"


# ---- wraps and update_wrapper, read back in the trace --------------------------------------------------

@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def decorator_written_and_applied_inside(x):
    def twice(fn):
        @functools.wraps(fn)
        def wrapper(y):
            return fn(fn(y))
        return wrapper

    @twice
    def step(y):
        """One step."""
        return y * 2 + 1
    return step(x), step.__name__, step.__qualname__, step.__doc__, step.__wrapped__(x), step.__module__


@case(CASES, call(T(3)), fullgraph=True)
def decorator_from_outside_applied_to_a_nested_def(x):
    @counting
    def inner(y):
        return y.sin()
    first = inner(x)
    second = inner(x)
    return first, second, inner.calls, inner.__name__, inner.__wrapped__(x)


@case(CASES, call(T(3)), fullgraph=True)
def dict_entries_are_copied_and_attributes_set_in_the_trace_read_back(x):
    def inner(y):
        return y + 1
    inner.tag = "made here"
    inner.scale = 3

    def outer(y):
        return inner(y) * outer.scale
    outer = functools.wraps(inner)(outer)
    return outer(x), outer.tag, hasattr(outer, "missing"), getattr(outer, "nope", 7)


@case(CASES, call(T(3)), fullgraph=True)
def update_wrapper_with_its_own_assigned_and_updated(x):
    def inner(y):
        """inner's doc"""
        return y - 1

    def outer(y):
        """outer's doc"""
        return inner(y) * 2
    same = functools.update_wrapper(outer, inner, assigned=("__doc__",), updated=())
    return same(x), same is outer, outer.__name__, outer.__doc__, outer.__wrapped__ is inner


@case(CASES, call(T(3)), fullgraph=True)
def wraps_of_a_function_from_outside(x):
    wrapper = functools.wraps(scaled)(lambda a: scaled(a) + 1)
    return wrapper(x), wrapper.__name__, wrapper.__doc__, wrapper.tag, wrapper.__wrapped__ is scaled


@case(CASES, call(T(3)), fullgraph=True)
def stacked_decorators_unwrap_step_by_step(x):
    @counting
    @counting
    def inner(y):
        return y * 3
    return inner(x), inner.__wrapped__.__wrapped__(x), inner.__wrapped__.calls, inner.calls


@case(CASES, call(T(3)), fullgraph=True)
def a_wrapper_stored_in_its_own_dict_entry_and_popped(x):
    def inner(y):
        return y * 2

    def outer(y):
        return inner(y) + 1
    functools.update_wrapper(outer, inner)
    outer.__dict__["extra"] = 1
    popped = outer.__dict__.pop("extra")
    return outer(x), popped, outer.__dict__.pop("extra", None), "extra" in outer.__dict__


class Doubler(torch.nn.Module):
    def forward(self, x):
        """Doubles."""
        return x * 2


DOUBLER = Doubler()


@case(CASES, call(T(3)), fullgraph=True)
def wraps_of_a_bound_method(x):
    # a bound method's names, doc and dict are its function's, as Python forwards them
    @functools.wraps(DOUBLER.forward)
    def wrapper(y):
        return DOUBLER(y) + 1
    return wrapper(x), wrapper.__name__, wrapper.__doc__, wrapper.__module__, wrapper.__wrapped__(x)


@case(CASES, call(T(3)), fullgraph=True)
def wraps_of_a_builtin_function(x):
    # len has no __dict__ and no __annotations__: the AttributeErrors update_wrapper catches
    wrapper = functools.wraps(len)(lambda s: len(s) * 2)
    return x + wrapper([1, 2]), wrapper.__name__, wrapper.__doc__ == len.__doc__, wrapper.__wrapped__ is len


class Tagged:
    """A class a decorator wraps."""


@case(CASES, call(T(3)), fullgraph=True)
def wraps_of_a_class(x):
    wrapper = functools.wraps(Tagged)(lambda: 2)
    return x * wrapper(), wrapper.__name__, wrapper.__doc__, wrapper.__module__, wrapper.__wrapped__ is Tagged


test_wraps = parametrize(CASES)

AGAINST_EAGER: list = []


@case(AGAINST_EAGER, call(T(3)), fullgraph=True)
def a_wrappers_dict_holds_its_entries_only(x):
    # Dynamo 2.13 lists `__name__`, `__doc__`, `__module__`, ... in it too; Python does not
    def inner(y):
        return y + 1
    inner.tag = 1

    def outer(y):
        return inner(y) * 2
    outer = functools.wraps(inner)(outer)
    return outer(x), sorted(outer.__dict__), dict(outer.__dict__)["tag"]


@case(AGAINST_EAGER, call(T(3)), fullgraph=True)
def wraps_of_a_class_copies_its_dict_entries_named_as_slots(x):
    # the class's `__module__` and `__doc__` entries land in the wrapper's __dict__, not in its slots
    # (Dynamo 2.13 answers the class's `__dict__` descriptor for the wrapper's)
    wrapper = functools.wraps(Tagged)(lambda: 2)
    wrapper.__dict__.pop("__dict__")
    return x * wrapper(), wrapper.__name__, wrapper.__dict__["__module__"], wrapper.__module__, sorted(wrapper.__dict__)


@case(AGAINST_EAGER, call(T(3)), fullgraph=True)
def the_dict_of_a_function_made_in_the_trace_returned(x):
    # Dynamo 2.13 returns an empty dict
    def inner(y):
        return y
    inner.k = 2
    return x * inner.k, vars(inner)


test_wraps_against_eager = parametrize_against_eager(AGAINST_EAGER)


# ---- the wrapper leaving the trace: rebuilt with what was written on it --------------------------------

@break_case(BREAKS, call(T(3)), call(T(3)))
def wrapper_alive_at_a_break(x):
    # after the break the wrapper is a function from outside: its `calls += 1` breaks again, as in Dynamo
    @counting
    def inner(y):
        return y.cos()
    y = inner(x)
    print("break", inner.calls)
    return inner(y), inner.calls, inner.__name__, inner.__wrapped__(x), inner.__qualname__


@break_case(BREAKS, call(T(3)), call(T(3)), compiles="C.")
def wrapper_that_calls_itself_alive_at_a_break(x):
    def countdown(y, n):
        return y if n == 0 else countdown(y * 2, n - 1)
    wrapped = functools.wraps(scaled)(countdown)
    print("break")
    return wrapped(x, 2), wrapped.__name__, wrapped.__wrapped__ is scaled


def make_countdown():
    def countdown(y, n):
        return y if n == 0 else countdown(y * 2, n - 1)
    return countdown


@break_case(BREAKS, call(T(3)), call(T(3)), compiles="C.")
def a_function_calling_itself_made_in_a_callee_alive_at_a_break(x):
    # its closure cell, made in the trace, holds the function itself: rebuilt empty, filled once it is built
    countdown = make_countdown()
    print("break")
    return countdown(x, 2), countdown.__name__


test_wraps_breaks = parametrize_breaks(BREAKS)


def made_and_returned(x):
    @counting
    def inner(y, *, k=2):
        return y * k
    inner(x)
    inner.note = inner
    return inner


def test_a_wrapper_returned_is_rebuilt_with_its_attributes_and_equals_eager():
    """Returned, the wrapper is one function again: its names, its counter, its `__wrapped__` (with its
    keyword default), and an attribute that holds the wrapper itself."""
    x = T(3)
    tracer.reset()
    got = tracer.compile(made_and_returned, fullgraph=True)(x)
    want = made_and_returned(x)
    for fn in (got, want):
        assert (fn.__name__, fn.__qualname__, fn.calls, fn.note is fn) == \
            (want.__name__, want.__qualname__, 1, True)
    torch.testing.assert_close(got(x), want(x))
    torch.testing.assert_close(got.__wrapped__(x, k=5), want.__wrapped__(x, k=5))
    assert got.calls == want.calls == 2


def made_from_a_class_and_returned(x):
    return x + 1, functools.wraps(Tagged)(lambda: 2)


def test_a_wrapper_of_a_class_returned_keeps_the_entries_named_as_slots_in_its_dict():
    tracer.reset()
    _, got = tracer.compile(made_from_a_class_and_returned, fullgraph=True)(T(3))
    _, want = made_from_a_class_and_returned(T(3))
    assert list(got.__dict__) == list(want.__dict__) and got.__dict__["__module__"] == want.__dict__["__module__"]
    assert (got.__name__, got.__qualname__, got.__doc__, got.__module__, got()) == \
        (want.__name__, want.__qualname__, want.__doc__, want.__module__, 2)


def test_assigning_what_a_function_is_called_with_breaks_naming_it():
    def f(x):
        def inner(y):
            return y + 1
        inner.__defaults__ = (1,)
        return inner(x)

    tracer.reset()
    with pytest.raises(tracer.Unsupported, match=r"assigning __defaults__ of the function"):
        tracer.compile(f, fullgraph=True)(T(3))
    torch.testing.assert_close(tracer.compile(f)(T(3).zero_()), f(T(3).zero_()))


def test_a_name_set_to_a_non_string_is_the_type_error_python_raises():
    def f(x):
        def inner(y):
            return y + 1
        try:
            inner.__name__ = 3
        except TypeError:
            return inner(x), inner.__name__
        return x

    tracer.reset()
    x = T(3)
    got, want = tracer.compile(f, fullgraph=True)(x), f(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1] == want[1] == "inner"


# ---- @contextlib.contextmanager applied inside the trace ------------------------------------------------

CM_CASES: list = []


@case(CM_CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def contextmanager_made_inside_and_entered(x):
    @contextlib.contextmanager
    def doubled():
        yield x * 2
    with doubled() as y:
        return y + 1


@case(CM_CASES, call(T(3)), fullgraph=True, state=log_state)
def contextmanager_made_inside_with_arguments_and_a_finally(x):
    @contextlib.contextmanager
    def scope(name, k):
        LOG.append(f"enter {name}")
        try:
            yield x * k
        finally:
            LOG.append(f"exit {name}")
    with scope("a", 2) as a, scope("b", 3) as b:
        y = a + b
    return y


@case(CM_CASES, call(T(3)), fullgraph=True, state=log_state)
def contextmanager_made_inside_swallows_an_exception(x):
    @contextlib.contextmanager
    def swallowing():
        try:
            yield
        except ValueError as error:
            LOG.append(str(error))
    with swallowing():
        x = x + 1
        raise ValueError("swallowed")
    return x * 2


def counting_up(start):
    yield start + 1


@case(CM_CASES, call(T(3)), fullgraph=True)
def contextmanager_applied_inside_to_a_generator_function_from_outside(x):
    with contextlib.contextmanager(counting_up)(x) as y:
        return y * 2, contextlib.contextmanager(counting_up).__name__


@case(CM_CASES, call(T(3)), fullgraph=True)
def contextmanager_made_inside_used_twice_and_read(x):
    @contextlib.contextmanager
    def shifted(k):
        """Shifts by k."""
        yield x + k
    with shifted(1) as a:
        pass
    with shifted(2) as b:
        pass
    return a * b, shifted.__name__, shifted.__doc__


test_contextmanager_inside = parametrize(CM_CASES)


CM_BREAKS: list = []


@break_case(CM_BREAKS, call(T(3)), call(T(3)), state=log_state)
def contextmanager_made_inside_with_a_break_in_its_block(x):
    @contextlib.contextmanager
    def scope():
        LOG.append("enter")
        yield x + 1
        LOG.append("exit")
    with scope() as y:
        print("inside")
        z = y * 2
    return z


@break_case(CM_BREAKS, call(T(3)), call(T(3)))
def contextmanager_made_inside_alive_at_a_break(x):
    @contextlib.contextmanager
    def scope(k):
        yield x * k
    print("before")
    with scope(3) as y:
        return y + 1, scope.__name__


test_contextmanager_inside_breaks = parametrize_breaks(CM_BREAKS)


# ---- a decorator applied inside a checkpointed body: what the body writes on what it made is its own ----

BODY_CASES: list = []


def grad_input(*shape):
    return T(*shape).requires_grad_()


def decorates_inside(y):
    @counting
    def inner(z):
        return z.sin()
    return inner(y) * inner.calls


class Box:
    def __init__(self):
        self.n = 0


def writes_on_an_object_it_made(y):
    box = Box()
    box.n += 2
    return y * box.n


@case(BODY_CASES, call(grad_input(3)), fullgraph=True)
def checkpointed_body_applying_a_decorator(x):
    return torch.utils.checkpoint.checkpoint(decorates_inside, x, use_reentrant=False) + 1


@case(BODY_CASES, call(grad_input(3)), fullgraph=True)
def checkpointed_body_writing_on_an_object_it_made(x):
    return torch.utils.checkpoint.checkpoint(writes_on_an_object_it_made, x, use_reentrant=False).cos()


test_bodies = parametrize(BODY_CASES)


def make_bump():
    k = 0

    def bump():
        nonlocal k
        k += 1
        return k
    return bump


BUMP = make_bump()


def test_a_body_assigning_an_outside_closures_cell_first_met_there_still_has_a_side_effect():
    """The cell's tracker is made in the body, but the cell is the outside closure's: not the body's own."""
    def f(x):
        return torch.utils.checkpoint.checkpoint(lambda y: y * BUMP(), x, use_reentrant=False)

    tracer.reset()
    with pytest.raises(tracer.Unsupported, match="a checkpointed function with side effects"):
        tracer.compile(f, fullgraph=True)(grad_input(3))
