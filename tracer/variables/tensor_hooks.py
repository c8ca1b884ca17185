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
from .subgraph import add_call_node, lift_outer_nodes, tensor_node, trace_body


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
    hooked = add_call_node(tx, register_hook_op, (tensor.node, body_node, *lifted), {}, tensor.example)
    tx.replace_tracker(tensor, replace(tensor, node=hooked))
    return RemovableHandleVariable()


def _traced_hook_body(tx, tensor, hook: VariableTracker):
    """hook(grad) traced into a graph of its own: (its GraphModule, the outer nodes it reads)."""
    body = torch.fx.Graph()
    grad = body.placeholder("grad")
    grad.meta["example_value"] = tensor.example
    result = trace_body(tx, body, hook, [replace(tensor, node=grad, source=None)], {}, "a backward hook")
    if isinstance(tensor_node(result), torch.fx.Node):
        body.output(tensor_node(result))
    elif isinstance(result, ConstantVariable) and result.value is None:
        body.output(None)
    else:
        raise Unsupported(f"a backward hook returning {result.describe()}")
    lifted = lift_outer_nodes(body, grad)
    return torch.fx.GraphModule(torch.nn.Module(), body), lifted
