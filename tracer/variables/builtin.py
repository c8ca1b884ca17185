"""Builtins and the operator module: folded on constants, graph nodes on tensors."""
from __future__ import annotations

import builtins
import functools
import inspect
import math
import operator
import sys
import types
from dataclasses import dataclass

import torch

from ..exc import ObservedException, Unsupported, observed
from ..source import TypeSource
from .base import VariableTracker
from .key_hashes import traced_hash
from .constant import ConstantVariable
from .dicts import ConstDictVariable, DictViewVariable
from .dunder import python_dunder
from .functional import call_zip, handler_for
from .functions import TorchFunctionVariable
from .generator import GeneratorVariable
from .lists import (BaseListVariable, ListIteratorVariable, ListVariable, RangeVariable, SliceVariable, TupleVariable,
                    hash_key, items_of, sorted_items)
from .container_bases import container_base, container_text, is_container_object
from .numpy import numpy_min_max
from .mapping_proxy import MappingProxyVariable, make_mapping_proxy
from .get_attr import GetAttrVariable
from .misc import SuperVariable, UserDefinedClassVariable, UserDefinedObjectVariable
from .object_protocol import InstanceDictVariable, is_mapping_object, mapping_entries
from .operators import OperatorGetterVariable, apply_operator, realized
from .sets import FrozensetVariable, SetVariable, unique_items
from .sym import SymNodeVariable, sym_builtin, symbolic_prod
from .tensor import TensorVariable
from . import function_attrs
from .user_functions import BaseUserFunctionVariable, UserMethodVariable

# Every builtin function of the math module is pure: fold it on constant arguments.
MATH_FUNCTIONS = frozenset(fn for fn in vars(math).values() if isinstance(fn, type(math.sqrt)))

# Pure functions safe to evaluate at trace time on constant arguments.
CONSTANT_FOLDABLE = frozenset({
    abs, min, max, round, pow, divmod, len, bool, int, float, complex, bin, oct, hex, str, repr, hash, sum, all, any,
    sorted, chr, ord, tuple, list, dict, set, frozenset, format, type, callable, slice, issubclass, sys.intern,
    *MATH_FUNCTIONS,
    *(fn for fn in vars(operator).values() if callable(fn) and not isinstance(fn, type)),
})


def _names_legacy_tensor_type(cls) -> bool:
    """Whether isinstance's second argument is (or holds) a class like torch.LongTensor."""
    if isinstance(cls, tuple):
        return any(_names_legacy_tensor_type(c) for c in cls)
    return isinstance(cls, type) and cls in torch._tensor_classes


@functools.lru_cache(maxsize=None)
def _takes(func, leading: int, positional: int, keywords: tuple) -> bool:
    """Whether func accepts `leading` fixed arguments, `positional` more and these keyword names.

    Only the counts and names decide, so the answer is cached: a builtin's handler is checked
    on every call of the builtin in a trace.
    """
    try:
        inspect.signature(func).bind(*range(leading + positional), **dict.fromkeys(keywords))
    except TypeError:
        return False
    return True


_NO_VALUE = object()

# The names a builtin function answers as constants.
NAME_ATTRIBUTES = ("__name__", "__qualname__", "__module__")


def _type_always_has(obj, name: str) -> bool:
    """hasattr(obj, name) answered by obj's type alone: a method or a plain value stored on the
    class (`__eq__`, `__reduce__`, `__doc__`) is found on every instance, whatever the instance
    holds.  A data descriptor (a property, a slot) may raise, so it is not answered this way."""
    try:
        cls = obj.python_type()
    except (NotImplementedError, Unsupported):
        return False
    if name == "__class__":
        return True
    try:
        attr = inspect.getattr_static(cls, name)
    except AttributeError:
        return False
    return not (hasattr(type(attr), "__set__") or hasattr(type(attr), "__delete__"))


def _ints_and_sizes(items) -> bool:
    """Ints and symbolic ints, one symbolic at least: what sum() of a list makes one torch.sym_sum of."""
    return any(isinstance(i, SymNodeVariable) for i in items) and all(
        isinstance(i.value, torch.SymInt) if isinstance(i, SymNodeVariable)
        else i.is_python_constant() and isinstance(i.as_python_constant(), int) for i in items)


