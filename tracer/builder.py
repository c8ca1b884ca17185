"""Wrapping real values as VariableTrackers: one entry, two factories.

`build(tx, value, source)` routes by whether the value has a Source.  A value
with a source came from outside the frame and may differ next call, so
`build_from_source` (Dynamo's VariableBuilder) installs the guards that pin
what the trace assumed.  A value born mid-trace has no source; next call the
trace makes it again the same way, so `build_sourceless` installs nothing.
Values with a source enter lazily: the guards go in when the trace uses them.
"""
from __future__ import annotations

import collections
import contextlib
import enum
import functools
import inspect
import math
import types

import torch

from . import trace_rules
from .exc import Unsupported
from .source import (
    AttrSource,
    DictKeySource,
    DictValueSource,
    GetItemSource,
    IterItemSource,
    NumpyTensorSource,
    SetItemSource,
    Source,
    iterator_remaining,
)
from .variables.builtin import BuiltinVariable
from .variables.constant import ConstantVariable, is_constant_value
from .variables.ctx_manager import (
    DECORATOR_CLASSES,
    GRAD_MODE_CLASSES,
    GRAD_MODE_DECORATOR_CODE,
    ContextDecoratedVariable,
    ContextFactoryVariable,
    GradModeVariable,
    NullContextVariable,
    RESUMED_NULL,
    ResumedGradMode,
    ResumedSwitch,
    is_context_factory,
)
from .variables.dicts import ConstDictVariable
from .variables.functions import TorchFunctionVariable
from .variables.lazy import LazyVariableTracker
from .variables.mapping_proxy import MappingProxyVariable
from .variables.lists import (
    DequeVariable,
    ListIteratorVariable,
    ListVariable,
    NamedTupleVariable,
    RangeVariable,
    SliceVariable,
    TupleVariable,
    hash_key,
    make_named_tuple,
    tuple_fields,
)
from .variables.get_attr import GetAttrVariable
from .variables.misc import (
    MethodDescriptorVariable,
    PythonModuleVariable,
    SkippedFunctionVariable,
    UserDefinedClassVariable,
    UserDefinedObjectVariable,
    is_modelled_method_descriptor,
)
from .variables.nn_module import NNModuleVariable
from .variables.numpy import (
    NumpyConstantVariable,
    NumpyNdarrayVariable,
    NumpyVariable,
    is_numpy_array,
    is_numpy_constant,
    is_numpy_finfo,
    is_numpy_type_info,
    is_numpy_value,
)
from .variables.object_protocol import SlotFunctionVariable, is_generic_slot
from .variables.optimizer import OptimizerVariable, is_optimizer
from .variables.partial import FunctoolsPartialVariable
from .variables.polyfills import polyfill_for
from .variables.sets import SetVariable
from .variables.user_functions import (
    LruCachedFunctionVariable,
    StandinCompiledFunctionVariable,
    TorchCompiledFunctionVariable,
    UserFunctionVariable,
    UserMethodVariable,
)

_SEQUENCE_ITERATORS = (type(iter(())), type(iter([])))
_C_CALLABLES = (types.BuiltinFunctionType, types.MethodWrapperType, types.WrapperDescriptorType,
                types.MethodDescriptorType, types.ClassMethodDescriptorType)


def build(tx, value, source: Source | None = None):
    """The one entrance: a tracker for `value`, guarded now when it has a source."""
    if source is None:
        return build_sourceless(tx, value)
    return build_from_source(tx, value, source)


def build_lazy(tx, value, source: Source):
    """A lazy shell for frame locals, globals and container items: guarded on first use."""
    return LazyVariableTracker(value=value, tx=tx, source=source)


def build_from_source(tx, value, source: Source):
    """VariableBuilder: wrap a value from the outside world and install its guards.

    Every guard installed while building is stamped with the kind of tracker it
    produced: the provenance the Source-chain tree shows.
    """
    output = tx.output
    before = len(output.guards)
    tracker = _build_from_source(tx, value, source)
    if len(output.guards) > before:
        output.stamp_guards(before, tracker.kind())
    return tracker


def _build_from_source(tx, value, source: Source):
    """The tracker of a value a source names, with the guards that keep it true: one helper per family
    of values, each answering None for a value not of its family."""
    for build_family in (_build_value_or_sequence, _build_mapping_or_iterator, _build_module_or_wrapper):
        tracker = build_family(tx, value, source)
        if tracker is not None:
            return tracker
    return _build_callable_or_object(tx, value, source)


