"""Which callables become graph nodes, which are folded, which are inlined, which are refused.

One readable table instead of lists scattered through the tracer.  The rule is
decided by what a callable is and where it lives, following Dynamo's behaviour:

| rule      | who                                                        | what the tracer does |
|-----------|------------------------------------------------------------|----------------------|
| `torch`   | torch's C functions (torch.*, torch._C._nn.*, ...); the Python functions of `torch.nn.functional` that are tensor operators (they take part in `__torch_function__`); trace-time queries (`torch.compiler.is_compiling`, `torch.jit.is_tracing`, ...) | a node in the graph, or folded to the constant it returns at trace time (`torch_call_rule`) |
| `builtin` | Python builtins, the operator and math modules, dict.fromkeys | folded on constants, operator nodes on tensors |
| `user`    | Python functions written by the user, and the Python helpers of torch (`torch.nn` modules, `torch.functional.split`, `torch.backends.mha.get_fastpath_enabled`, ...) | inlined: traced as part of the caller |
| `skip`    | everything else: other C functions, torch's compiler machinery, stdlib internals, I/O | not traceable: the frame runs eagerly with the reason |
"""
from __future__ import annotations

import builtins
import collections
import functools
import inspect
import itertools
import re
import sys
import types

import torch
import torch._utils
import torch.compiler
import torch.nn.functional
import torch.overrides

# Parts of torch that are Python machinery, not operators.
_TORCH_MACHINERY = ("torch._dynamo", "torch.fx", "torch._subclasses", "torch.utils", "torch.compiler",
                    "torch.autograd.grad_mode", "torch._guards", "torch.overrides", "torch.testing")
# ... except these helpers inside them, plain Python that Dynamo traces (torch.optim calls them).
_TRACED_IN_MACHINERY = ("torch.utils._foreach_utils", "torch.utils._ordered_set")
# ... and single functions of it that plain library code calls (torch.distributions' broadcast_all).
_TRACED_MACHINERY_FUNCTIONS = frozenset({"torch.overrides.is_tensor_like"})
_BUILTIN_MODULES = frozenset({"builtins", "_operator", "operator", "math"})
# Python operators of torch and torch.nn.functional whose body Dynamo traces through to the one C
# op it calls (so the graph holds that op, torch._C._nn.pad, not the wrapper) ...
_OPERATORS_INLINED = frozenset({"pad", "rms_norm", "_threshold", "linear_cross_entropy", "lp_pool3d",
                                "triplet_margin_with_distance_loss", "_sym_sqrt", "lobpcg", "sym_sum",
                                "unravel_index"})
# ... and deprecated torch.nn.functional wrappers torch does not list as overridable, one node each.
_FUNCTIONAL_WRAPPERS = ("sigmoid", "tanh", "hardsigmoid", "hardswish", "upsample", "upsample_bilinear",
                        "upsample_nearest")
# A C function named like a query of torch's state answers a Python value, not a tensor.
_QUERY_NAME = re.compile(r"_?(is|are|has|get)_")
_DICT_CLASSES = (dict, collections.OrderedDict, collections.defaultdict)  # their fromkeys builds the dict


def _module_of(value) -> str:
    module = getattr(value, "__module__", None)
    if module is None and isinstance(value, types.BuiltinFunctionType):
        module = getattr(getattr(value, "__self__", None), "__name__", None)
    return module or ""


def _is_builtin_class_method(value) -> bool:
    """`dict.fromkeys` (OrderedDict's, defaultdict's), `itertools.chain.from_iterable`: classmethods of
    builtin types that build containers, and `functools.reduce`, `sys.intern`, `itertools.tee`; modelled like
    builtins."""
    if value is functools.reduce or value is sys.intern or value is itertools.tee:
        return True
    owner, name = getattr(value, "__self__", None), getattr(value, "__name__", None)
    return (owner in _DICT_CLASSES and name == "fromkeys") or (owner is itertools.chain and name == "from_iterable")


@functools.lru_cache(maxsize=1)
def _tensor_operators() -> frozenset:
    """ids of the Python functions that are one graph node each: the public ones of `torch` and
    `torch.nn.functional` that torch itself lists as overridable by __torch_function__ (derived
    from torch, not a table of ours), as Dynamo puts them in the graph."""
    found = set()
    for namespace, functions in torch.overrides.get_overridable_functions().items():
        if namespace not in (torch, torch.nn.functional):
            continue
        for fn in functions:
            if isinstance(fn, types.FunctionType) and fn.__name__ not in _OPERATORS_INLINED:
                found.add(id(fn))
    found.update(id(getattr(torch.nn.functional, name)) for name in _FUNCTIONAL_WRAPPERS)
    return frozenset(found)


@functools.lru_cache(maxsize=1)
def _trace_time_answers() -> dict:
    """Python functions of torch whose answer at trace time is known: a compile is under way."""
    answers = {torch.compiler.is_compiling: True, torch.compiler.is_dynamo_compiling: True,
               torch.compiler.is_exporting: False, torch._utils.is_compiling: True}
    try:
        from torch.fx._symbolic_trace import is_fx_tracing  # not in every torch version
        answers[is_fx_tracing] = False
    except ImportError:
        pass
    external = sys.modules.get("torch._dynamo.external_utils")  # only when torch._dynamo was imported
    if external is not None:
        answers[external.is_compiling] = True
    dynamo = sys.modules.get("torch._dynamo")
    if dynamo is not None and hasattr(dynamo, "is_compiling"):
        answers[dynamo.is_compiling] = True
    return {id(fn): (fn, value) for fn, value in answers.items()}


