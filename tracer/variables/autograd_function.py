"""`MyFunction.apply(*args)` of a custom `torch.autograd.Function`, as Dynamo traces it.

Where no gradient can flow (grad mode off, or no tensor argument requires grad) `forward` is
inlined with a context object.  Otherwise autograd must run `backward` later, so both bodies are
traced into graphs of their own (`fwd_body_0`, `bwd_body_0`, each under no_grad as autograd runs
them) and the main graph calls torch's `autograd_function_apply` higher-order op over them:
the forward body takes the tensors it reads (the arguments in order of first use, then the
ones it never reads) and returns (its outputs, the values backward needs); the backward body
takes a gradient per output, then those values, and returns a gradient per forward input.
"""
from __future__ import annotations

import inspect
import itertools
import operator
from dataclasses import dataclass, field, replace

import torch
from torch._functorch.autograd_function import autograd_function_apply

from ..exc import Unsupported, observed
from ..source import AttrSource
from .base import VariableTracker
from .constant import ConstantVariable
from .get_attr import GetAttrVariable
from .lists import ListVariable, TupleVariable
from .user_functions import guarded_function
from .subgraph import add_call_node, lift_outer_nodes, tensor_node, trace_body

APPLY = torch.autograd.Function.apply.__func__  # the classmethod every Function subclass inherits
_ctx_ids = itertools.count()
_CTX_METHODS = ("save_for_backward", "mark_non_differentiable", "mark_dirty", "set_materialize_grads")


def is_autograd_apply(cls: type, attr) -> bool:
    """`attr`, found on `cls`, is the `apply` of a torch.autograd.Function subclass."""
    return isinstance(attr, classmethod) and attr.__func__ is APPLY and isinstance(cls, type) \
        and issubclass(cls, torch.autograd.Function) and cls is not torch.autograd.Function


@dataclass(frozen=True, eq=False)
class AutogradFunctionContextVariable(VariableTracker):
    """The `ctx` of forward and backward: what save_for_backward kept and the attributes set on it
    live in the side-effects record, as any object the trace made."""

    needs_input_grad: tuple = ()
    ctx_id: tuple = field(default_factory=lambda: ("autograd_ctx", next(_ctx_ids)))

    def python_type(self) -> type:
        return torch.autograd.function.FunctionCtx

    def identity(self):
        return self.ctx_id

    def is_new(self) -> bool:
        return True

    def call_method(self, tx, name, args, kwargs):
        if name == "save_for_backward" and not kwargs:
            self.store_attr(tx, "saved_tensors", TupleVariable(tuple(a.realize() for a in args)))
            return ConstantVariable(None)
        raise Unsupported(f"ctx.{name}() in a torch.autograd.Function")

    def store_attr(self, tx, name, value):
        tx.output.side_effects.store_attr(self, self.ctx_id, name, value)

    def var_getattr(self, tx, name):
        stored = tx.output.side_effects.load_attr(self.ctx_id, name)
        if stored is not None:
            return stored
        if name == "saved_tensors":
            return TupleVariable(())
        if name == "needs_input_grad":
            return TupleVariable(tuple(ConstantVariable(flag) for flag in self.needs_input_grad))
        if name in _CTX_METHODS:
            return GetAttrVariable(self, name)
        raise observed(AttributeError(f"'FunctionCtx' object has no attribute {name!r}"),
                       f"ctx.{name} of a torch.autograd.Function, never set")


@dataclass(frozen=True, eq=False)
class AutogradFunctionApplyVariable(VariableTracker):
    """`Fn.apply`, bound to its class: calling it runs forward (and records backward) as above."""

    fn_cls: type = None
    cls_var: VariableTracker = None

    def python_type(self) -> type:
        return type(self.fn_cls.apply)

    def call_function(self, tx, args, kwargs):
        cls = self.fn_cls
        args = _positional(cls, [a.realize() for a in args], kwargs)
        for hook in ("vjp", "jvp"):
            if getattr(cls, hook) is not getattr(torch.autograd.Function, hook):
                raise Unsupported(f"{cls.__qualname__} defines its own {hook}()")
        if torch.autograd.function._is_setup_context_defined(cls.setup_context):
            raise Unsupported(f"{cls.__qualname__}.setup_context(): forward and context set up apart")
        forward = self._method(tx, "forward")
        needs = tuple(bool(getattr(tensor_example(a), "requires_grad", False)) for a in args)
        ctx = AutogradFunctionContextVariable(needs_input_grad=needs)
        if not (torch.is_grad_enabled() and any(needs)):
            return forward.call_function(tx, [ctx, *args], {})
        return _apply_op(tx, forward, self._method(tx, "backward"), ctx, args)

    def _method(self, tx, name: str):
        """cls.forward / cls.backward, a staticmethod's function, guarded on its code."""
        fn = inspect.getattr_static(self.fn_cls, name)
        fn = fn.__func__ if isinstance(fn, staticmethod) else fn
        if not inspect.isfunction(fn):
            raise Unsupported(f"{self.fn_cls.__qualname__}.{name} is not a Python function")
        source = self.cls_var.source if self.cls_var is not None else None
        return guarded_function(tx, fn, AttrSource(source, name) if source is not None else None)


