"""Source chains: where a value came from, so it can be guarded and fetched again.

A chain has one of two roots, a frame local (`L['x']`) or a module global
(`G['cfg']`), and links that read an attribute or an item.  Every Source
names itself exactly as Dynamo prints it; that name is also a valid Python
expression over the two dicts `L` and `G`, which is how a Source fetches its
value from a frame and how guards are compiled.
"""
from __future__ import annotations

import builtins
import functools
import re
import sys
from dataclasses import dataclass

import torch


class Source:
    """Base of the chain. Subclasses are frozen dataclasses."""

    def name(self) -> str:
        raise NotImplementedError(type(self).__name__)  # every subclass defines it

    def root(self) -> "Source":
        return self

    def chain(self) -> tuple["Source", ...]:
        """Root first, self last."""
        return (self,)

    def expression(self) -> str:
        """Python over `L` and `G` that computes the value; usually the name itself."""
        return self.name()

    def accessor(self, base_expr: str) -> str:
        """Python that computes this value from its base's value (roots ignore `base_expr`)."""
        return self.expression()

    def get_value(self, f_locals: dict, f_globals: dict):
        """Fetch the value this source names from a frame's locals and globals."""
        return _fetcher(self.expression())(f_locals, f_globals)

    def reconstruct(self, codegen) -> None:
        """Emit bytecode that pushes this value, in a frame of the original function."""
        raise NotImplementedError(type(self).__name__)

    def is_global(self) -> bool:
        return isinstance(self.root(), GlobalSource)

    def graph_input_name(self) -> str:
        """The FX placeholder name Dynamo derives from this source (`L['x']` -> `L_x_`)."""
        return re.sub(r"[^a-zA-Z0-9]+", "_", self.name())

    def __str__(self) -> str:
        return self.name()


@dataclass(frozen=True)
class LocalSource(Source):
    local_name: str

    def name(self) -> str:
        return f"L[{self.local_name!r}]"

    def reconstruct(self, codegen):
        codegen.load_local(self.local_name)


@dataclass(frozen=True)
class GlobalSource(Source):
    global_name: str

    def name(self) -> str:
        return f"G[{self.global_name!r}]"

    def reconstruct(self, codegen):
        codegen.load_global(self.global_name)


@dataclass(frozen=True)
class GlobalsDictSource(Source):
    """The frame's globals dict itself: a builtin the trace read is guarded on its name staying
    out of it (a module global of that name would shadow the builtin)."""

    def name(self) -> str:
        return "G"


@dataclass(frozen=True)
class BuiltinSource(Source):
    """A builtin the frame's globals resolve a name to, named as Dynamo names it: Dynamo stores the
    builtins dict in the globals as `__builtins_dict___0`; we read the frame's own."""

    builtin_name: str

    def name(self) -> str:
        return f"G['__builtins_dict___0'][{self.builtin_name!r}]"

    def expression(self) -> str:
        return f"_builtins_of(G)[{self.builtin_name!r}]"

    def reconstruct(self, codegen):
        codegen.load_global(self.builtin_name)  # guarded: no global of that name shadows it


def builtins_of(f_globals: dict) -> dict:
    """The builtins a frame with these globals resolves names in (`__builtins__`, a module or its dict)."""
    found = f_globals.get("__builtins__", builtins)
    return found if isinstance(found, dict) else vars(found)


@dataclass(frozen=True)
class ModuleSource(Source):
    """The module whose globals an inlined function reads (Dynamo's `G['__import_...']`)."""

    module_name: str

    def name(self) -> str:
        return f"G[{'__import_' + self.module_name.replace('.', '_dot_')!r}]"

    def expression(self) -> str:
        return f"_modules[{self.module_name!r}]"

    def reconstruct(self, codegen):
        codegen.load_const(sys.modules[self.module_name])


@dataclass(frozen=True)
class ChainedSource(Source):
    """A link: a value reached from `base`."""

    base: Source

    def root(self) -> Source:
        return self.base.root()

    def chain(self) -> tuple[Source, ...]:
        return self.base.chain() + (self,)


@dataclass(frozen=True)
class AttrSource(ChainedSource):
    member: str

    def name(self) -> str:
        if self.member.isidentifier():
            return f"{self.base.name()}.{self.member}"
        return f"getattr({self.base.name()}, {self.member!r})"

    def expression(self) -> str:
        return self.accessor(self.base.expression())

    def accessor(self, base_expr: str) -> str:
        if self.member.isidentifier():
            return f"{base_expr}.{self.member}"
        return f"getattr({base_expr}, {self.member!r})"

    def reconstruct(self, codegen):
        if self.member.isidentifier():
            self.base.reconstruct(codegen)
            codegen.load_attr(self.member)
        else:
            codegen.call(getattr, lambda: (self.base.reconstruct(codegen), codegen.load_const(self.member)), 2)


