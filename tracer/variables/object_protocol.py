"""Python's object protocol for user objects: building them, and the C slots their Python code calls.

Library classes customise how objects are made and read: a metaclass, a `__new__`, a
`__getattribute__` or `__setattr__` written in Python, a dict base whose items live beside
the attributes (transformers' `ModelOutput` is a dataclass on an `OrderedDict`).  Their
Python code is traced inline; what it hands back to C (`super().__getattribute__(k)`,
`object.__setattr__(self, k, v)`, `OrderedDict.__setitem__(self, k, v)`, `object.__new__(cls)`)
arrives here as a `SlotFunctionVariable` and runs the generic operation on the tracker, as
CPython's `PyObject_GenericGetAttr` and friends would on the real object.
"""
from __future__ import annotations

import collections
import inspect
import types
from dataclasses import dataclass

import torch

from ..exc import Unsupported, observed
from ..source import AttrSource, DictItemSource
from .base import VariableTracker
from .get_attr import GetAttrVariable
from .constant import ConstantVariable
from .container_bases import (CONTAINER_BASES, base_items, container_base, container_base_call, is_container_object,
                              new_items)
from .dicts import ConstDictVariable
from .lists import BaseListVariable, ListIteratorVariable, hash_key, items_of

# The builtin bases whose instances we model: plain objects, and dicts, sets, frozensets, lists and
# tuples (items beside attributes).
DICT_BASES = (collections.OrderedDict, dict)
_GENERIC_BASES = (object, *DICT_BASES, *CONTAINER_BASES)


def python_slot(cls: type, name: str):
    """The Python function `cls` (or a base written in Python) defines for a special method, else None.

    A slot wrapper of a builtin base (dict's own `__getattribute__`) is the generic behaviour,
    not a customisation."""
    attr = inspect.getattr_static(cls, name, None)
    if isinstance(attr, staticmethod):
        attr = attr.__func__
    return attr if isinstance(attr, types.FunctionType) else None


def dict_base(cls: type):
    """The builtin dict class an object of `cls` stores its items in, or None."""
    for base in DICT_BASES:
        if issubclass(cls, base):
            return base
    return None


def builtin_base(cls: type):
    """The builtin container (dict, OrderedDict, set, frozenset, list, tuple) an object of `cls`
    stores its items in, or None."""
    return dict_base(cls) or container_base(cls)


def _slot_owner(fn) -> type | None:
    owner = getattr(fn, "__objclass__", None)
    if owner is None and isinstance(fn, types.BuiltinMethodType):
        owner = getattr(fn, "__self__", None)
    return owner if isinstance(owner, type) else None


def is_generic_slot(fn) -> bool:
    """Whether fn is a C method of object, dict or OrderedDict that we run on trackers, or any C
    method of set, frozenset, list or tuple (their trackers answer for them)."""
    owner, name = _slot_owner(fn), getattr(fn, "__name__", "")
    if owner in CONTAINER_BASES:
        return owner.__dict__.get(name) is fn or getattr(owner, name, None) is fn
    return owner in _GENERIC_BASES and name in _SLOT_NAMES or owner is dict and name in _PLAIN_DICT_SLOTS or \
        owner is object and name in _OBJECT_COMPARISONS or \
        owner is collections.OrderedDict and name in _ORDERED_DICT_SLOTS


_OBJECT_SLOTS = ("__getattribute__", "__setattr__", "__delattr__", "__new__", "__init__", "__init_subclass__")
_DICT_SLOTS = ("__getitem__", "__setitem__", "__delitem__", "__contains__", "__len__", "__iter__", "keys",
               "values", "items", "get", "__init__", "__new__", "update", "setdefault", "pop", "copy",
               "__getattribute__", "__setattr__", "__delattr__")