def _build_value_or_sequence(tx, value, source: Source):
    """Tensors, constants, lists, tuples, deques and named tuples."""
    guard = tx.output.install_guard
    if isinstance(value, torch.Tensor):
        if isinstance(value, torch.nn.Parameter) or type(value) is torch.Tensor:
            return tx.output.add_graph_input(tx, source, value)
        raise Unsupported(f"tensor subclass {type(value).__qualname__} at {source.name()}")
    if is_typing_constant(value):  # typing.Union, int | None, list[int]: immutable annotations
        guard(source, "ID_MATCH", value)
        return ConstantVariable(value, source=source)
    if is_constant_value(value):
        if isinstance(value, enum.Enum):  # members are singletons: identity is the cheap, exact test
            guard(source, "ID_MATCH", value)
        elif value is None:
            guard(source, "NONE_MATCH", None)
        elif isinstance(value, bool):
            guard(source, "TRUE_MATCH" if value else "FALSE_MATCH", value)
        elif isinstance(value, types.CodeType):
            guard(source, "ID_MATCH", value)
        elif type(value) is int and tx.output.int_may_be_symbolic(source) \
                and tx.output.shapes.number_is_dynamic(source, value):
            return tx.output.add_symint_input(tx, source, value)  # automatic dynamic made it a symbol
        elif type(value) is float and math.isfinite(value) and tx.output.float_may_be_symbolic(source) \
                and tx.output.shapes.number_is_dynamic(source, value):
            return tx.output.add_symfloat_input(tx, source, value)  # a float Dynamo would not specialise
        else:
            guard(source, "EQUALS_MATCH", value)
        return ConstantVariable(value, source=source)
    if type(value) in (list, set, collections.deque, *_PLAIN_DICT_TYPES) or type(value) in _SEQUENCE_ITERATORS:
        tx.output.note_source(value, source)  # the same list under a second name: guarded to stay one
        known = tx.output.side_effects.tracked_container(value)
        if known is not None:  # the same list reached again: its current version, mutations included
            return known
    if type(value) in (list, tuple, collections.deque):
        guard(source, "TYPE_MATCH", type(value))
        guard(source, "LENGTH_CHECK", len(value))
        items = tuple(build_lazy(tx, item, GetItemSource(source, i)) for i, item in enumerate(value))
        if type(value) is tuple:
            return TupleVariable(items, source=source)
        if type(value) is collections.deque:
            guard(AttrSource(source, "maxlen"), "NONE_MATCH" if value.maxlen is None else "EQUALS_MATCH", value.maxlen)
            return tx.output.side_effects.track_container(value, DequeVariable(items, maxlen=value.maxlen,
                                                                               source=source))
        return tx.output.side_effects.track_container(value, ListVariable(items, source=source))
    if isinstance(value, tuple) and tuple_fields(type(value)):
        if not _makeable(type(value)):  # sys.version_info, sys.float_info: fixed for the process, a constant
            guard(source, "ID_MATCH", value)
            return ConstantVariable(value, source=source)
        guard(source, "TYPE_MATCH", type(value))
        items = tuple(build_lazy(tx, item, GetItemSource(source, i)) for i, item in enumerate(value))
        return NamedTupleVariable(items, tuple_cls=type(value), source=source)
    return None


def _makeable(cls: type) -> bool:
    """A namedtuple or structseq class that can make instances (sys.version_info's cannot)."""
    try:
        make_named_tuple(cls, [None] * cls.n_fields) if hasattr(cls, "n_fields") else None
    except TypeError:
        return False
    return True


# Dict types whose items a tracker models from outside, mutations replayed in place after the graph.
_PLAIN_DICT_TYPES = (dict, collections.OrderedDict, collections.defaultdict, collections.Counter)


def _guard_contains(tx, source: Source, keys: frozenset, key) -> None:
    """Guard that `key` is, or is not, among the `keys` the dict at `source` had when the trace met it."""
    tx.output.install_guard(source, "DICT_CONTAINS", (key, key in keys))


