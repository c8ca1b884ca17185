"""Modules, user objects and classes, and the NULL marker."""
from __future__ import annotations

import enum
import _thread
import functools
import inspect
import operator
import random
import types
from dataclasses import dataclass, field

import torch

from ..exc import ObservedException, Unsupported, observed
from ..source import AttrSource, GetItemSource, Source, TypeSource
from ..trace_rules import functorch_transform, is_requested_break
from .autograd_function import AutogradFunctionApplyVariable, is_autograd_apply
from .base import VariableTracker, new_mutation_id
from .constant import ConstantVariable
from .functional import handler_for
from .functions import CONSTANT_CLASSES, TorchFunctionVariable
from .lists import ListVariable, NamedTupleVariable
from .partial import FunctoolsPartialVariable
from .sym import construct_size
from .tensor import TensorVariable
from .container_bases import base_items, container_base
from .object_protocol import (InstanceDictVariable, SlotFunctionVariable, builtin_base, construct_user_object,
                              is_generic_slot, python_slot)
from .user_functions import (BaseUserFunctionVariable, LruCachedFunctionVariable, UserMethodVariable, guarded_function)

# instance attributes read lazily (as Dynamo): `return out, self.calls` guards nothing on calls
_LAZY_TYPES = (int, float, bool, str)


@dataclass(frozen=True, eq=False)
class NullVariable(VariableTracker):
    """The NULL that PUSH_NULL / LOAD_GLOBAL put below a callable in 3.11."""

    def short_repr(self) -> str:
        return "NULL"


def _read_static(value, name: str):
    """An attribute without running descriptors or __getattr__ (which could have effects)."""
    try:
        return inspect.getattr_static(value, name)
    except AttributeError as error:
        raise Unsupported(f"{type(value).__name__} object has no attribute {name!r}") from error


def guard_mro_lacks(tx, cls: type, cls_source: Source | None, *names: str) -> None:
    """The user classes in cls's MRO (reached from cls_source) still define none of `names`; a
    built-in's dict is fixed.  A name one of them defines now is left out (its lookup guards it)."""
    user_classes = [(i, klass) for i, klass in enumerate(cls.__mro__) if klass.__module__ != "builtins"]
    names = [name for name in names if not any(name in vars(klass) for _, klass in user_classes)]
    if cls_source is None or not names:
        return
    for index, klass in user_classes:
        dict_source = AttrSource(GetItemSource(AttrSource(cls_source, "__mro__"), index), "__dict__")
        for name in names:
            tx.output.install_guard(dict_source, "DICT_CONTAINS", (name, False))


def mro_dict_source(tx, cls: type, cls_source: Source, name: str) -> Source:
    """A plain class attribute of an instance as Dynamo names it: the entry in the dict of the class of
    the MRO that defines it (`type(G['o']).__mro__[1].__dict__['factor']`), the classes before that one
    guarded not to define it (one that gains it answers instead)."""
    owner = next((i for i, klass in enumerate(cls.__mro__) if name in vars(klass)), None)
    if owner is None:  # from the metaclass
        return AttrSource(cls_source, name)

    def dict_of(index: int) -> Source:
        if index == 0:
            return AttrSource(cls_source, "__dict__")
        return AttrSource(GetItemSource(AttrSource(cls_source, "__mro__"), index), "__dict__")
    for index in range(owner):
        tx.output.install_guard(dict_of(index), "DICT_CONTAINS", (name, False))
    return GetItemSource(dict_of(owner), name)


def class_member(tx, attr, source: Source | None, owner: VariableTracker, cls_var: VariableTracker, *,
                 raw: bool):
    """What reading `attr`, a function, staticmethod, classmethod or property found in a class,
    gives `owner`, an instance of `cls_var`'s class (None: not one of those kinds).

    `source` names either the raw descriptor (`raw`: `C.__dict__['f']`) or what reading it through
    the class gives (`type(o).f`, which for a staticmethod is already the function).  The function
    that runs is guarded on its code: replacing it recompiles.
    """
    def part(name):
        return AttrSource(source, name) if source is not None else None
    if isinstance(attr, types.FunctionType):
        return UserMethodVariable(guarded_function(tx, attr, source), owner)
    if isinstance(attr, staticmethod) and isinstance(attr.__func__, types.FunctionType):
        return guarded_function(tx, attr.__func__, part("__func__") if raw else source)
    if isinstance(attr, classmethod) and isinstance(attr.__func__, types.FunctionType):
        return UserMethodVariable(guarded_function(tx, attr.__func__, part("__func__")), cls_var)
    if isinstance(attr, property) and isinstance(attr.fget, types.FunctionType):
        return guarded_function(tx, attr.fget, part("fget")).call_function(tx, [owner], {})
    return None


