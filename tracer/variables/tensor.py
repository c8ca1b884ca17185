"""TensorVariable: a tensor in the graph, as an FX node plus a fake example value.

Operations on it add graph nodes; its metadata (shape, dtype, device, ...) is
known at trace time from the fake tensor and folds to constants, which is what
`dynamic=False` promises.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

import torch

from ..exc import Unsupported, observed
from ..source import AttrSource
from .base import VariableTracker
from .get_attr import GetAttrVariable
from .constant import ConstantVariable
from .tensor_hooks import register_tensor_hook

# Attributes read straight from the example value and baked in as constants.
FOLDED_ATTRIBUTES = frozenset({
    "shape", "dtype", "device", "ndim", "requires_grad", "is_cuda", "is_cpu", "is_sparse",
    "is_quantized", "is_meta", "layout", "is_leaf", "is_nested", "is_mkldnn", "itemsize",
})
# Methods whose result depends only on metadata: folded the same way.
FOLDED_METHODS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "stride", "is_floating_point",
    "is_complex", "is_contiguous", "element_size", "get_device", "is_signed",
    "is_inference", "type_as_string",
})
# Methods that would turn data into Python values: the graph cannot hold them.
DATA_DEPENDENT_METHODS = frozenset({"item", "tolist", "__bool__", "__index__", "__int__", "__float__"})
# Methods that act on autograd's state, not on values: a graph cannot hold them (Dynamo breaks too).
AUTOGRAD_METHODS = {
    "backward": "runs autograd outside the graph",
    "requires_grad_": "changes what autograd tracks",
    "retain_grad": "changes what autograd keeps",
    "is_inference": "depends on inference mode, which a trace models without entering it",
}
# In-place methods that change a tensor's shape or strides: on a graph input, Dynamo breaks (the
# input's guarded metadata would change under the graph).
METADATA_MUTATING_METHODS = frozenset({"resize_", "resize_as_", "t_", "transpose_", "swapdims_", "swapaxes_",
                                       "unsqueeze_", "squeeze_", "as_strided_", "set_"})


def _is_symbolic(value) -> bool:
    """A SymInt (or a Size, tuple of them) that still carries a symbol."""
    if isinstance(value, (tuple, list)):
        return any(_is_symbolic(v) for v in value)
    return isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)) and not value.node.expr.is_number


def _plain_number(value):
    """A SymInt / SymFloat / SymBool whose symbol was specialised away (a stride of a tensor split by a
    size that is now fixed) as the Python number it stands for: the fake one must not leave the trace."""
    for sym, plain in ((torch.SymBool, bool), (torch.SymInt, int), (torch.SymFloat, float)):
        if isinstance(value, sym):
            return plain(value)
    return value


def _is_shape_request(args) -> bool:
    """Tensor.new's arguments that name a shape (one torch.Size, or ints), not data to copy."""
    if len(args) == 1 and args[0].is_python_constant() and isinstance(args[0].as_python_constant(), torch.Size):
        return True
    return bool(args) and all(a.is_python_constant() and type(a.as_python_constant()) is int for a in args)


def _is_tensor_type_class(arg) -> bool:
    """torch.HalfTensor, torch.cuda.FloatTensor and the like: legacy classes naming dtype and device."""
    if not arg.is_python_constant():
        return False
    value = arg.as_python_constant()
    return isinstance(value, type) and value in _LEGACY_TENSOR_TYPES


_LEGACY_TENSOR_TYPES = frozenset(
    getattr(module, name) for module in (torch, torch.cuda) for name in dir(module)
    if name.endswith("Tensor") and name != "Tensor" and isinstance(getattr(module, name, None), type)
    and getattr(module, name).__module__ in ("torch", "torch.cuda"))


# Attributes that are graph operations (views), recorded as getattr nodes.
GRAPH_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag"})


