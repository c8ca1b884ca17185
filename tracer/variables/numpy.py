"""NumPy in traced code, computed as torch ops through torch._numpy (as Dynamo does).

`t.numpy()` gives an `NumpyNdarrayVariable`: a tensor node that behaves as an
ndarray.  NumPy functions, ndarray methods and operators on it become graph
nodes calling small wrappers: each converts its tensor arguments to
`torch._numpy.ndarray`, runs torch's NumPy implementation, and converts the
result back to a tensor, so the graph holds only tensors.  The wrappers'
names follow Dynamo's (`wrapped_sin`, `wrapped_add`, `numpy_attr_wrapper`), so
graphs compare op for op.  Where an array leaves the graph (returned, or alive
at a break) the rewritten code turns the tensor back into a real ndarray.

What folds instead: `np.dtype(...)`, `np.finfo(...)`, `np.iinfo(...)` are made
at trace time from constant arguments, and their attributes are constants; a
NumPy scalar or dtype passed to a NumPy function is passed by name.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from ..exc import Unsupported, observed
from .base import VariableTracker
from .get_attr import GetAttrVariable
from .constant import ConstantVariable
from .lists import TupleVariable
from .tensor import TensorVariable

try:
    import numpy as np
    import torch._numpy as tnp
except ImportError:  # NumPy is optional: without it no value is a NumPy value
    np = tnp = None


# ---- the functions graph nodes call -----------------------------------------------------------
def _to_tensor(value):
    """A torch._numpy result as what the graph carries: tensors (containers of them), else as is."""
    if isinstance(value, tnp.ndarray):
        return value.tensor
    if isinstance(value, (tuple, list)):
        return type(value)(_to_tensor(v) for v in value)
    return value


def _to_ndarray(value):
    return tnp.ndarray(value) if isinstance(value, torch.Tensor) else value


class NumpyFunction:
    """A graph node's target: a torch._numpy function over tensors standing for arrays."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = f"wrapped_{fn.__name__}"

    def __call__(self, *args, **kwargs):
        return _to_tensor(self.fn(*args, **kwargs))

    def __repr__(self) -> str:
        return f"<numpy {self.fn.__name__} on tensors>"


class NumpyMethod:
    """A graph node's target: an ndarray method called on a tensor standing for the array."""

    def __init__(self, name: str):
        self.name = name
        self.__name__ = f"wrapped_{name}"

    def __call__(self, array, *args, **kwargs):
        return _to_tensor(getattr(_to_ndarray(array), self.name)(*args, **kwargs))

    def __repr__(self) -> str:
        return f"<ndarray.{self.name} on tensors>"


class NumpyOperator:
    """A graph node's target: a Python operator with NumPy's semantics (promotion, broadcasting)."""

    def __init__(self, op):
        self.op = op
        self.__name__ = f"wrapped_{op.__name__}"

    def __call__(self, *args):
        return _to_tensor(self.op(*(_to_ndarray(a) for a in args)))

    def __repr__(self) -> str:
        return f"<numpy operator {self.op.__name__} on tensors>"


class NumpyAttribute:
    """The graph node's target for an ndarray attribute that is an array (`.T`, `.real`, ...)."""

    __name__ = "numpy_attr_wrapper"

    def __call__(self, array, name: str):
        return _to_tensor(getattr(_to_ndarray(array), name))


numpy_attr = NumpyAttribute()


def tensor_to_ndarray(tensor: torch.Tensor):
    """What the rewritten code does to a graph output that is an array: a real ndarray again."""
    return tensor.numpy(force=True)


# ---- trackers -------------------------------------------------------------------------------------
ARRAY_ATTRIBUTES = frozenset({"T", "real", "imag", "flat"})  # attributes that are arrays: graph nodes
_DELEGATED_TO_TENSOR = frozenset({"__len__", "tolist", "__iter__", "item"})


