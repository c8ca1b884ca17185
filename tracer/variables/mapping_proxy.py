"""`types.MappingProxyType(d)` made in the trace: a read-only, live view of a dict.

The proxy holds the dict's tracker, not a copy: a later `d[k] = v` swaps the dict's version
inside the proxy too (replace_children), so `mp[k]` reads what the dict holds now, as CPython's
proxy does.  Reads go to the dict; a write raises the program's TypeError (item assignment) or
AttributeError (a dict method the proxy lacks).  Rebuilt, it is a new proxy around the rebuilt
dict, so the two stay one object after the graph as they were in it.
"""
from __future__ import annotations

import types
from dataclasses import dataclass, replace

from ..exc import Unsupported, observed
from .base import VariableTracker
from .dicts import ConstDictVariable
from .get_attr import GetAttrVariable

# What a mappingproxy forwards to its mapping.
_READS = frozenset({"__getitem__", "get", "keys", "values", "items", "__len__", "__contains__", "__iter__",
                    "copy", "__reversed__", "__or__", "__ror__"})


@dataclass(frozen=True, eq=False)
class MappingProxyVariable(VariableTracker):
    """A mappingproxy over a dict made in the trace or from outside."""

    dict_var: VariableTracker = None

    def python_type(self) -> type:
        return types.MappingProxyType

    def call_method(self, tx, name, args, kwargs):
        self._check_dict_unchanged(tx)
        if name in _READS:
            if name == "copy" and (args or kwargs):
                raise observed(TypeError(f"mappingproxy.copy() takes no arguments ({len(args)} given)"))
            return self.dict_var.call_method(tx, name, list(args), dict(kwargs))
        if name in ("__setitem__", "__delitem__"):
            doing = "item assignment" if name == "__setitem__" else "item deletion"
            raise observed(TypeError(f"'mappingproxy' object does not support {doing}"))
        raise Unsupported(f"mappingproxy.{name}()")

    def _check_dict_unchanged(self, tx) -> None:
        """A proxy from outside is a snapshot of a dict the trace cannot name: after the trace changed
        a dict from outside (perhaps that one), what the snapshot says may be stale, so it is not read."""
        if self.source is None:
            return
        changed = [t for t in tx.output.side_effects.containers.values() if isinstance(t, ConstDictVariable)]
        if changed:
            raise Unsupported(f"reading the mappingproxy {self.source.name()} after the dict "
                              f"{changed[0].source.name()} changed: it may be the dict behind the proxy")

    def var_getattr(self, tx, name):
        if callable(getattr(types.MappingProxyType, name, None)):
            return GetAttrVariable(self, name)
        error = AttributeError(f"'mappingproxy' object has no attribute {name!r}")  # update, pop, setdefault...
        raise observed(error, f"AttributeError: {error}")

    def has_unpack_var_sequence(self, tx) -> bool:
        return True

    def unpack_var_sequence(self, tx):
        self._check_dict_unchanged(tx)
        return self.dict_var.unpack_var_sequence(tx)

    def truth(self, tx) -> bool:
        self._check_dict_unchanged(tx)
        return self.dict_var.truth(tx)

    def children(self):
        return [("mapping", self.dict_var)]

    def replace_children(self, swap):
        return replace(self, dict_var=swap(self.dict_var))

    def short_repr(self) -> str:
        return f"mappingproxy({self.dict_var.short_repr()})"


def make_mapping_proxy(tx, args, kwargs) -> VariableTracker:
    """`types.MappingProxyType(mapping)`: a view of a dict, which must be a mapping (CPython's check)."""
    if kwargs or len(args) != 1:
        raise observed(TypeError(f"mappingproxy() takes exactly one argument ({len(args) + len(kwargs)} given)"))
    mapping = args[0].realize()
    if isinstance(mapping, MappingProxyVariable):
        mapping = mapping.dict_var
    if isinstance(mapping, ConstDictVariable):
        return MappingProxyVariable(mapping)
    try:
        kind = mapping.python_type()
    except Unsupported:
        kind = None
    if kind in (list, tuple, set, frozenset, int, float, str, bool, type(None)):
        raise observed(TypeError(f"mappingproxy() argument must be a mapping, not {kind.__name__}"))
    raise Unsupported(f"types.MappingProxyType() of {mapping.describe()}")
