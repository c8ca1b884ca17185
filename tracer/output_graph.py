"""OutputGraph: the FX graph under construction, its inputs, guards and fake values.

Every tensor operation the translator meets becomes a node here, computed once
on fake tensors so the next instruction knows the result's shape and dtype.
Graph inputs are placeholders named after their Source (`L['x']` -> `L_x_`).
"""
from __future__ import annotations

import dataclasses
import enum
import operator
from dataclasses import dataclass

import numpy
import torch
import torch.fx
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.utils._pytree import tree_map

from .exc import Unsupported
from .guards import Guard, TensorMeta, global_state
from .side_effects import SideEffects
from .source import NumpyTensorSource, Source, SourceGroup
from .variables.base import VariableTracker
from .variables.constant import ConstantVariable
from .variables.lists import NamedTupleVariable, TupleVariable, tuple_fields
from .variables.tensor import TensorVariable


@dataclass(frozen=True)
class GraphInput:
    """A placeholder and where its value is fetched from on every call."""

    source: Source
    node: torch.fx.Node
    example: torch.Tensor  # the real tensor seen at compile time


class OutputGraph:
    def __init__(self, code_name: str = "forward"):
        self.graph = torch.fx.Graph()
        self.fake_mode = FakeTensorMode()
        self.inputs: dict[str, GraphInput] = {}  # by source name, in placeholder order
        self.input_trackers: dict[str, TensorVariable] = {}
        self.guards: dict[tuple, Guard] = {}
        self.first_sources: dict[int, tuple[object, Source]] = {}  # id(value from outside) -> (value, first source)
        self._last_placeholder: torch.fx.Node | None = None
        self.on_guard = None  # debugger callbacks, set by the translator when one is attached
        self.on_node = None
        self.tx = None
        self.side_effects = SideEffects()
        self.steps = 0  # instructions traced, inlined calls included
        self.suspended_frames: list = []  # frames of generators made in the trace, held between yields
        self.initial_grad_mode = torch.is_grad_enabled()
        self.cleanup_hooks: list = []  # undo trace-time switches (autocast, ...) of with-blocks not yet left
        self.install_guard(None, "GLOBAL_STATE", global_state(), at=None)

    # ---- guards -----------------------------------------------------------------
    def install_guard(self, source: Source | None, kind: str, expected, at="current") -> None:
        key = (source.name() if source is not None else "", kind,
               expected[0] if kind == "DICT_CONTAINS" else None)
        if key in self.guards:
            return
        installed_at = self.tx.installed_at() if (at == "current" and self.tx is not None) else None
        guard = Guard(source, kind, expected, installed_at)
        self.guards[key] = guard
        if self.on_guard is not None:
            self.on_guard(guard)

    def note_source(self, value, source: Source) -> Source | None:
        """A value whose identity the trace relies on (a tensor, a list, an object), reached under
        `source`: the first source it was reached under if that is another one, and then the guard that
        both still name one object (Dynamo's DUPLICATE_INPUT), else None."""
        known = self.first_sources.get(id(value))
        if known is None or known[0] is not value:
            self.first_sources[id(value)] = (value, source)
            return None
        first = known[1]
        if first == source:
            return None
        self.install_guard(SourceGroup((first, source)), "DUPLICATE_INPUT", (first.name(), source.name()))
        return first

    def finish_guards(self) -> list[Guard]:
        """The entry's guards: those installed, and that the tensors the graph took as distinct are
        still distinct objects (as Dynamo; parameters and arrays' tensors excepted)."""
        tensors = [guard.source for guard in self.guards.values() if guard.kind == "TENSOR_MATCH"
                   and guard.expected.type is not torch.nn.Parameter
                   and not isinstance(guard.source, NumpyTensorSource)]
        if len(tensors) > 1:
            self.install_guard(SourceGroup(tuple(tensors)), "NO_TENSOR_ALIASING",
                               tuple(source.name() for source in tensors), at=None)
        return list(self.guards.values())

    def stamp_guards(self, start: int, tracker_kind: str) -> None:
        """Record which kind of tracker the guards installed since `start` were built for."""
        keys = list(self.guards)[start:]
        for key in keys:
            guard = self.guards[key]
            if guard.installed_by is None:
                self.guards[key] = dataclasses.replace(guard, installed_by=tracker_kind)

    # ---- inputs -----------------------------------------------------------------
    def add_graph_input(self, tx, source: Source, value: torch.Tensor) -> TensorVariable:
        name = source.name()
        if name in self.input_trackers:
            return self.input_trackers[name]
        first = self.note_source(value, source)
        if first is not None:  # one tensor under two names: one placeholder
            return self.input_trackers[first.name()]
        self.install_guard(source, "TENSOR_MATCH", TensorMeta.of(value))
        if self._last_placeholder is None:
            first = next(iter(self.graph.nodes), None)
            ctx = self.graph.inserting_before(first)
        else:
            ctx = self.graph.inserting_after(self._last_placeholder)
        with ctx:
            node = self.graph.placeholder(source.graph_input_name(), type_expr=type(value))
        self._last_placeholder = node
        fake = self.fake_mode.from_tensor(value, static_shapes=True)
        node.meta["example_value"] = fake
        node.meta["grapharg_source"] = name
        self.inputs[name] = GraphInput(source, node, value)
        tracker = TensorVariable(node=node, example=fake, source=source)
        self.input_trackers[name] = tracker
        if self.on_node is not None:
            self.on_node(node)
        return tracker

    # ---- operations -------------------------------------------------------------
    def call(self, tx, op: str, target, args: tuple, kwargs: dict) -> VariableTracker:
        """Add `op target(*args, **kwargs)` to the graph and wrap its result."""
        args = tuple(a.realize() for a in args)
        kwargs = {k: v.realize() for k, v in kwargs.items()}
        proxy_args = tuple(_as_graph_arg(self.graph, a) for a in args)
        proxy_kwargs = {k: _as_graph_arg(self.graph, v) for k, v in kwargs.items()}
        fake_args = tree_map(_example_of, proxy_args)
        fake_kwargs = tree_map(_example_of, proxy_kwargs)
        try:
            with self.fake_mode:
                if op == "call_method":
                    example = getattr(fake_args[0], target)(*fake_args[1:], **fake_kwargs)
                else:
                    example = target(*fake_args, **fake_kwargs)
        except Exception as error:
            name = target if isinstance(target, str) else getattr(target, "__name__", str(target))
            raise Unsupported(f"{name}() raised {type(error).__name__} on the traced values: "
                              f"{str(error).splitlines()[0] if str(error) else ''}") from error
        node = self.graph.create_node(op, target, proxy_args, proxy_kwargs)
        node.meta["example_value"] = example
        if tx is not None:
            node.meta["stack_trace"] = tx.stack_trace_text()
        if self.on_node is not None:
            self.on_node(node)
        return self._wrap(tx, node, example)

    def _wrap(self, tx, node: torch.fx.Node, example) -> VariableTracker:
        if isinstance(example, torch.Tensor):
            return TensorVariable(node=node, example=example)
        if isinstance(example, (tuple, list)) and all(isinstance(e, torch.Tensor) or e is None for e in example):
            items = []
            for i, item in enumerate(example):
                if item is None:  # multi_head_attention_forward's weights when need_weights=False
                    items.append(ConstantVariable(None))
                    continue
                getitem = self.graph.create_node("call_function", operator.getitem, (node, i), {})
                getitem.meta["example_value"] = item
                items.append(TensorVariable(node=getitem, example=item))
            if tuple_fields(type(example)):
                return NamedTupleVariable(tuple(items), tuple_cls=type(example))
            return TupleVariable(tuple(items))
        if example is None:
            return ConstantVariable(None)
        raise Unsupported(f"{node.target} returned a {type(example).__name__}, "
                          "a value that depends on tensor data")

    # ---- finishing --------------------------------------------------------------
    def prune(self) -> None:
        """Dynamo's miniature DCE: drop unused getitems and unused placeholders only, and a
        grad-mode switch undone by the very next node."""
        for node in reversed(list(self.graph.nodes)):
            if not node.users and node.op == "call_function" and node.target is operator.getitem:
                self.graph.erase_node(node)
        self._drop_undone_grad_switches()
        for name, graph_input in list(self.inputs.items()):
            if not graph_input.node.users:
                self.graph.erase_node(graph_input.node)
                del self.inputs[name]

    def _drop_undone_grad_switches(self) -> None:
        """`_set_grad_enabled(not m)` right before `_set_grad_enabled(m)` switches for nothing (a
        with-block with no op left in it after a graph break): as Dynamo, drop the pair."""
        mode = self.initial_grad_mode
        nodes = list(self.graph.nodes)
        erased = set()
        for first, second in zip(nodes, nodes[1:]):
            if first in erased or not _switches_grad_mode_to(first, not mode):
                continue
            mode = not mode
            if _switches_grad_mode_to(second, not mode):
                mode = not mode
                erased.update((first, second))
                self.graph.erase_node(first)
                self.graph.erase_node(second)

    def run_cleanup_hooks(self) -> None:
        """Leave, innermost first, the trace-time state of with-blocks the trace stopped inside."""
        while self.cleanup_hooks:
            self.cleanup_hooks.pop()()

    def count_calls(self) -> int:
        return sum(node.op in ("call_function", "call_method", "call_module") for node in self.graph.nodes)


