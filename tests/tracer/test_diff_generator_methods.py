"""Differential cases: a generator made in the trace driven through its own methods (__next__,
send, throw, close), as CPython runs them: the sent value is what the yield evaluates to, a thrown
exception is raised at the yield, close() throws GeneratorExit there."""
import sys

from differential import T, call, case, parametrize

CASES: list = []


def accumulate(t):
    total = t
    while True:
        step = yield total
        total = total + step


def catching(t):
    try:
        yield t + 1
    except ValueError:
        yield t - 1
    yield t * 3


def closing(t, log):
    try:
        yield t + 1
        yield t + 2
    finally:
        log.append("closed")


def handles_then_raises():
    try:
        yield 1
    except ValueError:
        try:
            raise TypeError
        finally:
            pass


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def send_values_into_a_generator(x):
    gen = accumulate(x)
    first = gen.__next__()
    second = gen.send(2)
    third = gen.send(x)
    return first, second, third


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def throw_is_raised_at_the_yield(x):
    gen = catching(x)
    first = next(gen)
    handled = gen.throw(ValueError("v"))
    return first, handled, next(gen)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def close_runs_the_finally_block(x):
    log = []
    gen = closing(x, log)
    first = next(gen)
    gen.close()
    gen.close()
    return first, log


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def throw_raising_another_exception_leaves_none_handled(x):
    try:
        gen = handles_then_raises()
        next(gen)
        gen.throw(ValueError)
    except TypeError:
        caught = True
    return x + 1, caught, sys.exc_info()[0]


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def dunder_next_past_the_end_raises_stop_iteration(x):
    gen = catching(x)
    items = [gen.__next__(), gen.__next__()]
    try:
        gen.__next__()
    except StopIteration:
        return items, x - 1
    return items, x + 1


test_generator_methods = parametrize(CASES)
