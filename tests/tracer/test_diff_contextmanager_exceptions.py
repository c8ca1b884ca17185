"""Differential cases: an exception leaving the block of a `@contextlib.contextmanager` made in the
function.  As contextlib's `__exit__` does, the exception is thrown into the generator at its
`yield` (Dynamo traces the same): the generator catching it and returning swallows it, a `finally`
runs and lets it go on to a handler outside the block (or out of the function), an `except` that
raises another exception raises that one, and a generator that yields again is a RuntimeError."""
import contextlib

from differential import T, call, case, parametrize
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
BREAKS: list = []
LOG: list = []


def log():
    return list(LOG)


@contextlib.contextmanager
def catching(tag):
    LOG.append("enter " + tag)
    try:
        yield tag
    except ValueError:
        LOG.append("caught " + tag)
    finally:
        LOG.append("exit " + tag)


@contextlib.contextmanager
def plain():
    LOG.append("enter")
    yield
    LOG.append("exit")  # skipped when the block raises


@contextlib.contextmanager
def translating():
    try:
        yield
    except KeyError as error:
        raise ValueError("translated") from error


@contextlib.contextmanager
def scaled(x):
    try:
        yield x * 2
    except ZeroDivisionError:
        LOG.append("zero")


@case(CASES, call(T(3)), call(T(3)), state=log, fullgraph=True)
def swallowed_by_the_generator(x):
    y = x + 1
    with catching("a"):
        y = y * 2
        raise ValueError("boom")
    return y - 1


@case(CASES, call(T(3)), call(T(3)), state=log, fullgraph=True)
def through_its_finally_to_a_handler_outside(x):
    y = x + 1
    try:
        with catching("b"):
            y = y * 2
            raise KeyError("k")
    except KeyError as error:
        y = y + len(error.args)
    return y


@case(CASES, call(T(3)), call(T(3)), state=log, fullgraph=True)
def past_a_generator_without_a_handler(x):
    y = x + 1
    try:
        with plain():
            y = y * 2
            raise KeyError("k")
    except KeyError:
        y = y + 10
    return y


@case(CASES, call(T(3)), call(T(3)), state=log, fullgraph=True)
def the_generator_raises_another_exception(x):
    try:
        with translating():
            {}["missing"]
    except ValueError as error:
        return x + 1, str(error), type(error.__cause__).__name__
    return x


@case(CASES, call(T(3)), call(T(3)), state=log, fullgraph=True)
def nested_managers_unwind_inner_first(x):
    y = x.clone()
    with catching("outer"):
        with plain():
            with scaled(y) as z:
                y = z + 1
                raise ValueError("v")
    return y


@case(CASES, call(T(3)), call(T(3)), state=log, fullgraph=True)
def no_exception_still_exits_normally(x):
    with catching("n") as tag:
        y = x * len(tag)
    return y


@break_case(BREAKS, call(T(3)), state=log, raises=True, breaks=None)
def out_of_the_function(x):
    with catching("c"):
        y = x * 2
        raise KeyError("k")
    return y


@contextlib.contextmanager
def stubborn():
    try:
        yield
    except ValueError:
        yield


@break_case(BREAKS, call(T(3)), state=log, raises=True, breaks=None)
def a_generator_that_yields_again_after_the_throw(x):
    with stubborn():
        y = x * 2
        raise ValueError("v")
    return y


test_contextmanager_exceptions = parametrize(CASES)
test_contextmanager_exceptions_raised = parametrize_breaks(BREAKS)
