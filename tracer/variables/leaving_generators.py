"""Generators made in the trace that leave it (returned, or alive at a graph break): rebuilt as
Dynamo rebuilds them.

A generator's suspended frame lives only in the trace, so no bytecode can hand the caller (or the
resume function) the generator itself.  What it has left to yield is known by running it to its
end now, at the return or the break; the code after gets an iterator over those items.  That is
faithful only when the rest of the body does nothing the program could see happen at another
time, which is checked.
"""
from __future__ import annotations

import operator

from ..exc import ObservedException, Unsupported
from .base import VariableTracker
from .generator import GeneratorVariable
from .lazy import LazyVariableTracker
from .lists import ListIteratorVariable

# In-place operator functions: a graph node calling one changes a tensor it was given.
_INPLACE_OPERATORS = frozenset(getattr(operator, name) for name in (
    "iadd", "iand", "iconcat", "ifloordiv", "ilshift", "imatmul", "imod", "imul", "ior", "ipow", "irshift",
    "isub", "itruediv", "ixor", "setitem", "delitem"))


def _mutates(node) -> bool:
    """Whether a graph node writes to a tensor (an in-place method or op, an operator's in-place
    form, an `out=`): run early, its effect would be seen too soon."""
    if node.op not in ("call_function", "call_method"):
        return False
    if node.target in _INPLACE_OPERATORS or "out" in node.kwargs:
        return True
    name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")
    return name.endswith("_") and not name.endswith("__")


def _effects_state(effects) -> tuple:
    """What the side-effects record holds, to tell whether running code added to it."""
    return (dict(effects.cells), {k: dict(v) for k, v in effects.attrs.items()}, dict(effects.containers),
            dict(effects.globals), len(effects.hooks))


def _is_generator(var: VariableTracker) -> bool:
    """A generator object of a generator function (a map or filter object is rebuilt as itself)."""
    return type(var) is GeneratorVariable


def _holds_generator(var: VariableTracker) -> bool:
    if _is_generator(var):
        return True
    return not var.is_lazy() and any(_holds_generator(child) for _, child in var.children())


def returned_generators_as_iterators(tx, var: VariableTracker) -> VariableTracker:
    """A value leaving the trace with generators made in it: each one, as Dynamo rebuilds it, an
    iterator over what it has left to yield (its body run to the end now).  Only when that rest does
    nothing the program could see happen at a different time (a side effect, an in-place tensor op,
    an exception): else Unsupported, and the frame does not return a rebuilt generator."""
    return generators_as_iterators(tx, [var], at_break=False)[0]


def generators_as_iterators(tx, values: list, at_break: bool = True) -> list:
    """The values alive where the trace stops (the stack and locals at a graph break, the value
    returned), each generator among them swapped for an iterator over what it has left, as
    Dynamo's reconstruct drains one; a generator held twice becomes one iterator."""
    drained: dict[int, ListIteratorVariable] = {}

    def swap(item):
        if not _is_generator(item):
            return item.replace_children(swap) if _holds_generator(item) else item
        if id(item.frame) not in drained:
            drained[id(item.frame)] = _run_to_end(tx, item, values, at_break)
        return drained[id(item.frame)]

    return [swap(value) if _holds_generator(value) else value for value in values]


def _run_to_end(tx, generator: GeneratorVariable, alive: list, at_break: bool) -> ListIteratorVariable:
    graph, effects = tx.output.graph, tx.output.side_effects
    nodes_before, state_before = len(graph.nodes), _effects_state(effects)
    shared = _mutation_ids_outside(tx, generator, alive)
    frame = generator.frame.frame
    own_sequence_iterators = {it.mutation_id for it in _reachable(list(frame.stack) + list(frame.symbolic_locals.values()))
                              if isinstance(it, ListIteratorVariable) and it.over_a_sequence}
    reason = f"cannot rebuild the generator {generator.qualname} leaving the trace: the rest of its body"
    tx.output.mutation_log, log_before = set(), tx.output.mutation_log
    try:
        items = generator.unpack_var_sequence(tx)
    except ObservedException as error:
        raise Unsupported(f"{reason} raises {error.raised_type().__name__}") from None
    finally:
        changed, tx.output.mutation_log = tx.output.mutation_log, log_before
    if _effects_state(effects) != state_before or any(_mutates(n) for n in list(graph.nodes)[nodes_before:]):
        raise Unsupported(f"{reason} has side effects, which would happen before the caller asks for them")
    if changed & shared:
        raise Unsupported(f"{reason} changes a container or iterator the code after it holds too, which "
                          "would see the change too soon")
    if at_break and changed & own_sequence_iterators:
        raise Unsupported(f"{reason} advances its iterator over a list or tuple, a mutation Dynamo does not "
                          "run at a graph break")
    return ListIteratorVariable(tuple(items))


def _mutation_ids_outside(tx, generator: GeneratorVariable, alive: list) -> set:
    """The containers and iterators held anywhere but in the generator's own frame: what the values
    alive after the trace, the side-effects record and the other suspended generators reach."""
    effects = tx.output.side_effects
    roots = list(alive) + list(effects.cells.values()) + list(effects.globals.values()) + \
        list(effects.containers.values()) + list(effects.base_items.values()) + \
        [v for names in effects.attrs.values() for v in names.values()]
    for frame in tx.output.suspended_frames:
        if frame is not generator.frame.frame:
            roots += list(frame.stack) + list(frame.symbolic_locals.values())
    return {var.mutation_id for var in _reachable(roots) if getattr(var, "mutation_id", None) is not None}


def _reachable(roots: list) -> list:
    """The trackers the roots reach through their children, each once (a lazy one only if realized)."""
    found: dict[int, VariableTracker] = {}

    def walk(var):
        real = var.peek() if isinstance(var, LazyVariableTracker) else var
        if real is None or id(real) in found:
            return
        found[id(real)] = real
        for _, child in real.children():
            walk(child)

    for root in roots:
        walk(root)
    return list(found.values())
