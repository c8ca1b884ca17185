"""Attribute lookup in Python's order, on plain objects and on nn.Modules.

`o.name` finds a data descriptor of the class first (a property), then the
instance `__dict__`, then a class attribute or a non-data descriptor (a
method); an nn.Module's `__getattr__` looks in `_parameters`, `_buffers` and
`_modules`, in that order, only after all of those fail.  Each case has two
candidates for one name and is called twice; the trace must take the one
Python takes.
"""
import torch

from differential import T, call, case, module_case, parametrize, set_attr

CASES: list = []


class WithMethodAndAttr(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0  # an instance attribute hides the method below

    def scale(self):
        return 3.0

    def forward(self, x):
        return x * self.scale


class ClassAttrAndSubmodule(torch.nn.Module):
    fc = None  # a class attribute: object.__getattribute__ finds it before nn.Module.__getattr__

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 3)  # goes into _modules

    def forward(self, x):
        return x + 1 if self.fc is None else self.fc(x)


class MethodAndSubmodule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.act = torch.nn.ReLU()  # goes into _modules; the method below is found first

    def act(self, t):
        return t * 3

    def forward(self, x):
        return self.act(x)


class NoneBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b", None)

    def forward(self, x):
        return x + 1 if self.b is None else x + self.b


class PropertyAndInstanceDict:
    def __init__(self):
        self.__dict__["twice"] = 5.0  # a property is a data descriptor: it wins

    @property
    def twice(self):
        return 2.0


class MethodAndInstanceDict:
    def __init__(self):
        self.apply = 4.0

    def apply(self):
        return 1.0


METHOD_AND_ATTR = WithMethodAndAttr()
CLASS_AND_SUB = ClassAttrAndSubmodule()
METHOD_AND_SUB = MethodAndSubmodule()
NONE_BUFFER = NoneBuffer()
PROP = PropertyAndInstanceDict()
METH = MethodAndInstanceDict()

module_case(CASES, "module_attribute_hides_a_method", METHOD_AND_ATTR, call(T(3)), call(T(3)), compiles="C.")
module_case(CASES, "module_class_attribute_before_a_submodule", CLASS_AND_SUB, call(T(3)), call(T(3)),
            compiles="C.")
module_case(CASES, "module_method_before_a_submodule", METHOD_AND_SUB, call(T(3)), call(T(3)), compiles="C.")

module_case(CASES, "module_none_buffer_then_a_tensor", NONE_BUFFER, call(T(3)), call(T(3)),
            call(T(3), mutate=set_attr("NONE_BUFFER.b", torch.full((3,), 5.0))), compiles="C.C")


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def property_before_the_instance_dict(x):
    return x * PROP.twice


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def instance_dict_before_a_method(x):
    return x * METH.apply


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def module_attribute_hides_a_method_from_outside(x):
    return x * METHOD_AND_ATTR.scale


test_attribute_precedence = parametrize(CASES)
