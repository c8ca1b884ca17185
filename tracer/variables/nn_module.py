"""nn.Modules, traced as Dynamo 2.13 traces them with built-in modules inlined.

A module is an object like any other, except that its parameters, buffers
and submodules live in `_parameters`, `_buffers` and `_modules`: reading
`self.fc1.weight` yields the Source `L['self']._modules['fc1']._parameters['weight']`,
and the tensor becomes a graph input under that name.  Calling a module enters
its `forward`.
"""
from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass, field

import torch
from torch.nn.modules import module as module_py

from ..exc import Unsupported, observed
from ..source import AttrSource, GetItemSource, ModuleSource
from ..trace_rules import module_skip_reason
from .base import VariableTracker
from .constant import ConstantVariable
from .lists import ListIteratorVariable, TupleVariable
from .get_attr import GetAttrVariable
from .misc import UserDefinedObjectVariable
from .tensor import TensorVariable

_SLOTS = ("_parameters", "_buffers", "_modules")
_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
               "_state_dict_hooks", "_load_state_dict_pre_hooks")


# What lists a module's tensors other than by attribute (functional_call swaps only attributes here).
_TENSOR_LISTINGS = frozenset({"_parameters", "_buffers", "parameters", "named_parameters", "buffers", "named_buffers",
                              "state_dict", "_named_members", "__dict__"})
_TRACED_HOOKS = ("_forward_pre_hooks", "_forward_hooks", "_global_forward_pre_hooks", "_global_forward_hooks")
_HOOKS_MODULE = "torch.nn.modules.module"  # where register_module_forward_hook keeps the global hooks


def hooks_of(module: torch.nn.Module) -> list[str]:
    """The hook dicts nn.Module.__call__ would run for this module: its own and the global ones."""
    return [name for name in _HOOK_DICTS[:4] if getattr(module, name, None)] + _global_hooks()


def _global_hooks() -> list[str]:
    names = ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
             "_global_backward_pre_hooks")
    return [name for name in names if getattr(module_py, name, None)]


def _guard_members(tx, module, source, slot: str, read: str = "keys", key=None) -> None:
    """Guard what the trace read of a module's member dict (its keys, its length, or
    whether it holds `key`): an append or register_* after the compile changes it,
    and the old graph must not keep running."""
    if source is None:
        return
    members = module.__dict__.get(slot, {})
    dict_source = AttrSource(source, slot)
    if read == "keys":
        tx.output.install_guard(dict_source, "DICT_KEYS_MATCH", tuple(members))
    elif read == "len":
        tx.output.install_guard(dict_source, "LENGTH_CHECK", len(members))
    else:
        tx.output.install_guard(dict_source, "DICT_CONTAINS", (key, key in members))


def changed_members(tx, module, slot: str):
    """The tracker of the module's member dict `slot` when the trace changed it (a register_buffer, a
    buffer assigned), else None: the real dict is then stale for what the trace reads after."""
    members = module.__dict__.get(slot)
    if members is None:
        return None
    tracked = tx.output.side_effects.tracked_container(members)
    return tracked if tracked is not None and tx.output.side_effects.is_mutated(tracked) else None


def _refuse_stale_listing(tx, module, slot: str) -> None:
    """Listing a member dict the trace changed would answer from the real, unchanged one: break instead."""
    if changed_members(tx, module, slot) is not None:
        raise Unsupported(f"listing {slot} of a {type(module).__qualname__} module after the trace changed it")


def record_module_init(tx) -> None:
    """What nn.Module.__init__ leaves in a graph that traces it (as Dynamo's does): its usage log
    call, once per graph (the log is once per process: a second call records nothing)."""
    log = torch._C._log_api_usage_once
    if any(node.target is log and node.args == ("python.nn_module",) for node in tx.output.graph.nodes):
        return
    tx.output.call(tx, "call_function", log, (ConstantVariable("python.nn_module"),), {})
def _class_defines(cls: type, name: str) -> bool:
    """Whether object.__getattribute__ finds `name` on the class (its MRO, not its metaclass)."""
    return any(name in klass.__dict__ for klass in cls.__mro__)


def _is_parameter(tracker) -> bool:
    return isinstance(tracker, TensorVariable) and tracker.python_type() is torch.nn.Parameter