@dataclass(frozen=True)
class GetItemSource(ChainedSource):
    index: object  # a hashable constant: int, str, a slice is not allowed

    def name(self) -> str:
        return f"{self.base.name()}[{self.index!r}]"

    def expression(self) -> str:
        return self.accessor(self.base.expression())

    def accessor(self, base_expr: str) -> str:
        return f"{base_expr}[{key_text(self.index)}]"

    def reconstruct(self, codegen):
        self.base.reconstruct(codegen)
        codegen.load_const(self.index)
        codegen.emit("BINARY_SUBSCR")


@dataclass(frozen=True)
class DictItemSource(ChainedSource):
    """An item of a dict subclass read as dict's own C method reads it (a ModelOutput's field),
    so a guard or a rebuild does not run the class's Python __getitem__."""

    index: object

    def name(self) -> str:
        return f"___dict_getitem({self.base.name()}, {self.index!r})"

    def expression(self) -> str:
        return self.accessor(self.base.expression())

    def accessor(self, base_expr: str) -> str:
        return f"_dict_getitem({base_expr}, {self.index!r})"

    def reconstruct(self, codegen):
        codegen.call(dict.__getitem__, lambda: (self.base.reconstruct(codegen), codegen.load_const(self.index)), 2)


@dataclass(frozen=True)
class DictValueSource(ChainedSource):
    """The value at a position of a dict whose key has no literal (a class, `typing.Union`, a
    tensor); the dict's keys are guarded, which pins the position.  Named as Dynamo names it: the
    dict read at its key's source."""

    index: int

    def name(self) -> str:
        return f"{self.base.name()}[{DictKeySource(self.base, self.index).name()}]"

    def expression(self) -> str:
        return self.accessor(self.base.expression())

    def accessor(self, base_expr: str) -> str:
        return f"_dict_value_at({base_expr}, {self.index})"

    def reconstruct(self, codegen):
        codegen.call(dict_value_at, lambda: (self.base.reconstruct(codegen), codegen.load_const(self.index)), 2)


def dict_value_at(mapping: dict, index: int):
    return list(mapping.values())[index]


@dataclass(frozen=True)
class DictKeySource(ChainedSource):
    """The key at a position of a dict, for a key hashed by identity (a tensor, a parameter, a
    module): Dynamo's `list(dict.keys(d))[i]`, guarded by identity, which pins the position."""

    index: int

    def name(self) -> str:
        return f"list(dict.keys({self.base.name()}))[{self.index}]"

    def expression(self) -> str:
        return self.accessor(self.base.expression())

    def accessor(self, base_expr: str) -> str:
        return f"_dict_key_at({base_expr}, {self.index})"

    def reconstruct(self, codegen):
        codegen.call(dict_key_at, lambda: (self.base.reconstruct(codegen), codegen.load_const(self.index)), 2)


def dict_key_at(mapping: dict, index: int):
    return list(dict.keys(mapping))[index]


@dataclass(frozen=True)
class SetItemSource(ChainedSource):
    """The item at a position of a set's iteration order: Dynamo's `list(s)[i]`.  The order follows
    the hash table, not insertion; a set iterating in another order fails the item's guard."""

    index: int

    def name(self) -> str:
        return f"list({self.base.name()})[{self.index}]"

    def expression(self) -> str:
        return self.accessor(self.base.expression())

    def accessor(self, base_expr: str) -> str:
        return f"_set_item_at({base_expr}, {self.index})"

    def reconstruct(self, codegen):
        codegen.call(set_item_at, lambda: (self.base.reconstruct(codegen), codegen.load_const(self.index)), 2)


def set_item_at(items: set, index: int):
    return list(items)[index]


@dataclass(frozen=True)
class TypeSource(ChainedSource):
    """type(base): where class attributes are read from."""

    def name(self) -> str:
        return f"type({self.base.name()})"

    def expression(self) -> str:
        return self.accessor(self.base.expression())

    def accessor(self, base_expr: str) -> str:
        return f"type({base_expr})"

    def reconstruct(self, codegen):
        codegen.call(type, lambda: self.base.reconstruct(codegen), 1)


@dataclass(frozen=True)
class IterItemSource(ChainedSource):
    """The i-th item still ahead of a tuple or list iterator (a loop resumed after a break)."""

    index: int

    def name(self) -> str:
        return f"___tuple_iterator_getitem({self.base.name()}, {self.index})"

    def expression(self) -> str:
        return self.accessor(self.base.expression())

    def accessor(self, base_expr: str) -> str:
        return f"_iter_item({base_expr}, {self.index})"

    def reconstruct(self, codegen):
        codegen.call(iterator_item, lambda: (self.base.reconstruct(codegen), codegen.load_const(self.index)), 2)


