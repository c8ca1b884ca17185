"""Library functions answered by the tracer instead of traced line by line.

Some stdlib functions that model code calls are C-heavy or read the interpreter's own
state (`inspect.signature` of a bound method, `copy.deepcopy` of a config object through
`__reduce_ex__`); tracing their Python bodies would need a model of every C helper they
touch.  Their result is known from what the tracer holds, so each has a small handler here
that produces the same value (and guards what it read), as Dynamo's polyfills do.
"""
from __future__ import annotations

import collections
import copy
import inspect
import operator
import sys
import types
from dataclasses import dataclass

import torch

from ..exc import Unsupported, observed
from ..source import AttrSource
from .base import VariableTracker
from .checkpoint import call_checkpoint
from .constant import ConstantVariable
from .dicts import ConstDictVariable
from .functional_call import call_functional_call
from .lists import ListVariable, TupleVariable
from .get_attr import GetAttrVariable
from .misc import UserDefinedClassVariable, UserDefinedObjectVariable
from .nn_module import NNModuleVariable
from .object_protocol import InstanceDictVariable, builtin_base, new_instance, python_slot
from .pytree import POLYFILLS as PYTREE_POLYFILLS
from .scalars import check_polyfills, expect_true
from .subgraph import add_call_node
from .sym import SymNodeVariable
from .tensor import TensorVariable
from .user_functions import UserFunctionVariable, UserMethodVariable


@dataclass(frozen=True, eq=False)
class PolyfilledFunctionVariable(VariableTracker):
    """A library function with a handler of ours (see POLYFILLS)."""

    fn: object = None

    def python_type(self) -> type:
        return type(self.fn)

    def as_python_constant(self):
        return self.fn

    def call_function(self, tx, args, kwargs):
        return _BY_ID[id(self.fn)](tx, [a.realize() for a in args], {k: v.realize() for k, v in kwargs.items()})

    def short_repr(self) -> str:
        return f"{self.fn.__module__}.{self.fn.__qualname__} (answered by the tracer)"


def _real_callable(var):
    """The real function (or bound method) a tracker stands for, if it has one."""
    if isinstance(var, UserFunctionVariable):
        return var.fn
    if isinstance(var, UserMethodVariable) and isinstance(var.fn, UserFunctionVariable):
        return types.MethodType(var.fn.fn, _stand_in(var.obj))
    if isinstance(var, NNModuleVariable) and var.value is not None:
        return var.value
    if isinstance(var, GetAttrVariable) and isinstance(var.obj, NNModuleVariable):
        return getattr(var.obj.value, var.name)
    if var.is_python_constant() and callable(var.as_python_constant()):
        return var.as_python_constant()
    return None


class _Unbound:
    """What a method made on an object of the trace is bound to: only its signature is asked."""


def _stand_in(obj):
    return getattr(obj, "value", None) if getattr(obj, "value", None) is not None else _Unbound()


def signature(tx, args, kwargs):
    """inspect.signature(fn): computed from the real function, a constant (immutable) value.
    The function is pinned already: a function with a source is guarded by its code."""
    if len(args) != 1 or kwargs:
        raise Unsupported("inspect.signature() with options")
    real = _real_callable(args[0])
    if real is None:
        raise Unsupported(f"inspect.signature() of {args[0].describe()}")
    try:
        return ConstantVariable(inspect.signature(real))
    except (TypeError, ValueError) as error:
        raise observed(error, f"inspect.signature() raised {type(error).__name__}: {error}") from error


def deepcopy(tx, args, kwargs):
    """copy.deepcopy(obj) of a plain object whose attributes are Python values (a model's config):
    each attribute read (and guarded) through its source, copied now, and stored on a new object of
    the same class made in the trace, as copy's __reduce_ex__ path would build it."""
    if len(args) != 1 or kwargs:
        raise Unsupported("copy.deepcopy() with a memo")
    obj = args[0]
    if isinstance(obj, InstanceDictVariable):  # vars(obj) of an object made in the trace: a snapshot
        obj = obj.call_method(tx, "copy", [], {})
    if _plain_container(obj) and _copyable(obj):  # (before is_python_constant(), which specialises numbers)
        return _attribute_copy(tx, obj)
    if obj.is_python_constant():
        return _constant_copy(tx, obj)
    if not isinstance(obj, UserDefinedObjectVariable) or type(obj).__name__ != "UserDefinedObjectVariable":
        raise Unsupported(f"copy.deepcopy() of {obj.describe()}")
    if obj.is_new():
        return _copy_new_object(tx, obj)
    if obj.source is None:
        raise Unsupported(f"copy.deepcopy() of {obj.short_repr()}, reached without a source")
    cls = obj.python_type()
    if tx.output.side_effects.attrs.get(obj.identity()):
        raise Unsupported(f"copy.deepcopy() of {obj.describe()}, whose attributes the trace changed")
    if builtin_base(cls) is not None:  # its items live beside its attributes, not in its __dict__
        raise Unsupported(f"copy.deepcopy() of a {cls.__qualname__} from outside (a subclass of "
                          f"{builtin_base(cls).__name__})")
    custom = [name for name in ("__deepcopy__", "__reduce_ex__", "__reduce__", "__getstate__", "__setstate__",
                                "__new__") if python_slot(cls, name) is not None]
    if custom or not isinstance(getattr(obj.value, "__dict__", None), dict):
        raise Unsupported(f"copy.deepcopy() of a {cls.__qualname__} ({', '.join(custom) or 'no __dict__'})")
    copied = new_instance(tx, obj.var_getattr(tx, "__class__").realize())
    instance_dict = VariableTracker.build(tx, obj.value.__dict__, AttrSource(obj.source, "__dict__")).realize()
    for name in instance_dict.unpack_var_sequence(tx):  # the key set is guarded
        value = instance_dict.call_method(tx, "__getitem__", [name], {}).realize()
        if not _copyable(value):
            raise Unsupported(f"copy.deepcopy() of {obj.describe()}: its attribute {name.value!r} is "
                              f"{value.describe()}")
        copied.generic_setattr(tx, name.value, _attribute_copy(tx, value))
    return copied