# dict's own, not OrderedDict's (whose order makes `==`, `|` and popitem answer differently)
_PLAIN_DICT_SLOTS = frozenset({"clear", "popitem", "__or__", "__ior__", "__eq__", "__ne__"})
_SLOT_NAMES = frozenset(_OBJECT_SLOTS + _DICT_SLOTS)
# OrderedDict's own C methods, run on an OrderedDict subclass's items (kept as an OrderedDict's)
_ORDERED_DICT_SLOTS = frozenset({"move_to_end", "popitem", "clear", "__eq__", "__ne__", "__or__", "__ior__"})
_OBJECT_COMPARISONS = frozenset({"__eq__", "__ne__"})  # object's own: super().__ne__(other) reaches it


@dataclass(frozen=True, eq=False)
class SlotFunctionVariable(VariableTracker):
    """A C method of object, dict or OrderedDict (`object.__setattr__`, `OrderedDict.__setitem__`),
    unbound or bound to `obj` by super(); called, it runs the generic operation on the tracker."""

    fn: object = None
    obj: VariableTracker | None = None

    def python_type(self) -> type:
        return type(self.fn)

    def as_python_constant(self):
        if self.obj is not None:
            raise Unsupported(f"{self.short_repr()} bound to {self.obj.describe()} is not a constant")
        return self.fn

    def call_function(self, tx, args, kwargs):
        args = list(args) if self.obj is None else [self.obj, *args]
        name = self.fn.__name__
        if not args:
            raise Unsupported(f"TypeError: {self.short_repr()} needs an argument")
        target = args[0].realize()
        rest = args[1:]
        if name == "__new__":
            return new_instance(tx, target, self.fn, rest, kwargs)
        from .misc import UserDefinedObjectVariable  # cycle: .misc -> .object_protocol
        if not isinstance(target, UserDefinedObjectVariable):
            owner = _slot_owner(self.fn)
            if owner in DICT_BASES + CONTAINER_BASES and issubclass(target.python_type(), owner):
                return target.call_method(tx, name, list(rest), dict(kwargs))  # dict.keys(d) of a plain dict
            raise Unsupported(f"{self.short_repr()} on {target.describe()}")
        if name == "__getattribute__":
            return target.generic_getattr(tx, _name_of(rest[0]))
        if name == "__setattr__":
            target.generic_setattr(tx, _name_of(rest[0]), rest[1])
            return ConstantVariable(None)
        if name == "__delattr__":
            target.del_attr(tx, _name_of(rest[0]))
            return ConstantVariable(None)
        if name == "__init_subclass__":
            return ConstantVariable(None)
        if _slot_owner(self.fn) is object:
            if name == "__init__":
                return ConstantVariable(None)
            if name in _OBJECT_COMPARISONS and len(rest) == 1 and not kwargs:
                return _object_comparison(tx, name, target, rest[0])
            raise Unsupported(f"{self.short_repr()}")
        owner = _slot_owner(self.fn)
        if owner in CONTAINER_BASES and container_base(target.python_type()) is not None \
                and issubclass(target.python_type(), owner):
            return container_base_call(tx, target, name, rest, kwargs)
        if owner in CONTAINER_BASES:  # a real set of tensors from outside, that the builder could not model
            raise Unsupported(f"{self.short_repr()} on {target.describe()}")
        if dict_base(target.python_type()) is None:
            raise Unsupported(f"{self.short_repr()} on {target.describe()}, which is not a dict")
        return dict_base_call(tx, target, name, rest, kwargs)

    def var_getattr(self, tx, name):
        if name in ("__name__", "__qualname__"):  # dict.keys.__name__: unittest's assertRaises reads it
            return ConstantVariable(getattr(self.fn, name))
        return super().var_getattr(tx, name)

    def short_repr(self) -> str:
        owner = _slot_owner(self.fn)
        bound = " (bound by super())" if self.obj is not None else ""
        return f"{owner.__name__ if owner else '?'}.{self.fn.__name__}{bound}"


def _object_comparison(tx, name: str, target, other) -> VariableTracker:
    """object.__eq__: True for the object itself, else NotImplemented; object.__ne__: the inverse of
    what type(self).__eq__ answers, NotImplemented passed on (CPython's object_richcompare)."""
    from .misc import UserDefinedObjectVariable  # cycle: .misc -> .object_protocol
    if name == "__eq__":
        other = other.realize()
        same = isinstance(other, UserDefinedObjectVariable) and other.identity() == target.identity()
        return ConstantVariable(True if same else NotImplemented)
    equal = target.call_method(tx, "__eq__", [other], {}).realize()
    if equal.is_python_constant() and equal.as_python_constant() is NotImplemented:
        return equal
    return ConstantVariable(not equal.truth(tx))