def _equal_only_to_itself(item) -> bool:
    """A set item the set's equality guard pins down: a constant, or a function, class or module
    (equal only to itself), which the trace then reads as that very object."""
    if is_constant_value(item):
        return True
    if isinstance(item, type):
        return type(item).__eq__ is type.__eq__
    return isinstance(item, (types.FunctionType, types.BuiltinFunctionType, types.ModuleType))


def _build_mapping_or_iterator(tx, value, source: Source):
    """Dicts, class dicts, sets, ranges, slices and iterators."""
    guard = tx.output.install_guard
    if type(value) in _PLAIN_DICT_TYPES:  # a dict, or an OrderedDict / defaultdict / Counter, from outside
        guard(source, "TYPE_MATCH", type(value))
        entries, object_keys = {}, False
        for index, (key, item) in enumerate(value.items()):
            if is_constant_value(key):
                entries[key] = build_lazy(tx, item, GetItemSource(source, key))
            elif _is_identity_key(key):  # no literal names it: reached by position, the keys guarded
                entries[key] = build_lazy(tx, item, DictValueSource(source, index))
            elif _is_object_key(key):  # a tensor, a module: a tracker of its own, pinned by identity
                entries[_object_key(tx, key, DictKeySource(source, index))] = build_lazy(
                    tx, item, DictValueSource(source, index))
                object_keys = True
            else:
                raise Unsupported(f"dict {source.name()} has a key that is not a constant: {key!r}")
        keys_guard = functools.partial(_guard_keys, tx, source, value) if object_keys else \
            functools.partial(tx.output.install_guard, source, "DICT_KEYS_MATCH", tuple(value))
        # one key looked up (`k in d`, a missing get/pop): only that key guarded; object keys pin the whole set,
        # a Counter's too, as Dynamo guards a dict subclass's keys
        key_guard = None if object_keys or type(value) is collections.Counter else \
            functools.partial(_guard_contains, tx, source, frozenset(entries))
        if any(not is_constant_value(key) for key in entries):
            keys_guard()  # values reached by position: the key set pins them
        factory = None
        if type(value) is collections.defaultdict:  # a missing key calls it: guarded where it is read
            factory = build_lazy(tx, value.default_factory, AttrSource(source, "default_factory"))
        return tx.output.side_effects.track_container(value, ConstDictVariable(
            entries, dict_cls=type(value), default_factory=factory, source=source, keys_guard=keys_guard,
            key_guard=key_guard))
    if type(value) is types.MappingProxyType:  # cls.__dict__: read-only, each entry guarded where it is read
        guard(source, "TYPE_MATCH", types.MappingProxyType)
        entries = {key: build_lazy(tx, item, GetItemSource(source, key)) for key, item in value.items()
                   if is_constant_value(key)}
        keys_guard = functools.partial(tx.output.install_guard, source, "DICT_KEYS_MATCH", tuple(entries))
        proxy = ConstDictVariable(entries, dict_cls=types.MappingProxyType, source=source, keys_guard=keys_guard)
        if isinstance(source, AttrSource) and source.member == "__dict__":
            return proxy  # a class's namespace: the trace changes it only through setattr, which it records
        return MappingProxyVariable(proxy, source=source)  # a view of a dict the trace cannot name
    if type(value) is set and all(is_constant_value(item) for item in value):
        guard(source, "EQUALS_MATCH", set(value))  # a copy: the guard must not follow later mutations
        items = tuple(ConstantVariable(item) for item in value)
        return tx.output.side_effects.track_container(value, SetVariable(items, source=source))
    if type(value) is set and all(_equal_only_to_itself(item) for item in value):
        # functions or classes among the items: as Dynamo, the type and length, then each item where
        # the trace reads it, by its position in the set's iteration order (another order recompiles)
        guard(source, "TYPE_MATCH", set)
        guard(source, "LENGTH_CHECK", len(value))
        items = tuple(build_lazy(tx, item, SetItemSource(source, i)) for i, item in enumerate(value))
        return tx.output.side_effects.track_container(value, SetVariable(items, source=source))
    if type(value) is range:
        guard(source, "EQUALS_MATCH", value)
        return RangeVariable(value, source=source)
    if type(value) is slice and all(is_constant_value(part) for part in (value.start, value.stop, value.step)):
        guard(source, "EQUALS_MATCH", value)
        return SliceVariable(*(ConstantVariable(part) for part in (value.start, value.stop, value.step)),
                             source=source)
    if type(value) in _SEQUENCE_ITERATORS:
        guard(source, "TYPE_MATCH", type(value))
        remaining = iterator_remaining(value)
        guard(source, "TUPLE_ITERATOR_LEN", len(remaining))
        items = tuple(build_lazy(tx, item, IterItemSource(source, i)) for i, item in enumerate(remaining))
        return tx.output.side_effects.track_container(value, ListIteratorVariable(items, source=source))
    return None