@dataclass(frozen=True, eq=False)
class NumpyNdarrayVariable(TensorVariable):
    """An np.ndarray computed in the graph: its node is the tensor torch._numpy keeps it as."""

    def python_type(self) -> type:
        return np.ndarray

    @staticmethod
    def of(tracker: VariableTracker) -> VariableTracker:
        """The array form of a graph result (tensors become arrays; containers keep their shape)."""
        tracker = tracker.realize()
        if isinstance(tracker, TensorVariable):
            return NumpyNdarrayVariable(node=tracker.node, example=tracker.example)
        if isinstance(tracker, TupleVariable):
            return TupleVariable(tuple(NumpyNdarrayVariable.of(item) for item in tracker.items))
        return tracker

    def var_getattr(self, tx, name: str):
        if name in ARRAY_ATTRIBUTES:
            return call_numpy(tx, numpy_attr, [self, ConstantVariable(name)], {})
        if name in ("ndim", "itemsize", "size", "nbytes"):
            return ConstantVariable(int(getattr(tnp.ndarray(self.example), name)))
        if name in ("shape", "strides"):
            return ConstantVariable(tuple(int(s) for s in getattr(tnp.ndarray(self.example), name)))
        if name in ("dtype", "base", "flags"):
            raise Unsupported(f"ndarray.{name} (not modelled; Dynamo breaks here too)")
        if hasattr(np.ndarray, name) and callable(getattr(np.ndarray, name)):
            return GetAttrVariable(self, name)
        raise Unsupported(f"ndarray attribute .{name}")

    def call_method(self, tx, name: str, args, kwargs):
        if name == "item" and not args and not kwargs and tx.output.capture.scalars:
            # an unbacked number read through torch._numpy's ndarray.item, as Dynamo records it
            tx.output.data_dependent_shapes()
            return tx.output.call(tx, "call_function", NumpyMethod("item"), (self,), {})
        if name in _DELEGATED_TO_TENSOR and not (name == "item" and args):
            # (a.item(i) is the array's i-th item, an array in torch._numpy: a node, as in Dynamo)
            return super().call_method(tx, name, args, kwargs)
        if name in ("tobytes", "tostring", "tofile", "dump", "dumps"):
            raise Unsupported(f"ndarray.{name}() leaves torch._numpy's model of an array")
        if name == "astype" and any(_is_object_dtype(a) for a in [*args, *kwargs.values()]):
            raise Unsupported("ndarray.astype(object): an array of Python objects has no tensor form")
        if name == "clip":  # ndarray.clip's keywords, as torch._numpy names them
            kwargs = {{"a_min": "min", "a_max": "max"}.get(k, k): v for k, v in kwargs.items()}
        return call_numpy(tx, NumpyMethod(name), [self, *args], kwargs)

    def unpack_var_sequence(self, tx):
        """Its rows, arrays again: each a getitem of the tensor, as Dynamo iterates an array."""
        rows = TensorVariable(node=self.node, example=self.example).unpack_var_sequence(tx)
        return [NumpyNdarrayVariable.of(row) for row in rows]

    def truth(self, tx) -> bool:
        raise Unsupported("data-dependent branch: the truth value of an ndarray depends on its data")

    def short_repr(self) -> str:
        return "ndarray " + super().short_repr()


def _is_object_dtype(var) -> bool:
    value = var.as_python_constant() if var.is_python_constant() else None
    return value is object or value == "O"