# nn.Module.__call__ is _wrapped_call_impl, which calls _call_impl: reached by name when a
# user's __call__ calls super().__call__, or when code calls `module._call_impl(x)` by hand.
_CALL_ENTRIES = ("_call_impl", "_wrapped_call_impl")


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
        stored = tx.output.side_effects.load_attr(self.identity(), name)
        if stored is not None:
            return stored
        module = self.value
        if name in _TENSOR_LISTINGS and id(module) in tx.output.reparametrized:
            raise Unsupported(f"{type(module).__qualname__}.{name} inside torch.func.functional_call() (it would "
                              "list the module's own tensors, not the ones swapped in)")
        instance_dict = module.__dict__
        if (name in self._MEMBER_METHODS or name in _CALL_ENTRIES) and name not in instance_dict \
                and not self._overrides(name):
            return GetAttrVariable(self, name)
        if name not in instance_dict and not _class_defines(type(module), name):
            # nn.Module.__getattr__: reached only when the class and the instance dict both miss
            for slot in _SLOTS:
                changed = changed_members(tx, module, slot)
                if changed is not None:  # the trace's own version: a register_buffer in forward is read back
                    if name in changed.entries:
                        return changed.getitem(tx, ConstantVariable(name))
                    continue
                members = instance_dict.get(slot, {})
                if name in members:  # a None member too is guarded: registering a tensor there recompiles
                    return VariableTracker.build(tx, members[name], self._slot_source(slot, name))
            if type(module).__getattr__ is torch.nn.Module.__getattr__ and not hasattr(type(module), name):
                # nn.Module.__getattr__ looks only in those dicts: the attribute is missing, as getattr's
                # default, hasattr or an `except AttributeError` expect to be told; guarded missing from
                # each, so a module that gains it later (`self.extra = k` after the break) recompiles
                self._guard_missing(tx, name)
                raise observed(AttributeError(f"'{type(module).__name__}' object has no attribute '{name}'"),
                               f"{type(module).__qualname__} object has no attribute {name!r}")
        return super().var_getattr(tx, name)

    def _guard_missing(self, tx, name: str) -> None:
        """`name` is in none of the module's dicts (its own, its member dicts) nor on its classes."""
        if self.source is None:
            return
        tx.output.install_guard(AttrSource(self.source, "__dict__"), "DICT_CONTAINS", (name, False))
        for slot in _SLOTS:
            if slot in self.value.__dict__:
                _guard_members(tx, self.value, self.source, slot, "contains", name)
        self.guard_class_lacks(tx, name)

    def _overrides(self, name: str) -> bool:
        """Whether the user's class (not torch) replaces nn.Module's method `name`."""
        return any(name in klass.__dict__ for klass in type(self.value).__mro__[:-2]
                   if klass.__module__.split(".")[0] != "torch")

    def call_function(self, tx, args, kwargs):
        return self._call_from(tx, "__call__", args, kwargs)

    def _call_from(self, tx, entry: str, args, kwargs):
        """Enter nn.Module's call path at `entry` (`__call__`, `_wrapped_call_impl` or
        `_call_impl`): a step the class overrides runs the user's code (whose
        super().__call__ comes back here), otherwise the call goes straight to forward."""
        for name in (entry, "_call_impl"):
            if self._overrides(name):
                return self.var_getattr(tx, name).call_function(tx, args, kwargs)
        return self._call_forward(tx, args, kwargs)

    def _call_forward(self, tx, args, kwargs):
        """nn.Module.__call__: its forward pre-hooks, forward, its forward hooks, each traced inline."""
        module = self.value
        skip = module_skip_reason(module)
        if skip is not None:  # an RNN: the graph breaks at the call, as Dynamo's does
            raise Unsupported(skip)
        hooks = hooks_of(module)
        untraced = [name for name in hooks if name not in _TRACED_HOOKS]
        if untraced or module._forward_pre_hooks_with_kwargs or module._forward_hooks_with_kwargs \
                or module._forward_hooks_always_called or module_py._global_forward_hooks_with_kwargs \
                or module_py._global_forward_hooks_always_called:
            raise Unsupported(f"{type(module).__qualname__} has hooks registered ({', '.join(hooks)}) that "
                              "Standin does not trace (backward or keyword-argument hooks)")
        # as nn.Module.__call__: the global hooks first, then the module's own
        pre = self._global_hooks(tx, "_global_forward_pre_hooks") + self._hooks(tx, "_forward_pre_hooks", hooks)
        args = self._run_pre_hooks(tx, list(args), pre)
        output = self.var_getattr(tx, "forward").call_function(tx, args, kwargs)
        post = self._global_hooks(tx, "_global_forward_hooks") + self._hooks(tx, "_forward_hooks", hooks)
        return self._run_forward_hooks(tx, args, output, post)

    def _hooks(self, tx, slot: str, present: list) -> list:
        """The trackers of the hooks in one of the module's hook dicts, its keys guarded even when
        empty, so a hook registered after the compile recompiles and runs (Dynamo 2.13 skips
        these guards and keeps the old graph)."""
        _guard_members(tx, self.value, self.source, slot)
        if slot not in present:
            return []
        return [VariableTracker.build(tx, hook,
                                      GetItemSource(AttrSource(self.source, slot), key) if self.source else None)
                for key, hook in self.value.__dict__[slot].items()]

    @staticmethod
    def _global_hooks(tx, slot: str) -> list:
        """The trackers of the global hooks of one kind, the dict's keys guarded even when empty: a
        hook registered after the compile recompiles (Dynamo 2.13 then skips it)."""
        module_py, source = sys.modules[_HOOKS_MODULE], ModuleSource(_HOOKS_MODULE)
        _guard_members(tx, module_py, source, slot)
        return [VariableTracker.build(tx, hook, GetItemSource(AttrSource(source, slot), key))
                for key, hook in getattr(module_py, slot).items()]

    def _run_pre_hooks(self, tx, args: list, hooks: list) -> list:
        """hook(module, args): a result that is not None replaces the arguments (a tuple, or one value)."""
        for hook in hooks:
            result = hook.call_function(tx, [self, TupleVariable(tuple(args))], {}).realize()
            if isinstance(result, ConstantVariable) and result.value is None:
                continue
            args = list(result.items) if isinstance(result, TupleVariable) else [result]
        return args

    def _run_forward_hooks(self, tx, args: list, output, hooks: list):
        """hook(module, args, output): a result that is not None replaces the output."""
        for hook in hooks:
            result = hook.call_function(tx, [self, TupleVariable(tuple(args)), output], {}).realize()
            if not (isinstance(result, ConstantVariable) and result.value is None):
                output = result
        return output

    # ---- containers: Sequential, ModuleList, ModuleDict, ParameterList ---------------------
    def _container_slot(self) -> str | None:
        """The member dict a container's items live in, or None for other modules."""
        if isinstance(self.value, (torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ModuleDict)):
            return "_modules"
        if isinstance(self.value, torch.nn.ParameterList):
            return "_parameters"
        return None

    def _item(self, tx, key: str):
        slot = self._container_slot()
        return VariableTracker.build(tx, self.value.__dict__[slot][key], self._slot_source(slot, key))

    def has_unpack_var_sequence(self, tx) -> bool:
        return self._container_slot() is not None

    def unpack_var_sequence(self, tx):
        slot = self._container_slot()
        if slot is None:
            raise Unsupported(f"iterating over the module {type(self.value).__qualname__}")
        _refuse_stale_listing(tx, self.value, slot)
        _guard_members(tx, self.value, self.source, slot)
        keys = list(self.value.__dict__[slot])
        if isinstance(self.value, torch.nn.ModuleDict):
            return [ConstantVariable(k) for k in keys]
        return [self._item(tx, k) for k in keys]

    def call_method(self, tx, name, args, kwargs):
        if name in _CALL_ENTRIES and not self._overrides(name):
            return self._call_from(tx, name, args, kwargs)
        if name in self._MEMBER_METHODS and not self._overrides(name):
            slot, named = self._MEMBER_METHODS[name]
            recurse = kwargs["recurse"].as_python_constant() if "recurse" in kwargs else True
            return self._members(tx, slot, named, recurse)
        if self._container_slot() is not None and name in ("__getitem__", "__len__", "__contains__"):
            return self._container_method(tx, name, args)
        return super().call_method(tx, name, args, kwargs)

    def _container_method(self, tx, name, args):
        """len(c), c[i], c[a:b] and `k in c`, each guarding the part of the keys it read."""
        slot = self._container_slot()
        _refuse_stale_listing(tx, self.value, slot)
        keys = list(self.value.__dict__[slot])
        if name == "__len__":
            _guard_members(tx, self.value, self.source, slot, "len")
            return ConstantVariable(len(keys))
        key = args[0].as_python_constant()
        if name == "__contains__" or isinstance(self.value, torch.nn.ModuleDict):
            _guard_members(tx, self.value, self.source, slot, "contains", key)
        if name == "__contains__":
            return ConstantVariable(key in keys)
        if isinstance(self.value, torch.nn.ModuleDict):
            if key not in keys:
                raise Unsupported(f"KeyError: {key!r} in {type(self.value).__name__}")
            return self._item(tx, key)
        # a list's keys are always "0".."n-1"; a Sequential's may be any names
        _guard_members(tx, self.value, self.source, slot,
                       "keys" if isinstance(self.value, torch.nn.Sequential) else "len")
        if isinstance(key, slice):
            if slot != "_modules":
                raise Unsupported(f"slicing a {type(self.value).__name__}")
            record_module_init(tx)  # the slice is a new container: nn.Module.__init__ runs for it
            return self._slice(keys[key])
        if not isinstance(key, int) or not -len(keys) <= key < len(keys):
            raise Unsupported(f"IndexError: index {key!r} into {type(self.value).__name__}")
        return self._item(tx, keys[key])

    _MEMBER_METHODS = {
        "parameters": ("_parameters", False), "named_parameters": ("_parameters", True),
        "buffers": ("_buffers", False), "named_buffers": ("_buffers", True),
        "children": ("_modules", False), "named_children": ("_modules", True),
    }

    def _members(self, tx, slot: str, named: bool, recurse: bool):
        """Walk the real module tree, wrapping each member with its full Source chain."""
        results, seen = [], set()

        def walk(module, source, prefix):
            for name, identity, tracker in self._member_trackers(tx, module, source, slot):
                if identity in seen:  # a tied parameter is listed once
                    continue
                seen.add(identity)
                results.append(TupleVariable((ConstantVariable(prefix + name), tracker)) if named else tracker)
            if recurse and slot != "_modules":
                _refuse_stale_listing(tx, module, "_modules")
                _guard_members(tx, module, source, "_modules")
                for name, child in module._modules.items():
                    if child is not None:
                        child_source = GetItemSource(AttrSource(source, "_modules"), name) if source else None
                        walk(child, child_source, prefix + name + ".")

        walk(self.value, self.source, "")
        return ListIteratorVariable(tuple(results))

    @staticmethod
    def _member_trackers(tx, module, source, slot: str) -> list:
        """(name, identity, tracker) of each member in one of a module's member dicts, None ones left out: the
        trace's own version of the dict when it changed it (a buffer registered in forward is listed)."""
        changed = changed_members(tx, module, slot)
        if changed is not None:
            entries = changed.read_entries()
            return [(name, ("traced", id(tracker)), tracker) for name, tracker in entries.items()
                    if not (isinstance(tracker, ConstantVariable) and tracker.value is None)]
        _guard_members(tx, module, source, slot)
        members = []
        for name, value in module.__dict__.get(slot, {}).items():
            if value is not None:
                member_source = GetItemSource(AttrSource(source, slot), name) if source is not None else None
                members.append((name, id(value), VariableTracker.build(tx, value, member_source)))
        return members

    def _slice(self, keys: list[str]):
        """seq[a:b]: a new container of the same modules, each keeping its Source."""
        modules = [self.value._modules[k] for k in keys]
        sliced = type(self.value)(*modules) if isinstance(self.value, torch.nn.Sequential) \
            else type(self.value)(modules)
        sources = {str(i): self._slot_source("_modules", k) for i, k in enumerate(keys)}
        return NNModuleVariable(sliced, submodule_sources=sources)

    def store_attr(self, tx, name, value):
        """`self.steps += 1`: nn.Module.__setattr__ stores any value that is not a
        Parameter, a Module or a buffer as a plain attribute (and a tensor given for a
        buffer's name as that buffer), so the side-effects record can replay it after
        the graph, through that same __setattr__."""
        if type(self.value).__setattr__ is not torch.nn.Module.__setattr__:
            raise Unsupported(f"{type(self.value).__qualname__} customises __setattr__")
        value = value.realize()
        buffer = name in self.value.__dict__.get("_buffers", {})
        if buffer and isinstance(value, TensorVariable) and not _is_parameter(value):
            # `self.count += 1`: __setattr__ puts a tensor given for a buffer's name in _buffers, where
            # `self._buffers[name]`, named_buffers() and the attribute itself then read it
            if self.source is not None:
                buffers = VariableTracker.build(tx, self.value._buffers, AttrSource(self.source, "_buffers"))
                buffers.realize().call_method(tx, "__setitem__", [ConstantVariable(name), value], {})
                return
        elif isinstance(value, NNModuleVariable) or _is_parameter(value) or any(
                name in self.value.__dict__.get(slot, {}) for slot in _SLOTS):
            raise Unsupported(f"assigning the parameter, buffer or submodule {name!r} of a module")
        if hasattr(type(inspect.getattr_static(type(self.value), name, None)), "__set__"):
            raise Unsupported(f"assigning through the descriptor {type(self.value).__qualname__}.{name}")
        tx.output.side_effects.store_attr(self, self.identity(), name, value)

    def short_repr(self) -> str:
        return f"{type(self.value).__qualname__} module"