def _random_receiver(value) -> bool:
    """Whether a callable is a method of a random.Random (random.uniform, or its __call__ wrapper)."""
    for _ in range(3):
        value = getattr(value, "__self__", None)
        if isinstance(value, random.Random):
            return True
    return False


# Receivers whose bound C methods are pure functions of their arguments: nothing can change them.
_IMMUTABLE_RECEIVERS = (frozenset, str, bytes)
# alternative constructors of immutable builtins: pure functions of constants (int.from_bytes, float.fromhex)
_PURE_CLASSMETHODS = ((int, "from_bytes"), (float, "fromhex"), (bytes, "fromhex"), (str, "maketrans"),
                      (bytes, "maketrans"))


def _pure_classmethod(fn) -> bool:
    """Compared by identity and name: hashing a bound method would hash its receiver (a user's __hash__)."""
    owner = getattr(fn, "__self__", None)
    return any(owner is cls and getattr(fn, "__name__", None) == name for cls, name in _PURE_CLASSMETHODS)


@dataclass(frozen=True, eq=False)
class SkippedFunctionVariable(VariableTracker):
    """A callable the tracer cannot look into (a C function, I/O, time): calling it breaks the graph."""

    value: object = None

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self):
        return self.value

    def call_function(self, tx, args, kwargs):
        if is_requested_break(self.value):
            message = [a.as_python_constant() for a in [*args, *kwargs.values()] if a.is_python_constant()]
            raise Unsupported("torch._dynamo.graph_break(): a graph break the code asks for"
                              + (f" ({message[0]})" if message and message[0] else ""))
        transform = functorch_transform(self.value)
        if transform is not None:
            raise Unsupported(f"torch.func.{transform}(): a functorch transform Dynamo does not trace either (it "
                              "calls torch._dynamo.disallow_in_graph): it runs as it is")
        if (type(getattr(self.value, "__self__", None)) in _IMMUTABLE_RECEIVERS or _pure_classmethod(self.value)) \
                and all(a.is_python_constant() for a in [*args, *kwargs.values()]):
            # a method of a frozenset or string (namedtuple's `_iskeyword`): a pure function of
            # constants, answered now
            result = self.value(*[a.as_python_constant() for a in args],
                                **{k: v.as_python_constant() for k, v in kwargs.items()})
            return VariableTracker.build(tx, result)
        if self.value is functools.partial.__call__ and args and isinstance(args[0].realize(), FunctoolsPartialVariable):
            return args[0].call_function(tx, args[1:], kwargs)  # type(p).__dict__['__call__'](p, x)
        from .exceptions import ExceptionVariable, init_exception, is_base_exception_init  # cycle: -> .misc
        if is_base_exception_init(self.value) and args and isinstance(args[0].realize(), ExceptionVariable):
            return init_exception(tx, args[0], args[1:], kwargs)  # Exception.__init__(self, msg)
        if _random_receiver(self.value):
            raise Unsupported("Python's random module (random.random(), uniform(), randint(), ...): its stream "
                              "is not modelled, the call runs eagerly (Dynamo 2.13 skips it too)")
        name = getattr(self.value, "__qualname__", None) or repr(self.value)
        module = getattr(self.value, "__module__", None)
        raise Unsupported(f"call to {module + '.' if module else ''}{name}, which the tracer cannot look into")

    def short_repr(self) -> str:
        return f"skipped {getattr(self.value, '__qualname__', self.value)}"


# Classes whose methods the trackers model: `Cls.method(obj, ...)` is `obj.method(...)`.
METHOD_OWNERS = (torch._C.TensorBase, list, dict, set, frozenset, tuple, str, int, float)


def is_modelled_method_descriptor(value) -> bool:
    """`torch.Tensor.add_`, `dict.get`, `str.join`: a C method read from a class we model."""
    return isinstance(value, (types.MethodDescriptorType, types.WrapperDescriptorType)) \
        and getattr(value, "__objclass__", None) in METHOD_OWNERS


