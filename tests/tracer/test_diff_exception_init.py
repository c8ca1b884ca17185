"""Exception classes with their own __init__: traced, and rebuilt after the trace and at a graph break.

BaseException.__new__ keeps the constructor's arguments as `args`; a user __init__ runs in the trace,
and its `super().__init__(...)` or `Exception.__init__(self, ...)` sets `args` anew, as CPython's
BaseException.__init__. Dynamo 2.13 traces an __init__ that never calls the base's (compared with it
here) and breaks on one that does ("Attempted to call a super() attribute that is not a function"):
those are compared with eager. An exception alive after the trace is rebuilt by BaseException.__new__
with the attributes its __init__ wrote, so that __init__ is not run a second time.
"""
import torch

import tracer
from differential import T, call, case, parametrize, parametrize_against_eager
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
AGAINST_EAGER: list = []  # Dynamo 2.13 breaks on BaseException.__init__ called from a user __init__
BREAKS: list = []
INITS: list = []


class CodedError(Exception):
    def __init__(self, msg, code):
        super().__init__(msg)
        self.code = code
        INITS.append(code)


class NamedBase(RuntimeError):
    def __init__(self, code):
        self.code = code
        Exception.__init__(self, f"code {code}", code)


class KwError(Exception):
    def __init__(self):
        super().__init__(code=1)  # TypeError: KwError() takes no keyword arguments


class Quiet(ValueError):
    """An __init__ that never calls the base's: args are the constructor's, from BaseException.__new__."""

    def __init__(self, n, scale=2):
        self.n = n * scale


def _seen(e):
    return type(e).__name__, e.args, str(e), repr(e)


def _rebuilt(e):
    return (*_seen(e), dict(vars(e)))


@case(AGAINST_EAGER, call(T(3)), call(T(3)), compiles="CC", fullgraph=True, state=lambda: list(INITS))
def super_init_sets_the_args(x):  # INITS grew: its length is guarded
    try:
        raise CodedError("bad", 3)
    except CodedError as e:
        return x + e.code, _seen(e)


@case(AGAINST_EAGER, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def exception_init_by_name_sets_the_args(x):
    try:
        raise NamedBase(4)
    except RuntimeError as e:
        return x * e.code, _seen(e), isinstance(e, NamedBase)


@case(AGAINST_EAGER, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def keyword_arguments_to_the_base_init_raise_type_error(x):
    try:
        KwError()
    except TypeError as e:
        return x, str(e)
    return x + 1, ""


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def an_init_that_never_calls_the_base(x):
    try:
        raise Quiet(3, scale=4)
    except ValueError as e:
        return x + e.n, e.args, str(e)


test_exception_init = parametrize(CASES)
test_exception_init_against_eager = parametrize_against_eager(AGAINST_EAGER)


@break_case(BREAKS, call(T(3)), call(T(3)), compiles="C.")
def an_exception_with_its_own_init_alive_at_a_break(x):
    e = Quiet(2)
    y = x + 1
    print("break")
    return y + e.n, e.args, str(e)


test_exception_init_breaks = parametrize_breaks(BREAKS)


def made_and_returned(x):
    return x + 1, CodedError("m", 5), NamedBase(6)


def test_an_exception_returned_is_rebuilt_without_running_its_init_again():
    INITS.clear()
    out, coded, named = tracer.compile(made_and_returned, fullgraph=True)(T(3))
    assert INITS == [5]  # the trace's one __init__, its append replayed once
    assert _rebuilt(coded) == ("CodedError", ("m",), "m", "CodedError('m')", {"code": 5})
    assert _rebuilt(named) == ("NamedBase", ("code 6", 6), "('code 6', 6)", "NamedBase('code 6', 6)", {"code": 6})


def made_before_a_break(x):
    e = CodedError("kept", 7)
    print("break")
    return x + e.code, e


def test_an_exception_with_its_own_init_alive_at_a_break_keeps_its_args_and_attributes():
    INITS.clear()
    x = T(3)
    out, e = tracer.compile(made_before_a_break)(x)
    torch.testing.assert_close(out, x + 7)
    assert INITS == [7]
    assert _rebuilt(e) == ("CodedError", ("kept",), "kept", "CodedError('kept')", {"code": 7})