def _build_module_or_wrapper(tx, value, source: Source):
    """Modules, partials, compiled or cached functions, slots, polyfills, grad-mode factories, NumPy."""
    guard = tx.output.install_guard
    if isinstance(value, types.ModuleType):
        guard(source, "ID_MATCH", value)
        return PythonModuleVariable(value, source=source)
    if isinstance(value, torch.nn.Module):
        tx.output.note_source(value, source)
        guard(source, "TYPE_MATCH", type(value))
        tx.output.module_sources.add(source.name())  # what is read through it keeps static shapes
        return NNModuleVariable(value, source=source)
    if isinstance(value, functools.partial):
        guard(source, "TYPE_MATCH", functools.partial)
        func = build(tx, value.func, AttrSource(source, "func"))
        args = build(tx, value.args, AttrSource(source, "args")).realize().items
        keywords = build(tx, value.keywords, AttrSource(source, "keywords")).realize().read_entries()
        return FunctoolsPartialVariable(func, tuple(args), dict(keywords), flattens=not vars(value),
                                        partial_id=("outside", id(value)), source=source, value=value,
                                        identity_guard=lambda: guard(source, "ID_MATCH", value))
    if isinstance(value, types.BuiltinMethodType) and type(getattr(value, "__self__", None)) in (list, dict, set):
        # `LOG.append` handed over as a value (on a resume function's stack): a method of a container
        # we model; the bound method is a new object per read, so its owner and name are guarded
        guard(source, "TYPE_MATCH", type(value))
        guard(AttrSource(source, "__name__"), "EQUALS_MATCH", value.__name__)
        owner = build_from_source(tx, value.__self__, AttrSource(source, "__self__"))
        return GetAttrVariable(owner, value.__name__, source=source)
    inline_target = type(value).__dict__.get("inline_target")  # a tracer.compile'd function
    if isinstance(inline_target, property) and inline_target.__get__(value) is not None:
        guard(source, "ID_MATCH", value)  # inlined, as Dynamo inlines a compiled function it meets
        body = inline_target.__get__(value)
        if not isinstance(body, types.FunctionType):  # a compiled builtin or class: what it wraps
            return build_from_source(tx, body, AttrSource(source, "fn"))
        guard(AttrSource(AttrSource(source, "fn"), "__code__"), "ID_MATCH", body.__code__)
        return StandinCompiledFunctionVariable(body, wrapper=value, source=source)
    body = trace_rules.torch_compiled_target(value)
    if isinstance(body, types.FunctionType):  # a torch.compile'd function: what it compiles is inlined
        guard(AttrSource(source, "__code__"), "ID_MATCH", value.__code__)
        guard(AttrSource(AttrSource(source, "_torchdynamo_inline"), "__code__"), "ID_MATCH", body.__code__)
        return TorchCompiledFunctionVariable(body, wrapper=value, source=source)
    if is_generic_slot(value):
        guard(source, "ID_MATCH", value)
        return SlotFunctionVariable(value, source=source)
    polyfilled = polyfill_for(value)
    if polyfilled is not None:
        guard(source, "ID_MATCH", value)
        return polyfilled.with_source(source)
    if isinstance(value, functools._lru_cache_wrapper) and isinstance(value.__wrapped__, types.FunctionType):
        # calling an lru_cache'd function: its body traced, as Dynamo does (the cache is not consulted)
        guard(source, "ID_MATCH", value)
        guard(AttrSource(AttrSource(source, "__wrapped__"), "__code__"), "ID_MATCH", value.__wrapped__.__code__)
        return LruCachedFunctionVariable(value.__wrapped__, wrapper=value, source=source)
    if is_context_factory(value):  # the `ctx_factory` of a @torch.no_grad() wrapper compiled itself
        guard(AttrSource(source, "__self__"), "TYPE_MATCH", type(value.__self__))
        guard(AttrSource(source, "__func__"), "ID_MATCH", value.__func__)
        if type(value.__self__) is torch.inference_mode:
            mode = value.__self__.mode
            guard(AttrSource(AttrSource(source, "__self__"), "mode"), "TRUE_MATCH" if mode else "FALSE_MATCH", mode)
        return ContextFactoryVariable(value.__self__, source=source)
    if is_numpy_value(value):  # np.sin, np.sum, np.float32, np.finfo: traced through torch._numpy
        guard(source, "ID_MATCH", value)
        return NumpyVariable(value, source=source)
    if is_numpy_type_info(value):  # as Dynamo: a finfo is one cached object per dtype; an iinfo, its dtype
        if is_numpy_finfo(value):
            guard(source, "ID_MATCH", value)
        else:
            guard(source, "TYPE_MATCH", type(value))
            guard(AttrSource(source, "dtype"), "ID_MATCH", value.dtype)
        return NumpyConstantVariable(value, source=source)
    if is_numpy_constant(value):  # an np.dtype / NumPy scalar: a guarded constant
        guard(source, "EQUALS_MATCH", value)
        return NumpyConstantVariable(value, source=source)
    if is_numpy_array(value):  # a graph input as the tensor it is (torch.as_tensor), used as an array
        if value.dtype.kind not in "biufc":
            raise Unsupported(f"a NumPy array of dtype {value.dtype} at {source.name()} (no tensor form)")
        guard(source, "TYPE_MATCH", type(value))
        tensor = tx.output.add_graph_input(tx, NumpyTensorSource(source), torch.as_tensor(value))
        return NumpyNdarrayVariable.of(tensor).with_source(source)  # rebuilt as the array itself
    return None