@dataclass(frozen=True, eq=False)
class MethodDescriptorVariable(VariableTracker):
    """An unbound C method (`torch.Tensor.add_`, `getattr(torch.Tensor, name)`): calling it with an
    instance first is that instance's method call, as Dynamo records it."""

    value: object = None

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self):
        return self.value

    def call_function(self, tx, args, kwargs):
        owner, name = self.value.__objclass__, self.value.__name__
        if not args:
            raise Unsupported(f"TypeError: unbound method {owner.__name__}.{name}() needs an argument")
        obj = args[0].realize()
        try:
            is_instance = issubclass(obj.python_type(), owner)
        except Unsupported:
            is_instance = False
        if not is_instance:
            raise Unsupported(f"{owner.__name__}.{name}() called on {obj.describe()}")
        return obj.call_method(tx, name, list(args[1:]), kwargs)

    def short_repr(self) -> str:
        return f"method {self.value.__objclass__.__name__}.{self.value.__name__}"


@dataclass(frozen=True, eq=False)
class PythonModuleVariable(VariableTracker):
    """A module such as `torch`, `math` or `torch.nn.functional`."""

    value: types.ModuleType = None

    def python_type(self) -> type:
        return types.ModuleType

    def as_python_constant(self):
        return self.value

    def var_getattr(self, tx, name):
        try:
            attr = getattr(self.value, name)
        except AttributeError as error:
            if self.source is not None:  # hasattr(mod, name) / getattr(mod, name, d): set later, it recompiles
                tx.output.install_guard(AttrSource(self.source, "__dict__"), "DICT_CONTAINS", (name, False))
            raise Unsupported(f"module {self.value.__name__} has no attribute {name!r}") from error
        source = AttrSource(self.source, name) if self.source is not None else None
        return VariableTracker.build(tx, attr, source)

    def short_repr(self) -> str:
        return f"module {self.value.__name__}"


@dataclass(frozen=True, eq=False)
class UserDefinedClassVariable(VariableTracker):
    """A class object (torch.Tensor, a user's class): a constant for isinstance and friends."""

    value: type = None

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self):
        return self.value

    def identity(self) -> int:
        return id(self.value)

    def is_new(self) -> bool:
        return False

    def var_getattr(self, tx, name):
        stored = recorded_class_attr(tx, self.value, name)
        if stored is not None:
            return stored
        try:
            attr = _read_static(self.value, name)
        except Unsupported:  # hasattr(Cls, name) / getattr(Cls, name, d): a class that gains it recompiles
            guard_mro_lacks(tx, self.value, self.source, name)
            metaclass = type(self.value)
            if metaclass is not type and self.source is not None:
                guard_mro_lacks(tx, metaclass, TypeSource(self.source), name, "__getattr__")
            raise
        source = AttrSource(self.source, name) if self.source is not None else None
        if isinstance(attr, staticmethod):  # Cls.f is the function itself: guarded, a swap recompiles
            return VariableTracker.build(tx, attr.__func__, source)
        if is_autograd_apply(self.value, attr):  # MyFunction.apply: its forward and backward traced
            return AutogradFunctionApplyVariable(fn_cls=self.value, cls_var=self, source=source)
        if isinstance(attr, classmethod):  # Cls.f is a new bound method per read: its __func__ is guarded
            fn_source = AttrSource(source, "__func__") if source is not None else None
            return UserMethodVariable(guarded_function(tx, attr.__func__, fn_source), self)
        if isinstance(attr, property):
            raise Unsupported(f"property {self.value.__name__}.{name} read from the class")
        return VariableTracker.build(tx, getattr(self.value, name), source)

    def call_function(self, tx, args, kwargs):
        from .builtin import BuiltinVariable  # cycle: .builtin -> .misc
        if self.value in BuiltinVariable.CONSTRUCTORS or self.value in (type, super, object, types.MappingProxyType):
            return BuiltinVariable(self.value).call_function(tx, args, kwargs)
        if handler_for(self.value) is not None:  # map, filter, itertools.chain, collections.defaultdict, ...
            return BuiltinVariable(self.value).call_function(tx, args, kwargs)
        if _plain_enum_lookup(self.value, args, kwargs):
            return _fold_construction(tx, self.value, args, kwargs)  # Color(2): the member of that value
        if self.value in FOLDED_CLASSES and all(a.is_python_constant() for a in [*args, *kwargs.values()]):
            return _fold_construction(tx, self.value, args, kwargs)
        if issubclass(self.value, tuple) and hasattr(self.value, "_fields"):
            return _construct_namedtuple(tx, self.value, args, kwargs)
        if self.value is torch.Size:
            return construct_size(tx, args, kwargs)
        if self.value is torch.Tensor:  # torch.Tensor(x), type(x)(x): the legacy constructor, a graph node (Dynamo's)
            return TorchFunctionVariable(torch.Tensor).call_function(tx, args, kwargs)
        if self.value in torch._tensor_classes:
            return _construct_legacy_tensor(tx, self.value, args, kwargs)
        if issubclass(self.value, torch.nn.Parameter):
            raise Unsupported(f"{self.value.__qualname__}() constructed in the trace: a new leaf tensor autograd "
                              "tracks, outside the graph (Dynamo breaks on the nn.Parameter constructor too)")
        from .ctx_manager import construct_context  # cycle: .ctx_manager -> .misc
        context = construct_context(tx, self.value, args, kwargs)  # no_grad(), autocast(...), ...
        if context is not None:
            return context
        if self.value in CONSTANT_CLASSES:  # torch.finfo(dtype): a constant of numbers
            return TorchFunctionVariable(self.value).call_function(tx, args, kwargs)
        return construct_user_object(tx, self, args, kwargs)

    def store_attr(self, tx, name, value):
        """`Cls.count = 3`: recorded, read back by later lookups, replayed on the class after the graph."""
        cls = self.value
        if type(cls).__setattr__ is not type.__setattr__:
            raise Unsupported(f"the metaclass of {cls.__qualname__} customises __setattr__")
        if name.startswith("__") and name.endswith("__"):
            raise Unsupported(f"assigning the special attribute {cls.__qualname__}.{name}")
        tx.output.side_effects.store_attr(self, self.identity(), name, value)

    def short_repr(self) -> str:
        return f"class {self.value.__qualname__}"


