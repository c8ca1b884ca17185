"""Graph breaks on instructions Dynamo makes no resume function after.

Dynamo resumes after a call, a subscript, a comparison, an attribute or item store and a
conditional jump.  A break on any other instruction (an operator whose user `__add__` prints,
a property read that prints, unpacking or iterating an object whose `__iter__` prints, `in`
through a printing `__contains__`) compiles the graph up to the last checkpoint (an instruction
met with an empty stack) and runs the rest of the frame as it is; with no checkpoint before it
the frame runs eagerly.  Each case below has ops after the checkpoint that must stay out of
the graph, as Dynamo's.  A tensor slice bound is its `.item()`, at BUILD_SLICE, as Dynamo takes it.
"""
import torch

from differential import T, call
from differential_breaks import break_case, parametrize_breaks

CASES: list = []


class Loud:
    """An object whose protocol methods print, which no tracer can put in a graph."""

    def __init__(self, t):
        self.t = t

    def __add__(self, other):
        print("add")
        return self.t + other

    def __iter__(self):
        print("iter")
        return iter((self.t, self.t * 2))

    def __contains__(self, item):
        print("contains")
        return True

    @property
    def loud(self):
        print("loud")
        return self.t * 3


@break_case(CASES, call(T(3)), call(T(3)))
def break_at_a_binary_operator(x):
    y = x.sin().cos()
    z = Loud(y * 2) + 1
    return z * 5


@break_case(CASES, call(T(3)), call(T(3)))
def break_at_an_attribute_read(x):
    y = x.sin().cos()
    z = Loud(y + 1).loud
    return z - 1


@break_case(CASES, call(T(3)), call(T(3)))
def break_at_unpacking(x):
    y = x.sin().cos()
    a, b = Loud(y + 1)
    return a * b


@break_case(CASES, call(T(3)), call(T(3)))
def break_at_contains(x):
    y = x.sin().cos()
    found = 3 in Loud(y + 1)
    return y * 2 if found else y


@break_case(CASES, call(T(3)), call(T(3)))
def break_with_no_checkpoint_before_it(x):
    return Loud(x.sin()) + 1


@break_case(CASES, call(T(3)), call(T(3)))
def break_at_a_call_still_resumes_after_it(x):
    y = x.sin().cos()
    print("call")
    return y * 2


@break_case(CASES, call(T(6), torch.tensor(3)), call(T(6), torch.tensor(2)))
def a_slice_bound_from_a_tensor(x, n):
    """`x[:n]` takes `n.item()` at BUILD_SLICE, as Dynamo: the break stops at the checkpoint."""
    y = x.sin().cos()
    z = y[1:n]
    return z * 2


def _caught() -> Exception:
    try:
        try:
            raise KeyError("k")
        except KeyError:
            raise ValueError("v", 2)
    except ValueError as error:
        return error


@break_case(CASES, call(T(3), _caught()), breaks=False)
def reads_args_and_context_of_an_exception_from_outside(x, error):
    """C getset descriptors of an outside object, read for real as Dynamo reads them."""
    return x * error.args[1], type(error.__context__), error.__context__.args


test_breaks = parametrize_breaks(CASES)
