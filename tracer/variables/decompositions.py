"""Ops Dynamo splits into smaller ones before they reach the graph.

Some ATen kernels turn a scalar argument into a Python number inside the op (`addcmul_`'s
`value=`, `add_`'s tensor `alpha=`, `_foreach_lerp_`'s weight, `_foreach_pow`'s 0-d base):
given a 0-d tensor there (optimizers pass their betas and step sizes as tensors), a compiler
would have to read its data.  Dynamo rewrites these calls into ops that keep the scalar a
tensor operand (a fused multiply-add, `torch.where`, a list of the scalar), and so must we:
the graphs compared with Dynamo's are the rewritten ones.  Each rule returns None when the
call does not have the shape it rewrites, and the op is then recorded as it is.
"""
from __future__ import annotations

import importlib
import operator

import torch

from .base import VariableTracker
from .constant import ConstantVariable
from .lists import BaseListVariable, ListVariable
from .tensor import TensorVariable

# torch.ops.prims.fma.default: fma(a, b, c) = a * b + c in one rounding, as Inductor lowers it
# (the op torch._inductor.inductor_prims registers; looked up by name so no Inductor import).
_FMA = "fma"


def _fma_op():
    """The fused multiply-add op, registered when torch._inductor.inductor_prims is imported."""
    if not hasattr(torch.ops.prims, _FMA):
        # lazy: importing Inductor's prims registers the op, and only a decomposition needs it
        importlib.import_module("torch._inductor.inductor_prims")
    return torch.ops.prims.fma.default


def _function(tx, fn, *args, **kwargs) -> VariableTracker:
    return tx.output.call(tx, "call_function", fn, args, kwargs)


def _method(tx, tensor, name: str, *args) -> VariableTracker:
    return tensor.call_method(tx, name, list(args), {})


def _is_tensor(var) -> bool:
    return isinstance(var.realize(), TensorVariable)


def _fused_into(tx, tensor, product, scale) -> VariableTracker:
    """tensor.copy_(fma(product, scale, tensor)): `tensor += product * scale`, scale kept an operand."""
    fused = _function(tx, _fma_op(), product, scale, tensor)
    return _method(tx, tensor, "copy_", fused)


# ---- tensor methods ---------------------------------------------------------------------------

def _addcmul_(tx, tensor, args, kwargs):
    if len(args) != 2 or set(kwargs) != {"value"}:
        return None
    return _fused_into(tx, tensor, _function(tx, torch.mul, *args), kwargs["value"])


def _addcdiv_(tx, tensor, args, kwargs):
    if len(args) != 2 or set(kwargs) != {"value"}:
        return None
    return _fused_into(tx, tensor, _function(tx, torch.div, *args), kwargs["value"])


def _add_(tx, tensor, args, kwargs):
    if len(args) != 1 or set(kwargs) != {"alpha"} or not _is_tensor(kwargs["alpha"]):
        return None
    return _fused_into(tx, tensor, args[0], kwargs["alpha"])


_METHODS = {"addcmul_": _addcmul_, "addcdiv_": _addcdiv_, "add_": _add_}


def decompose_method(tx, tensor, name: str, args, kwargs) -> VariableTracker | None:
    """tensor.name(*args, **kwargs) rewritten as Dynamo rewrites it, or None."""
    rule = _METHODS.get(name)
    return None if rule is None else rule(tx, tensor, list(args), dict(kwargs))


# ---- torch functions --------------------------------------------------------------------------

def _addcdiv(tx, args, kwargs):
    """torch.addcdiv(a, t1, t2, value=v) as a + (t1 / t2) * v."""
    if len(args) != 3 or set(kwargs) != {"value"}:
        return None
    quotient = _function(tx, torch.div, args[1], args[2])
    return _function(tx, torch.add, args[0], _function(tx, torch.mul, quotient, kwargs["value"]))