@dataclass(frozen=True, eq=False)
class NumpyVariable(VariableTracker):
    """A NumPy function, ufunc or scalar type (`np.sin`, `np.sum`, `np.float32`): called, a graph
    node running its torch._numpy counterpart; `np.dtype`/`np.finfo`/`np.iinfo` fold."""

    value: object = None

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self):
        return self.value

    def call_function(self, tx, args, kwargs):
        args = [a.realize() for a in args]
        kwargs = {k: v.realize() for k, v in kwargs.items()}
        if self.value in FOLDED_CONSTRUCTORS:
            if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
                raise Unsupported(f"np.{self.value.__name__}() of values that are not constants")
            value = self.value(*[_plain(a) for a in args], **{k: _plain(v) for k, v in kwargs.items()})
            return NumpyConstantVariable(value)
        counterpart = torch_numpy_counterpart(self.value)
        if counterpart is None:
            raise Unsupported(f"numpy.{getattr(self.value, '__name__', self.value)}, which torch._numpy lacks")
        if getattr(counterpart, "__module__", "").startswith("torch._numpy.random"):
            raise Unsupported(f"np.random.{self.value.__name__}(): NumPy's random stream is not modelled")
        return call_numpy(tx, NumpyFunction(counterpart), args, kwargs)

    def var_getattr(self, tx, name):
        attr = getattr(self.value, name, None)
        if attr is not None and is_numpy_value(attr):
            return NumpyVariable(attr)
        if isinstance(attr, (int, float, str)):
            return ConstantVariable(attr)
        raise Unsupported(f"attribute {name!r} of numpy.{getattr(self.value, '__name__', self.value)}")

    def short_repr(self) -> str:
        return f"numpy.{getattr(self.value, '__name__', self.value)}"


@dataclass(frozen=True, eq=False)
class NumpyConstantVariable(VariableTracker):
    """An np.dtype, np.finfo or np.iinfo object, or a NumPy scalar from outside: a constant."""

    value: object = None

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self):
        return self.value

    def var_getattr(self, tx, name):
        try:
            attr = getattr(self.value, name)
        except AttributeError as error:
            raise observed(error) from error
        if isinstance(attr, np.generic):  # finfo(...).max is a NumPy scalar: its Python value
            attr = attr.item()
        if isinstance(attr, (np.dtype, np.generic)):
            return NumpyConstantVariable(attr)
        if isinstance(attr, type) and issubclass(attr, np.generic):
            return NumpyVariable(attr)
        if isinstance(attr, (int, float, str, bool, type(None))):
            return ConstantVariable(attr)
        raise Unsupported(f"attribute {name!r} of {type(self.value).__name__}")

    def short_repr(self) -> str:
        return repr(self.value)


# ---- helpers --------------------------------------------------------------------------------------
FOLDED_CONSTRUCTORS = frozenset({np.dtype, np.finfo, np.iinfo}) if np is not None else frozenset()


def is_numpy_value(value) -> bool:
    """A NumPy function, ufunc or scalar type the tracer models (not np.ndarray itself, a class for
    isinstance)."""
    if np is None or value is np.ndarray or isinstance(value, np.ndarray):
        return False
    if isinstance(value, np.ufunc) or (isinstance(value, type) and value in FOLDED_CONSTRUCTORS):
        return True
    if isinstance(value, type):
        return issubclass(value, np.generic)
    return callable(value) and (getattr(value, "__module__", None) or "").split(".")[0] == "numpy"


def is_numpy_array(value) -> bool:
    return np is not None and isinstance(value, np.ndarray)


def is_numpy_type_info(value) -> bool:
    """np.finfo / np.iinfo: each wholly set by its dtype; iinfo makes a new, unequal object per call."""
    return np is not None and isinstance(value, (np.finfo, np.iinfo))


def is_numpy_finfo(value) -> bool:
    """np.finfo caches one object per dtype (np.iinfo does not)."""
    return np is not None and isinstance(value, np.finfo)


def is_numpy_constant(value) -> bool:
    return np is not None and isinstance(value, (np.dtype, np.finfo, np.iinfo, np.generic))


def torch_numpy_counterpart(fn):
    """torch._numpy's function of the same name in the matching submodule (np.linalg.norm ->
    tnp.linalg.norm), or None."""
    module = (getattr(fn, "__module__", None) or "numpy").split(".")
    namespace = tnp
    for part in module[1:2]:
        if part in ("linalg", "fft", "random"):
            namespace = getattr(tnp, part)
    name = getattr(fn, "__name__", None)
    counterpart = getattr(namespace, name, None) if name else None
    if counterpart is None and namespace is not tnp:
        counterpart = getattr(tnp, name, None)
    return counterpart if callable(counterpart) else None