@dataclass(frozen=True, eq=False)
class TensorVariable(VariableTracker):
    node: torch.fx.Node = None
    example: torch.Tensor = None  # a FakeTensor

    def python_type(self) -> type:
        return torch.nn.Parameter if isinstance(self.example, torch.nn.Parameter) else torch.Tensor

    def as_proxy(self):
        return self.node

    def truth(self, tx) -> bool:
        raise Unsupported("data-dependent branch: the truth value of a tensor depends on its data")

    def has_symbolic_size(self) -> bool:
        return any(isinstance(s, torch.SymInt) and not s.node.expr.is_number for s in self.example.size())

    def var_getattr(self, tx, name: str):
        if name == "shape" and self.has_symbolic_size():  # as Dynamo: a `size()` node, its items symbolic
            return tx.output.call(tx, "call_method", "size", (self,), {})
        if name in FOLDED_ATTRIBUTES:
            value = getattr(self.example, name)
            if isinstance(value, torch.Size):
                value = torch.Size(int(s) for s in value)
            return ConstantVariable(value)
        if name in GRAPH_ATTRIBUTES:
            return tx.output.call(tx, "call_function", getattr, (self, ConstantVariable(name)), {})
        if name == "data":  # as Dynamo: a node that detaches without the version-counter link
            return tx.output.call(tx, "call_function", torch._C._autograd._get_data_attr, (self,), {})
        if name == "grad" and self._is_input(tx):
            # a graph input's .grad is an input of its own (or None), guarded like any value read
            stored = tx.output.side_effects.load_attr(self.identity(), "grad")
            if stored is not None:  # assigned earlier in this trace (zero_grad's `p.grad = None`)
                return stored
            real = tx.output.inputs[self.source.name()].example
            return VariableTracker.build(tx, real.grad, AttrSource(self.source, "grad"))
        if name == "__class__":  # x.__class__.__name__ in an f-string: the class itself
            return VariableTracker.build(tx, self.python_type())
        if name in ("grad", "_base"):
            raise Unsupported(f"tensor attribute .{name}")
        if callable(getattr(torch.Tensor, name, None)):
            return GetAttrVariable(self, name)
        if not hasattr(torch.Tensor, name):  # hasattr(x, "jax") and getattr defaults are told so
            return self._instance_attribute(tx, name)
        raise Unsupported(f"tensor attribute .{name}")

    def _instance_attribute(self, tx, name: str):
        """An attribute a graph input holds itself (`x.tag = ...`, outside or earlier in the trace):
        read from its __dict__ through its source, its having or lacking the name guarded."""
        if self._is_input(tx):
            stored = tx.output.side_effects.load_attr(self.identity(), name)
            if stored is not None:
                return stored
            own = vars(tx.output.inputs[self.source.name()].example)
            tx.output.install_guard(AttrSource(self.source, "__dict__"), "DICT_CONTAINS", (name, name in own))
            if name in own:
                return VariableTracker.build(tx, own[name], AttrSource(self.source, name))
        raise observed(AttributeError(f"'Tensor' object has no attribute {name!r}"),
                       f"Tensor object has no attribute {name!r}")

    def _is_input(self, tx) -> bool:
        return self.source is not None and self.source.name() in tx.output.inputs

    def identity(self):
        """A graph input's key in the side-effects record (its attributes assigned in the trace)."""
        return ("graph input", self.source.name())

    def is_new(self) -> bool:
        return False

    def store_attr(self, tx, name, value):
        """`p.grad = None` / `p.grad = t`, or an attribute of its own (`x.tag = v`), on a graph input:
        replayed on the real tensor after the graph."""
        value = value.realize()
        own = not hasattr(torch.Tensor, name)
        grad = name == "grad" and (isinstance(value, TensorVariable) or
                                   (isinstance(value, ConstantVariable) and value.value is None))
        if not self._is_input(tx) or not (own or grad):
            raise Unsupported(f"assigning the tensor attribute .{name}")
        tx.output.side_effects.store_attr(self, self.identity(), name, value)

    def _requires_grad_already(self, args, kwargs) -> bool:
        """Whether requires_grad_(flag) asks for the flag the tensor already has."""
        flag = args[0] if args else kwargs.get("requires_grad", ConstantVariable(True))
        return flag.is_python_constant() and bool(flag.as_python_constant()) == self.example.requires_grad

    def call_method(self, tx, name: str, args, kwargs):
        if name in FOLDED_METHODS and all(a.is_python_constant() for a in args):
            value = getattr(self.example, name)(*[a.as_python_constant() for a in args],
                                                **{k: v.as_python_constant() for k, v in kwargs.items()})
            if _is_symbolic(value):  # a size of a symbolic dimension: a graph node, as in Dynamo
                return tx.output.call(tx, "call_method", name, (self, *args), kwargs)
            if isinstance(value, torch.Size):
                value = torch.Size(int(s) for s in value)
            elif isinstance(value, tuple):
                from .lists import TupleVariable  # cycle: .lists -> .tensor
                return TupleVariable(tuple(ConstantVariable(_plain_number(v)) for v in value))
            return ConstantVariable(_plain_number(value))
        if name in DATA_DEPENDENT_METHODS:  # unbacked symbols where the trace captures them, else a break
            from .scalars import read_data  # cycle: .scalars -> .lists -> .tensor
            return read_data(tx, self, name, args, kwargs)
        if name == "numpy":  # an array computed in the graph through torch._numpy
            from .numpy import ndarray_from_tensor  # cycle: .numpy -> .tensor
            return ndarray_from_tensor(tx, self, kwargs.get("force"))
        if name in ("register_hook", "register_post_accumulate_grad_hook") and len(args) == 1 and not kwargs:
            return register_tensor_hook(tx, self, args[0], name)
        if name == "requires_grad_" and self._requires_grad_already(args, kwargs):
            return self  # asks for what autograd already tracks: nothing changes (Dynamo traces on too)
        if name in AUTOGRAD_METHODS:
            raise Unsupported(f"Tensor.{name}() {AUTOGRAD_METHODS[name]}")
        if name in METADATA_MUTATING_METHODS and self._is_input(tx):
            raise Unsupported(f"Tensor.{name}() changes the shape or strides of a graph input in place")
        if name == "__len__":
            if _is_symbolic(self.example.size(0)):  # as Dynamo: len(x) is x.size(0)
                return self.call_method(tx, "size", [ConstantVariable(0)], {})
            return ConstantVariable(len(self.example))
        if name == "__iter__" and not args and not kwargs:  # Tensor.__iter__: its rows, each a getitem
            from .lists import ListIteratorVariable  # cycle: .lists -> .tensor
            return ListIteratorVariable(tuple(self.unpack_var_sequence(tx)))
        if name in ("__getitem__",):
            return tx.output.call(tx, "call_function", operator.getitem, (self, *args), kwargs)
        if name == "type" and not args and not kwargs:  # "torch.FloatTensor": dtype and device, metadata
            return ConstantVariable(self.example.type())
        if name == "type" and len(args) == 1 and _is_tensor_type_class(args[0]):
            # x.type(torch.HalfTensor): the graph holds the type's name, as x.type("torch.HalfTensor")
            cls = args[0].as_python_constant()
            return self.call_method(tx, "type", [ConstantVariable(f"{cls.__module__}.{cls.__qualname__}")], kwargs)
        if name == "new" and _is_shape_request(args):
            # x.new(torch.Size) / x.new(5, 8) make an empty tensor of that shape, but a graph's code
            # prints a Size as a plain tuple, which x.new reads as data: new_empty says it (as Dynamo)
            return tx.output.call(tx, "call_method", "new_empty", (self, *args), kwargs)
        if not callable(getattr(torch.Tensor, name, None)):
            raise Unsupported(f"Tensor has no method {name}()")
        from .decompositions import decompose_method  # cycle: .decompositions -> .lists -> .tensor
        decomposed = decompose_method(tx, self, name, args, kwargs)
        if decomposed is not None:
            return decomposed
        return tx.output.call(tx, "call_method", name, (self, *args), kwargs)

    def has_unpack_var_sequence(self, tx) -> bool:
        return self.example.dim() > 0

    def unpack_var_sequence(self, tx):
        if self.example.dim() == 0:
            raise Unsupported("iteration over a 0-d tensor")
        length = self.call_method(tx, "size", [ConstantVariable(0)], {})
        if not isinstance(length, ConstantVariable):  # as Dynamo: a loop over a tensor fixes its length
            length = ConstantVariable(length.specialize("iterating over a tensor needs its length", tx))
        return [
            tx.output.call(tx, "call_function", operator.getitem, (self, ConstantVariable(i)), {})
            for i in range(length.value)
        ]

    def short_repr(self) -> str:
        ex = self.example
        shape = "x".join(str(s) for s in ex.shape) or "scalar"
        dtype = str(ex.dtype).replace("torch.", "")
        return f"{self.node.name}: {dtype}[{shape}]"
