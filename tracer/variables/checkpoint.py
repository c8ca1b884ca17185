"""`torch.utils.checkpoint.checkpoint(fn, *args)` inside the trace, as Dynamo handles it.

Activation checkpointing runs `fn` now and again in backward, so `fn` cannot be traced in line:
its body is traced into a graph of its own (`wrap_body_0`), and the main graph calls it through
torch's `tag_activation_checkpoint` higher-order op with the tensor arguments, then the
parameters and tensors the body reads (lifted), and checkpoint's own keyword arguments
(`use_reentrant=...`).  The body's results come back as items of the op's tuple.  Arguments that
are not tensors are baked into the body, as Dynamo does.
"""
from __future__ import annotations

import operator
from dataclasses import replace

import torch
from torch._higher_order_ops.wrap import TagActivationCheckpoint, tag_activation_checkpoint
from torch.utils.checkpoint import noop_context_fn

from ..exc import Unsupported
from .constant import ConstantVariable
from .lists import ListVariable, TupleVariable
from .subgraph import add_call_node, lift_outer_nodes, tensor_node, trace_body


def call_checkpoint(tx, args, kwargs):
    """checkpoint(fn, *args, use_reentrant=..., **fn_kwargs): one higher-order op in the graph."""
    if not args:
        raise Unsupported("torch.utils.checkpoint.checkpoint() without a function")
    checkpoint_kwargs, fn_kwargs = TagActivationCheckpoint.divide_kwargs(dict(kwargs))
    context_fn = checkpoint_kwargs.pop("context_fn", None)
    if context_fn is not None and not (context_fn.is_python_constant()
                                       and context_fn.as_python_constant() is noop_context_fn):
        raise Unsupported("torch.utils.checkpoint.checkpoint() with a context_fn")
    options = {name: _constant_option(name, value) for name, value in checkpoint_kwargs.items()}
    fn, fn_args = args[0], list(args[1:])
    body, inputs, result = _traced_body(tx, fn, fn_args, fn_kwargs)
    output = tx.output
    name = output.install_subgraph("wrap_body", torch.fx.GraphModule(torch.nn.Module(), body))
    body_node = output.graph.create_node("get_attr", name, (), {})
    results = _flat_tensors(result)
    call = add_call_node(tx, tag_activation_checkpoint, (body_node, *inputs), options,
                     tuple(t.example for t in results))
    items = [replace(t, node=add_call_node(tx, operator.getitem, (call, i), {}, t.example), source=None)
             for i, t in enumerate(results)]
    return _rebuilt(result, iter(items))


def _constant_option(name: str, value):
    if not value.is_python_constant():
        raise Unsupported(f"torch.utils.checkpoint.checkpoint({name}={value.describe()}), not a constant")
    return value.as_python_constant()


def _traced_body(tx, fn, fn_args: list, fn_kwargs: dict):
    """fn traced into a graph whose inputs are the tensor arguments it uses (Dynamo drops the others),
    then what it reads from outside: (the graph, the main graph's nodes it takes, fn's result)."""
    body = torch.fx.Graph()
    arguments, body_args = [], []  # (body placeholder, main graph node) per tensor argument
    for arg in fn_args:
        node = tensor_node(arg.realize())
        if node is None:
            body_args.append(arg)
            continue
        placeholder = body.placeholder(f"arg_{len(arguments)}")
        placeholder.meta["example_value"] = node.meta["example_value"]
        arguments.append((placeholder, node))
        body_args.append(replace(arg.realize(), node=placeholder, source=None))
    result = trace_body(tx, body, fn, body_args, fn_kwargs, "a checkpointed function")
    body.output(tuple(tensor_node(t) for t in _flat_tensors(result)))
    for placeholder, _ in arguments:
        if not placeholder.users:
            body.erase_node(placeholder)
    used = [(placeholder, node) for placeholder, node in arguments if placeholder.users]
    last = used[-1][0] if used else None
    return body, [node for _, node in used] + lift_outer_nodes(body, last), result


def _flat_tensors(result) -> list:
    """The tensors of a result that is a tensor, a constant, or (nested) tuples and lists of them: the
    body's outputs (a constant stays out of the graph and is rebuilt as it is, as Dynamo's)."""
    if tensor_node(result) is not None:
        return [result]
    if isinstance(result, (TupleVariable, ListVariable)):
        return [t for item in result.items for t in _flat_tensors(item.realize())]
    if isinstance(result, ConstantVariable):
        return []
    raise Unsupported(f"a checkpointed function returning {result.describe()}")


def _rebuilt(result, items):
    """`result`'s structure again, each tensor the op's item in order."""
    if tensor_node(result) is not None:
        return next(items)
    if isinstance(result, ConstantVariable):
        return result
    return type(result)(tuple(_rebuilt(item.realize(), items) for item in result.items))