def trace_time_answer(fn):
    """(True, value) for a function whose result is fixed while tracing (is_compiling), else (False, None)."""
    known = _trace_time_answers().get(id(fn))
    if known is not None and known[0] is fn:
        return True, known[1]
    return False, None


def is_query(fn) -> bool:
    """A C function of torch named as a query of its state (`torch._C._is_tracing`,
    `torch._C._get_cudnn_enabled`): called on constants it is folded to the value it answers."""
    return isinstance(fn, types.BuiltinFunctionType) and bool(_QUERY_NAME.match(getattr(fn, "__name__", "")))


# torch.func's transforms: Dynamo inlines torch's functorch Python for them (variables/functorch.py);
# those it does not trace are refused by name: linearize asks torch._dynamo.disallow_in_graph first.
_FUNCTORCH_TRANSFORMS = frozenset({"linearize"})

# ... and functorch's Python helpers Dynamo records as one node each, as it records predispatch's.
_FUNCTORCH_GRAPH_MODULES = ("torch._functorch.eager_transforms", "torch.autograd.forward_ad")
_FUNCTORCH_GRAPH_CALLS = frozenset({"_autograd_grad", "_set_tensor_requires_grad", "enter_jvp_nesting",
                                    "exit_jvp_nesting", "enter_dual_level", "exit_dual_level",
                                    "_maybe_load_decompositions"})


def functorch_transform(value) -> str | None:
    """The name of a torch.func transform (torch.func.vmap, torch.vmap, ...), or None."""
    name = getattr(value, "__name__", None)
    if name in _FUNCTORCH_TRANSFORMS and _module_of(value) in (
            "torch.func", "torch._functorch.apis", "torch._functorch.eager_transforms"):
        return name
    return None


def classify(value) -> str:
    """The rule for a callable: 'torch', 'builtin', 'user' or 'skip'."""
    module = _module_of(value)
    if module == "torch" or module.startswith("torch."):
        if trace_time_answer(value)[0]:
            return "torch"
        if functorch_transform(value) is not None:
            return "skip"
        if isinstance(value, types.FunctionType) and (module == "torch._functorch.predispatch" or (
                module in _FUNCTORCH_GRAPH_MODULES and value.__name__ in _FUNCTORCH_GRAPH_CALLS)):
            return "torch"  # functorch's switches and wrappers as Dynamo records them
        if module.startswith(_TORCH_MACHINERY) and not module.startswith(_TRACED_IN_MACHINERY) \
                and f"{module}.{getattr(value, '__qualname__', '')}" not in _TRACED_MACHINERY_FUNCTIONS:
            return "skip"
        if isinstance(value, types.FunctionType):
            return "torch" if id(value) in _tensor_operators() else "user"
        return "torch"
    if _is_builtin_class_method(value):
        return "builtin"
    if module in _BUILTIN_MODULES and isinstance(value, (types.BuiltinFunctionType, types.FunctionType)):
        return "builtin"
    if isinstance(value, types.BuiltinFunctionType) and any(v is value for v in vars(builtins).values()):
        return "builtin"
    if isinstance(value, types.FunctionType):
        return "user"
    return "skip"



def torch_compiled_target(value):
    """The function a `torch.compile`d function wraps (Dynamo inlines it where it meets one), or None."""
    if not isinstance(value, types.FunctionType):
        return None
    target = inspect.getattr_static(value, "_torchdynamo_inline", None)
    return target if callable(target) else None


def is_compiler_disabled(fn) -> bool:
    """A function `torch.compiler.disable` / `torch._dynamo.disable` (or `skip`) made: Dynamo never inlines it."""
    return isinstance(fn, types.FunctionType) and bool(inspect.getattr_static(fn, "_torchdynamo_disable", False))


def is_requested_break(fn) -> bool:
    """`torch._dynamo.graph_break()`: the code asks for a graph break there (torch.optim does)."""
    return getattr(fn, "__module__", None) == "torch._dynamo.decorators" and getattr(fn, "__name__", None) == \
        "graph_break"


def module_skip_reason(module) -> str | None:
    """Why calling this nn.Module is not traced, as in Dynamo (None: it is).  Dynamo leaves RNN
    modules to run as they are (torch._dynamo.config.allow_rnn is False by default)."""
    if isinstance(module, torch.nn.RNNBase):
        return (f"{type(module).__qualname__} is an RNN module, which Dynamo does not trace "
                "(torch._dynamo.config.allow_rnn is False): it runs as it is")
    return None


# The transforms under which a frame called from eager code is not compiled (Dynamo refuses it too).
_EAGER_TRANSFORMS = (torch._C._functorch.TransformType.Vmap, torch._C._functorch.TransformType.Grad,
                     torch._C._functorch.TransformType.Jvp)


def frame_skip_reason(code, f_locals: dict) -> str | None:
    """Why a frame is not traced at all (its own code runs): the forward of a module Dynamo skips, or
    any frame a torch.func transform running eagerly calls (its tensors are functorch's wrappers)."""
    transform = torch._C._functorch.peek_interpreter_stack()
    if transform is not None and transform.key() in _EAGER_TRANSFORMS:
        return (f"called by torch.func.{transform.key().name.lower()} running eagerly (its graph was broken or it "
                "was not traced): as in Dynamo, a frame under a transform run from eager code is not compiled")
    owner = f_locals.get("self")
    if owner is None or getattr(type(owner), "forward", None) is None:
        return None
    if getattr(type(owner).forward, "__code__", None) is code:
        return module_skip_reason(owner)
    return None
