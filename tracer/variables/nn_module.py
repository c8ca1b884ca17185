"""nn.Modules, traced as Dynamo 2.13 traces them with built-in modules inlined.

A module is an object like any other, except that its parameters, buffers
and submodules live in `_parameters`, `_buffers` and `_modules`: reading
`self.fc1.weight` yields the Source `L['self']._modules['fc1']._parameters['weight']`,
and the tensor becomes a graph input under that name.  Calling a module enters
its `forward`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from ..exc import Unsupported
from ..source import AttrSource, GetItemSource
from .constant import ConstantVariable
from .misc import UserDefinedObjectVariable

_SLOTS = ("_parameters", "_buffers", "_modules")
_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
               "_state_dict_hooks", "_load_state_dict_pre_hooks")


def _global_hooks() -> list[str]:
    from torch.nn.modules import module as module_py
    names = ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
             "_global_backward_pre_hooks")
    return [name for name in names if getattr(module_py, name, None)]


@dataclass(frozen=True, eq=False)
class NNModuleVariable(UserDefinedObjectVariable):
    # For a container made in the trace (a slice of a Sequential): where its submodules came from.
    submodule_sources: dict = field(default_factory=dict)

    def _slot_source(self, slot: str, key: str):
        if slot == "_modules" and key in self.submodule_sources:
            return self.submodule_sources[key]
        if self.source is None:
            return None
        return GetItemSource(AttrSource(self.source, slot), key)

    def var_getattr(self, tx, name):
        from ..builder import build
        stored = tx.output.side_effects.load_attr(self.identity(), name)
        if stored is not None:
            return stored
        module = self.value
        instance_dict = module.__dict__
        if name in self._MEMBER_METHODS and name not in instance_dict:
            from .misc import GetAttrVariable
            return GetAttrVariable(self, name)
        if name not in instance_dict:
            for slot in _SLOTS:
                members = instance_dict.get(slot, {})
                if name in members:
                    value = members[name]
                    if value is None:
                        return ConstantVariable(None)
                    return build(tx, value, self._slot_source(slot, name))
        return super().var_getattr(tx, name)

    def call_function(self, tx, args, kwargs):
        module = self.value
        hooks = [name for name in _HOOK_DICTS[:4] if getattr(module, name, None)] + _global_hooks()
        if hooks:
            raise Unsupported(f"{type(module).__qualname__} has hooks registered ({', '.join(hooks)}); "
                              "Standin reports modules with hooks instead of tracing them")
        return self.var_getattr(tx, "forward").call_function(tx, args, kwargs)

    # ---- containers: Sequential, ModuleList, ModuleDict ------------------------------------
    def _is_container(self) -> bool:
        return isinstance(self.value, (torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ModuleDict))

    def _submodule(self, tx, key: str):
        from ..builder import build
        return build(tx, self.value._modules[key], self._slot_source("_modules", key))

    def has_unpack_var_sequence(self, tx) -> bool:
        return self._is_container()

    def unpack_var_sequence(self, tx):
        if not self._is_container():
            raise Unsupported(f"iterating over the module {type(self.value).__qualname__}")
        keys = list(self.value._modules)
        if isinstance(self.value, torch.nn.ModuleDict):
            return [ConstantVariable(k) for k in keys]
        return [self._submodule(tx, k) for k in keys]

    def call_method(self, tx, name, args, kwargs):
        if name in self._MEMBER_METHODS and not any(
                name in klass.__dict__ for klass in type(self.value).__mro__[:-2]
                if klass.__module__.split(".")[0] != "torch"):
            slot, named = self._MEMBER_METHODS[name]
            recurse = kwargs["recurse"].as_python_constant() if "recurse" in kwargs else True
            return self._members(tx, slot, named, recurse)
        if self._is_container() and name in ("__getitem__", "__len__", "__contains__"):
            keys = list(self.value._modules)
            if name == "__len__":
                return ConstantVariable(len(keys))
            key = args[0].as_python_constant()
            if name == "__contains__":
                return ConstantVariable(key in keys)
            if isinstance(self.value, torch.nn.ModuleDict):
                return self._submodule(tx, key)
            if isinstance(key, slice):
                return self._slice(keys[key])
            if not isinstance(key, int) or not -len(keys) <= key < len(keys):
                raise Unsupported(f"IndexError: index {key!r} into {type(self.value).__name__}")
            return self._submodule(tx, keys[key])
        return super().call_method(tx, name, args, kwargs)

    _MEMBER_METHODS = {
        "parameters": ("_parameters", False), "named_parameters": ("_parameters", True),
        "buffers": ("_buffers", False), "named_buffers": ("_buffers", True),
        "children": ("_modules", False), "named_children": ("_modules", True),
    }

    def _members(self, tx, slot: str, named: bool, recurse: bool):
        """Walk the real module tree, wrapping each member with its full Source chain."""
        from ..builder import build
        from .lists import ListIteratorVariable, TupleVariable
        results, seen = [], set()

        def walk(module, source, prefix):
            for name, value in module.__dict__.get(slot, {}).items():
                if value is None or id(value) in seen:
                    continue
                seen.add(id(value))
                member_source = GetItemSource(AttrSource(source, slot), name) if source is not None else None
                tracker = build(tx, value, member_source)
                results.append(TupleVariable((ConstantVariable(prefix + name), tracker)) if named else tracker)
            if recurse and slot != "_modules":
                for name, child in module._modules.items():
                    if child is not None:
                        child_source = GetItemSource(AttrSource(source, "_modules"), name) if source else None
                        walk(child, child_source, prefix + name + ".")

        walk(self.value, self.source, "")
        return ListIteratorVariable(tuple(results))

    def _slice(self, keys: list[str]):
        """seq[a:b]: a new container of the same modules, each keeping its Source."""
        modules = [self.value._modules[k] for k in keys]
        sliced = type(self.value)(*modules) if isinstance(self.value, torch.nn.Sequential) \
            else type(self.value)(modules)
        sources = {str(i): self._slot_source("_modules", k) for i, k in enumerate(keys)}
        return NNModuleVariable(sliced, submodule_sources=sources)

    def store_attr(self, tx, name, value):
        if isinstance(value.realize(), NNModuleVariable) or any(
                name in self.value.__dict__.get(slot, {}) for slot in _SLOTS):
            raise Unsupported(f"assigning the parameter, buffer or submodule {name!r} of a module")
        super().store_attr(tx, name, value)

    def short_repr(self) -> str:
        return f"{type(self.value).__qualname__} module"
