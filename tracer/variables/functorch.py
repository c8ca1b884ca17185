"""torch.func's transforms (`vmap`, `grad`, `jacrev`, `vjp`, `jvp`, ...) traced as Dynamo traces them.

Dynamo does not make a subgraph of a transform: it inlines torch's own functorch Python
(`torch._functorch.vmap`, `eager_transforms`), and the C calls that switch functorch's state
(`_vmap_increment_nesting`, `_grad_increment_nesting`, `set_inplace_requires_grad_allowed`, ...)
are graph nodes, while the tensors flowing through are functorch's wrappers (batched tensors,
grad-tracking tensors) around the trace's fake tensors.  The switches also run at trace time, so
the fakes get the shapes the real run sees; they take and answer plain values (a level, None), so
the trace holds their answer as a constant, and a trace that stops inside a transform (a break,
an error) has functorch's state put back as it found it (`restore_state`).
"""
from __future__ import annotations

import torch
import torch._C._functorch as functorch_c
from torch._functorch import eager_transforms, predispatch
from torch.autograd import forward_ad

from ..exc import Unsupported
from .constant import ConstantVariable
from .subgraph import add_call_node
from .sym import SymNodeVariable


# The calls that change functorch's (or autograd's) global state: a node each, answered now.
_STATE_SWITCHES = frozenset({
    predispatch._vmap_increment_nesting, predispatch._vmap_decrement_nesting,
    predispatch._jvp_increment_nesting, predispatch._jvp_decrement_nesting,
    predispatch.lazy_load_decompositions, predispatch._enter_dual_level, predispatch._exit_dual_level,
    functorch_c._grad_increment_nesting, functorch_c._grad_decrement_nesting,
    functorch_c.set_inplace_requires_grad_allowed,
    torch._C._autograd._saved_tensors_hooks_disable, torch._C._autograd._saved_tensors_hooks_enable,
    torch._C._set_fwd_grad_enabled, forward_ad._maybe_load_decompositions,
    eager_transforms.enter_jvp_nesting, eager_transforms.exit_jvp_nesting,
    forward_ad.enter_dual_level, forward_ad.exit_dual_level,
})


# ... those of them recorded as the C switch they wrap (they also keep a Python global: the jvp
# nesting, the current dual level), with the arguments it is given.
_RECORDED_AS = {
    eager_transforms.enter_jvp_nesting: lambda kwargs: (predispatch._jvp_increment_nesting, {}),
    eager_transforms.exit_jvp_nesting: lambda kwargs: (predispatch._jvp_decrement_nesting, {}),
    forward_ad.enter_dual_level: lambda kwargs: (predispatch._enter_dual_level, {}),
    forward_ad.exit_dual_level: lambda kwargs: (
        predispatch._exit_dual_level, {"level": forward_ad._current_level if kwargs.get("level") is None
                                       else kwargs["level"]}),
}


# Reads of that state: on constants, answered at trace time (the switches above ran then too).
_STATE_QUERIES = frozenset({
    functorch_c.get_inplace_requires_grad_allowed, functorch_c.maybe_current_level, functorch_c.current_level,
    torch._C._autograd._saved_tensors_hooks_get_disabled_error_message,
    torch._C._autograd._saved_tensors_hooks_is_enabled, torch._C._is_fwd_grad_enabled,
})


def is_state_switch(fn) -> bool:
    try:
        return fn in _STATE_SWITCHES
    except TypeError:  # unhashable
        return False


def is_state_query(fn) -> bool:
    try:
        return fn in _STATE_QUERIES
    except TypeError:
        return False


def _constants(args, kwargs, fn):
    if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
        raise Unsupported(f"{getattr(fn, '__name__', fn)}() of values that are not constants")
    return [a.as_python_constant() for a in args], {k: v.as_python_constant() for k, v in kwargs.items()}


def _switch_arguments(args, kwargs, fn):
    """The switch's arguments to run it with and to record: constants, and a symbolic size (a vmap's
    batch size under dynamic shapes), run with its SymInt and recorded as its node, as Dynamo does."""
    symbolic = [i for i, a in enumerate(args) if isinstance(a, SymNodeVariable)]
    values, keywords = _constants([ConstantVariable(None) if i in symbolic else a for i, a in enumerate(args)],
                                  kwargs, fn)
    run, recorded = list(values), list(values)
    for i in symbolic:
        run[i], recorded[i] = args[i].value, args[i].as_proxy()
    return run, tuple(recorded), keywords


def call_state_switch(tx, fn, args, kwargs):
    """A functorch switch: run now (so the fakes traced after it see it), a node in the graph."""
    values, recorded_args, keywords = _switch_arguments(args, kwargs, fn)
    _remember_state(tx)
    target, recorded = (fn, keywords) if fn not in _RECORDED_AS else _RECORDED_AS[fn](keywords)
    answer = fn(*values, **keywords)
    add_call_node(tx, target, recorded_args, recorded, answer)
    return ConstantVariable(answer)


def call_state_query(tx, fn, args, kwargs):
    values, keywords = _constants(args, kwargs, fn)
    return ConstantVariable(fn(*values, **keywords))


def _remember_state(tx) -> None:
    """On the trace's first switch, a cleanup that puts functorch's state back as it was then."""
    output = tx.output
    if output.functorch_state_saved:
        return
    output.functorch_state_saved = True
    depth = functorch_c.get_dynamic_layer_stack_depth()
    inplace = functorch_c.get_inplace_requires_grad_allowed()
    hooks_message = torch._C._autograd._saved_tensors_hooks_get_disabled_error_message()
    fwd_grad = torch._C._is_fwd_grad_enabled()
    nesting = (eager_transforms.JVP_NESTING, forward_ad._current_level)
    output.functorch_counters = dict(zip(_COUNTERS, nesting))
    output.cleanup_hooks.insert(0, lambda: restore_state(depth, inplace, hooks_message, fwd_grad, nesting))


# The Python globals functorch counts its nesting in, which the switches above change at trace time.
_COUNTERS = ((eager_transforms, "JVP_NESTING"), (forward_ad, "_current_level"))


def nesting_counter(tx, f_globals: dict, name: str, source):
    """A read of a nesting counter after the trace's own switches changed it: its value now (what the
    code reads at that point of the real run), guarded on the value the trace started from; None
    for any other global."""
    for module, counter in _COUNTERS:
        if name == counter and f_globals is vars(module) and (module, counter) in tx.output.functorch_counters:
            tx.output.install_guard(source, "EQUALS_MATCH", tx.output.functorch_counters[(module, counter)])
            return ConstantVariable(f_globals[name])
    return None


def restore_state(depth: int, inplace: bool, hooks_message, fwd_grad: bool, nesting: tuple) -> None:
    """Pop the transform levels a stopped trace left entered (as Dynamo does after a compiled call),
    and reset the switches."""
    functorch_c.pop_dynamic_layer_stack_and_undo_to_depth(depth)
    functorch_c.set_inplace_requires_grad_allowed(inplace)
    if hooks_message is None:
        torch._C._autograd._saved_tensors_hooks_enable()
    else:
        torch._C._autograd._saved_tensors_hooks_disable(hooks_message)
    torch._C._set_fwd_grad_enabled(fwd_grad)
    jvp_nesting, dual_level = nesting
    while forward_ad._current_level > dual_level:  # a dual level entered and not left
        forward_ad.exit_dual_level()
    eager_transforms.JVP_NESTING = jvp_nesting
