"""Torch functions: calls that become nodes of the FX graph."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from .. import trace_rules
from ..exc import Unsupported, observed
from ..source import AttrSource
from . import function_attrs
from .base import VariableTracker
from .constant import ConstantVariable
from .decompositions import decompose_function
from .functorch import call_state_query, call_state_switch, is_state_query, is_state_switch
from .lists import BaseListVariable
from .numpy import NumpyNdarrayVariable, tensor_from_ndarray
from .sym import SymNodeVariable
from .tensor import TensorVariable

# Answered at trace time from what the tracer knows; never graph nodes: the parameter (None: no
# parameter; "obj/": positional only, as torch.is_tensor's) and the answer from its tracker.
_FOLDED = {
    torch.is_tensor: ("obj/", lambda v: _is_tensor(v)),
    torch.is_floating_point: ("input", lambda v: _example(v, "is_floating_point").is_floating_point()),
    torch.is_complex: ("input", lambda v: _example(v, "is_complex").is_complex()),
    torch.numel: ("input", lambda v: _example(v, "numel").numel()),  # static sizes only (see call_function)
    torch.get_default_dtype: (None, torch.get_default_dtype),
    torch.is_grad_enabled: (None, torch.is_grad_enabled),
    torch.is_inference_mode_enabled: (None, torch.is_inference_mode_enabled),
}

# torch's Python operators ask whether an argument overrides them: a traced tensor never does.
_TORCH_FUNCTION_CHECKS = {
    torch._C._has_torch_function: lambda tx, args: _has_torch_function(args[0].unpack_var_sequence(tx)),
    torch._C._has_torch_function_unary: lambda tx, args: _has_torch_function(args),
    torch._C._has_torch_function_variadic: lambda tx, args: _has_torch_function(args),
}


def _has_torch_function(args) -> ConstantVariable:
    """Whether an argument's class defines __torch_function__ (tensors we trace are plain)."""
    overriding = [a for a in args if not isinstance(a.realize(), TensorVariable)
                  and hasattr(a.realize().python_type(), "__torch_function__")]
    if overriding:
        raise Unsupported(f"{overriding[0].describe()} overrides torch functions (__torch_function__)")
    return ConstantVariable(False)


def _folded(fn, args: list, kwargs: dict) -> ConstantVariable:
    """A folded function's answer, its argument bound by position or keyword as torch binds it."""
    param, answer = _FOLDED[fn]
    keywords = () if param is None or param.endswith("/") else (param,)
    values = list(args) + [kwargs[name] for name in keywords if name in kwargs]
    if len(values) != (param is not None) or set(kwargs) - set(keywords):
        given = [f"{len(args)} positional"] + [f"{name}=" for name in kwargs]
        raise Unsupported(f"TypeError: torch.{fn.__name__}() takes ({param or ''}), called with {', '.join(given)}")
    return ConstantVariable(answer(*values))


def _has_symbolic_size(v) -> bool:
    return isinstance(v, TensorVariable) and v.has_symbolic_size()


def _holds_symbol(v) -> bool:
    """A list or tuple (nested) holding a symbolic int or float or a tensor (a value torch.tensor
    cannot read at trace time), or such a symbol itself."""
    if isinstance(v, SymNodeVariable):
        return True
    return isinstance(v, BaseListVariable) and any(_symbol_or_tensor(item.realize()) for item in v.items)


def _symbol_or_tensor(v) -> bool:
    return isinstance(v, TensorVariable) or _holds_symbol(v)


def _example(v, name: str) -> torch.Tensor:
    if not isinstance(v, TensorVariable):
        raise Unsupported(f"TypeError: torch.{name}() of a {v.python_type().__name__}, not a Tensor")
    return v.example


# Calls that change global state or need data: the graph cannot hold them.
_REFUSED = {
    torch.manual_seed: "torch.manual_seed() changes the global RNG",
    torch.get_rng_state: "torch.get_rng_state() reads the global RNG outside the graph",
    torch.set_rng_state: "torch.set_rng_state() changes the global RNG",
    torch.set_grad_enabled: "torch.set_grad_enabled() changes global state",
    torch.set_default_dtype: "torch.set_default_dtype() changes global state",
}


# Pure functions of dtypes and other constants: evaluated at trace time on constant arguments.
_FOLDED_ON_CONSTANTS = frozenset({torch.promote_types, torch.can_cast, torch._C._get_tracing_state})
# Classes whose instances are constants (their attributes are numbers): torch.finfo(dtype).eps.
CONSTANT_CLASSES = (torch.finfo, torch.iinfo)


