"""Differential cases: how exceptions made in the trace chain (__context__, __cause__,
__suppress_context__), seen through every name of the one object, and sys.exc_info() /
sys.exception() naming the exception being handled."""
import sys

from differential import T, call, case, parametrize, parametrize_against_eager

CASES: list = []
EAGER_ONLY: list = []


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def raised_while_handling_links_the_object_itself(x):
    try:
        raise KeyError("k")
    except KeyError:
        inner = ValueError(1)
        try:
            raise inner
        except ValueError as caught:
            same = caught is inner
    return x + 1, type(inner.__context__).__name__, same


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def raise_from_sets_cause_on_the_object(x):
    inner = ValueError(1)
    try:
        raise inner from KeyError("k")
    except ValueError:
        pass
    return x + 1, type(inner.__cause__).__name__, inner.__suppress_context__


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def raise_from_none_hides_the_context(x):
    inner = ValueError(1)
    try:
        try:
            raise KeyError("k")
        except KeyError:
            raise inner from None
    except ValueError:
        pass
    return x + 1, inner.__cause__, inner.__suppress_context__, type(inner.__context__).__name__


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def chaining_attributes_assigned_in_the_trace(x):
    e = ValueError(1)
    e.__context__ = NameError("n")
    before = e.__suppress_context__
    e.__cause__ = None
    after = e.__suppress_context__
    e.__suppress_context__ = False
    return x + 1, type(e.__context__).__name__, e.__cause__, before, after, e.__suppress_context__


@case(EAGER_ONLY, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def context_not_an_exception_is_a_type_error(x):  # Dynamo 2.13 fails an internal assertion here
    e = ValueError(1)
    try:
        e.__context__ = 3
    except TypeError:
        return x + 1
    return x - 1


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def raising_an_earlier_exception_cuts_the_cycle(x):
    try:
        try:
            raise AssertionError("a")
        except AssertionError as a_:
            a = a_
            try:
                raise KeyError("b")
            except KeyError as b_:
                b = b_
                try:
                    raise IndexError("c")
                except IndexError as c_:
                    c = c_
                    raise a
    except AssertionError as e:
        top = e
    return (x + 1, top is a, a.__context__ is c, c.__context__ is b, b.__context__ is None)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def exc_info_names_the_handled_exception(x):
    outside = sys.exc_info()
    try:
        raise KeyError("k")
    except KeyError as e:
        inside = sys.exc_info()
        same = inside[1] is e
    return x + 1, outside, inside[0].__name__, same, sys.exc_info()


def _current_exception_name():
    current = sys.exception()
    return None if current is None else type(current).__name__


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def sys_exception_seen_from_a_called_function(x):
    before = _current_exception_name()
    try:
        raise IndexError(2)
    except IndexError:
        during = _current_exception_name()
    return x + 1, before, during, _current_exception_name()


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def exc_info_after_a_reraise_was_caught(x):
    try:
        try:
            raise ValueError
        except ValueError:
            raise
    except ValueError:
        pass
    return x + 1, sys.exc_info()[0]


test_exception_chaining = parametrize(CASES)
test_exception_chaining_against_eager = parametrize_against_eager(EAGER_ONLY)