def _name_of(var) -> str:
    name = var.realize()
    if not name.is_python_constant() or not isinstance(name.as_python_constant(), str):
        raise Unsupported(f"an attribute name that is not a constant string: {name.describe()}")
    return name.as_python_constant()


def new_instance(tx, cls_var, new_fn=None, args=(), kwargs=None):
    """`object.__new__(cls)` / `OrderedDict.__new__(cls)` / `tuple.__new__(cls, items)`: a fresh
    object made in the trace, empty but for what a tuple's or frozenset's `__new__` puts in it."""
    from .misc import UserDefinedClassVariable, UserDefinedObjectVariable  # cycle: .misc -> .object_protocol
    owner = _slot_owner(new_fn) if new_fn is not None else None
    if owner in CONTAINER_BASES and cls_var.is_python_constant() and cls_var.as_python_constant() is owner:
        return new_items(tx, owner, args, kwargs or {})  # list.__new__(list): a plain, empty list
    if not isinstance(cls_var, UserDefinedClassVariable):
        raise Unsupported(f"__new__ of {cls_var.describe()}")
    cls = cls_var.value
    check_buildable(cls)
    if new_fn is not None and owner not in (object, dict_base(cls), dict, container_base(cls)):
        raise Unsupported(f"{owner.__name__}.__new__({cls.__qualname__})")
    obj = UserDefinedObjectVariable(cls=cls, cls_source=cls_var.source)
    base = container_base(cls)
    if base is not None:
        tx.output.side_effects.store_base_items(obj, new_items(tx, base, args, kwargs or {}))
    return obj


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement


def check_buildable(cls: type) -> None:
    """Refuse the classes whose instances we cannot model (a C base with its own layout; __slots__
    are members the trace stores as attributes)."""
    modelled = _GENERIC_BASES if builtin_base(cls) is not None else (object,)
    # C classes only: collections.UserDict, UserList and UserString are plain Python, their methods traced
    solid = [base for base in cls.__mro__ if not base.__flags__ & _HEAPTYPE and base not in modelled
             and not issubclass(base, BaseException)
             and (base.__module__ in ("builtins", "collections", "_collections")
                  or base.__new__ is not object.__new__)]  # itertools.cycle: object.__new__ cannot make one
    if solid:
        raise Unsupported(f"constructing {cls.__qualname__} objects (a subclass of the builtin "
                          f"{solid[0].__qualname__})")


def construct_user_object(tx, cls_var, args, kwargs):
    """`Cls(*args)` for a Python class: type.__call__ traced — `__new__` then `__init__`, each
    inlined when written in Python (a metaclass that only customises class creation is fine)."""
    from .misc import UserDefinedObjectVariable, guarded_function  # cycle: .misc -> .object_protocol
    cls = cls_var.value
    if issubclass(cls, torch.nn.Module):
        return construct_module(tx, cls_var, args, kwargs)
    if issubclass(cls, BaseException):
        raise Unsupported(f"constructing {cls.__qualname__} objects (an exception class)")
    if python_slot(type(cls), "__call__") is not None or type(cls).__call__ is not type.__call__:
        raise Unsupported(f"constructing {cls.__qualname__} objects (its metaclass customises __call__)")
    new = python_slot(cls, "__new__")
    if new is not None:
        new_source = AttrSource(cls_var.source, "__new__") if cls_var.source is not None else None
        obj = guarded_function(tx, new, new_source).call_function(tx, [cls_var, *args], kwargs).realize()
        if not (isinstance(obj, UserDefinedObjectVariable) and issubclass(obj.python_type(), cls)):
            return obj  # Python skips __init__ when __new__ returns something else
    else:
        obj = new_instance(tx, cls_var, args=args, kwargs=kwargs)
    init = inspect.getattr_static(cls, "__init__")
    if isinstance(init, types.FunctionType):  # guarded on its code: replacing __init__ recompiles
        init_source = AttrSource(cls_var.source, "__init__") if cls_var.source is not None else None
        guarded_function(tx, init, init_source).call_function(tx, [obj, *args], kwargs)
    elif init is object.__init__:
        if (args or kwargs) and new is None and inspect.getattr_static(cls, "__new__") is object.__new__:
            raise Unsupported(f"TypeError: {cls.__qualname__}() takes no arguments")
    elif is_generic_slot(init):
        SlotFunctionVariable(init).call_function(tx, [obj, *args], kwargs)
    else:
        raise Unsupported(f"{cls.__qualname__}.__init__ is not a Python function")
    return obj


