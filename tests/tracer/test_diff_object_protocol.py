"""Differential cases: Python's object protocol as libraries use it -- `__getattribute__` /
`__getattr__` / `__setattr__` written in Python, `super().__getattribute__` and
`object.__setattr__`, classes with a metaclass or a custom `__new__`, dict subclasses and a
dataclass on an OrderedDict base (transformers' ModelOutput) built inside the trace,
`obj.__class__`, function attributes, class dicts and modules as values."""
import abc
import collections
import collections.abc
import dataclasses
import functools
import math
import types

import torch
import torch.nn.functional as F
from differential import T, call, case, parametrize, set_attr, set_global

CASES: list = []


# ---- __getattribute__ / __getattr__ ---------------------------------------------------------------

class AliasedConfig:
    """Like transformers' PretrainedConfig: attribute_map aliases, resolved in __getattribute__."""

    attribute_map = {"hidden_size": "n_embd"}

    def __init__(self):
        self.n_embd = 4
        self.scale = 2.0

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)


CFG = AliasedConfig()


@case(CASES, call(T(4)), call(T(4)), call(T(4), mutate=set_attr("CFG.n_embd", 5)), compiles="C.C")
def getattribute_override_with_alias_map(x):
    return x * CFG.hidden_size + CFG.scale


class Fallback:
    def __init__(self):
        self.known = 3

    def __getattr__(self, name):
        return len(name)


FALLBACK = Fallback()


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def getattr_fallback_for_missing_attributes(x):
    return x * FALLBACK.known + FALLBACK.abcde


# ---- __setattr__ and objects made in the trace ---------------------------------------------------

class Renaming:
    def __setattr__(self, name, value):
        object.__setattr__(self, "_" + name, value)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def setattr_override_on_object_made_in_trace(x):
    r = Renaming()
    r.w = x * 2
    return r._w + 1


class Registry(type):
    """A metaclass that customises class creation only (instances are made by type.__call__)."""

    def __new__(mcs, name, bases, ns):
        ns.setdefault("tag", name.lower())
        return super().__new__(mcs, name, bases, ns)


class Tagged(metaclass=Registry):
    def __init__(self, k):
        self.k = k


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def object_whose_class_has_a_metaclass(x):
    t = Tagged(3)
    return x * t.k, t.tag


class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self): ...


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def object_of_an_abc_subclass(x):
    return x * Square(2).area()


class Interned:
    def __new__(cls, value):
        obj = super().__new__(cls)
        obj.doubled = value * 2
        return obj

    def __init__(self, value):
        self.value = value


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def object_with_custom_new(x):
    o = Interned(3)
    return x * o.doubled + o.value


class Returning:
    def __new__(cls, x):
        return x * 2  # not an instance: __init__ is skipped

    def __init__(self, x):
        raise RuntimeError("never runs")


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def new_returning_another_object_skips_init(x):
    return Returning(x) + 1


class AttrDict(dict):
    """A dict whose items are also attributes."""

    def __getattr__(self, name):
        return self[name]


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def dict_subclass_made_in_trace(x):
    d = AttrDict(a=x)
    d["b"] = x + 1
    return d.a + d.b, len(d), "a" in d, list(d.keys()), sorted(d)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def dict_subclass_returned_from_the_trace(x):
    d = AttrDict(a=x * 2)
    d.update(b=x)
    return d


class Output(collections.OrderedDict):
    """transformers' ModelOutput in small: a dataclass on an OrderedDict base whose fields
    that are not None are also its items; read by attribute, key, index and to_tuple()."""

    def __post_init__(self):
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if v is not None:
                self[f.name] = v

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def __setattr__(self, name, value):
        if name in self.keys() and value is not None:
            super().__setitem__(name, value)
        super().__setattr__(name, value)

    def __getitem__(self, k):
        if isinstance(k, str):
            return dict(self.items())[k]
        return self.to_tuple()[k]

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


@dataclasses.dataclass
class LMOutput(Output):
    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    hidden: tuple | None = None


@case(CASES, call(T(2, 3)), call(T(2, 3)), compiles="C.")
def model_output_read_every_way(x):
    out = LMOutput(logits=x * 2, hidden=(x, x + 1))
    return out.logits + out["logits"] + out[0], out.to_tuple()[1][1], out.loss is None, len(out)


@case(CASES, call(T(2, 3)), call(T(2, 3)), compiles="C.")
def model_output_returned_from_the_trace(x):
    out = LMOutput(loss=x.sum(), logits=x * 2)
    out.logits = out.logits + 1  # __setattr__ keeps the item in step
    return out


@case(CASES, call(T(2, 3)), call(T(2, 3)), compiles="C.")
def model_output_passed_to_a_helper(x):
    def head(o):
        return o.logits.softmax(-1), isinstance(o, collections.OrderedDict)
    return head(LMOutput(logits=x))


# ---- __class__, type(obj).__name__ ----------------------------------------------------------------

class Plain:
    pass


class Other:
    pass


PLAIN = Plain()
OTHER = Other()


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_global("PLAIN", OTHER)), compiles="C.C")
def class_of_an_outside_object_is_guarded(x):
    if PLAIN.__class__.__name__ == "Plain":
        return x + 1, type(PLAIN).__name__
    return x - 1, PLAIN.__class__.__qualname__


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def class_of_an_object_made_in_trace(x):
    s = Square(2)
    return x * s.__class__(3).area(), s.__class__.__name__, type(s).__qualname__


# ---- function attributes --------------------------------------------------------------------------

def helper(a, b=2, *rest, scale=3, **extra):
    return a * b * scale


helper.marker = "tagged"


@functools.wraps(helper)
def wrapped_helper(*args, **kwargs):
    return helper(*args, **kwargs) + 1


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def function_code_attributes(x):
    code = helper.__code__
    index = code.co_varnames.index("b") if "b" in code.co_varnames else -1
    return x * code.co_argcount + index, code.co_name, code.co_kwonlyargcount


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("helper.__defaults__", (5,))), compiles="C.C")
def function_defaults_are_guarded(x):
    return x * helper.__defaults__[0] + helper.__kwdefaults__["scale"]


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def function_dict_and_wrapped(x):
    inner = wrapped_helper.__wrapped__
    return inner(x), wrapped_helper.marker, helper.__dict__.get("marker"), hasattr(helper, "nothing"), \
        getattr(helper, "__dynamo_disable", False), wrapped_helper.__name__


# ---- class dicts, mappingproxy, modules as values ---------------------------------------------------

class WithClassAttrs:
    scale = 3.0

    def __init__(self):
        self.bias = 1.0


WCA = WithClassAttrs()


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("WithClassAttrs.scale", 4.0)), compiles="C.C")
def class_dict_read_through_mappingproxy(x):
    proxy = type(WCA).__dict__
    return x * proxy["scale"] + WithClassAttrs.__dict__.get("missing", 0.5), "scale" in proxy


def apply_from(module, x):
    return module.relu(x) if hasattr(module, "relu") else module.sqrt(2.0) * x


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def modules_as_values(x):
    namespaces = [F, math, torch]
    return apply_from(F, x), apply_from(math, x), isinstance(math, types.ModuleType), len(namespaces), \
        torch.nn.functional.__name__


class Layers(collections.abc.Sequence):
    """Like transformers' per-layer config view: a Sequence written with __len__/__getitem__."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return i + 1


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def sequence_mixin_iterated_by_zip(x):
    total = x
    for a, b in zip(["p", "q", "r"], Layers(3)):
        total = total + b
    return total, list(Layers(2)), hasattr(x, "jax")


test_object_protocol = parametrize(CASES)