def _switches_grad_mode_to(node: torch.fx.Node, mode: bool) -> bool:
    return node.op == "call_function" and node.target is torch._C._set_grad_enabled and tuple(node.args) == (mode,)


_FX_LITERALS = (int, float, bool, str, type(None), torch.dtype, torch.device, torch.memory_format, torch.layout,
                torch.Size, type(Ellipsis), complex)


def _as_graph_arg(graph: torch.fx.Graph, v: VariableTracker):
    v = v.realize()
    if isinstance(v, TensorVariable):
        return v.node
    if isinstance(v, TupleVariable) or type(v).__name__ == "ListVariable":
        return v.python_type()(_as_graph_arg(graph, item) for item in v.items)
    if type(v).__name__ == "SliceVariable":
        return slice(*(_as_graph_arg(graph, p) for p in v.parts()))
    if v.is_python_constant():
        literal = _as_literal(graph, v.as_python_constant())
        if literal is not _NOT_LITERAL:
            return literal
    raise Unsupported(f"{v.describe()} cannot be passed to a graph operation")


_NOT_LITERAL = object()


def _as_literal(graph: torch.fx.Graph, value):
    """A constant as the graph's code can write it.  FX writes a constant by its repr, so a numpy
    scalar (a float64 is a float) is made by a node calling its type: the op gets the very value."""
    if isinstance(value, numpy.generic) and isinstance(value, (numpy.number, numpy.bool_)):
        node = graph.create_node("call_function", type(value), (value.item(),), {})
        node.meta["example_value"] = value
        return node
    if type(value) in _FX_LITERALS or isinstance(value, enum.Enum):
        return value
    if type(value) in (tuple, list):
        items = [_as_literal(graph, item) for item in value]
        return _NOT_LITERAL if _NOT_LITERAL in items else type(value)(items)
    return _NOT_LITERAL


def _example_of(x):
    if isinstance(x, torch.fx.Node):
        return x.meta["example_value"]
    return x
