"""A cache entry's guards as a torch native guard tree (`torch._C._dynamo.guards.RootGuardManager`).

The tree mirrors Standin's own (guards grouped by Source chain, see compiled.py):
each Source becomes a native accessor (frame local, global, attribute, item,
type), each guard the native leaf its kind names in `KINDS`; a kind or a
Source without a native form is checked by its Python test as a lambda guard,
so every guard is in the tree.  The native tree answers "pass?" in C (it is
what the frame hook's cache lookup runs); Standin's records still explain a
failure.  Building needs the frame's values at compile time: a tensor check is
made from its tensor.
"""
from __future__ import annotations

import inspect
import sys
import types

import torch

from torch._C._dynamo.eval_frame import code_framelocals_names
from torch._C._dynamo.guards import RootGuardManager

from ..source import (SOURCE_NAMESPACE, AttrSource, BuiltinSource, GetItemSource, GlobalsDictSource, GlobalSource,
                      LocalSource, ModuleSource, SourceGroup, TypeSource, builtins_of)
from .compiled import build_tree
from .kinds import kind_of, leaf_function, manager_kind
from .tag_safety import mark_tag_safe_roots


class NativeGuards:
    """The RootGuardManager of one guard set, for frames of `code` over globals `f_globals`."""

    def __init__(self, guards, code: types.CodeType, f_locals: dict, f_globals: dict):
        self.f_globals = f_globals
        self.root = RootGuardManager()
        self._kind = manager_kind()
        self._locals = {name: i for i, name in enumerate(code_framelocals_names(code))}
        self._globals = None
        self._builtins = None
        self._modules = None
        self._managers: dict[str, object] = {}  # a source's name -> its one manager (see _accessor)
        frame_guards = [g for g in guards if kind_of(g).reads_frame]  # the shape guards read L and G
        state, roots = build_tree([g for g in guards if not kind_of(g).reads_frame])
        for guard in state:
            self._leaf(self.root, guard, None)
        self._reached: dict[str, tuple] = {}  # a manager's source -> how _node reached it (for twins)
        for node in roots.values():
            self._node(node, None, None, f_locals, f_globals)
        for guard in frame_guards:
            self._frame_leaf(guard)
        self.tag_safe_roots = mark_tag_safe_roots(self.root, self._twin)

    def probe(self, f_locals: dict) -> bool:
        """Do the guards hold for these locals?  (Asked from Python; an entry's hits are counted by its
        code, run_count.py, so a question is never a hit.)"""
        return self.root.check(f_locals)

    def failing_parts(self, f_locals: dict) -> list[str]:
        """The verbose text of the first native guard that fails ([] if all pass)."""
        info = self.root.check_verbose(f_locals)
        return [] if info.result else list(info.verbose_code_parts)

    # ---- accessors ----------------------------------------------------------------------
    def _node(self, node, base, base_value, f_locals, f_globals) -> None:
        if isinstance(node.source, SourceGroup):
            self._relational(node, f_locals, f_globals)
            return
        try:
            value = node.source.get_value(f_locals, f_globals)
        except Exception:  # noqa: BLE001 - the value is gone already: its subtree in Python, which fails
            self._python_subtree(node)  # while it is gone (torch's item accessor built over a key
            return                            # missing then passes while the key stays missing)
        manager = self._accessor(node.source, base, base_value, value)
        if manager is None:  # a Source torch has no accessor for: its subtree in Python
            self._python_subtree(node)
            return
        self._reached[manager.get_source()] = (node, base, base_value, value)
        for guard in node.guards:
            self._leaf(manager, guard, value)
        for child in node.children.values():
            self._node(child, manager, value, f_locals, f_globals)

    def _twin(self, manager) -> None:
        """A second manager of `manager`'s value, reached the same way but outside its subtree, with
        the same guards of its own (a tag-safe root's own guards, which its fast path skips)."""
        node, base, base_value, value = self._reached[manager.get_source()]
        twin = self._accessor(node.source, base, base_value, value,
                              name=f"{node.source.name()} (outside its tag-safe subtree)")
        for guard in node.guards:
            self._leaf(twin, guard, value)

    def _accessor(self, source, base, base_value, value, name=None):
        """The one manager of `source` (None: torch has no accessor for it).  torch makes a new frame-local
        manager at each call, so a source reached twice (by a relation, say) would be read twice per check."""
        name = name or source.name()
        if name not in self._managers:
            self._managers[name] = self._new_accessor(source, base, base_value, value, name)
        return self._managers[name]

    def _new_accessor(self, source, base, base_value, value, name):
        kind = self._kind
        if isinstance(source, LocalSource) and source.local_name in self._locals:
            key = (source.local_name, self._locals[source.local_name])
            return self.root.framelocals_manager(key, name, value, kind)
        if isinstance(source, (GlobalSource, GlobalsDictSource)):
            if self._globals is None:
                self._globals = self.root.globals_dict_manager(self.f_globals, "G", self.f_globals, kind)
            if isinstance(source, GlobalsDictSource):
                return self._globals
            return self._globals.dict_getitem_manager(source.global_name, name, value, kind)
        if isinstance(source, BuiltinSource):  # the frame's builtins dict, a dict torch reads straight
            if self._builtins is None:
                found = builtins_of(self.f_globals)
                self._builtins = self.root.globals_dict_manager(found, "G['__builtins_dict___0']", found, kind)
            return self._builtins.dict_getitem_manager(source.builtin_name, name, value, kind)
        if isinstance(source, ModuleSource):
            if self._modules is None:
                self._modules = self.root.globals_dict_manager(sys.modules, "sys.modules", sys.modules, kind)
            return self._modules.dict_getitem_manager(source.module_name, name, value, kind)
        if base is None:
            return None
        if type(source) is AttrSource:
            if _reads_instance_dict(base_value, source.member):  # a module's attribute: from its __dict__,
                instance_dict = base.get_generic_dict_manager(     # whose tag then stands for it
                    f"{source.base.name()}.__dict__", base_value.__dict__, kind)
                if source.member == "__dict__":
                    return instance_dict
                return instance_dict.dict_getitem_manager(source.member, name, value, kind)
            return base.getattr_manager(source.member, name, value, kind)
        if type(source) is GetItemSource:  # a dict's item read straight from the dict (a module's
            if type(base_value) is dict:    # _parameters, _modules); anything else through __getitem__
                return base.dict_getitem_manager(source.index, name, value, kind)
            return base.getitem_manager(source.index, name, value, kind)
        if type(source) is TypeSource:
            return base.type_manager(name, value, kind)
        reach = _python_accessor(source)
        return base.lambda_manager(reach, name, value, kind)

    def _manager_of(self, source, f_locals, f_globals):
        """The manager of `source` (the one _node made, if it did), None if one link has none or cannot be
        read now (torch's item accessor built over a missing key passes while it stays missing)."""
        manager = value = None
        for link in source.chain():
            base_value = value
            try:
                value = link.get_value(f_locals, f_globals)
            except Exception:  # noqa: BLE001 - a link that cannot be read has no manager
                return None
            manager = self._accessor(link, manager, base_value, value)
            if manager is None:
                return None
        return manager

    def _relational(self, node, f_locals, f_globals) -> None:
        """Guards between sources (a SourceGroup): torch's relational guards over the members' managers."""
        managers = [self._manager_of(member, f_locals, f_globals) for member in node.source.members]
        for guard in node.guards:
            kind = kind_of(guard)
            if kind.native is None or None in managers:
                self.root.add_lambda_guard(_python_leaf_of(guard, f_globals), [guard.expr], None)
            else:
                kind.native(managers, guard.expected, [guard.expr], None)

    def _python_subtree(self, node) -> None:
        """A Source without a base manager (an unknown root): its guards as one lambda guard."""
        guards = _subtree_guards(node)
        checks = [(guard.source, leaf_function(guard)) for guard in guards]
        f_globals = self.f_globals

        def check(f_locals) -> bool:
            return _python_check(checks, f_locals, f_globals)

        self.root.add_lambda_guard(check, [f"{g.expr}" for g in guards], None)

    # ---- leaves --------------------------------------------------------------------------
    def _frame_leaf(self, guard) -> None:
        """A guard over the whole frame (a SHAPE_ENV guard: sizes of several inputs) as a root lambda
        (which fails when it raises: an input is not a tensor any more)."""
        self.root.add_lambda_guard(guard.expected.check_over(self.f_globals), [guard.expr], None)

    def _leaf(self, manager, guard, value) -> None:
        verbose = [guard.expr]
        kind = kind_of(guard)
        if kind.native is not None:
            try:
                kind.native(manager, guard.expected, verbose, value)
                return
            except TypeError:  # this value has no native form of the check: the Python test below
                pass
        manager.add_lambda_guard(_python_leaf(guard, kind.reads_source), verbose, None)