def tensor_example(tracker):
    node = tensor_node(tracker)
    return node.meta["example_value"] if node is not None else None


def _positional(cls: type, args: list, kwargs: dict) -> list:
    """apply(*args, **kwargs) as forward's positional arguments (after ctx), as Dynamo binds them."""
    if not kwargs:
        return args
    try:
        bound = inspect.signature(cls.forward).bind(None, *args, **kwargs)
    except TypeError as error:
        raise Unsupported(f"{cls.__qualname__}.apply() with keyword arguments forward cannot take") from error
    bound.apply_defaults()
    if any(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in inspect.signature(cls.forward).parameters.values()):
        raise Unsupported(f"{cls.__qualname__}.forward() with keyword-only arguments")
    values = list(bound.arguments.values())[1:]
    return [v if isinstance(v, VariableTracker) else ConstantVariable(v) for v in values]


def _apply_op(tx, forward, backward, ctx, args: list):
    """The two bodies and the op that calls them; the forward's result, each tensor the op's item."""
    fwd = torch.fx.Graph()
    result = _traced_no_grad(lambda: trace_body_allowing_effects(tx, fwd, forward, [ctx, *args]))
    outputs = _output_tensors(result)
    fwd_inputs = lift_outer_nodes(fwd, None)  # the tensors forward read, in order of first use
    for node in [tensor_node(a) for a in args] + [tensor_node(t) for t in outputs]:
        # a tensor argument forward never reads is an input too (backward gives it a gradient), and so
        # is an outer tensor it returns as it is
        if node is not None and node.graph is not fwd and node not in fwd_inputs:
            fwd_inputs.append(node)
            _add_placeholder(fwd, node)
    inner = dict(zip(fwd_inputs, _placeholders(fwd)))
    fwd_out = [_passed_through(fwd, inner.get(tensor_node(t), tensor_node(t))) for t in outputs]

    bwd = torch.fx.Graph()
    grads = []
    for i, t in enumerate(outputs):
        ph = bwd.placeholder(f"grad_{i}")
        ph.meta["example_value"] = t.example
        grads.append(replace(t, node=ph, source=None))
    grad_results = _traced_no_grad(lambda: trace_body(tx, bwd, backward, [ctx, *grads], {}, "a backward"))
    saved, in_bwd = _lift_saved(bwd, fwd, inner)
    saved_tensors = tx.output.side_effects.load_attr(ctx.ctx_id, "saved_tensors")
    kept = {tensor_node(t.realize()) for t in (saved_tensors.items if saved_tensors is not None else ())}
    kept = {inner.get(node, node) for node in kept}
    saved_idx = [i for i, node in enumerate(saved) if node in kept]
    bwd.output(_gradients(grad_results, args, fwd_inputs, in_bwd))
    fwd.output((tuple(fwd_out), tuple(saved)))
    for body in (fwd, bwd):
        _no_grad_around(body)
    return _call_op(tx, fwd, bwd, fwd_inputs, saved_idx, result, outputs)


def trace_body_allowing_effects(tx, body: torch.fx.Graph, fn, args: list):
    """forward traced into `body`: its writes on ctx and elsewhere stay (Dynamo lets forward's
    side effects happen, they run when the op does)."""
    with tx.output.tracing_into(body):
        return fn.call_function(tx, args, {}).realize()


def _traced_no_grad(trace):
    """Autograd runs forward and backward with grad mode off: so does their trace."""
    before = torch.is_grad_enabled()
    torch._C._set_grad_enabled(False)
    try:
        return trace()
    finally:
        torch._C._set_grad_enabled(before)