def construct_module(tx, cls_var, args, kwargs):
    """`nn.GELU()`, `nn.CrossEntropyLoss()` inside forward: a module without parameters or buffers,
    built now from constant arguments (its construction is the same every call), and called like
    any other.  The graph gets the usage-log node nn.Module.__init__ leaves in Dynamo's."""
    from .nn_module import NNModuleVariable, record_module_init  # cycle: .nn_module -> .misc -> .object_protocol
    cls = cls_var.value
    values = [a.realize() for a in [*args, *kwargs.values()]]
    if not all(_constant_module_arg(tx, v) for v in values):
        raise Unsupported(f"constructing the module {cls.__qualname__} inside the trace from "
                          f"{', '.join(v.describe() for v in values if not _constant_module_arg(tx, v))}")
    with torch.random.fork_rng(devices=[]):  # nothing drawn at trace time reaches the program
        try:
            module = cls(*[_module_arg_value(a) for a in args],
                         **{k: _module_arg_value(v) for k, v in kwargs.items()})
        except Exception as error:
            raise observed(error, f"{cls.__qualname__}() raised {type(error).__name__}: {error}") from error
    if any(True for _ in module.parameters()) or any(True for _ in module.buffers()):
        raise Unsupported(f"constructing the module {cls.__qualname__} inside the trace (it has parameters "
                          "or buffers, which would become constants of the graph)")
    if not module._buffers:  # Dynamo traces __init__ (leaving its log node) unless it registers a buffer,
        record_module_init(tx)  # even a None one (a loss's weight): then it builds the module as we do
    return NNModuleVariable(module)


def _made_module(tx, var) -> bool:
    """A module built in this trace (`nn.ReLU()`): parameter-free, its attributes untouched by the trace,
    so the real object is what the program has (`nn.Sequential(nn.ReLU(), nn.Tanh())`)."""
    from .nn_module import NNModuleVariable  # cycle: .nn_module -> .misc -> .object_protocol
    return isinstance(var, NNModuleVariable) and var.source is None and isinstance(var.value, torch.nn.Module) \
        and not tx.output.side_effects.attrs.get(var.identity())


def _constant_module_arg(tx, var) -> bool:
    """A constant, a module made in this trace, or a list or tuple of them (`nn.ModuleList([...])`)."""
    var = var.realize()
    if isinstance(var, BaseListVariable) and var.python_type() in (list, tuple):
        return all(_constant_module_arg(tx, item) for item in var.items)
    return _made_module(tx, var) or var.is_python_constant()


def _module_arg_value(var):
    var = var.realize()
    if isinstance(var, BaseListVariable) and var.python_type() in (list, tuple):
        return var.python_type()(_module_arg_value(item) for item in var.items)  # a copy: the module keeps none
    return var.value if isinstance(getattr(var, "value", None), torch.nn.Module) else var.as_python_constant()


