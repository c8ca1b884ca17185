"""Tracing a function into a graph of its own, for the operations that run it later or elsewhere.

A backward hook runs in backward, a checkpointed function again in backward: neither can be traced
in line into the main graph.  Its body is traced into a separate `torch.fx.Graph`; what it reads
from the main graph (a parameter, a tensor computed earlier) becomes an input of the body, lifted
as Dynamo lifts a body's free variables, and the main graph calls the body through a higher-order
op.  Such a body must not change anything the trace tracks: it would run its side effects at
another time than the program does.
"""
from __future__ import annotations

import torch

from ..exc import Unsupported
from .base import new_mutation_id


def trace_body(tx, body: torch.fx.Graph, fn, args: list, kwargs: dict, what: str):
    """fn(*args, **kwargs) traced into `body`, whose placeholders the caller made (`args` are trackers
    pointing at them, or values the body bakes in): fn's result, realized."""
    output = tx.output
    known, first_id = set(output.side_effects.attrs), new_mutation_id()
    effects, frames = _side_effect_state(output.side_effects), _frame_state(tx)
    with output.tracing_into(body):
        result = fn.realize().call_function(tx, args, kwargs).realize()
    exempt = _exceptions_chained_in_body(output.side_effects, known) | _made_in_body(output.side_effects, first_id)
    after = _side_effect_state(output.side_effects, exempt=exempt, first_id=first_id)
    if not _still(effects, after) or _frame_state(tx) != frames:
        raise Unsupported(f"{what} with side effects (it would run them later, not now)")
    return result


def add_call_node(tx, target, args: tuple, kwargs: dict, example) -> torch.fx.Node:
    """A call the main graph makes of a higher-order op (or an item of its result), its fake result
    given rather than computed: running the op on fakes would run the body again."""
    output = tx.output
    node = output.graph.create_node("call_function", target, args, kwargs)
    node.meta["example_value"] = example
    node.meta["stack_trace"] = tx.stack_trace_text()
    if output.on_node is not None:
        output.on_node(node)
    return node


def tensor_node(tracker):
    """The graph node of a tensor tracker, or None (this module is below tensor.py: no isinstance)."""
    node = getattr(tracker, "node", None)
    return node if isinstance(node, torch.fx.Node) and isinstance(node.meta.get("example_value"), torch.Tensor) \
        else None


def lift_outer_nodes(body: torch.fx.Graph, after: torch.fx.Node | None) -> list:
    """Nodes of the outer graph the body reads become its inputs, after its own placeholders
    (Dynamo's freevars); returns those outer nodes, in the order of the new inputs."""
    lifted: dict = {}
    for node in list(body.nodes):
        for used in list(node.all_input_nodes):
            if used.graph is body:
                continue
            if used not in lifted:
                if after is None:
                    with body.inserting_before(next(iter(body.nodes), None)):
                        after = lifted[used] = body.placeholder(f"lifted_{len(lifted)}")
                else:
                    with body.inserting_after(after):
                        after = lifted[used] = body.placeholder(f"lifted_{len(lifted)}")
                after.meta["example_value"] = used.meta.get("example_value")
            node.replace_input_with(used, lifted[used])
    return list(lifted)


# what a mutation changes in the side-effects record (the others cache what reads met: real cells, containers)
_MUTATIONS = ("attrs", "containers", "globals", "assigned_cells", "base_items", "hooks")


_CHAINING = frozenset(("__context__", "__cause__", "__suppress_context__"))


def _exceptions_chained_in_body(side_effects, known: set) -> set:
    """Exceptions whose only recorded attributes are the chaining a `raise` sets, first recorded in the
    body (a library's try/except inside a checkpointed layer): not a side effect of the body."""
    return {obj_id for obj_id, names in side_effects.attrs.items()
            if obj_id not in known and hasattr(side_effects.attr_owners.get(obj_id), "exc_id")
            and set(names) <= _CHAINING}


def _made_in_body(side_effects, first_id: int) -> set:
    """Objects and functions the body made (their ids come after `first_id`): what the body writes on
    them is its own state, not a side effect (a decorator it applies sets `wrapper.calls`), as Dynamo
    lets a body write on what it made; reaching the outside through a container, a cell or an object
    from before is recorded there, and still counts."""
    return {obj_id for obj_id in side_effects.attrs
            if isinstance(obj_id, tuple) and obj_id[0] in ("new", "function") and obj_id[1] > first_id}


def _side_effect_state(side_effects, exempt: set = frozenset(), first_id: int | None = None) -> list:
    """The mutations recorded, by identity, and the contents of the cells known so far: a body that
    changes either has a side effect (`exempt`: attribute records of objects that do not count;
    cells the trace made after `first_id`, the body's own, may be assigned)."""
    cells = {cell_id: id(value) for cell_id, value in side_effects.cells.items()}
    state = {name: getattr(side_effects, name) for name in _MUTATIONS}
    state["attrs"] = {k: v for k, v in state["attrs"].items() if k not in exempt}
    if first_id is not None:  # a real cell (an outside closure's) first met in the body is not the body's own
        real = {cell.cell_id for _, cell, _ in side_effects.real_cells.values()}
        state["assigned_cells"] = {c for c in state["assigned_cells"] if c < first_id or c in real}
    return [_shallow(state[name]) for name in _MUTATIONS] + [cells]


def _still(before: list, after: list) -> bool:
    """No mutation since `before` (cells the body's own frames made do not count)."""
    return before[:-1] == after[:-1] and all(after[-1].get(k) == v for k, v in before[-1].items())


def _shallow(value):
    if isinstance(value, dict):
        return {k: (id(v) if not isinstance(v, dict) else _shallow(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [id(v) for v in value]
    return frozenset(value) if isinstance(value, set) else value


def _frame_state(tx) -> list:
    """The identities of every live frame's stack and locals (a mutated container is swapped there)."""
    return [([id(v) for v in frame.stack], {k: id(v) for k, v in frame.symbolic_locals.items()})
            for frame in tx.inlining_stack()]