def _output_tensors(result) -> list:
    if tensor_node(result) is not None:
        return [result]
    if isinstance(result, (TupleVariable, ListVariable)) and all(tensor_node(i.realize()) is not None
                                                                 for i in result.items):
        return [i.realize() for i in result.items]
    raise Unsupported(f"a torch.autograd.Function forward returning {result.describe()}")


def _passed_through(body: torch.fx.Graph, node):
    """An output that is an input: autograd gives a view of it (`view_as`), as Dynamo writes it."""
    if node.op != "placeholder":
        return node
    with body.inserting_after(_placeholders(body)[-1]):
        view = body.call_method("view_as", (node, node))
    view.meta["example_value"] = node.meta["example_value"]
    return view


def _output_or_none(body):
    return next((n for n in body.nodes if n.op == "output"), None)


def _placeholders(body) -> list:
    return [n for n in body.nodes if n.op == "placeholder"]


def _add_placeholder(body, outer):
    last = _placeholders(body)
    with body.inserting_after(last[-1]) if last else body.inserting_before(next(iter(body.nodes), None)):
        ph = body.placeholder(f"unused_{len(last)}")
    ph.meta["example_value"] = outer.meta.get("example_value")
    return ph


def _lift_saved(bwd, fwd, inner: dict) -> tuple[list, dict]:
    """What backward reads from outside (fwd nodes, main-graph tensors) becomes its inputs after
    the gradients, and the forward body returns each (a main-graph tensor through its input):
    (the forward body's nodes it returns, each outer node -> its backward input)."""
    grads = _placeholders(bwd)
    outer = lift_outer_nodes(bwd, grads[-1] if grads else None)
    saved = []
    for node in outer:
        if node.graph is fwd:
            saved.append(node)
        elif node in inner:
            saved.append(inner[node])
        else:
            raise Unsupported("a torch.autograd.Function backward reading a tensor forward never saw")
    return saved, dict(zip(outer, _placeholders(bwd)[len(grads):]))


def _gradients(results, args: list, fwd_inputs: list, in_bwd: dict) -> tuple:
    """A gradient per forward input: backward's one for that argument, None for a tensor forward
    read from elsewhere (a parameter it captured)."""
    items = results.items if isinstance(results, (TupleVariable, ListVariable)) else (results,)
    items = [i.realize() for i in items]
    if len(items) != len(args):
        raise Unsupported(f"a torch.autograd.Function backward returning {len(items)} gradient(s) for "
                          f"{len(args)} input(s)")
    by_input = {tensor_node(arg): tensor_node(grad) for arg, grad in zip(args, items)
                if tensor_node(arg) is not None}
    return tuple(in_bwd.get(by_input.get(node), by_input.get(node)) for node in fwd_inputs)


def _no_grad_around(body):
    """`_set_grad_enabled(False)` after the inputs and `(True)` before the output, as Dynamo's bodies."""
    phs = _placeholders(body)
    with body.inserting_after(phs[-1]) if phs else body.inserting_before(next(iter(body.nodes))):
        body.call_function(torch._C._set_grad_enabled, (False,))
    with body.inserting_before(_output_or_none(body)):
        body.call_function(torch._C._set_grad_enabled, (True,))


def _call_op(tx, fwd, bwd, fwd_inputs, saved_idx, result, outputs):
    output = tx.output
    fwd_gm = torch.fx.GraphModule(torch.nn.Module(), fwd)
    bwd_gm = torch.fx.GraphModule(torch.nn.Module(), bwd)
    fwd_name, bwd_name = output.install_subgraph("fwd_body", fwd_gm), output.install_subgraph("bwd_body", bwd_gm)
    fwd_node = output.graph.create_node("get_attr", fwd_name, (), {})
    bwd_node = output.graph.create_node("get_attr", bwd_name, (), {})
    options = {"non_differentiable_idx": [], "saved_for_backward_idx": saved_idx}
    with output.fake_mode:
        example = autograd_function_apply(fwd_gm, bwd_gm, *[n.meta["example_value"] for n in fwd_inputs],
                                          **options)
    call = add_call_node(tx, autograd_function_apply, (fwd_node, bwd_node, *fwd_inputs), options, example)
    items = [replace(t, node=add_call_node(tx, operator.getitem, (call, i), {}, example[i]), example=example[i],
                     source=None) for i, t in enumerate(outputs)]
    if tensor_node(result) is not None:
        return items[0]
    return type(result)(tuple(items))
