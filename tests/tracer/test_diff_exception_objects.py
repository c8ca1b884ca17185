"""Differential cases: exception classes with their own Python __init__ (traced on the new
object, its attributes read back in the handler) and a plain exception object still alive at a
graph break (rebuilt by the resume code)."""
from differential import T, call, case, parametrize
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
BREAK_CASES: list = []


class CodedError(Exception):
    def __init__(self, code, scale=1.0):
        self.code = code
        self.scale = scale


class WorseError(CodedError):
    pass


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def exception_with_own_init(x):
    try:
        raise CodedError(3, scale=2.0)
    except CodedError as e:
        return x * e.scale + e.code, e.args


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def exception_subclass_inherits_init(x):
    try:
        raise WorseError(5)
    except CodedError as e:
        return x + e.code, isinstance(e, WorseError), type(e).__name__


test_exception_objects = parametrize(CASES)


@break_case(BREAK_CASES, call(T(3)), call(T(3)), compiles="C.")
def exception_object_alive_at_break(x):
    e = ValueError("v", 2)
    print("break")
    return x + 1, e.args, str(e)


test_exception_objects_at_breaks = parametrize_breaks(BREAK_CASES)