@dataclass(frozen=True, eq=False)
class BuiltinVariable(VariableTracker):
    """A builtin function, or a function of the operator or math module."""

    fn: object = None

    CONSTRUCTORS = (list, tuple, dict, range, slice, int, float, complex, bool, str, set, frozenset,
                    enumerate, zip, reversed, operator.itemgetter, operator.attrgetter,
                    operator.methodcaller)

    def python_type(self) -> type:
        return type(self.fn)

    def as_python_constant(self):
        return self.fn

    def short_repr(self) -> str:
        return f"builtin {getattr(self.fn, '__name__', self.fn)}"

    def var_getattr(self, tx, name):
        if name in NAME_ATTRIBUTES and isinstance(getattr(self.fn, name, None), str):
            return ConstantVariable(getattr(self.fn, name))  # dict.fromkeys.__name__, len.__qualname__
        if name in function_attrs.WRAPS_READS and isinstance(self.fn, types.BuiltinFunctionType):
            return function_attrs.read_now(tx, self.fn, name, f"builtin {self.fn.__name__}")  # functools.wraps(len)
        return super().var_getattr(tx, name)

    def call_function(self, tx, args, kwargs):
        args = realized(args)
        kwargs = {k: v.realize() for k, v in kwargs.items()}
        name = getattr(self.fn, "__name__", "")
        if not kwargs and any(isinstance(a, SymNodeVariable) for a in args):
            result = sym_builtin(tx, self.fn, args)  # int()/float()/max()/min()/abs() of a symbolic size
            if result is not None:
                return result
        modelled = handler_for(self.fn)
        if modelled is not None and _takes(modelled, 1, len(args), tuple(kwargs)):
            return modelled(tx, *args, **kwargs)
        handler = self._handler(name)
        if handler is not None and _takes(handler.__func__, 2, len(args), tuple(kwargs)):
            result = handler(tx, *args, **kwargs)
            if result is not None:
                return result
        if getattr(operator, name, None) is self.fn and not kwargs:
            return apply_operator(tx, self.fn, args)
        if self.fn in CONSTANT_FOLDABLE and all(
                a.is_python_constant() for a in list(args) + list(kwargs.values())):
            try:
                value = self.fn(*[a.as_python_constant() for a in args],
                                **{k: v.as_python_constant() for k, v in kwargs.items()})
            except Exception as error:
                raise observed(error, f"{name}() raised {type(error).__name__}: {error} at trace time") from error
            return VariableTracker.build(tx, value)
        product = symbolic_prod(tx, args, kwargs) if self.fn is math.prod else None
        if product is not None:
            return product
        if self.fn is print:
            raise Unsupported("print() has a side effect outside the graph")
        raise Unsupported(f"builtin {name}() on {', '.join(a.describe() for a in args) or 'no arguments'}")

    def _handler(self, name: str):
        """The call_<name> method that models this builtin, if any."""
        if name == "fromkeys" and isinstance(getattr(self.fn, "__self__", None), type):
            return self.call_dict_fromkeys  # a bound classmethod of dict (or a collections dict)
        if self.fn is types.MappingProxyType:
            return self.call_mappingproxy
        if getattr(builtins, name, None) is self.fn or getattr(operator, name, None) is self.fn:
            return getattr(self, f"call_{name}", None)
        return None

    def call_itemgetter(self, tx, *keys):
        return OperatorGetterVariable(self.fn, tuple(keys))

    call_attrgetter = call_methodcaller = call_itemgetter

    # ---- builtins with symbolic meaning (return None to fall through) --------------
    def call_len(self, tx, obj):
        if isinstance(obj, TensorVariable):
            if obj.example.dim() == 0:
                raise Unsupported("len() of a 0-d tensor")
            return obj.call_method(tx, "__len__", [], {})  # a symbolic size stays symbolic
        if isinstance(obj, (BaseListVariable, ConstDictVariable, DictViewVariable)):
            return obj.call_method(tx, "__len__", [], {})  # without realizing (and guarding) the items
        return obj.call_method(tx, "__len__", [], {}) if not obj.is_python_constant() else None

    def call_hash(self, tx, obj):
        """hash(obj) of a user object whose class has its own __hash__: traced, as Dynamo traces it."""
        return ConstantVariable(traced_hash(tx, obj)) if obj.has_own_hash() else None

    def call_isinstance(self, tx, obj, classes):
        cls = classes.as_python_constant()
        if isinstance(obj, TensorVariable) and _names_legacy_tensor_type(cls):
            # torch.FloatTensor and kin check dtype and device, not the class: ask the fake tensor
            # (its dtype and device are guarded with the tensor)
            return ConstantVariable(isinstance(obj.example, cls))
        return ConstantVariable(issubclass(obj.python_type(), cls))

    def call_type(self, tx, obj):
        """type(obj) keeps obj's Source, so class attributes read through it are guarded."""
        cls = obj.python_type()
        if cls is torch.Tensor:
            return VariableTracker.build(tx, cls)
        # an object made in the trace has no source, but its class may (cls_source)
        source = TypeSource(obj.source) if obj.source is not None else getattr(obj, "cls_source", None)
        return VariableTracker.build(tx, cls, source)

    def call_id(self, tx, obj):
        """id() of a singleton, or of an outside object pinned by an identity guard."""
        if isinstance(obj, ConstantVariable) and any(obj.value is s for s in (None, True, False)):
            return ConstantVariable(id(obj.value))
        real = getattr(obj, "value", _NO_VALUE)
        if obj.source is None or real is _NO_VALUE or isinstance(obj, TensorVariable) \
                or getattr(obj, "is_new", lambda: False)():
            raise Unsupported(f"id() of {obj.describe()}, an object made in the trace")
        tx.output.install_guard(obj.source, "ID_MATCH", real)
        return ConstantVariable(id(real))

    def call_super(self, tx, *args):
        if args:
            cls, obj = args
            return SuperVariable(cls=cls.as_python_constant(), obj=obj)
        code = tx.code
        if "__class__" not in code.co_freevars or not code.co_varnames:
            raise Unsupported("super() outside a method")
        cell = tx.cells.get("__class__")
        cls = tx.output.side_effects.load_cell(cell.cell_id) if cell is not None else None
        first = code.co_varnames[0]
        obj = tx.symbolic_locals.get(first)
        if obj is None and first in tx.cells:
            obj = tx.output.side_effects.load_cell(tx.cells[first].cell_id)
        if cls is None or obj is None:
            raise Unsupported("super() without its class cell or first argument")
        return SuperVariable(cls=cls.as_python_constant(), obj=obj)

    def call_sorted(self, tx, obj, **kwargs):
        return ListVariable(tuple(sorted_items(tx, list(self._sequence(tx, obj)), kwargs)))

    def call_sum(self, tx, obj, start=None):
        total = start if start is not None else ConstantVariable(0)
        if isinstance(obj, GeneratorVariable):  # pulled one item at a time, as sum() does: ops interleave
            while (step := obj.next_item(tx)) is not None:
                total = apply_operator(tx, operator.add, [total, step[0]])
            return total
        items = [i.realize() for i in self._sequence(tx, obj)]
        if all(i.is_python_constant() for i in items) and total.is_python_constant():
            try:
                return ConstantVariable(sum((i.as_python_constant() for i in items), total.as_python_constant()))
            except TypeError as error:  # sum((1, ())) or sum(["a"]): the program's own error
                raise observed(error, f"sum() raised TypeError: {error} at trace time") from error
        if start is None and isinstance(obj, (ListVariable, TupleVariable)) and _ints_and_sizes(items):
            return tx.output.call(tx, "call_function", torch.sym_sum, (TupleVariable(tuple(items)),), {})  # Dynamo's
        for item in items:
            total = apply_operator(tx, operator.add, [total, item])
        return total

    def _all_any(self, tx, obj, combine):
        """Each item's truth in turn, up to the first decisive one, as all()/any() and Dynamo's polyfill
        do: a symbolic bool is decided with a guard as an `if` decides it; a tensor's truth breaks."""
        decisive = combine is any
        if isinstance(obj, GeneratorVariable):
            while (step := obj.next_item(tx)) is not None:
                if step[0].realize().truth(tx) is decisive:
                    return ConstantVariable(decisive)
            return ConstantVariable(not decisive)
        for item in self._sequence(tx, obj):
            if item.realize().truth(tx) is decisive:
                return ConstantVariable(decisive)
        return ConstantVariable(not decisive)

    def call_all(self, tx, obj):
        return self._all_any(tx, obj, all)

    def call_any(self, tx, obj):
        return self._all_any(tx, obj, any)

    def call_getattr(self, tx, obj, name, default=None):
        attr = name.as_python_constant()
        if default is None:
            return obj.var_getattr(tx, attr)
        try:
            return obj.var_getattr(tx, attr)
        except Unsupported as error:
            if "has no attribute" in str(error):
                return default
            raise

    def call_vars(self, tx, obj):
        """vars(obj) is obj.__dict__."""
        return obj.var_getattr(tx, "__dict__")

    def call_setattr(self, tx, obj, name, value):
        obj.store_attr(tx, name.as_python_constant(), value)
        return ConstantVariable(None)

    def call_delattr(self, tx, obj, name):
        obj.del_attr(tx, name.as_python_constant())
        return ConstantVariable(None)

    def call_hasattr(self, tx, obj, name):
        try:
            obj.var_getattr(tx, name.as_python_constant())
            return ConstantVariable(True)
        except Unsupported as error:
            if "has no attribute" in str(error):
                return ConstantVariable(False)
            if isinstance(error, ObservedException) and issubclass(error.raised_type(), AttributeError):
                return ConstantVariable(False)  # a __getattr__ or property of the program's raised it
            if _type_always_has(obj, name.as_python_constant()):
                return ConstantVariable(True)
            raise

    def call_range(self, tx, *args):
        return RangeVariable(range(*[a.specialize(f"range() needs a plain int, not {a.expr()}", tx)
                                     if isinstance(a, SymNodeVariable) else a.as_python_constant() for a in args]))

    def call_slice(self, tx, *args):
        parts = list(args) + [ConstantVariable(None)] * (3 - len(args))
        if len(args) == 1:
            parts = [ConstantVariable(None), args[0], ConstantVariable(None)]
        return SliceVariable(*parts)

    def _sequence(self, tx, obj):
        return items_of(tx, obj)

    def call_list(self, tx, obj=None):
        return ListVariable(tuple(self._sequence(tx, obj)) if obj is not None else ())

    def call_tuple(self, tx, obj=None):
        return TupleVariable(tuple(self._sequence(tx, obj)) if obj is not None else ())

    def call_dict(self, tx, obj=None, **kwargs):
        entries = {}
        if isinstance(obj, (MappingProxyVariable, InstanceDictVariable)):  # dict(mappingproxy(d)), dict(o.__dict__)
            obj = obj.call_method(tx, "copy", [], {})
        if obj is not None:
            if isinstance(obj, ConstDictVariable):
                entries.update(obj.read_entries())
            elif isinstance(obj, UserDefinedObjectVariable) and is_mapping_object(obj):
                entries.update(mapping_entries(tx, obj))
            else:
                for i, pair in enumerate(self._sequence(tx, obj)):
                    parts = items_of(tx, pair)
                    if len(parts) != 2:
                        raise observed(ValueError(f"dictionary update sequence element #{i} has length "
                                                  f"{len(parts)}; 2 is required"))
                    entries[hash_key(parts[0])] = parts[1]
        entries.update(kwargs)
        return ConstDictVariable(entries)

    def call_dict_fromkeys(self, tx, keys, value=None):
        """dict.fromkeys(keys, value): every key maps to the one `value` tracker (shared, like Python)."""
        value = value if value is not None else ConstantVariable(None)
        entries = {hash_key(k.realize()): value for k in self._sequence(tx, keys)}
        return ConstDictVariable(entries, dict_cls=self.fn.__self__)  # defaultdict's: no default_factory

    def call_set(self, tx, obj=None):
        return SetVariable(unique_items(self._sequence(tx, obj)) if obj is not None else ())

    def call_mappingproxy(self, tx, *args, **kwargs):
        return make_mapping_proxy(tx, args, kwargs)

    def call_frozenset(self, tx, obj=None):
        """frozenset(items): a constant when every item is one, else a frozenset of tensors or objects."""
        items = unique_items(self._sequence(tx, obj)) if obj is not None else ()
        if all(item.is_python_constant() for item in items):
            return ConstantVariable(frozenset(item.as_python_constant() for item in items))
        return FrozensetVariable(items)

    def call_iter(self, tx, obj):
        if isinstance(obj, (ListIteratorVariable, GeneratorVariable)):  # an iterator is its own iter()
            return obj
        if python_dunder(obj, "__iter__") is not None:
            it = obj.call_method(tx, "__iter__", [], {}).realize()
            if not isinstance(it, (ListIteratorVariable, GeneratorVariable)):
                raise Unsupported(f"{obj.describe()}.__iter__() returned {it.describe()}, not a known iterator")
            return it
        of_sequence = isinstance(obj.realize() if obj.is_lazy() else obj, BaseListVariable)
        return ListIteratorVariable(tuple(self._sequence(tx, obj)), over_a_sequence=of_sequence)

    def call_next(self, tx, it, default=None):
        if not isinstance(it, (ListIteratorVariable, GeneratorVariable)):
            raise Unsupported(f"next() on {it.describe()}")
        step = it.next_item(tx)
        if step is None:
            if default is not None:
                return default
            raise observed(StopIteration(), "StopIteration at trace time")
        item, advanced = step
        if advanced is not it:  # a list iterator is a new tracker per position; a generator is one
            tx.replace_all(it, advanced)
        return item

    def call_enumerate(self, tx, obj, start=None):
        first = start.as_python_constant() if start is not None else 0
        items = self._sequence(tx, obj)
        return ListIteratorVariable(tuple(TupleVariable((ConstantVariable(i), item))
                                          for i, item in enumerate(items, first)))

    def call_zip(self, tx, *seqs, strict=None):
        return call_zip(tx, *seqs, strict=strict)  # lazy, as Python's

    def call_reversed(self, tx, obj):
        return ListIteratorVariable(tuple(reversed(self._sequence(tx, obj))))

    def call_abs(self, tx, obj):
        if python_dunder(obj, "__abs__") is not None:
            return obj.call_method(tx, "__abs__", [], {})
        if isinstance(obj, TensorVariable):  # a tensor, or an ndarray (NumPy's abs)
            return apply_operator(tx, operator.abs, [obj])
        return None

    def _min_max(self, tx, args, key=None, default=None):
        """min()/max(): tensors become clamp/maximum/minimum nodes; key= and default= fold on constants."""
        if len(args) == 1:
            args = self._sequence(tx, args[0])
        elif default is not None:
            raise Unsupported(f"TypeError: {self.fn.__name__}() default= with several positional arguments")
        args = realized(args)
        if (key is not None or default is not None) and not all(a.is_python_constant() for a in args):
            raise Unsupported(f"{self.fn.__name__}() with key= or default= over values that are not constants")
        if not args:
            if default is not None:
                return default
            raise Unsupported(f"ValueError: {self.fn.__name__}() of an empty sequence at trace time")
        if key is not None and not (key.is_python_constant() and key.as_python_constant() is None):
            return self._min_max_by_key(tx, args, key)
        if not any(isinstance(a, TensorVariable) for a in args):
            if all(a.is_python_constant() for a in args):  # folded here: a generator argument is spent
                return VariableTracker.build(tx, self.fn([a.as_python_constant() for a in args]))
            return self._min_max_symbolic(tx, args)
        arrays = numpy_min_max(tx, self.fn, args)
        if arrays is not None:
            return arrays
        result = args[0]
        for other in args[1:]:
            a, b = (result, other) if isinstance(result, TensorVariable) else (other, result)
            if b.is_python_constant():
                bound = "min" if self.fn is max else "max"
                result = tx.output.call(tx, "call_function", torch.clamp, (a,), {bound: b})
            else:
                pairwise = torch.maximum if self.fn is max else torch.minimum
                result = tx.output.call(tx, "call_function", pairwise, (a, b), {})
        return result

    def _min_max_symbolic(self, tx, items):
        """min()/max() of a sequence, or of more than two values, with symbolic sizes among them: one
        sym_min/sym_max per pair, left to right, as Dynamo reduces it (it was specialised, a recompile
        per size); None where an item is neither a symbol nor a number."""
        result = items[0]
        for other in items[1:]:
            result = sym_builtin(tx, self.fn, [result, other]) if result is not None else None
        return result

    def _min_max_by_key(self, tx, items, key):
        """The item whose key is least/greatest, the key traced on each item."""
        keys = [key.call_function(tx, [item], {}).realize() for item in items]
        if not all(k.is_python_constant() for k in keys):
            raise Unsupported(f"{self.fn.__name__}() with a key= that depends on tensor data")
        values = [k.as_python_constant() for k in keys]
        try:
            best = self.fn(range(len(items)), key=values.__getitem__)
        except Exception as error:
            raise Unsupported(f"{self.fn.__name__}() raised {type(error).__name__}: {error} at trace time") from error
        return items[best]

    def call_max(self, tx, *args, key=None, default=None):
        return self._min_max(tx, args, key, default)

    def call_min(self, tx, *args, key=None, default=None):
        return self._min_max(tx, args, key, default)

    def call_bool(self, tx, obj=None):
        if obj is None:
            return ConstantVariable(False)
        return ConstantVariable(obj.truth(tx))

    def call_int(self, tx, obj=None, *rest):
        if isinstance(obj, TensorVariable) and not rest:  # an unbacked symbol where captured, else a break
            return obj.call_method(tx, "__int__", [], {})
        if isinstance(obj, TensorVariable):
            raise Unsupported("int() of a tensor needs its data at trace time")
        return None

    def call_float(self, tx, obj=None, *rest):
        if isinstance(obj, TensorVariable):
            return obj.call_method(tx, "__float__", [], {})
        return None

    def call_callable(self, tx, obj):
        if isinstance(obj, (TorchFunctionVariable, BuiltinVariable, GetAttrVariable, UserMethodVariable,
                            BaseUserFunctionVariable, UserDefinedClassVariable)):
            return ConstantVariable(True)
        if isinstance(obj, (TensorVariable, ConstantVariable, BaseListVariable, ConstDictVariable)):
            return ConstantVariable(False)
        try:
            cls = obj.python_type()
        except Unsupported:
            return None
        # callable() asks the type, never the instance (an instance __call__ does not count)
        return ConstantVariable(any("__call__" in vars(klass) for klass in cls.__mro__))

    def _user_text(self, tx, obj, name):
        """str()/repr() of a user object whose class writes that method in Python: traced."""
        if python_dunder(obj, name) is None:
            return None
        text = obj.call_method(tx, name, [], {}).realize()
        if not (text.is_python_constant() and isinstance(text.as_python_constant(), str)):
            raise observed(TypeError(f"{name} returned non-string"), f"{name} returned {text.describe()}")
        return text

    def call_str(self, tx, obj=None):
        if obj is None:
            return None
        if python_dunder(obj, "__str__", tx) is not None:
            return self._user_text(tx, obj, "__str__")
        if python_dunder(obj, "__repr__") is not None and obj.python_type().__str__ is object.__str__:
            return self._user_text(tx, obj, "__repr__")  # object.__str__ calls repr()
        return self._default_text(tx, obj, "__str__")

    def call_repr(self, tx, obj):
        return self._user_text(tx, obj, "__repr__") or self._default_text(tx, obj, "__repr__")

    @staticmethod
    def _default_text(tx, obj, name):
        """object's own str()/repr() of a user object, `<module.Class object at 0x...>`: it shows the
        object's address, so only an object from outside folds (guarded by identity, as the text is
        its own); one made in the trace does not exist yet, and breaks (Dynamo bakes in a stale one)."""
        if is_container_object(obj) and all(getattr(obj.python_type(), dunder) is getattr(container_base(
                obj.python_type()), dunder) for dunder in (name, "__repr__")):
            return container_text(tx, obj)  # a set subclass's text is its items', not its address
        if type(obj) is not UserDefinedObjectVariable or any(
                getattr(obj.python_type(), dunder) is not getattr(object, dunder) for dunder in (name, "__repr__")):
            return None
        if obj.is_new() or obj.source is None or obj.value is None:
            raise Unsupported(f"{name[2:-2]}() of a {obj.python_type().__qualname__} made in the trace: object's "
                              "default text shows its address, which the object gets only when it is made")
        obj.guard_class_lacks(tx, name, "__repr__")
        tx.output.install_guard(obj.source, "ID_MATCH", obj.value)
        return ConstantVariable(object.__repr__(obj.value))

    def call_print(self, tx, *args, **kwargs):
        raise Unsupported("print() has a side effect outside the graph")
