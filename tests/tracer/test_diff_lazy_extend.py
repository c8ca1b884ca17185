"""Differential cases: extending a list or deque from a generator (or map) that reads the container
being extended sees the items added so far, as CPython adds each before pulling the next; and a
StopIteration leaving a generator's body is a RuntimeError (PEP 479)."""
import collections

from differential import T, call, case, parametrize, parametrize_against_eager

CASES: list = []
EAGER_ONLY: list = []


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def list_extend_from_a_generator_reading_the_list(x):
    y = [1]
    y.extend(y[-1] + z for z in range(3))
    return x + 1, y


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def list_extend_from_a_map_reading_the_list(x):
    y = [1, 2]
    y.extend(map(lambda z: len(y) + z, range(3)))
    return x + 1, y


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def deque_extendleft_from_a_generator_reading_the_deque(x):
    y = collections.deque([1])
    y.extendleft(y[0] + z for z in range(3))
    return x + 1, list(y)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def stop_iteration_out_of_a_generator_body_is_a_runtime_error(x):
    def gen():
        yield x + 1
        raise StopIteration("boom")

    g = gen()
    first = next(g)
    try:
        next(g)
    except RuntimeError:
        return first, x - 1
    except StopIteration:
        return first, x + 2
    return first, x


test_lazy_extend = parametrize(CASES)


def _stop_iteration_cause(x):
    def gen():
        yield x + 1
        raise StopIteration("boom")

    g = gen()
    next(g)
    try:
        next(g)
    except RuntimeError as e:
        return x - 1, str(e), type(e.__cause__).__name__, e.__cause__.args
    return x, None, None, None


@case(EAGER_ONLY, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def stop_iteration_cause_is_kept(x):  # Dynamo 2.13 loses the message and the cause
    return _stop_iteration_cause(x)


test_lazy_extend_against_eager = parametrize_against_eager(EAGER_ONLY)


CASES_IADD: list = []


@case(CASES_IADD, call(T(3)), call(T(3)), compiles="C.")
def list_iadd_from_a_map_reading_the_list(x):
    y = [1, 2]
    y += map(lambda z: len(y) + z, range(3))
    return x + 1, y


@case(CASES_IADD, call(T(3)), call(T(3)), compiles="C.")
def list_iadd_from_a_generator_reading_the_list(x):
    y = [1]
    y += (y[-1] + z for z in range(3))
    return x + 1, y


test_lazy_iadd = parametrize(CASES_IADD)