def _build_callable_or_object(tx, value, source: Source):
    """Functions, classes, method descriptors, and any other object."""
    guard = tx.output.install_guard
    if isinstance(value, types.BuiltinMethodType) and isinstance(value.__self__, type):
        # `itertools.chain.from_iterable`, `dict.fromkeys`: a classmethod of a C type is bound afresh on
        # every read, so its identity is no guard; its class and name are
        guard(source, "TYPE_MATCH", type(value))
        guard(AttrSource(source, "__self__"), "ID_MATCH", value.__self__)
        guard(AttrSource(source, "__name__"), "EQUALS_MATCH", value.__name__)
        return build_sourceless(tx, value).with_source(source)
    context = _context_object(tx, value, source)
    if context is not None:
        return context
    if isinstance(value, types.CellType):
        return _real_cell(tx, value, source)
    if isinstance(value, types.MethodType) and trace_rules.classify(value.__func__) == "user":
        # a bound method from outside (a resume function's stack holds `module.register_buffer`): its
        # function bound to its object, each guarded through its own source, as Dynamo's UserMethodVariable
        # (a method of a torch class would otherwise be taken for a torch operator, a node of the graph)
        fn = build(tx, value.__func__, AttrSource(source, "__func__"))
        return UserMethodVariable(fn, build(tx, value.__self__, AttrSource(source, "__self__")), source=source)
    if callable(value) and not isinstance(value, type):
        rule = trace_rules.classify(value)
        if rule == "user":
            guard(AttrSource(source, "__code__"), "ID_MATCH", value.__code__)
            if value.__code__ is GRAD_MODE_DECORATOR_CODE:
                decorated = _grad_mode_decorated(tx, value, source)
                if decorated is not None:
                    return decorated
            return UserFunctionVariable(value, source=source)
        guard(source, "ID_MATCH", value)
        if rule == "torch":
            return TorchFunctionVariable(value, source=source)
        if rule == "builtin":
            return BuiltinVariable(value, source=source)
    if isinstance(value, type):
        guard(source, "ID_MATCH", value)
        return UserDefinedClassVariable(value, source=source)
    if is_modelled_method_descriptor(value):
        guard(source, "ID_MATCH", value)
        return MethodDescriptorVariable(value, source=source)
    if isinstance(value, (*_C_CALLABLES, types.FunctionType)):  # a function the trace rules skip
        guard(source, "ID_MATCH", value)
        return SkippedFunctionVariable(value, source=source)
    # its attributes are recorded by identity, whoever names it; as Dynamo, one object is one tracker, named
    # (and its attributes guarded) by the source it was first reached under
    source = tx.output.note_source(value, source) or source
    guard(source, "TYPE_MATCH", type(value))
    if is_optimizer(value):
        return OptimizerVariable(value, source=source)
    return UserDefinedObjectVariable(value, source=source)