def dict_base_call(tx, obj, name: str, args, kwargs):
    """A C dict method on an object's items.  A new object's items live in the side-effects
    record as a dict tracker (its mutations swap versions there, as any dict's do); an outside
    object's are read, not changed."""
    from .builtin import BuiltinVariable  # cycle: .builtin -> .misc -> .object_protocol
    effects = tx.output.side_effects
    items = dict_items(tx, obj)
    if name not in _READS and not obj.is_new():
        effects.change_base_items(obj)  # replayed on the real object after the graph, by its base's C methods
    if name in ("__eq__", "__ne__", "__or__", "__ior__"):  # a dict subclass operand counts as its items
        args = [builtin_part(tx, a) or a for a in args]
    if name in ("__init__", "update"):
        if len(args) > 1:
            raise Unsupported(f"TypeError: {name}() takes at most one positional argument")
        if args or kwargs:
            update = BuiltinVariable(dict).call_function(tx, list(args), dict(kwargs))
            items.call_method(tx, "update", [update], {})
        return ConstantVariable(None)
    if name == "__iter__":
        return ListIteratorVariable(tuple(items.unpack_var_sequence(tx)))
    if name == "copy" and dict_base(obj.python_type()) is not dict:
        raise Unsupported(f"OrderedDict.copy() of {obj.describe()} (it calls the class)")
    if name == "copy":  # a plain dict, as dict.copy gives; d.copy(1) raises TypeError
        return items.call_method(tx, "copy", list(args), dict(kwargs))
    if name == "__getitem__" and python_slot(obj.python_type(), "__missing__") is not None:
        present = items.call_method(tx, "__contains__", list(args), {})  # guards that key
        if not present.as_python_constant():  # dict's C __getitem__ asks the class, as CPython's
            return obj.var_getattr(tx, "__missing__").call_function(tx, list(args), {})
    result = items.call_method(tx, name, list(args), dict(kwargs))
    if getattr(result, "mutation_id", None) == dict_items(tx, obj).mutation_id:
        return obj  # `d |= e` gives d itself
    return result


def dict_items(tx, obj) -> ConstDictVariable:
    """The current tracker of a dict subclass object's items (read and guarded on first use for one
    from outside)."""
    effects = tx.output.side_effects
    items = effects.base_items.get(obj.identity())
    if items is None:
        items = ConstDictVariable({}, dict_cls=dict_base(obj.python_type())) if obj.is_new() \
            else outside_items(tx, obj)
        effects.store_base_items(obj, items)
    return items


def builtin_part(tx, var):
    """The tracker of var's builtin part when var is a user object with one (its class subclasses
    dict, set, frozenset, list or tuple: what the builtin's C operators read), else None."""
    var = var.realize()
    if is_container_object(var):
        return base_items(tx, var)
    try:
        a_dict = hasattr(var, "is_new") and dict_base(var.python_type()) is not None
    except Unsupported:
        return None
    return dict_items(tx, var) if a_dict else None


def is_mapping_object(obj) -> bool:
    """Whether dict(obj) copies obj as a mapping (its class has keys()) rather than reading pairs."""
    return inspect.getattr_static(obj.python_type(), "keys", None) is not None


def mapping_entries(tx, obj) -> dict:
    """The entries dict(obj) copies from a user mapping, as CPython's dict_merge reads them: a dict
    subclass that keeps dict's own iteration straight from its items (no __getitem__ or __missing__
    of the class runs), any other mapping through keys() and obj[key]."""
    cls = obj.python_type()
    if dict_base(cls) is not None and python_slot(cls, "__iter__") is None:
        pairs = items_of(tx, dict_base_call(tx, obj, "items", [], {}))
        return {hash_key(key): value for key, value in (items_of(tx, pair) for pair in pairs)}
    return {hash_key(key): obj.call_method(tx, "__getitem__", [key], {})
            for key in items_of(tx, obj.call_method(tx, "keys", [], {}))}


_READS = frozenset({"__getitem__", "__contains__", "__len__", "__iter__", "keys", "values", "items", "get",
                    "copy"})