def _reads_instance_dict(owner, member: str) -> bool:
    """Is `owner.member` the item `member` of owner's __dict__ (an nn.Module's own attribute, no
    descriptor of its class in the way)?  Such a read goes through the dict, as Dynamo reads modules."""
    if not isinstance(owner, torch.nn.Module) or type(owner).__getattribute__ is not object.__getattribute__:
        return False
    if member == "__dict__":
        return True
    if member not in owner.__dict__:
        return False
    descriptor = inspect.getattr_static(type(owner), member, None)
    return descriptor is None or not (hasattr(descriptor, "__set__") or hasattr(descriptor, "__delete__"))


def _python_accessor(source):
    """value of `source` from its base's value, for a link torch has no accessor for."""
    code = compile(f"lambda _b: {source.accessor('_b')}", "<native guard accessor>", "eval")
    return eval(code, {"__builtins__": {}, **SOURCE_NAMESPACE})


def _python_leaf(guard, reads_source: bool):
    """guard's Python test over one value, as a lambda guard (an exception fails it)."""
    check = leaf_function(guard)

    def test(value) -> bool:
        try:
            return check(value if reads_source else None)
        except Exception:  # noqa: BLE001 - a check that raises on the value fails the guard
            return False
    return test


def _python_leaf_of(guard, f_globals):
    """guard's Python test as a lambda guard over the frame's locals (it fetches its own source)."""
    check = leaf_function(guard)

    def test(f_locals) -> bool:
        return _python_check([(guard.source, check)], f_locals, f_globals)
    return test


def _subtree_guards(node) -> list:
    out = list(node.guards)
    for child in node.children.values():
        out.extend(_subtree_guards(child))
    return out


def _python_check(checks, f_locals, f_globals) -> bool:
    for source, check in checks:
        try:
            if not check(source.get_value(f_locals, f_globals)):
                return False
        except Exception:  # noqa: BLE001 - a check that raises on the value fails the guard
            return False
    return True