def _real_cell(tx, cell, source: Source):
    """A closure cell from outside (`f.__closure__[0]`): the one tracker of that cell in the trace, so
    `cell_contents` reads what a call of `f` traced before wrote there (a nonlocal), as Dynamo reads it."""
    known = tx.output.side_effects.known_real_cell(cell)
    if known is not None:
        return known
    try:
        contents = cell.cell_contents
    except ValueError as error:
        raise Unsupported(f"an empty closure cell at {source.name()}") from error
    return tx.real_cell(cell, "", build(tx, contents, AttrSource(source, "cell_contents")), source)


def _context_object(tx, value, source):
    """A grad-mode or null context from outside (a resume function's local, where a break left one
    the trace made): its tracker, as Dynamo wraps one, guarded on its type and its state."""
    kind = type(value)
    if kind not in (*GRAD_MODE_CLASSES, torch.set_grad_enabled, contextlib.nullcontext):
        return None
    tx.output.install_guard(source, "TYPE_MATCH", kind)
    if kind is contextlib.nullcontext:
        return NullContextVariable(build(tx, value.enter_result, AttrSource(source, "enter_result")), source=source)
    if kind is torch.set_grad_enabled:
        for name in ("mode", "prev"):
            tx.output.install_guard(AttrSource(source, name), "EQUALS_MATCH", getattr(value, name))
        return GradModeVariable(target=value.mode, initial=value.prev, made_by=kind, source=source)
    return GradModeVariable.create(tx, GRAD_MODE_CLASSES[kind]).with_source(source)


