"""Torch functions: calls that become nodes of the FX graph."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from ..exc import Unsupported
from .base import VariableTracker
from .constant import ConstantVariable

# Answered at trace time from what the tracer knows; never graph nodes: the parameter (None: no
# parameter; "obj/": positional only, as torch.is_tensor's) and the answer from its tracker.
_FOLDED = {
    torch.is_tensor: ("obj/", lambda v: _is_tensor(v)),
    torch.is_floating_point: ("input", lambda v: _example(v, "is_floating_point").is_floating_point()),
    torch.is_complex: ("input", lambda v: _example(v, "is_complex").is_complex()),
    torch.numel: ("input", lambda v: _example(v, "numel").numel()),
    torch.get_default_dtype: (None, torch.get_default_dtype),
    torch.is_grad_enabled: (None, torch.is_grad_enabled),
    torch.is_inference_mode_enabled: (None, torch.is_inference_mode_enabled),
}


def _folded(fn, args: list, kwargs: dict) -> ConstantVariable:
    """A folded function's answer, its argument bound by position or keyword as torch binds it."""
    param, answer = _FOLDED[fn]
    keywords = () if param is None or param.endswith("/") else (param,)
    values = list(args) + [kwargs[name] for name in keywords if name in kwargs]
    if len(values) != (param is not None) or set(kwargs) - set(keywords):
        given = [f"{len(args)} positional"] + [f"{name}=" for name in kwargs]
        raise Unsupported(f"TypeError: torch.{fn.__name__}() takes ({param or ''}), called with {', '.join(given)}")
    return ConstantVariable(answer(*values))


def _example(v, name: str) -> torch.Tensor:
    from .tensor import TensorVariable
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


def _is_ndarray(v) -> bool:
    from .numpy import NumpyNdarrayVariable
    return isinstance(v, NumpyNdarrayVariable)


def _is_tensor(v) -> bool:
    from .tensor import TensorVariable
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
        if self.fn in _FOLDED:
            return _folded(self.fn, args, kwargs)
        if self.fn in (torch.from_numpy, torch.as_tensor) and args and _is_ndarray(args[0]) and len(args) == 1:
            from .numpy import tensor_from_ndarray
            return tensor_from_ndarray(tx, args[0])
        if self.fn in _REFUSED:
            raise Unsupported(_REFUSED[self.fn])
        if "requires_grad" in kwargs and kwargs["requires_grad"].is_python_constant() \
                and kwargs["requires_grad"].as_python_constant():
            # a new leaf that autograd tracks: the graph's outputs would not carry it (as Dynamo, break)
            raise Unsupported(f"{self.short_repr()}(requires_grad=True) makes a leaf tensor outside the graph")
        if isinstance(self.fn, type):
            if self.fn is torch.Size and all(a.is_python_constant() for a in args):
                return ConstantVariable(torch.Size(args[0].as_python_constant() if args else ()))
            raise Unsupported(f"constructing {self.fn.__qualname__}")
        return tx.output.call(tx, "call_function", self.fn, tuple(args), kwargs)

    def var_getattr(self, tx, name):
        raise Unsupported(f"attribute {name!r} of {self.short_repr()}")

    def short_repr(self) -> str:
        module = getattr(self.fn, "__module__", None) or "torch"
        return f"{module}.{getattr(self.fn, '__name__', self.fn)}"