@dataclass(frozen=True)
class NumpyTensorSource(ChainedSource):
    """The tensor an np.ndarray is as a graph input: `torch.as_tensor(base)` (shares its memory)."""

    def name(self) -> str:
        return f"___as_tensor({self.base.name()})"

    def expression(self) -> str:
        return self.accessor(self.base.expression())

    def accessor(self, base_expr: str) -> str:
        return f"_as_tensor({base_expr})"

    def graph_input_name(self) -> str:
        return self.base.graph_input_name()  # the placeholder is named after the array, as in Dynamo

    def reconstruct(self, codegen):
        codegen.call(torch.as_tensor, lambda: self.base.reconstruct(codegen), 1)


@dataclass(frozen=True)
class FloatTensorSource(ChainedSource):
    """The 0-d float64 tensor a symbolic float argument is as a graph input (Dynamo's FloatTensorSource:
    `torch._as_tensor_fullprec(base)`); the graph reads its value back with `item()`."""

    def name(self) -> str:
        return f"___as_tensor({self.base.name()})"

    def expression(self) -> str:
        return self.accessor(self.base.expression())

    def accessor(self, base_expr: str) -> str:
        return f"_as_float64_tensor({base_expr})"

    def graph_input_name(self) -> str:
        return self.base.graph_input_name()  # the placeholder is named after the float, as in Dynamo

    def reconstruct(self, codegen):
        codegen.call(torch._as_tensor_fullprec, lambda: self.base.reconstruct(codegen), 1)


@dataclass(frozen=True)
class SourceGroup(Source):
    """Several sources read together: the root of a guard on how their values relate (two names for
    one object, tensors that must stay distinct).  Its value is the tuple of theirs."""

    members: tuple[Source, ...]

    def name(self) -> str:
        return f"({', '.join(member.name() for member in self.members)})"

    def expression(self) -> str:
        return f"({', '.join(member.expression() for member in self.members)},)"


def iterator_remaining(iterator) -> tuple:
    """What a tuple/list iterator will still yield, without advancing it."""
    _, (sequence,), position = iterator.__reduce__()
    return tuple(sequence[position:])


def iterator_item(iterator, index: int):
    return iterator_remaining(iterator)[index]


def _as_tensor(value):
    return torch.as_tensor(value)


def _as_float64_tensor(value):
    return torch._as_tensor_fullprec(value)


SOURCE_NAMESPACE = {"getattr": getattr, "type": type, "_dict_getitem": dict.__getitem__, "_builtins_of": builtins_of,
                    "_dict_value_at": dict_value_at, "_dict_key_at": dict_key_at,
                    "_set_item_at": set_item_at, "_modules": sys.modules, "_iter_item": iterator_item,
                    "_iter_len": lambda it: len(iterator_remaining(it)), "_as_tensor": _as_tensor,
                    "_as_float64_tensor": _as_float64_tensor}
_KEY_NAMES: dict = {}  # (type, key) of each constant key no literal writes -> its name in SOURCE_NAMESPACE


def key_text(key) -> str:
    """How an expression writes a constant key or index: a literal by its repr; any other constant by a
    name bound to it (a numpy scalar prints as np.float64(1.0), and no expression binds np)."""
    if _is_literal(key):
        return repr(key)
    tag = (type(key), key)
    name = _KEY_NAMES.get(tag)
    if name is None:
        name = _KEY_NAMES[tag] = f"_key{len(_KEY_NAMES)}"
        SOURCE_NAMESPACE[name] = key
    return name


def _is_literal(value) -> bool:
    """Whether repr(value) evaluates back to an equal value of the same type, with no names."""
    if type(value) in (int, str, bytes, bool, type(None)):
        return True
    if type(value) is float:
        return value == value and value not in (float("inf"), float("-inf"))
    return type(value) is tuple and all(_is_literal(item) for item in value)


@functools.lru_cache(maxsize=4096)
def _fetcher(expression: str):
    code = compile(f"lambda L, G: {expression}", "<source>", "eval")
    return eval(code, {"__builtins__": {}, **SOURCE_NAMESPACE})


@dataclass(frozen=True)
class TensorPropertySource(ChainedSource):
    """A size, stride or storage offset of a tensor: what a symbol of the ShapeEnv stands for."""

    prop: str  # "size", "stride" or "storage_offset"
    index: int | None = None

    def name(self) -> str:
        if self.prop == "storage_offset":
            return f"{self.base.name()}.storage_offset()"
        return f"{self.base.name()}.{self.prop}()[{self.index}]"

    def expression(self) -> str:
        return self.accessor(self.base.expression())

    def accessor(self, base_expr: str) -> str:
        if self.prop == "storage_offset":
            return f"{base_expr}.storage_offset()"
        return f"{base_expr}.{self.prop}()[{self.index}]"

    def reconstruct(self, codegen):
        method = getattr(torch.Tensor, self.prop)
        if self.index is None:
            codegen.call(method, lambda: self.base.reconstruct(codegen), 1)
        else:
            codegen.call(method, lambda: (self.base.reconstruct(codegen), codegen.load_const(self.index)), 2)