def _full(tx, args, kwargs):
    """torch.full(size, t) of a 0-d tensor t as torch.empty(size).fill_(t)."""
    given = dict(zip(("size", "fill_value"), args), **kwargs)
    fill = given.pop("fill_value", None)
    if len(args) > 2 or "size" not in given or fill is None or not _is_tensor(fill) \
            or issubclass(fill.realize().python_type(), torch.nn.Parameter):
        return None
    empty = _function(tx, torch.empty, given.pop("size"), **given)
    return _method(tx, empty, "fill_", fill)


def _foreach_pow(tx, args, kwargs):
    """torch._foreach_pow(t, exponents) of a 0-d tensor base as _foreach_pow([t, t, ...], exponents)."""
    if len(args) != 2 or kwargs or not _is_tensor(args[0]) or not isinstance(args[1].realize(), BaseListVariable):
        return None
    exponents = args[1].realize().unpack_var_sequence(tx)
    return _function(tx, torch._foreach_pow, ListVariable(tuple(args[0] for _ in exponents)), args[1])


def _foreach_lerp_(tx, args, kwargs):
    """torch._foreach_lerp_(tensors, ends, weight) with one weight (a number or a 0-d tensor) through
    _foreach_addcmul_, with the formula of torch's own kernel for the weight's size: start + w * diff
    below 0.5, end - (1 - w) * diff from 0.5 up (a tensor weight chooses per element, by torch.where)."""
    if len(args) != 3 or kwargs or not all(isinstance(a.realize(), BaseListVariable) for a in args[:2]):
        return None
    tensors, ends, weight = args[0].realize(), args[1].realize(), args[2].realize()
    if not _is_tensor(weight) and not (weight.is_python_constant() and
                                       isinstance(weight.as_python_constant(), (int, float))):
        return None
    starts = tensors.unpack_var_sequence(tx)
    diffs = _function(tx, torch._foreach_sub, ends, tensors)
    count = len(starts)
    if _is_tensor(weight):
        return _lerp_by_tensor(tx, tensors, starts, ends.unpack_var_sequence(tx), weight, diffs)
    if abs(weight.as_python_constant()) >= 0.5:
        first = starts[0].realize().example
        weight_t = _function(tx, torch.tensor, weight, dtype=ConstantVariable(first.dtype),
                             device=ConstantVariable(first.device))
        scale = _function(tx, operator.neg, _function(tx, operator.sub, ConstantVariable(1.0), weight_t))
        for start, end in zip(starts, ends.unpack_var_sequence(tx)):
            _method(tx, start, "copy_", end)
        scales = ListVariable(tuple(scale for _ in range(count)))
    else:
        scales = ListVariable(tuple(_function(tx, torch.full_like, diff, weight)
                                    for diff in diffs.unpack_var_sequence(tx)))
    _function(tx, torch._foreach_addcmul_, tensors, scales, diffs)
    return tensors


def _lerp_by_tensor(tx, tensors, starts, ends, weight, diffs):
    high = _function(tx, operator.ge, _method(tx, weight, "abs"), ConstantVariable(0.5))
    scale = _function(tx, operator.neg, _function(tx, operator.sub, ConstantVariable(1.0), weight))
    scale = _function(tx, torch.where, high, scale, weight)
    bases = ListVariable(tuple(_function(tx, torch.where, high, end, start) for start, end in zip(starts, ends)))
    _function(tx, torch._foreach_addcmul_, bases, ListVariable(tuple(scale for _ in starts)), diffs)
    for start, base in zip(starts, bases.items):
        _method(tx, start, "copy_", base)
    return tensors


_FUNCTIONS = {torch.addcdiv: _addcdiv, torch.full: _full, torch._foreach_pow: _foreach_pow,
              torch._foreach_lerp_: _foreach_lerp_}


def decompose_function(tx, fn, args, kwargs) -> VariableTracker | None:
    """fn(*args, **kwargs) rewritten as Dynamo rewrites it, or None."""
    try:
        rule = _FUNCTIONS.get(fn)
    except TypeError:  # an unhashable callable
        return None
    return None if rule is None else rule(tx, list(args), dict(kwargs))