def outside_items(tx, obj):
    """The items of a dict subclass from outside, each read as dict's C method reads it (so
    no Python __getitem__ of the class runs in a guard); the keys guarded, through `keys()`,
    which a class must not override in Python for that guard to mean what it says."""
    cls = obj.python_type()
    if python_slot(cls, "keys") is not None or obj.source is None:
        raise Unsupported(f"reading the items of {obj.describe()}, a {cls.__qualname__} from outside "
                          f"({'it overrides keys()' if obj.source is not None else 'no source'})")
    value = obj.value
    # in the order the class's own C keys() gives (OrderedDict's is not the dict's under it after
    # move_to_end): the order the guard checks and the program iterates
    entries = {key: VariableTracker.build(tx, dict.__getitem__(value, key), DictItemSource(obj.source, key), lazy=True)
               for key in cls.keys(value)}
    tx.output.install_guard(obj.source, "DICT_KEYS_MATCH", tuple(entries))
    return ConstDictVariable(entries, dict_cls=dict_base(cls))


@dataclass(frozen=True, eq=False)
class InstanceDictVariable(VariableTracker):
    """`obj.__dict__` of an object made in the trace: a live view of the attributes recorded for it."""

    obj: VariableTracker = None

    def python_type(self) -> type:
        return dict

    def as_python_constant(self):
        raise Unsupported(f"{self.short_repr()} as a constant")

    def _entries(self, tx) -> dict:
        """The attributes now: an outside object's real ones (each read through its source, the key
        set guarded) under the ones the trace assigned."""
        recorded = self._recorded(tx)
        real = self._real(tx)
        return {**(real.read_entries() if real is not None else {}), **recorded}

    def _recorded(self, tx) -> dict:
        """The attributes the trace assigned that live in the object's __dict__."""
        return dict(tx.output.side_effects.attrs.get(self.obj.identity(), {}))

    def _real(self, tx):
        if self.obj.is_new():
            return None
        return VariableTracker.build(tx, self.obj.value.__dict__, AttrSource(self.obj.source, "__dict__")).realize()

    def _lookup(self, tx, name, args, kwargs):
        """`d[k]`, `d.get(k)`, `k in d` for one key: the trace's own assignment, else the real dict's
        answer (which guards just that key)."""
        key = _name_of(args[0])
        recorded = self._recorded(tx)
        real = self._real(tx)
        if key in recorded or real is None:
            return ConstDictVariable(dict(recorded)).call_method(tx, name, list(args), dict(kwargs))
        return real.call_method(tx, name, list(args), dict(kwargs))

    def call_method(self, tx, name, args, kwargs):
        if name in ("__getitem__", "get", "__contains__") and args:
            return self._lookup(tx, name, args, kwargs)
        if name == "__setitem__":
            self.obj.generic_setattr(tx, _name_of(args[0]), args[1])
            return ConstantVariable(None)
        if name == "update":  # each entry stored as object.__setattr__ would
            from .builtin import BuiltinVariable  # cycle: .builtin -> .misc -> .object_protocol
            update = BuiltinVariable(dict).call_function(tx, list(args), dict(kwargs))
            for key, value in update.entries.items():
                self.obj.generic_setattr(tx, key, value)
            return ConstantVariable(None)
        if name == "pop" and self.obj.is_new() and args:
            return self._pop(tx, _name_of(args[0]), args[1:])
        if name in _READS:
            return ConstDictVariable(self._entries(tx)).call_method(tx, name, list(args), dict(kwargs))
        raise Unsupported(f"__dict__.{name}() of {self.obj.describe()}")

    def _pop(self, tx, key: str, default: list):
        """`obj.__dict__.pop(k[, d])` of an object made in the trace: the attribute leaves the record."""
        recorded = self._recorded(tx)
        if key in recorded:
            self.obj.del_attr(tx, key)
            return recorded[key]
        if default:
            return default[0]
        raise observed(KeyError(key), f"__dict__ of {self.obj.short_repr()} has no key {key!r}")

    def var_getattr(self, tx, name):
        if callable(getattr(dict, name, None)):
            return GetAttrVariable(self, name)
        return super().var_getattr(tx, name)

    def has_unpack_var_sequence(self, tx) -> bool:
        return True

    def unpack_var_sequence(self, tx):
        return [ConstantVariable(k) for k in self._entries(tx)]

    def short_repr(self) -> str:
        return f"__dict__ of {self.obj.short_repr()}"