def _checked_truth(name: str, value) -> bool:
    """What CPython makes of a __bool__ or __len__ result: __bool__ must give a bool, __len__ an
    index >= 0; anything else is the TypeError (or ValueError) the program would meet."""
    if name == "__bool__":
        if type(value) is not bool:
            error = TypeError(f"__bool__ should return bool, returned {type(value).__name__}")
            raise observed(error, f"TypeError: {error} at trace time")
        return value
    try:
        length = operator.index(value)
    except TypeError as error:
        raise observed(error, f"TypeError: {error} (a __len__ result) at trace time") from error
    if length < 0:
        raise observed(ValueError("__len__() should return >= 0"), "ValueError: __len__() returned a negative number")
    return length > 0


# Classes whose instances are constants: made at trace time from constant arguments.
FOLDED_CLASSES = frozenset({torch.device, complex})


def _construct_legacy_tensor(tx, cls, args, kwargs):
    """`torch.LongTensor(...)`: a graph node. A list of tensors is stacked first, as Dynamo does:
    the legacy constructor cannot read data out of fake tensors."""
    if len(args) == 1 and not kwargs and isinstance(args[0], ListVariable) and len(args[0].items) > 1:
        items = [item.realize() for item in args[0].items]
        if all(isinstance(item, TensorVariable) for item in items):
            args = [tx.output.call(tx, "call_function", torch.stack, (ListVariable(tuple(items)),), {})]
    return tx.output.call(tx, "call_function", cls, tuple(args), kwargs)


def _plain_enum_lookup(cls, args, kwargs) -> bool:
    """`Color(2)` of a constant: the member lookup of EnumMeta, with no Python of the class's own to run
    (a `_missing_` hook or a metaclass __call__)."""
    return isinstance(cls, enum.EnumMeta) and type(cls).__call__ is enum.EnumMeta.__call__ and len(args) == 1 \
        and not kwargs and args[0].is_python_constant() \
        and getattr(cls._missing_, "__func__", None) is enum.Enum._missing_.__func__


def _fold_construction(tx, cls, args, kwargs):
    try:
        value = cls(*[a.as_python_constant() for a in args], **{k: v.as_python_constant() for k, v in kwargs.items()})
    except Exception as error:
        raise observed(error, f"{cls.__qualname__}() raised {type(error).__name__}: {error} at trace time") from error
    return ConstantVariable(value)


def recorded_class_attr(tx, cls: type, name: str):
    """A class attribute the trace assigned (on cls or a base), unless a nearer class defines it."""
    effects = tx.output.side_effects
    for klass in cls.__mro__:
        if effects.has_attr(id(klass), name):
            return effects.load_attr(id(klass), name)
        if name in klass.__dict__:
            return None
    return None