def _grad_mode_decorated(tx, fn, source):
    """`@torch.no_grad()`, `@torch.enable_grad()`, `@torch.inference_mode(m)` functions: the wrapped
    function in the context's with-block."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    factory, wrapped = cells["ctx_factory"].cell_contents, cells["func"].cell_contents
    context = getattr(factory, "__self__", None)
    if type(context) not in DECORATOR_CLASSES or not isinstance(wrapped, types.FunctionType):
        return None
    index = fn.__code__.co_freevars.index

    def cell_source(name):
        return AttrSource(GetItemSource(AttrSource(source, "__closure__"), index(name)), "cell_contents")
    context_source = AttrSource(cell_source("ctx_factory"), "__self__")
    tx.output.install_guard(context_source, "TYPE_MATCH", type(context))
    if type(context) is torch.inference_mode:
        tx.output.install_guard(AttrSource(context_source, "mode"), "TRUE_MATCH" if context.mode else "FALSE_MATCH",
                                context.mode)
    return ContextDecoratedVariable(build(tx, wrapped, cell_source("func")), context, source=source)


def is_typing_constant(value) -> bool:
    """An annotation object: a typing special form or alias, `X | Y`, `list[int]` -- immutable."""
    return isinstance(value, (types.UnionType, types.GenericAlias)) or (
        type(value).__module__ == "typing" and not isinstance(value, (type, types.FunctionType)))


def _is_object_key(key) -> bool:
    """A key hashed by identity that the trace meets as a tracker: a tensor, a module, an object
    whose class keeps object's __hash__ and __eq__ (an optimizer's `state[p]`)."""
    if isinstance(key, (torch.Tensor, torch.nn.Module, functools.partial)):
        return True
    if type(key) is tuple or (isinstance(key, tuple) and tuple_fields(type(key))):  # `(partial, 1)`: its items' keys, the tuple pinned
        return all(is_constant_value(item) or _is_object_key(item) for item in key)
    cls = type(key)
    if isinstance(inspect.getattr_static(cls, "__hash__", None), types.FunctionType):
        return True  # its own __hash__, traced where the key is made (key_hashes)
    return cls.__hash__ is object.__hash__ and cls.__eq__ is object.__eq__


def _object_key(tx, key, source: Source):
    """The dict key a tracker of `key` stands for, the key guarded by identity (as Dynamo: a tensor
    reached as a dict key is matched by id, not by its metadata)."""
    tx.output.install_guard(source, "ID_MATCH", key)
    return hash_key(build(tx, key, source))


def _guard_keys(tx, source: Source, value: dict) -> None:
    """The key set of a dict with keys compared by identity: its length and each key at its
    position (a tuple of tensors cannot be compared with ==)."""
    guard = tx.output.install_guard
    guard(source, "LENGTH_CHECK", len(value))
    for index, key in enumerate(value):
        key_source = DictKeySource(source, index)
        guard(key_source, "EQUALS_MATCH" if is_constant_value(key) else "ID_MATCH", key)


def _is_identity_key(key) -> bool:
    """A dict key compared by identity that a trace can look up: a class, an annotation object, a
    function or a torch op (`{torch.sin: ...}`, `{aten.mul.Tensor: ...}`, a dispatch table)."""
    return isinstance(key, type) or is_typing_constant(key) or isinstance(key, _FUNCTION_KEY_TYPES)


_FUNCTION_KEY_TYPES = (types.FunctionType, types.BuiltinFunctionType, torch._ops.OpOverload,
                       torch._ops.OpOverloadPacket)


def build_sourceless(tx, value):
    """SourcelessBuilder: wrap a value made during the trace; no guards."""
    if is_constant_value(value) or is_typing_constant(value):
        return ConstantVariable(value)
    if type(value) is tuple:
        return TupleVariable(tuple(build_sourceless(tx, v) for v in value))
    if isinstance(value, tuple) and tuple_fields(type(value)):
        return NamedTupleVariable(tuple(build_sourceless(tx, v) for v in value), tuple_cls=type(value))
    if type(value) is set:
        return SetVariable(tuple(build_sourceless(tx, v) for v in value))
    if type(value) is frozenset:  # of constants it is one (is_constant_value): this one holds objects
        raise Unsupported(f"a frozenset of objects that are not constants: {value!r}")
    if type(value) is list:
        return ListVariable(tuple(build_sourceless(tx, v) for v in value))
    if type(value) is collections.deque:
        return DequeVariable(tuple(build_sourceless(tx, v) for v in value), maxlen=value.maxlen)
    if type(value) in (dict, collections.OrderedDict, collections.Counter):  # a folded Counter sum, ...
        return ConstDictVariable({k: build_sourceless(tx, v) for k, v in value.items()}, dict_cls=type(value))
    if type(value) is range:
        return RangeVariable(value)
    if type(value) is slice:
        return SliceVariable(*(ConstantVariable(p) for p in (value.start, value.stop, value.step)))
    if isinstance(value, types.ModuleType):
        return PythonModuleVariable(value)
    if is_numpy_value(value):
        return NumpyVariable(value)
    if is_numpy_constant(value):
        return NumpyConstantVariable(value)
    if isinstance(value, type):
        return UserDefinedClassVariable(value)
    if isinstance(value, torch.Tensor):
        raise Unsupported("a tensor constant captured by the traced code (not a graph input)")
    if isinstance(value, torch.nn.Module):
        return NNModuleVariable(value)
    if isinstance(value, ResumedGradMode):  # a resume function's prologue re-entering a with-block
        return GradModeVariable.resumed(value)
    if value is RESUMED_NULL:  # a null block re-entered after a graph break inside it
        return NullContextVariable()
    if isinstance(value, ResumedSwitch):  # an autocast / inference-mode block, not entered yet
        return value.kind(values=value.values)
    if is_generic_slot(value):
        return SlotFunctionVariable(value)
    if type(value) is types.MappingProxyType:  # a constant's mapping (inspect.Signature.parameters)
        return ConstDictVariable({k: build_sourceless(tx, v) for k, v in value.items()},
                                 dict_cls=types.MappingProxyType)
    if isinstance(value, (inspect.Signature, inspect.Parameter)):  # immutable: constants
        return ConstantVariable(value)
    if polyfill_for(value) is not None:
        return polyfill_for(value)
    if isinstance(value, functools._lru_cache_wrapper) and isinstance(value.__wrapped__, types.FunctionType):
        return LruCachedFunctionVariable(value.__wrapped__, wrapper=value)
    if callable(value):
        rule = trace_rules.classify(value)
        if rule == "torch":
            return TorchFunctionVariable(value)
        if rule == "builtin":
            return BuiltinVariable(value)
        if rule == "user":
            return UserFunctionVariable(value)
        if is_modelled_method_descriptor(value):
            return MethodDescriptorVariable(value)
        if isinstance(value, (*_C_CALLABLES, types.FunctionType)):
            return SkippedFunctionVariable(value)
    return UserDefinedObjectVariable(value)
