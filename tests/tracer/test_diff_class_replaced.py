"""A class's methods, properties and attributes replaced between calls.

The trace reads them through an instance (from outside or made in the trace),
through `type(obj)`, through `super()`, as classmethods and staticmethods,
inherited from a base, and on an nn.Module's class.  Each case installs the
original before its first call and a replacement before its third; Dynamo
recompiles, and so must we, or the old graph returns the old method's answer.
"""
import torch

from differential import T, call, case, mutate_with, parametrize, parametrize_against_eager

CASES: list = []


class Base:
    k = 2.0

    def apply(self, t):
        return t * 2

    @property
    def double(self):
        return 2.0

    @classmethod
    def make(cls, t):
        return t * cls.k

    @staticmethod
    def shift(t):
        return t + 1


class Child(Base):
    def apply(self, t):
        return super().apply(t) + 1

    @property
    def double(self):
        return super().double + 1

    @classmethod
    def make(cls, t):
        return super().make(t) - 1


class Leaf(Base):
    pass


class Mid(Base):
    pass


class Low(Mid):
    def apply(self, t):
        return super().apply(t) - 1


class Point:
    def __init__(self, t):
        self.t = t * 2


def init_times_ten(self, t):
    self.t = t * 10


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def scale(self, t):
        return t * 2

    def forward(self, t):
        return self.scale(self.lin(t))


def times_ten(self, t):
    return t * 10


def ten(self):
    return 10.0


def cls_times_ten(cls, t):
    return t * 10


def plus_hundred(t):
    return t + 100


ORIGINAL = {name: Base.__dict__[name] for name in ("apply", "double", "make", "shift", "k")}
BASE, CHILD, LEAF, LOW, NET = Base(), Child(), Leaf(), Low(), Net()


def on_base(name, value, desc):
    def m(g):
        for n, v in ORIGINAL.items():
            setattr(Base, n, v)
        if value is not None:
            setattr(Base, name, value)
    return mutate_with(m, desc)


def replaced(name, value, desc):
    """Calls: original, original (a cache hit), replaced (a recompile)."""
    return (call(T(3), mutate=on_base(name, None, "Base restored")), call(T(3)),
            call(T(3), mutate=on_base(name, value, desc)))


APPLY = replaced("apply", times_ten, "Base.apply = times_ten")
DOUBLE = replaced("double", property(ten), "Base.double = property(ten)")
MAKE = replaced("make", classmethod(cls_times_ten), "Base.make = classmethod(cls_times_ten)")
SHIFT = replaced("shift", staticmethod(plus_hundred), "Base.shift = staticmethod(plus_hundred)")
K = replaced("k", 5.0, "Base.k = 5.0")


def net_scale(value, desc):
    def m(g):
        Net.scale = value
    return mutate_with(m, desc)


@case(CASES, *APPLY, compiles="C.C")
def method_through_type_of_an_instance(x):
    return type(BASE).apply(BASE, x)


@case(CASES, *APPLY, compiles="C.C")
def method_through_the_class(x):
    return Base.apply(BASE, x)


@case(CASES, *APPLY, compiles="C.C")
def method_through_super(x):
    return CHILD.apply(x)


@case(CASES, *DOUBLE, compiles="C.C")
def property_inherited(x):
    return x * LEAF.double


@case(CASES, *MAKE, compiles="C.C")
def classmethod_through_super(x):
    return CHILD.make(x)


@case(CASES, *SHIFT, compiles="C.C")
def staticmethod_inherited(x):
    return LEAF.shift(x)


@case(CASES, *SHIFT, compiles="C.C")
def staticmethod_through_type(x):
    return type(BASE).shift(x)


@case(CASES, *K, compiles="C.C")
def class_attribute_through_type(x):
    return x * type(BASE).k


@case(CASES, *K, compiles="C.C")
def class_attribute_read_by_a_classmethod_through_super(x):
    return CHILD.make(x)


test_class_replaced = parametrize(CASES)


# ---- where Dynamo 2.13 itself keeps running the old method: compared with eager only -----------
AGAINST_EAGER: list = []


@case(AGAINST_EAGER, *APPLY, compiles="C.C")
def method_through_a_global_instance(x):
    return BASE.apply(x)


@case(AGAINST_EAGER, *APPLY, compiles="C.C")
def method_through_an_instance_made_in_the_trace(x):
    return Base().apply(x)


@case(AGAINST_EAGER, *APPLY, compiles="C.C")
def method_inherited(x):
    return LEAF.apply(x)


@case(AGAINST_EAGER, *DOUBLE, compiles="C.C")
def property_through_super(x):
    return x * CHILD.double


@case(AGAINST_EAGER, *MAKE, compiles="C.C")
def classmethod_through_an_instance(x):
    return BASE.make(x)


@case(AGAINST_EAGER, *MAKE, compiles="C.C")
def classmethod_through_the_class(x):
    return Base.make(x)


@case(AGAINST_EAGER, call(T(3), mutate=net_scale(Net.__dict__["scale"], "Net.scale restored")), call(T(3)),
      call(T(3), mutate=net_scale(times_ten, "Net.scale = times_ten")), compiles="C.C")
def module_method_replaced(x):
    return NET(x)


def set_on(cls_name, name, value):
    return mutate_with(lambda g: setattr(g[cls_name], name, value), f"{cls_name}.{name} = {value!r}")


def restore(cls_name, name):
    return mutate_with(lambda g: vars(g[cls_name]).get(name) and delattr(g[cls_name], name),
                       f"del {cls_name}.{name}")


@case(AGAINST_EAGER, call(T(3), mutate=restore("Leaf", "apply")), call(T(3)),
      call(T(3), mutate=set_on("Leaf", "apply", times_ten)), compiles="C.C")
def override_added_to_the_subclass(x):
    return LEAF.apply(x)


@case(AGAINST_EAGER, call(T(3), mutate=restore("Mid", "apply")), call(T(3)),
      call(T(3), mutate=set_on("Mid", "apply", times_ten)), compiles="C.C")
def super_passes_a_base_that_gains_the_method(x):
    return LOW.apply(x)


@case(AGAINST_EAGER, call(T(3), mutate=set_on("Point", "__init__", Point.__dict__["__init__"])), call(T(3)),
      call(T(3), mutate=set_on("Point", "__init__", init_times_ten)), compiles="C.C")
def init_replaced_for_an_object_made_in_the_trace(x):
    return Point(x).t




class Plain:
    pass


PLAIN = Plain()


def plain_len(self):
    return 0


@case(AGAINST_EAGER, call(T(3), mutate=restore("Plain", "__len__")), call(T(3)),
      call(T(3), mutate=set_on("Plain", "__len__", plain_len)), compiles="C.C")
def truth_of_an_object_whose_class_gains_len(x):
    return x + 1 if PLAIN else x - 1


test_class_replaced_against_eager = parametrize_against_eager(AGAINST_EAGER)
