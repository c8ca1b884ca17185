"""`tensor.register_hook(fn)` inside the trace, as Dynamo handles it.

A hook runs in backward, long after the graph ran, so it cannot simply be traced in line.
On a graph input (a tensor that came from outside) the hook is registered on the real tensor
after the graph, a side effect like an attribute store.  On a tensor the graph computes, the
hook body is traced into a subgraph of its own and the graph registers it where the tensor is
made (torch's `register_hook` higher-order op), so a backend sees the whole backward.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import torch
from torch._higher_order_ops.register_hook import register_hook_op

from ..exc import Unsupported
from .base import VariableTracker
from .constant import ConstantVariable


@dataclass(frozen=True, eq=False)
class RemovableHandleVariable(VariableTracker):
    """What register_hook returns. `remove()` of a graph input's hook cancels its registration."""

    pending: int | None = None  # its index in side_effects.hooks; None: a hook the graph registers

    def var_getattr(self, tx, name):
        if name == "remove":
            return _HandleRemove(self)
        return super().var_getattr(tx, name)

    def call_method(self, tx, name, args, kwargs):
        if name == "remove" and not args and not kwargs and self.pending is not None:
            tx.output.side_effects.remove_hook(self.pending)
            return ConstantVariable(None)
        raise Unsupported(f"RemovableHandle.{name}() of a hook registered in the trace")


@dataclass(frozen=True, eq=False)
class _HandleRemove(VariableTracker):
    """`handle.remove`, the bound method, until it is called."""

    handle: RemovableHandleVariable = None

    def call_function(self, tx, args, kwargs):
        return self.handle.call_method(tx, "remove", args, kwargs)


def register_tensor_hook(tx, tensor, hook: VariableTracker,
                         method: str = "register_hook") -> VariableTracker:
    """tensor.register_hook(hook): deferred on a graph input, a subgraph on a computed tensor.
    (register_post_accumulate_grad_hook: on a graph input only, as autograd allows it on leaves.)"""
    if tensor.source is not None:
        if tensor.source.name() not in tx.output.inputs:
            raise Unsupported(f"Tensor.{method}() on {tensor.source.name()}, not a graph input")
        return RemovableHandleVariable(pending=tx.output.side_effects.register_hook(tensor, method, hook))
    if method != "register_hook":
        raise Unsupported(f"Tensor.{method}() on a tensor the graph computes (autograd allows it on leaves)")
    body, lifted = _traced_hook_body(tx, tensor, hook)
    output = tx.output
    name = output.install_subgraph("hook_body", body)
    body_node = output.graph.create_node("get_attr", name, (), {})
    hooked = output.graph.create_node("call_function", register_hook_op, (tensor.node, body_node, *lifted), {})
    hooked.meta["example_value"] = tensor.example
    hooked.meta["stack_trace"] = tx.stack_trace_text()
    if output.on_node is not None:
        output.on_node(hooked)
    tx.replace_tracker(tensor, replace(tensor, node=hooked))
    return RemovableHandleVariable()


def _traced_hook_body(tx, tensor, hook: VariableTracker):
    """hook(grad) traced into a graph of its own: (its GraphModule, the outer nodes it reads)."""
    output = tx.output
    body = torch.fx.Graph()
    grad = body.placeholder("grad")
    grad.meta["example_value"] = tensor.example
    effects, frames = _side_effect_state(output.side_effects), _frame_state(tx)
    with output.tracing_into(body):
        result = hook.realize().call_function(tx, [replace(tensor, node=grad, source=None)], {}).realize()
    if not _still(effects, _side_effect_state(output.side_effects)) or _frame_state(tx) != frames:
        raise Unsupported("a backward hook with side effects (it would run them in backward, not now)")
    if isinstance(_tensor_node(result), torch.fx.Node):
        body.output(_tensor_node(result))
    elif isinstance(result, ConstantVariable) and result.value is None:
        body.output(None)
    else:
        raise Unsupported(f"a backward hook returning {result.describe()}")
    lifted = _lift_outer_nodes(body, grad)
    return torch.fx.GraphModule(torch.nn.Module(), body), lifted


def _tensor_node(tracker):
    """The graph node of a tensor tracker, or None (this module is below tensor.py: no isinstance)."""
    node = getattr(tracker, "node", None)
    return node if isinstance(node, torch.fx.Node) and isinstance(node.meta.get("example_value"), torch.Tensor) \
        else None


def _lift_outer_nodes(body: torch.fx.Graph, after: torch.fx.Node) -> list:
    """Nodes of the outer graph the hook reads become inputs of its body (Dynamo's freevars)."""
    lifted: dict = {}
    for node in list(body.nodes):
        for used in list(node.all_input_nodes):
            if used.graph is body:
                continue
            if used not in lifted:
                with body.inserting_after(after):
                    after = lifted[used] = body.placeholder(f"lifted_{len(lifted)}")
                after.meta["example_value"] = used.meta.get("example_value")
            node.replace_input_with(used, lifted[used])
    return list(lifted)


# what a mutation changes in the side-effects record (the others cache what reads met: real cells, containers)
_MUTATIONS = ("attrs", "containers", "globals", "assigned_cells", "dict_items", "hooks")


def _side_effect_state(side_effects) -> list:
    """The mutations recorded, by identity, and the contents of the cells known so far: a hook that
    changes either has a side effect."""
    cells = {cell_id: id(value) for cell_id, value in side_effects.cells.items()}
    return [_shallow(getattr(side_effects, name)) for name in _MUTATIONS] + [cells]


def _still(before: list, after: list) -> bool:
    """No mutation since `before` (cells the hook's own frames made do not count)."""
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
