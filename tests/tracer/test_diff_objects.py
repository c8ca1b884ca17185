"""Differential cases: user-defined classes -- methods, properties, classmethod /
staticmethod, dataclasses and plain objects built inside the trace, global config
objects whose attributes change between calls."""
import collections
import dataclasses

import torch

from differential import T, call, case, mutate_with, parametrize, set_attr

CASES: list = []


class Scaler:
    offset = 0.25  # class attribute

    def __init__(self, k):
        self.k = k
        self.note = "unused"

    def apply(self, t):
        return t * self.k + self.offset

    def apply_twice(self, t):
        return self.apply(self.apply(t))

    @property
    def double_k(self):
        return self.k * 2

    @staticmethod
    def clip(t, lim):
        return t.clamp(-lim, lim)

    @classmethod
    def make(cls, k):
        return cls(k + 1)

    @classmethod
    def describe(cls):
        return cls.__name__, cls.offset


class ShiftScaler(Scaler):
    def apply(self, t):
        return super().apply(t) - 1


SC = Scaler(3)
SHIFT = ShiftScaler(2)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def method_call_on_global_object(x):
    return SC.apply(x), SC.apply_twice(x)


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("SC.k", 4)), compiles="C.C")
def property_read(x):
    return x * SC.double_k


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def staticmethod_and_classmethod(x):
    s = Scaler.make(1)  # classmethod constructing an instance inside the trace
    return Scaler.clip(x * 5, 1.0), SC.clip(x, 0.5), s.apply(x), Scaler.describe(), s.k


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def subclass_with_super(x):
    return SHIFT.apply(x), SHIFT.apply_twice(x), isinstance(SHIFT, Scaler)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def object_built_in_trace(x):
    s = Scaler(x.sum())
    s.extra = 2
    return s.apply(x) * s.extra


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("SC.offset", 5.0)), call(T(3)),
      compiles="C.C.")
def class_attribute_shadowed_by_instance_attribute(x):
    # SC.offset first resolves to Scaler.offset; then an instance attribute shadows it
    return SC.apply(x)


@case(CASES, call(T(3)), call(T(3)),
      call(T(3), mutate=mutate_with(lambda g: setattr(g["Scaler"], "offset", 1.0), "Scaler.offset = 1.0")),
      compiles="C.C")
def class_attribute_changed(x):
    return SC.apply(x)


@case(CASES, call(T(3)), call(T(3), mutate=set_attr("SC.note", "changed")),
      call(T(3), mutate=set_attr("SC.unrelated", 1)), compiles="C..")
def unread_attribute_changed_no_recompile(x):
    return SC.apply(x)


# ---- dataclasses / namedtuples --------------------------------------------------------


@dataclasses.dataclass
class Stats:
    mean: torch.Tensor
    std: torch.Tensor
    n: int = 0

    def normalize(self, t):
        return (t - self.mean) / (self.std + 1)


@case(CASES, call(T(4, 3)), call(T(4, 3)), compiles="C.")
def dataclass_created_and_returned(x):
    s = Stats(x.mean(0), x.std(0), x.shape[0])
    return s


@case(CASES, call(T(4, 3)), call(T(4, 3)), compiles="C.")
def dataclass_method_and_replace_fields(x):
    s = Stats(x.mean(0), x.std(0))
    s.n = 7
    return s.normalize(x), s.n, dataclasses.is_dataclass(s)


Pair = collections.namedtuple("Pair", ["lo", "hi"])


@case(CASES, call(T(5)), call(T(5)), compiles="C.")
def namedtuple_created_and_returned(x):
    p = Pair(x.min(), hi=x.max())
    return p, p.hi - p.lo, p[0]


# ---- global config objects ------------------------------------------------------------


class Config:
    def __init__(self):
        self.hidden = 4
        self.scale = 2.0
        self.use_bias = True
        self.name = "cfg"
        self.unused = [1, 2, 3]


CFG = Config()


@case(CASES, call(T(2, 4)), call(T(2, 4)), call(T(2, 4), mutate=set_attr("CFG.scale", 3.0)),
      call(T(2, 4)), call(T(2, 4), mutate=set_attr("CFG.use_bias", False)), compiles="C.C.C")
def global_config_read_then_mutated(x):
    y = x.reshape(-1, CFG.hidden) * CFG.scale
    if CFG.use_bias:
        y = y + 1
    return y


@case(CASES, call(T(2, 4)), call(T(2, 4), mutate=set_attr("CFG.name", "other")),
      call(T(2, 4), mutate=mutate_with(lambda g: g["CFG"].unused.append(4), "CFG.unused.append(4)")),
      compiles="C..")
def config_unread_fields_change(x):
    return x * CFG.scale


@case(CASES, call(T(3), Scaler(2)), call(T(3), Scaler(2)), call(T(3), Scaler(5)), compiles="C.C")
def object_argument_attribute_value(x, s):
    return s.apply(x)


class Doubler:
    def __init__(self, k):
        self.k = k

    def __call__(self, t):
        return t * self.k * 2


DOUBLER = Doubler(3)


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("DOUBLER.k", 1)), compiles="C.C")
def callable_object(x):
    return DOUBLER(x) + Doubler(0.5)(x)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def getattr_hasattr_on_object(x):
    a = getattr(SC, "k")
    b = getattr(SC, "missing", 10)
    return x * a + b, hasattr(SC, "k"), hasattr(SC, "missing")


test_objects = parametrize(CASES)
