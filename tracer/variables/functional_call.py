"""`torch.func.functional_call(module, tensors, args)` inside the trace, as Dynamo's graph has it.

torch swaps the given tensors into the module's `_parameters` / `_buffers` for the call and back
after it; Dynamo's graph is the module's forward with those tensors in place of the parameters,
nothing else.  Here the swap is an override the trace holds only for the call: each named
tensor is stored as the attribute of its submodule in the side-effects record (which a module's
attribute read consults first), and the record is put back as it was when the call returns, so
no write to the real module is replayed.  What would read the swapped tensors other than as
attributes (`parameters()`, `_parameters`, `state_dict()`) is refused during the call.  The names must be parameters or buffers the module
has (guarded); a module with tied weights, `strict=True` and names the module lacks are refused
by name (torch's handling of them is not modelled).
"""
from __future__ import annotations

import inspect

import torch
from torch._functorch.functional_call import functional_call as torch_functional_call

from ..exc import Unsupported
from ..source import AttrSource
from .constant import ConstantVariable
from .dicts import ConstDictVariable
from .lists import ListVariable, TupleVariable
from .tensor import TensorVariable

_SIGNATURE = inspect.signature(torch_functional_call)
_WHAT = "torch.func.functional_call()"


def call_functional_call(tx, args, kwargs):
    """functional_call(module, tensors, args, kwargs=None, *, tie_weights=True, strict=False)."""
    try:
        bound = _SIGNATURE.bind(*args, **kwargs)
    except TypeError as error:
        raise Unsupported(f"{_WHAT} called as torch does not take it: {error}") from error
    given = {name: bound.arguments[name] if name in bound.arguments else ConstantVariable(parameter.default)
             for name, parameter in _SIGNATURE.parameters.items()}
    module = given["module"]
    real = getattr(module, "value", None)
    if not isinstance(real, torch.nn.Module) or not hasattr(module, "identity"):
        raise Unsupported(f"{_WHAT} of {module.describe()}, not a module the trace knows")
    if not _is_constant(given["strict"], False):
        raise Unsupported(f"{_WHAT} with strict={given['strict'].describe()}")
    if _has_tied_weights(real):  # tie_weights then decides which names follow a given one
        raise Unsupported(f"{_WHAT} of a module with tied weights")
    overrides = _named_tensors(tx, given["parameter_and_buffer_dicts"])
    call_args, call_kwargs = _call_arguments(tx, given["args"], given["kwargs"])
    output, effects = tx.output, tx.output.side_effects
    saved = ({k: dict(v) for k, v in effects.attrs.items()}, dict(effects.attr_owners), output.reparametrized)
    output.reparametrized = output.reparametrized | {id(m) for m in real.modules()}
    try:
        for name, tensor in overrides.items():
            owner, attr = _owner_of(tx, module, name)
            effects.store_attr(owner, owner.identity(), attr, tensor)
        return module.call_function(tx, call_args, call_kwargs)
    finally:
        effects.attrs, effects.attr_owners, output.reparametrized = saved


def _is_constant(var, value) -> bool:
    return var.is_python_constant() and var.as_python_constant() is value


def _has_tied_weights(module: torch.nn.Module) -> bool:
    tensors = [t for _, t in module.named_parameters(remove_duplicate=False)] + \
        [t for _, t in module.named_buffers(remove_duplicate=False)]
    return len({id(t) for t in tensors}) != len(tensors)


def _named_tensors(tx, dicts) -> dict:
    """The name -> tensor tracker map of a dict, or of a tuple or list of dicts (no name twice)."""
    dicts = dicts.realize()
    parts = [item.realize() for item in dicts.items] if isinstance(dicts, (TupleVariable, ListVariable)) else [dicts]
    named: dict = {}
    for part in parts:
        if not isinstance(part, ConstDictVariable) or not all(isinstance(k, str) for k in part.entries):
            raise Unsupported(f"{_WHAT} given {part.describe()}, not a dict of names to tensors")
        for name, tensor in part.entries.items():
            if name in named:
                raise Unsupported(f"{_WHAT} given {name!r} twice")
            if not isinstance(tensor.realize(), TensorVariable):
                raise Unsupported(f"{_WHAT} given {tensor.describe()} for {name!r}, not a tensor")
            named[name] = tensor.realize()
    return named


def _call_arguments(tx, args, kwargs):
    """The module's positional and keyword arguments: a tuple (or one value) and a dict or None."""
    args = args.realize()
    positional = list(args.items) if isinstance(args, TupleVariable) else [args]  # torch: a tuple or one value
    kwargs = kwargs.realize()
    if kwargs.is_python_constant() and kwargs.as_python_constant() is None:
        return positional, {}
    if not isinstance(kwargs, ConstDictVariable) or not all(isinstance(k, str) for k in kwargs.entries):
        raise Unsupported(f"{_WHAT} with kwargs={kwargs.describe()}")
    return positional, dict(kwargs.entries)


def _owner_of(tx, module, name: str):
    """The submodule tracker that holds `name` (`layer.0.weight`), and the attribute; the name must
    be a parameter or buffer it has, which is guarded."""
    *path, attr = name.split(".")
    owner = module
    for part in path:
        owner = owner.var_getattr(tx, part)
        if not isinstance(getattr(owner, "value", None), torch.nn.Module):
            raise Unsupported(f"{_WHAT} given {name!r}: {part!r} is not a submodule")
    real = owner.value
    slot = "_parameters" if attr in real._parameters else "_buffers" if attr in real._buffers else None
    if slot is None:
        raise Unsupported(f"{_WHAT} given {name!r}, which is not a parameter or buffer of the module")
    if owner.source is not None:
        tx.output.install_guard(AttrSource(owner.source, slot), "DICT_CONTAINS", (attr, True))
    return owner, attr