def _plain(var):
    """A constant argument as NumPy itself takes it (a dtype stays a dtype)."""
    return var.as_python_constant()


def _graph_arg(var: VariableTracker) -> VariableTracker:
    """A NumPy scalar type or dtype passed on to torch._numpy: by name, as Dynamo passes it."""
    var = var.realize()
    if isinstance(var, (NumpyVariable, NumpyConstantVariable)) or (
            var.is_python_constant() and isinstance(var.as_python_constant(), type)):
        value = var.as_python_constant()
        if isinstance(value, np.dtype):
            return ConstantVariable(value.name)
        if isinstance(value, type) and issubclass(value, np.generic):
            return ConstantVariable(np.dtype(value).name)
        if isinstance(value, np.generic):
            return ConstantVariable(value.item())
        if value in (float, int, bool, complex):
            return ConstantVariable(np.dtype(value).name)
    return var


def call_numpy(tx, target, args, kwargs) -> VariableTracker:
    """A graph node calling `target` (a wrapper above) on arrays, as an array."""
    args = [_graph_arg(a) for a in args]
    kwargs = {k: _graph_arg(v) for k, v in kwargs.items()}
    return NumpyNdarrayVariable.of(tx.output.call(tx, "call_function", target, tuple(args), kwargs))


def numpy_operator(tx, op, args) -> VariableTracker | None:
    """`op(*args)` when an array takes part and no plain tensor does (a tensor's operator wins, as
    torch.Tensor's __array_priority__ makes it win eagerly); None otherwise."""
    if not any(isinstance(a, NumpyNdarrayVariable) for a in args) or \
            any(type(a) is TensorVariable for a in args):
        return None
    return call_numpy(tx, NumpyOperator(op), list(args), {})


def numpy_min_max(tx, fn, items) -> VariableTracker | None:
    """Builtin min()/max() over arrays (no plain tensor among them): np.minimum/np.maximum pair by
    pair, left to right, as Dynamo reduces them; None otherwise."""
    if not any(isinstance(a, NumpyNdarrayVariable) for a in items) or any(type(a) is TensorVariable for a in items):
        return None
    if len(items) > 1 and any(isinstance(a, TensorVariable) and a.example.numel() != 1 for a in items):
        # comparing two arrays of several items asks for the truth of an array, as eagerly
        error = ValueError("The truth value of an array with more than one element is ambiguous. "
                           "Use a.any() or a.all()")
        raise observed(error, f"{fn.__name__}() of arrays of several items: ValueError at trace time")
    pairwise = NumpyFunction(tnp.maximum if fn is max else tnp.minimum)
    result = items[0]
    for other in items[1:]:
        result = call_numpy(tx, pairwise, [result, other], {})
    return result


def ndarray_from_tensor(tx, tensor: TensorVariable, force: VariableTracker | None = None) -> VariableTracker:
    """`t.numpy()`: a view of t that is an array (force=True: detached and on the CPU first)."""
    if np is None:
        raise Unsupported("Tensor.numpy() without NumPy installed")
    if tensor.example.layout != torch.strided:
        raise Unsupported(f"Tensor.numpy() of a {tensor.example.layout} tensor")
    if force is not None and force.as_python_constant():
        detached = tx.output.call(tx, "call_method", "detach", (tensor,), {})
        view = tx.output.call(tx, "call_method", "cpu", (detached,), {})
    else:
        view = tx.output.call(tx, "call_method", "view_as", (tensor, tensor), {})
    return NumpyNdarrayVariable.of(view)


def tensor_from_ndarray(tx, array: NumpyNdarrayVariable) -> VariableTracker:
    """`torch.from_numpy(a)` / `torch.as_tensor(a)` of an array in the graph: its tensor again."""
    return tx.output.call(tx, "call_function", torch.as_tensor, (array,), {})
