"""functools.partial objects: a callable with some arguments bound ahead.

A partial made in the trace, or read from outside, is modelled by its three
parts (`func`, `args`, `keywords`), each a tracker: calling it calls `func` with
the bound arguments first, as Python does.  `partial(partial(f, a), b)` is
flattened to `partial(f, a, b)` as CPython flattens it, so `.func` and `.args`
answer what they answer eagerly.  Two partials are equal only when they are the
same object (partial has no `__eq__`).
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..exc import Unsupported, observed
from ..source import AttrSource
from .base import VariableTracker
from .constant import ConstantVariable
from .get_attr import GetAttrVariable
from .dicts import ConstDictVariable
from .lists import TupleVariable

_partial_ids = itertools.count()

# What a partial object has besides its three parts (dir(functools.partial(f))).
_PARTIAL_ATTRIBUTES = frozenset(name for name in dir(functools.partial(print)))


@dataclass(frozen=True, eq=False)
class FunctoolsPartialVariable(VariableTracker):
    func: VariableTracker = None
    args: tuple = ()
    keywords: dict = field(default_factory=dict)
    flattens: bool = True  # False for a partial from outside with an instance __dict__ (CPython keeps it)
    value: object = field(default=None, repr=False)  # the real partial, for one from outside

    partial_id: object = field(default_factory=lambda: next(_partial_ids))  # kept by every new version
    # One from outside: its id is its partial_id (every tracker of it is one object); hashed as a key
    # the trace's answer depends on which object it is, so this installs ID_MATCH on it.
    identity_guard: Callable[[], None] | None = field(default=None, repr=False)

    hashed_by_identity = True  # partial has no __hash__ or __eq__ of its own: a key by its identity

    def identity(self):
        return ("partial", self.partial_id)

    @classmethod
    def make(cls, func: VariableTracker, args, keywords: dict) -> "FunctoolsPartialVariable":
        """`functools.partial(func, *args, **keywords)` made in the trace."""
        inner = func.realize()
        if isinstance(inner, FunctoolsPartialVariable) and inner.flattens:
            return cls(inner.func, (*inner.args, *args), {**inner.keywords, **keywords})
        return cls(func, tuple(args), dict(keywords))

    def python_type(self) -> type:
        return functools.partial

    def call_function(self, tx, args, kwargs):
        return self.func.call_function(tx, [*self.args, *args], {**self.keywords, **kwargs})

    def call_method(self, tx, name, args, kwargs):
        if name == "__call__":
            return self.call_function(tx, args, kwargs)
        return self.var_getattr(tx, name).call_function(tx, args, kwargs)

    def var_getattr(self, tx, name):
        if name == "func":
            return self.func
        if name == "args":
            return TupleVariable(tuple(self.args))
        if name == "keywords":
            return ConstDictVariable(dict(self.keywords))
        if name == "__call__":
            return GetAttrVariable(self, name)
        if name == "__dict__" or (self.value is not None and name in vars(self.value)):
            return self._instance_dict(tx) if name == "__dict__" else \
                VariableTracker.build(tx, vars(self.value)[name], AttrSource(self.source, name))
        if name in ("__module__", "__doc__"):  # partial's own class attributes (functools.wraps reads them)
            if self.source is not None:  # an instance attribute of that name would come first
                tx.output.install_guard(AttrSource(self.source, "__dict__"), "DICT_CONTAINS", (name, False))
            return ConstantVariable(getattr(functools.partial, name))
        if name == "__class__":
            return VariableTracker.build(tx, functools.partial)
        if name not in _PARTIAL_ATTRIBUTES:  # hasattr(p, "__name__") is False, as eagerly
            raise observed(AttributeError(f"'functools.partial' object has no attribute {name!r}"),
                           f"functools.partial object has no attribute {name!r}")
        return super().var_getattr(tx, name)

    def _instance_dict(self, tx):
        """p.__dict__: of one from outside its real dict (guarded, writes replayed); one made in the trace
        has no tracked dict of its own."""
        if self.value is None or self.source is None:
            raise Unsupported("__dict__ of a functools.partial made in the trace")
        return VariableTracker.build(tx, vars(self.value), AttrSource(self.source, "__dict__"))

    def children(self):
        return [("func", self.func), *((f"args[{i}]", a) for i, a in enumerate(self.args)),
                *((f"keywords[{k!r}]", v) for k, v in self.keywords.items())]

    def replace_children(self, swap):
        return replace(self, func=swap(self.func), args=tuple(swap(a) for a in self.args),
                       keywords={k: swap(v) for k, v in self.keywords.items()})

    def short_repr(self) -> str:
        return f"partial({self.func.short_repr()}, ...)"


def partial_of(tx, func, /, *args, **keywords):
    """functools.partial(...) called in the trace (positional-only: `func=` may be one of the keywords)."""
    return FunctoolsPartialVariable.make(func, args, keywords)