def _construct_namedtuple(tx, cls, args, kwargs):
    fields = cls._fields
    values = dict(zip(fields, args))
    if len(args) > len(fields):
        raise Unsupported(f"TypeError: {cls.__name__}() takes {len(fields)} arguments")
    for name, value in kwargs.items():
        if name not in fields or name in values:
            raise Unsupported(f"TypeError: bad keyword {name!r} for {cls.__name__}()")
        values[name] = value
    for name, default in cls._field_defaults.items():
        values.setdefault(name, ConstantVariable(default))
    missing = [name for name in fields if name not in values]
    if missing:
        raise Unsupported(f"TypeError: {cls.__name__}() missing {missing}")
    return NamedTupleVariable(tuple(values[name] for name in fields), tuple_cls=cls)


@dataclass(frozen=True, eq=False)
class UserDefinedObjectVariable(VariableTracker):
    """An instance of a user's class, tracked attribute by attribute.

    `value` is the real object when it came from outside; an object the trace
    created has only `cls`, and its attributes live in the side-effects record.
    """

    value: object = None
    cls: type = None
    new_id: int = field(default_factory=new_mutation_id)
    cls_source: Source | None = None  # where a new object's class came from: its attributes are guarded there

    def python_type(self) -> type:
        return self.cls if self.cls is not None else type(self.value)

    def identity(self) -> int:
        return ("new", self.new_id) if self.cls is not None else id(self.value)

    def is_new(self) -> bool:
        return self.cls is not None

    def has_own_hash(self) -> bool:
        """Its class (or a base written in Python) defines `__hash__` in Python."""
        return isinstance(inspect.getattr_static(self.python_type(), "__hash__", None), types.FunctionType)

    def _guard_not_in_instance_dict(self, tx, name):
        if self.source is not None and hasattr(self.value, "__dict__"):  # a __slots__ object has none
            tx.output.install_guard(AttrSource(self.source, "__dict__"), "DICT_CONTAINS", (name, False))

    def var_getattr(self, tx, name):
        """`obj.name` as type(obj).__getattribute__ answers it: a Python override is traced inline
        (its `super().__getattribute__` comes back to generic_getattr), with __getattr__ as the
        fallback when it raises AttributeError."""
        getattribute = python_slot(self.python_type(), "__getattribute__")
        if getattribute is None:
            return self.generic_getattr(tx, name)
        try:
            return self._call_special(tx, getattribute, "__getattribute__", [ConstantVariable(name)])
        except ObservedException as error:
            raised = getattr(error.exception, "exc_type", type(error.exception))  # an ExceptionVariable's, or real
            if not issubclass(raised, AttributeError) or python_slot(self.python_type(), "__getattr__") is None:
                raise
        return self._call_special(tx, python_slot(self.python_type(), "__getattr__"), "__getattr__",
                                  [ConstantVariable(name)])

    def _call_special(self, tx, fn, name: str, args: list):
        """A special method the class defines in Python, called on self; guarded where it was read."""
        cls_source = TypeSource(self.source) if self.source is not None else self.cls_source
        fn_var = VariableTracker.build(tx, fn, AttrSource(cls_source, name) if cls_source is not None else None)
        return fn_var.call_function(tx, [self, *args], {})

    def generic_getattr(self, tx, name):
        """object.__getattribute__: attributes the trace stored, data descriptors, the instance
        dict, then the class; __getattr__ (in Python) when all miss."""
        stored = tx.output.side_effects.load_attr(self.identity(), name)
        if stored is not None:
            return stored
        cls = self.python_type()
        if name == "__dict__":
            return self._instance_dict(tx)
        if name == "__class__":
            return self._class_var(tx)
        instance_dict = getattr(self.value, "__dict__", {}) if not self.is_new() else {}
        source = AttrSource(self.source, name) if self.source is not None else None
        attr = _instance_lookup(cls, name)
        is_data_descriptor = hasattr(type(attr), "__set__") and not isinstance(attr, (types.FunctionType,))
        if name in instance_dict and not is_data_descriptor:
            value = instance_dict[name]  # a number or str: guarded on first use, so one only returned is not;
            # a tensor: a graph input where an op first uses it, as Dynamo's lazy attribute (Wav2Vec2's resume
            # function reads `outputs.last_hidden_state`, then its projector's parameters, then uses it)
            lazy = source is not None and (type(value) in _LAZY_TYPES or isinstance(value, torch.Tensor))
            return VariableTracker.build(tx, value, source, lazy=lazy)
        recorded = recorded_class_attr(tx, cls, name)
        if recorded is not None:
            self._guard_not_in_instance_dict(tx, name)
            if isinstance(recorded.realize(), BaseUserFunctionVariable):
                return UserMethodVariable(recorded, self)
            return recorded
        if attr is _MISSING:
            getattr_fn = python_slot(cls, "__getattr__")
            self._guard_not_in_instance_dict(tx, name)  # getattr(o, name, default) and hasattr rely on it
            self.guard_class_lacks(tx, name)  # and on the classes: one that gains `name` answers instead
            if getattr_fn is not None:
                return self._call_special(tx, getattr_fn, "__getattr__", [ConstantVariable(name)])
            self.guard_class_lacks(tx, "__getattr__")
            raise observed(AttributeError(f"{cls.__name__!r} object has no attribute {name!r}"),
                           f"{cls.__qualname__} object has no attribute {name!r}")
        if not is_data_descriptor:  # a data descriptor wins over the instance dict: it does not matter
            self._guard_not_in_instance_dict(tx, name)
        cls_var = self.class_variable()
        if isinstance(attr, (types.FunctionType, staticmethod, classmethod, property)):
            # `type(o).name` is what Python's lookup finds through the MRO: guarded there, replacing
            # the method, property or classmethod on the class or a base recompiles
            source = AttrSource(cls_var.source, name) if cls_var.source is not None else None
            member = class_member(tx, attr, source, self, cls_var, raw=False)
            if member is not None:
                return member
        if is_generic_slot(attr):  # dict.keys, OrderedDict.__setitem__, object.__setattr__, ...
            return SlotFunctionVariable(attr, self)
        if isinstance(attr, types.MemberDescriptorType) and self.is_new():  # a __slots__ member never stored
            raise observed(AttributeError(f"{cls.__name__!r} object has no attribute {name!r}"),
                           f"{cls.__qualname__} object has no attribute {name!r}")
        if isinstance(attr, types.MemberDescriptorType) or \
                (isinstance(attr, types.GetSetDescriptorType) and self.source is not None):
            # a __slots__ member of an object from outside, or a C getset one (an exception's args,
            # __context__, __traceback__): read for real, as Dynamo reads C descriptors
            try:
                return VariableTracker.build(tx, attr.__get__(self.value, cls), source)
            except AttributeError as error:
                raise observed(error, f"{cls.__qualname__} object has no attribute {name!r}") from error
        if isinstance(attr, functools._lru_cache_wrapper) and isinstance(attr.__wrapped__, types.FunctionType):
            # an lru_cache'd method: its body traced, as a cached function called directly (the cache
            # is not consulted)
            attr_source = cls_var.source and mro_dict_source(tx, cls, cls_var.source, name)
            wrapper = VariableTracker.build(tx, attr, attr_source) if attr_source is not None else \
                LruCachedFunctionVariable(attr.__wrapped__, wrapper=attr)
            return UserMethodVariable(wrapper, self)
        if isinstance(attr, (types.MethodDescriptorType, types.WrapperDescriptorType)) and self.source is not None:
            # a C method of a C class (a lock's acquire): reading it is fine, calling it breaks there.
            # A new bound object per read: not guarded by identity, remade from its source at a break
            return SkippedFunctionVariable(attr.__get__(self.value, cls), source=source)
        if hasattr(type(attr), "__get__"):
            raise Unsupported(f"descriptor {cls.__qualname__}.{name} ({type(attr).__name__})")
        if self.is_new() and cls_var.source is not None:  # as Dynamo: through the class (`G['Mid'].scale`)
            return VariableTracker.build(tx, attr, AttrSource(cls_var.source, name))
        return VariableTracker.build(tx, attr, cls_var.source and mro_dict_source(tx, cls, cls_var.source, name))

    def _class_var(self, tx):
        """obj.__class__: the class, guarded (an outside object's by its own source)."""
        if self.source is not None:
            return VariableTracker.build(tx, self.python_type(), AttrSource(self.source, "__class__"))
        return UserDefinedClassVariable(self.python_type(), source=self.cls_source)
    def class_variable(self) -> UserDefinedClassVariable:
        """type(self), with the Source its attributes are guarded through."""
        source = TypeSource(self.source) if self.source is not None else self.cls_source
        return UserDefinedClassVariable(self.python_type(), source=source)

    def call_method(self, tx, name, args, kwargs):
        return self.var_getattr(tx, name).call_function(tx, args, kwargs)

    def call_function(self, tx, args, kwargs):
        return self.var_getattr(tx, "__call__").call_function(tx, args, kwargs)

    def truth(self, tx) -> bool:
        """bool(obj): __bool__, else __len__, else True -- the first two traced when written in Python
        (a dict subclass's C __len__ counts its items)."""
        cls = self.python_type()
        for name in ("__bool__", "__len__"):
            attr = inspect.getattr_static(cls, name, None)
            if attr is None:
                continue
            if not isinstance(attr, types.FunctionType) and not is_generic_slot(attr):
                raise Unsupported(f"truth value of {cls.__qualname__} ({name} is not a Python function)")
            result = self.call_method(tx, name, [], {}).realize()
            if not result.is_python_constant():
                raise Unsupported(f"{cls.__qualname__}.{name}() returned {result.describe()}")
            return _checked_truth(name, result.as_python_constant())
        self.guard_class_lacks(tx, "__bool__", "__len__")  # a class that gains either changes the answer
        return True

    def has_unpack_var_sequence(self, tx) -> bool:
        return python_slot(self.python_type(), "__iter__") is not None or builtin_base(self.python_type()) is not None

    def unpack_var_sequence(self, tx):
        """Every item iterating gives: a Python __iter__ run to its end, a dict subclass's keys, a set,
        list or tuple subclass's items (their C iterators read the items, not the class's methods)."""
        from .builtin import BuiltinVariable  # cycle: .builtin -> .misc
        if python_slot(self.python_type(), "__iter__") is not None:
            iterator = BuiltinVariable(iter).call_function(tx, [self], {})
            return iterator.unpack_var_sequence(tx)
        if not self.has_unpack_var_sequence(tx):
            return super().unpack_var_sequence(tx)
        if container_base(self.python_type()) is not None:
            return base_items(tx, self).unpack_var_sequence(tx)
        return self.call_method(tx, "keys", [], {}).unpack_var_sequence(tx)
    def guard_class_lacks(self, tx, *names: str) -> None:
        """The user classes in type(self)'s MRO still define none of `names` (a built-in's dict is fixed)."""
        cls_var = self.class_variable()
        guard_mro_lacks(tx, cls_var.value, cls_var.source, *names)

    def _instance_dict(self, tx):
        """obj.__dict__: a view of the object's attributes with the trace's assignments on top, as Dynamo's
        DunderDictVariable: a write through it is an attribute store, so `obj.k` after `obj.__dict__[k] = v`
        reads v (the real dict, tracked as a container of its own, kept its writes from the attribute reads)."""
        if self.is_new() or self.source is not None:
            return InstanceDictVariable(self)
        raise Unsupported(f"__dict__ of {self.describe()}, reached without a source")

    def del_attr(self, tx, name):
        """delattr() on an object made in the trace: the attribute leaves the record."""
        recorded = tx.output.side_effects.attrs.get(self.identity(), {})
        if not self.is_new():
            raise Unsupported(f"deleting the attribute {name!r} of {self.describe()}")
        if name not in recorded:
            raise Unsupported(f"AttributeError: {self.python_type().__qualname__} object has no attribute {name!r}")
        tx.output.side_effects.delete_attr(self.identity(), name)

    def store_attr(self, tx, name, value):
        """`obj.name = value`: a __setattr__ written in Python is traced inline (its
        `super().__setattr__` comes back to generic_setattr)."""
        setattr_fn = python_slot(self.python_type(), "__setattr__")
        if setattr_fn is not None:
            self._call_special(tx, setattr_fn, "__setattr__", [ConstantVariable(name), value])
            return
        self.guard_class_lacks(tx, "__setattr__")  # a class that gains one stores differently
        if self.python_type().__setattr__ is not object.__setattr__ and not self._generic_setattr_slot() \
                and not issubclass(self.python_type(), _thread._local):
            raise Unsupported(f"{self.python_type().__qualname__} customises __setattr__ in C")
        self.generic_setattr(tx, name, value)

    def _generic_setattr_slot(self) -> bool:
        return is_generic_slot(inspect.getattr_static(self.python_type(), "__setattr__"))

    def generic_setattr(self, tx, name, value):
        """object.__setattr__: recorded in the side effects, replayed the same way after the graph."""
        cls = self.python_type()
        try:
            attr = inspect.getattr_static(cls, name)
        except AttributeError:
            attr = None
        if hasattr(type(attr), "__set__") and not isinstance(attr, types.MemberDescriptorType):
            raise Unsupported(f"assigning through the descriptor {cls.__qualname__}.{name}")
        # only __slots__ (a threading.local keeps a per-thread dict the offset does not show: the
        # replay's setattr runs in the calling thread, which is the one that traced)
        if not isinstance(attr, types.MemberDescriptorType) and cls.__dictoffset__ == 0 \
                and not issubclass(cls, _thread._local):
            raise observed(AttributeError(f"{cls.__name__!r} object has no attribute {name!r}"),
                           f"{cls.__qualname__} object has no attribute {name!r} (its __slots__ do not name it)")
        # a __slots__ member is stored as an attribute: object.__setattr__ replays it into the slot
        tx.output.side_effects.store_attr(self, self.identity(), name, value)

    def children(self):
        return []

    def short_repr(self) -> str:
        made = " (made in trace)" if self.is_new() else ""
        return f"{self.python_type().__qualname__} object{made}"