def _fold_on_constants(fn_var, args, kwargs):
    """fn(*constants) evaluated now, as a constant; None when an argument is not a constant."""
    if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
        return None
    try:
        value = fn_var.fn(*[a.as_python_constant() for a in args],
                          **{k: v.as_python_constant() for k, v in kwargs.items()})
    except Exception as error:
        raise observed(error, f"{fn_var.short_repr()}() raised {type(error).__name__}: {error}") from error
    if isinstance(value, torch.Tensor):
        raise Unsupported(f"{fn_var.short_repr()}() made a tensor at trace time")
    return ConstantVariable(value)


def _is_ndarray(v) -> bool:
    return isinstance(v, NumpyNdarrayVariable)


def _is_tensor(v) -> bool:
    return isinstance(v.realize(), TensorVariable)


@dataclass(frozen=True, eq=False)
class TorchFunctionVariable(VariableTracker):
    """A function from the torch namespace (torch.sin, torch.nn.functional.relu, ...)."""

    fn: object = None

    def python_type(self) -> type:
        return type(self.fn)

    def as_python_constant(self):
        return self.fn

    def call_function(self, tx, args, kwargs):
        args = [a.realize() for a in args]
        kwargs = {k: v.realize() for k, v in kwargs.items()}
        if self.fn is torch.numel and len(args) == 1 and _has_symbolic_size(args[0]):
            return args[0].call_method(tx, "numel", [], {})  # a symbolic count: a node, as Tensor.numel()
        known, answer = trace_rules.trace_time_answer(self.fn)
        if known:
            return ConstantVariable(answer)
        if self.fn in _FOLDED:
            return _folded(self.fn, args, kwargs)
        if self.fn in _TORCH_FUNCTION_CHECKS:
            return _TORCH_FUNCTION_CHECKS[self.fn](tx, args)
        if self.fn in CONSTANT_CLASSES or self.fn in _FOLDED_ON_CONSTANTS or trace_rules.is_query(self.fn):
            folded = _fold_on_constants(self, args, kwargs)
            if folded is not None:
                return folded
        if self.fn in (torch.from_numpy, torch.as_tensor) and args and _is_ndarray(args[0]) and len(args) == 1:
            return tensor_from_ndarray(tx, args[0])
        if is_state_switch(self.fn):
            return call_state_switch(tx, self.fn, args, kwargs)
        if is_state_query(self.fn):
            return call_state_query(tx, self.fn, args, kwargs)
        if self.fn in _REFUSED:
            raise Unsupported(_REFUSED[self.fn])
        if "requires_grad" in kwargs and kwargs["requires_grad"].is_python_constant() \
                and kwargs["requires_grad"].as_python_constant():
            # a new leaf that autograd tracks: the graph's outputs would not carry it (as Dynamo, break)
            raise Unsupported(f"{self.short_repr()}(requires_grad=True) makes a leaf tensor outside the graph")
        if isinstance(self.fn, type) and self.fn is not torch.Tensor:  # torch.Tensor(...): a node, as Dynamo's
            if self.fn is torch.Size and all(a.is_python_constant() for a in args):
                return ConstantVariable(torch.Size(args[0].as_python_constant() if args else ()))
            raise Unsupported(f"constructing {self.fn.__qualname__}")
        if self.fn is torch.tensor and _holds_symbol(args[0] if args else kwargs.get("data")):
            # as Dynamo: torch's reference tensor() keeps symbolic items symbolic (torch.tensor specialises
            # them) and reads tensor items in the graph
            return tx.output.call(tx, "call_function", torch._refs.tensor, tuple(args), kwargs)
        decomposed = decompose_function(tx, self.fn, args, kwargs)
        if decomposed is not None:
            return decomposed
        return tx.output.call(tx, "call_function", self.fn, tuple(args), kwargs)

    def var_getattr(self, tx, name):
        """What `functools.wraps` copies from a function: read from it now (torch's functions are
        fixed), a missing one an AttributeError the trace catches (a C function has no `__dict__`)."""
        if name in function_attrs.WRAPS_READS:
            return function_attrs.read_now(tx, self.fn, name, self.short_repr())
        if isinstance(self.fn, torch._ops.OpOverloadPacket) and name in self.fn.overloads():
            # torch.ops.aten.mul.Tensor: one overload of the op, fixed as the op is
            source = AttrSource(self.source, name) if self.source is not None else None
            return VariableTracker.build(tx, getattr(self.fn, name), source)
        raise Unsupported(f"attribute {name!r} of {self.short_repr()}")

    def short_repr(self) -> str:
        module = getattr(self.fn, "__module__", None) or "torch"
        return f"{module}.{getattr(self.fn, '__name__', self.fn)}"