def _copy_new_object(tx, obj):
    """A deep copy of an object made in the trace: its recorded attributes, each a Python value."""
    effects = tx.output.side_effects
    if obj.identity() in effects.base_items:
        raise Unsupported(f"copy.deepcopy() of {obj.short_repr()}, which holds dict items")
    copied = new_instance(tx, UserDefinedClassVariable(obj.python_type(), source=obj.cls_source))
    for name, value in dict(effects.attrs.get(obj.identity(), {})).items():
        value = value.realize()
        if not _copyable(value):
            raise Unsupported(f"copy.deepcopy() of {obj.short_repr()}: its attribute {name!r} is {value.describe()}")
        copied.generic_setattr(tx, name, _attribute_copy(tx, value))
    return copied


def _copyable(var) -> bool:
    if isinstance(var, SymNodeVariable):
        return True
    if _plain_container(var):
        return all(_copyable(item.realize()) for item in _items(var))
    return var.is_python_constant()


def _plain_container(var) -> bool:
    return isinstance(var, (ListVariable, TupleVariable, ConstDictVariable)) and var.python_type() in (list, tuple, dict)


def _holds_symbolic(var) -> bool:
    return _plain_container(var) and any(isinstance(i.realize(), SymNodeVariable) or _holds_symbolic(i.realize())
                                         for i in _items(var))


def _items(var) -> list:
    return list(var.entries.values()) if isinstance(var, ConstDictVariable) else list(var.items)


def _attribute_copy(tx, var):
    """A deep copy of a Python value: a symbolic number (a float of a config under dynamic=True) is the same
    number, as deepcopy gives back an int or a float itself, so it stays symbolic; copy's memo check of it
    (`y is not x`) is the unused node Dynamo records there. A list, tuple or dict holding one is made anew
    around its copied items (asking it for a constant would specialise the number)."""
    if isinstance(var, SymNodeVariable):
        add_call_node(tx, operator.is_not, (var.as_proxy(), var.as_proxy()), {}, False)
        return var
    if not _holds_symbolic(var):
        return _constant_copy(tx, var)
    if isinstance(var, ConstDictVariable):
        var.guard_keys()  # every key is copied: a dict from outside has its key set guarded, as a constant's
        return ConstDictVariable({key: _attribute_copy(tx, value.realize()) for key, value in var.entries.items()})
    copied = tuple(_attribute_copy(tx, item.realize()) for item in var.items)
    if var.python_type() is list:
        return ListVariable(copied)
    for item in var.items:  # copy's _deepcopy_tuple: `k is not j` for each item and its copy, to the first new one
        item = item.realize()
        if isinstance(item, SymNodeVariable):
            add_call_node(tx, operator.is_not, (item.as_proxy(), item.as_proxy()), {}, False)
        elif not _same_after_copy(item):
            return TupleVariable(copied)
    return var


def _same_after_copy(var) -> bool:
    """Whether deepcopy gives back the object itself: an atom (a number, a str, None), a tuple of them."""
    if isinstance(var, (ConstantVariable, SymNodeVariable)):
        return True
    return isinstance(var, TupleVariable) and var.python_type() is tuple and all(
        _same_after_copy(item.realize()) for item in var.items)


def _constant_copy(tx, var):
    return VariableTracker.build(tx, copy.deepcopy(var.as_python_constant()))