_MISSING = object()


def _instance_lookup(cls: type, name: str):
    """What an instance's attribute lookup finds on its class: the first of the MRO's dicts that
    holds `name` (not the metaclass's: `obj.__name__` is no attribute of a plain object)."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return _MISSING


@dataclass(frozen=True, eq=False)
class SuperVariable(VariableTracker):
    """super() inside a method: attribute lookup starts after `cls` in type(obj)'s MRO.

    In a classmethod `obj` is the class itself: the MRO is its own and nothing binds to an
    instance.  What the lookup passed over and what it found are guarded through the MRO
    (`type(L['self']).__mro__[1].__dict__['f']`): a base gaining or replacing the attribute
    between calls recompiles.
    """

    cls: type = None
    obj: VariableTracker = None

    def _start(self) -> UserDefinedClassVariable:
        """The class whose MRO is searched, with its Source."""
        obj = self.obj.realize()
        if isinstance(obj, UserDefinedClassVariable):
            return obj
        if isinstance(obj, UserDefinedObjectVariable):
            return obj.class_variable()
        return UserDefinedClassVariable(obj.python_type())

    def var_getattr(self, tx, name):
        start = self._start()
        mro = start.value.__mro__
        if self.cls not in mro:
            raise Unsupported(f"super(): {start.value.__qualname__} is not a subclass of {self.cls.__qualname__}")
        mro_source = AttrSource(start.source, "__mro__") if start.source is not None else None
        for index in range(mro.index(self.cls) + 1, len(mro)):
            klass = mro[index]
            dict_source = AttrSource(GetItemSource(mro_source, index), "__dict__") if mro_source else None
            if name not in klass.__dict__:
                if dict_source is not None:
                    tx.output.install_guard(dict_source, "DICT_CONTAINS", (name, False))
                continue
            attr = klass.__dict__[name]
            if attr is object.__init__:
                return _NoOpInit()
            from .exceptions import ExceptionInitVariable, ExceptionVariable, is_base_exception_init  # cycle
            if is_base_exception_init(attr) and isinstance(self.obj.realize(), ExceptionVariable):
                return ExceptionInitVariable(self.obj)  # sets its args
            source = GetItemSource(dict_source, name) if dict_source is not None else None
            on_class = self.obj.realize() is start
            if on_class and isinstance(attr, types.FunctionType):
                return guarded_function(tx, attr, source)  # super(C, cls).f is the plain function
            if on_class and isinstance(attr, property):
                raise Unsupported(f"property {klass.__qualname__}.{name} read through super() from the class")
            member = class_member(tx, attr, source, self.obj, start, raw=True)
            if member is None:
                if is_generic_slot(attr):  # object.__getattribute__, OrderedDict.__setitem__, object.__new__
                    # __new__ is a static method: super().__new__(cls, ...) is the function itself
                    return SlotFunctionVariable(attr, None if name == "__new__" else self.obj)
                raise Unsupported(f"super().{name} is a {type(attr).__name__}")
            return member
        raise Unsupported(f"super() has no attribute {name!r}")

    def call_method(self, tx, name, args, kwargs):
        return self.var_getattr(tx, name).call_function(tx, args, kwargs)

    def short_repr(self) -> str:
        return f"super({self.cls.__qualname__}, {self.obj.short_repr()})"


@dataclass(frozen=True, eq=False)
class _NoOpInit(VariableTracker):
    """object.__init__ reached through super(): does nothing."""

    def call_function(self, tx, args, kwargs):
        return ConstantVariable(None)
