"""Torch functions: calls that become nodes of the FX graph."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from ..exc import Unsupported
from .base import VariableTracker
from .constant import ConstantVariable

# Answered at trace time from what the tracer knows; never graph nodes.
_FOLDED = {
    torch.is_tensor: lambda tx, args: ConstantVariable(_is_tensor(args[0])),
    torch.is_floating_point: lambda tx, args: ConstantVariable(args[0].example.is_floating_point()),
    torch.is_complex: lambda tx, args: ConstantVariable(args[0].example.is_complex()),
    torch.numel: lambda tx, args: ConstantVariable(args[0].example.numel()),
    torch.get_default_dtype: lambda tx, args: ConstantVariable(torch.get_default_dtype()),
    torch.is_grad_enabled: lambda tx, args: ConstantVariable(torch.is_grad_enabled()),
    torch.is_inference_mode_enabled: lambda tx, args: ConstantVariable(torch.is_inference_mode_enabled()),
}

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
            return _FOLDED[self.fn](tx, args)
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