def group_tensors_by_device_and_dtype(tx, args, kwargs):
    """torch._C._group_tensors_by_device_and_dtype(lists, with_indices): for each (device, dtype) of
    the first list's tensors (first seen first), every list's items at those positions, and the
    positions when asked.  torch.optim and clip_grad_norm_ call it before a foreach op; the
    grouping is known from the fake tensors, so nothing of it is in the graph (Dynamo's polyfill
    does the same)."""
    names = ("tensorlistlist", "with_indices")
    given = {**dict(zip(names, args)), **kwargs}
    if len(args) > 2 or set(given) - set(names) or "tensorlistlist" not in given:
        raise Unsupported("torch._C._group_tensors_by_device_and_dtype() with unexpected arguments")
    with_indices = given.get("with_indices", ConstantVariable(False))
    if not with_indices.is_python_constant():
        raise Unsupported("torch._C._group_tensors_by_device_and_dtype(with_indices=<not a constant>)")
    lists = [item.realize().unpack_var_sequence(tx) for item in given["tensorlistlist"].unpack_var_sequence(tx)]
    if not lists or not lists[0]:
        error = RuntimeError("Expected !nested_tensorlist[0].empty() to be true, but got false.")
        raise observed(error, "torch._C._group_tensors_by_device_and_dtype() of no tensors")
    groups: dict = {}
    for index, first in enumerate(lists[0]):
        first = first.realize()
        if not isinstance(first, TensorVariable) or not isinstance(first.example, torch.Tensor):
            raise Unsupported(f"torch._C._group_tensors_by_device_and_dtype() over {first.describe()}")
        groups.setdefault((first.example.device, first.example.dtype), []).append(index)
    result = {}
    for key, indices in groups.items():
        grouped = ListVariable(tuple(ListVariable(tuple(items[i] for i in indices)) for items in lists))
        positions = tuple(ConstantVariable(i) for i in indices) if with_indices.as_python_constant() else ()
        result[key] = TupleVariable((grouped, ListVariable(positions)))
    return ConstDictVariable(result)


def namedtuple_class(tx, args, kwargs):
    """collections.namedtuple(name, fields, ...) called in the trace with constant arguments: the class
    is made now, once, as Dynamo makes it, and the trace holds it as a constant (so every call's
    instances share it, and a resume function after a break is handed the same class).  Its
    __module__ is the calling function's, as the real call finds it from its caller's frame."""
    if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
        raise Unsupported("collections.namedtuple() with arguments that are not constants")
    given = {k: v.as_python_constant() for k, v in kwargs.items()}
    given.setdefault("module", tx.f_globals.get("__name__"))
    try:
        cls = collections.namedtuple(*[a.as_python_constant() for a in args], **given)
    except (TypeError, ValueError) as error:
        raise observed(error, f"collections.namedtuple() raised {type(error).__name__}: {error}") from error
    return UserDefinedClassVariable(cls)


def handled_exception(tx, args, kwargs):
    """sys.exception(): the exception the trace is handling now (the root translator's, as the
    thread state's), or None."""
    if args or kwargs:
        raise observed(TypeError("sys.exception() takes no arguments"), "sys.exception() with arguments")
    return tx.root.exc_info if tx.root.exc_info is not None else ConstantVariable(None)


def exc_info(tx, args, kwargs):
    """sys.exc_info(): (class, exception, traceback) of the exception being handled; the trace's
    exceptions carry no traceback (None), as Dynamo's."""
    if args or kwargs:
        raise observed(TypeError("sys.exc_info() takes no arguments"), "sys.exc_info() with arguments")
    handled = tx.root.exc_info
    if handled is None:
        return TupleVariable((ConstantVariable(None),) * 3)
    return TupleVariable((VariableTracker.build(tx, handled.exc_type), handled, ConstantVariable(None)))


def transform_function_name(tx, args, kwargs):
    """functorch's `_get_name(func)`, for its error messages only: the real callable's name (or
    repr: a module's), else its class's name."""
    real = _real_callable(args[0])
    if real is None:
        return ConstantVariable(args[0].python_type().__name__)
    return ConstantVariable(torch._functorch.vmap._get_name(real))


def _torch_polyfills() -> dict:
    return {torch._functorch.vmap._get_name: transform_function_name,
            torch._C._group_tensors_by_device_and_dtype: group_tensors_by_device_and_dtype,
            torch.utils.checkpoint.checkpoint: call_checkpoint, torch.func.functional_call: call_functional_call,
            **PYTREE_POLYFILLS, **check_polyfills()}


POLYFILLS = {inspect.signature: signature, copy.deepcopy: deepcopy, collections.namedtuple: namedtuple_class,
             sys.exc_info: exc_info, sys.exception: handled_exception, **_torch_polyfills()}


# looked up by identity: hashing a user's object would run its own __hash__ at trace time
_BY_ID = {id(fn): handler for fn, handler in POLYFILLS.items()}


# answered once their module is loaded: importing it here would load sympy with `import tracer`
_WHEN_LOADED = {("torch.fx.experimental.symbolic_shapes", "expect_true"): expect_true}


def _register_loaded() -> None:
    for module_name, name in [key for key in _WHEN_LOADED if key[0] in sys.modules]:
        _BY_ID[id(getattr(sys.modules[module_name], name))] = _WHEN_LOADED.pop((module_name, name))


def polyfill_for(value):
    """The tracker for a function answered here, or None."""
    if _WHEN_LOADED and id(value) not in _BY_ID:
        _register_loaded()
    return PolyfilledFunctionVariable(value) if id(value) in _BY_ID else None
