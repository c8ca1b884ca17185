"""Which callables become graph nodes, which are folded, which are inlined, which are refused.

One readable table instead of lists scattered through the tracer.  The rule is
decided by where a callable lives:

| rule      | who                                                        | what the tracer does |
|-----------|------------------------------------------------------------|----------------------|
| `torch`   | functions of the torch namespace (torch.*, torch.nn.functional.*, torch._C._nn.*) | a node in the graph |
| `builtin` | Python builtins, the operator and math modules, dict.fromkeys | folded on constants, operator nodes on tensors |
| `user`    | Python functions written by the user, and the Python code of torch.nn modules | inlined: traced as part of the caller |
| `skip`    | everything else: other C functions, stdlib internals, I/O  | not traceable: the frame runs eagerly with the reason |
"""
from __future__ import annotations

import builtins
import collections
import functools
import itertools
import sys
import types

# Parts of torch that are Python machinery, not operators.
_TORCH_MACHINERY = ("torch._dynamo", "torch.fx", "torch._subclasses", "torch.utils", "torch.compiler",
                    "torch.autograd.grad_mode", "torch._guards", "torch.overrides", "torch.testing")
# Python code inside torch that is traced through rather than recorded as one node.
_TORCH_INLINED = ("torch.nn.modules", "torch.nn.utils.parametrize")
_BUILTIN_MODULES = frozenset({"builtins", "_operator", "operator", "math"})
_DICT_CLASSES = (dict, collections.OrderedDict, collections.defaultdict)  # their fromkeys builds the dict


def _module_of(value) -> str:
    module = getattr(value, "__module__", None)
    if module is None and isinstance(value, types.BuiltinFunctionType):
        module = getattr(getattr(value, "__self__", None), "__name__", None)
    return module or ""


def is_torch_module(module: types.ModuleType) -> bool:
    return module.__name__ == "torch" or module.__name__.startswith("torch.")


def _is_builtin_class_method(value) -> bool:
    """`dict.fromkeys` (OrderedDict's, defaultdict's), `itertools.chain.from_iterable`: classmethods of
    builtin types that build containers, and `functools.reduce`, `sys.intern`; modelled like builtins."""
    if value is functools.reduce or value is sys.intern:
        return True
    owner, name = getattr(value, "__self__", None), getattr(value, "__name__", None)
    return (owner in _DICT_CLASSES and name == "fromkeys") or (owner is itertools.chain and name == "from_iterable")


def classify(value) -> str:
    """The rule for a callable: 'torch', 'builtin', 'user' or 'skip'."""
    module = _module_of(value)
    if module == "torch" or module.startswith("torch."):
        if module.startswith(_TORCH_MACHINERY):
            return "skip"
        if module.startswith(_TORCH_INLINED) and isinstance(value, types.FunctionType):
            return "user"
        return "torch"
    if _is_builtin_class_method(value):
        return "builtin"
    if module in _BUILTIN_MODULES and isinstance(value, (types.BuiltinFunctionType, types.FunctionType)):
        return "builtin"
    if value in vars(builtins).values() and isinstance(value, types.BuiltinFunctionType):
        return "builtin"
    if isinstance(value, types.FunctionType):
        return "user"
    return "skip"
