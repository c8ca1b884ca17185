"""Which subtrees of a native guard tree torch may pass by dict tags alone.

torch's GuardManager has a fast path for a subtree marked *tag safe* under a
*tag-safe root*: once a root has checked one object in full, later checks of
the same object (kept by a weak reference) pass when every dict the full check
read still has its version tag — no leaf below the root runs, except each
tensor's TENSOR_MATCH, which torch keeps running (a tensor's other leaves, a
NO_HASATTR say, are skipped: tests/tracer/test_tag_safety.py pins both).  That is sound only where every
value below the root is reached through dicts and nothing read can change
without changing one of them, so a node is tag safe here only when:

- it guards a tensor with no object-aliasing guard, reached by nothing further
  or only its own `__dict__`, tag safe (where the marking guard reads whether
  `mark_dynamic` has set its marker: the dict's tag covers it);
- or an immutable value (an int, a str, ...) with no accessor below it;
- or an exact `tuple` whose children are all its items, each tag safe;
- or an exact `dict` (not a subclass: an OrderedDict reorders without a new tag)
  whose children are all its items, each tag safe;
- or an `OrderedDict` (a module's hook dict) with no accessor below it and only its type and
  length guarded: a hook registered or removed changes its tag, a reorder changes neither;
- or an `nn.Module` with no module under it, whose only child is its `__dict__`, tag safe;

and every leaf guard on it is one of `SAFE_LEAVES` (no Python lambda guard: it
may read anything).  The roots are the tag-safe modules.  A root's own leaves
are skipped too, and a module's class can change without any dict changing
(`m.__class__ = Other`): the root's guards are installed a second time on a
twin manager outside the subtree (`twin(manager)`), which always runs — and so
a module with modules under it is never tag safe, since their classes would go
unchecked.

Standin's guard records, reasons and what-if do not change: they read
Standin's own guards, and a check made in full (check_verbose) runs every leaf.
"""
from __future__ import annotations

import collections

import torch
from torch._C._dynamo.guards import (DictGetItemGuardAccessor, GetGenericDictGuardAccessor, GetItemGuardAccessor,
                                      TupleGetItemGuardAccessor)

SAFE_LEAVES = frozenset({"TYPE_MATCH", "ID_MATCH", "EQUALS_MATCH", "NONE_MATCH", "NOT_NONE", "TRUE_MATCH",
                         "FALSE_MATCH", "TENSOR_MATCH", "DICT_CONTAINS", "DICT_LENGTH", "LENGTH_CHECK",
                         "NO_TENSOR_ALIASING"})
ORDER_BLIND_LEAVES = frozenset({"TYPE_MATCH", "DICT_LENGTH"})


def mark_tag_safe_roots(root, twin) -> list:
    """Mark the tag-safe nodes and roots under `root`; `twin(manager)` installs a root's own guards
    on a manager outside its subtree.  Returns the roots marked."""
    roots, _ = _visit(root, is_root=True)
    for node in roots:
        twin(node)
        node.mark_tag_safe_root()
    return roots


def _visit(manager, is_root: bool = False) -> tuple[list, bool]:
    """Post-order: mark `manager` tag safe if it is.  Returns the outermost tag-safe modules under it
    (roots to be) and whether any module is at or under it."""
    children = list(manager.get_child_managers())
    roots, modules_below = [], False
    for child in children:
        child_roots, child_modules = _visit(child)
        roots.extend(child_roots)
        modules_below |= child_modules
    is_module = issubclass(manager.get_type_of_guarded_value(), torch.nn.Module)
    if is_root or (is_module and modules_below) or not is_tag_safe(manager, children):
        return roots, modules_below or is_module
    manager.mark_tag_safe()
    return ([manager] if is_module else roots), modules_below or is_module


def is_tag_safe(manager, children) -> bool:
    """The rule of the module docstring, for one node whose children are already marked."""
    if not all(type(leaf).__name__ in SAFE_LEAVES for leaf in manager.get_leaf_guards()):
        return False
    kind = manager.get_type_of_guarded_value()
    accessors = manager.get_accessors()
    if issubclass(kind, torch.Tensor):
        return (all(isinstance(a, GetGenericDictGuardAccessor) for a in accessors) and _all_safe(children)
                and not manager.has_object_aliasing_guard())
    if kind is dict:
        return all(isinstance(a, DictGetItemGuardAccessor) for a in accessors) and _all_safe(children)
    if kind is collections.OrderedDict:  # a module's hook dict: its length alone, blind to the order
        return not accessors and all(type(leaf).__name__ in ORDER_BLIND_LEAVES for leaf in manager.get_leaf_guards())
    if kind is tuple:
        items = (GetItemGuardAccessor, TupleGetItemGuardAccessor)
        return all(isinstance(a, items) for a in accessors) and _all_safe(children)
    if issubclass(kind, torch.nn.Module):
        return all(isinstance(a, GetGenericDictGuardAccessor) for a in accessors) and _all_safe(children)
    return manager.is_guarded_value_immutable() and not accessors


def _all_safe(children) -> bool:
    return all(child.is_tag_safe() for child in children)
