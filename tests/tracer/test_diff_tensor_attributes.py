"""Attributes a tensor holds itself (`x.tag = v`, in its __dict__), compared with Dynamo.

Found running PyTorch's test_misc through both engines: `hasattr(x, "test")` on an input that
had `x.test` set outside answered False (a wrong answer), reading such an attribute, or calling
a function stored on a parameter, raised AttributeError in the trace, and assigning one broke.
"""
import torch

from differential import T, call, case, parametrize

CASES: list = []


def _tagged(*shape):
    t = T(*shape)
    t.test = None
    return t


@case(CASES, call(_tagged(3)), call(_tagged(3)), compiles="C.")
def hasattr_sees_an_attribute_set_outside(x):
    if hasattr(x, "test"):
        return x + 2
    return x + 1


@case(CASES, call(T(3)), call(_tagged(3)), compiles="CC")
def an_input_that_gains_the_attribute_recompiles(x):
    if hasattr(x, "test"):
        return x + 2
    return x + 1


SCALE = torch.nn.Parameter(torch.ones(3))
SCALE.add_one = lambda v: v + 1


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def a_function_stored_on_a_parameter_is_called(x):
    return SCALE.add_one(SCALE) + x


TARGET = torch.ones(2)


@case(CASES, call(T(2), True), call(T(2), False), compiles="CC", state=lambda: getattr(TARGET, "flag", "unset"))
def an_attribute_assigned_to_an_input_is_replayed(x, flag):
    TARGET.flag = flag
    return x + TARGET + int(TARGET.flag)


test_tensor_attributes = parametrize(CASES)
