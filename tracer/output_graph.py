"""OutputGraph: the FX graph under construction, its inputs, guards and fake values.

Every tensor operation the translator meets becomes a node here, computed once
on fake tensors so the next instruction knows the result's shape and dtype.
Graph inputs are placeholders named after their Source (`L['x']` -> `L_x_`).
"""
from __future__ import annotations

import contextlib
import dataclasses
import enum
import operator
from dataclasses import dataclass

import numpy
import torch
import torch.fx
from torch._dispatch.python import enable_python_dispatcher
from torch._subclasses.fake_tensor import DynamicOutputShapeException, FakeTensorMode
from torch.utils._pytree import tree_map

from .exc import Unsupported
from .guards import Guard, ShapeCheck, TensorMeta, global_state
from .shapes import graph as shape_graph
from .shapes.env import ShapeTracking
from .shapes.policy import DataCapture
from .side_effects import SideEffects
from .source import (AttrSource, DictKeySource, FloatTensorSource, NumpyTensorSource, Source, SourceGroup,
                     TensorPropertySource)
from .variables.base import VariableTracker
from .variables.constant import ConstantVariable
from .variables.lists import NamedTupleVariable, TupleVariable, tuple_fields
from .variables.sym import SYM_TYPES, SizeVariable, SymNodeVariable
from .variables.tensor import TensorVariable


@dataclass(frozen=True)
class GraphInput:
    """A placeholder and where its value is fetched from on every call."""

    source: Source
    node: torch.fx.Node
    example: torch.Tensor  # the real tensor seen at compile time


class OutputGraph:
    def __init__(self, code_name: str = "forward", shapes=None, capture: DataCapture = DataCapture()):
        self.graph = torch.fx.Graph()
        self.shapes = shapes  # a ShapeTracking; None: every size is static (dynamic=False)
        self.capture = capture  # whether .item() and data-dependent sizes become unbacked symbols
        self.fake_mode = shapes.fake_mode if shapes is not None else FakeTensorMode()
        if shapes is not None:
            shapes.current_tx = lambda: self.tx
        self.bound_symbols: dict = {}  # sympy.Symbol -> the placeholder that binds it
        self.module_sources: set[str] = set()  # nn.Modules read: what is reached through them stays static
        self.inputs: dict[str, GraphInput] = {}  # by source name, in placeholder order
        self.input_trackers: dict[str, TensorVariable] = {}
        self.guards: dict[tuple, Guard] = {}
        self.first_sources: dict[int, tuple[object, Source]] = {}  # id(value from outside) -> (value, first source)
        self._last_placeholder: torch.fx.Node | None = None
        self.on_guard = None  # debugger callbacks, set by the translator when one is attached
        self.on_node = None
        self.tx = None
        self.side_effects = SideEffects()
        self.own_hashes: dict = {}  # identity -> (traced __hash__, the attributes it saw): key_hashes
        self.steps = 0  # instructions traced, inlined calls included
        self.suspended_frames: list = []  # frames of generators made in the trace, held between yields
        self.mutation_log: set | None = None  # while a generator is drained: the containers it changed
        self.initial_grad_mode = torch.is_grad_enabled()
        self.subgraphs: dict[str, torch.fx.GraphModule] = {}  # get_attr targets: traced hook bodies
        self.outer: tuple | None = None  # while tracing into a subgraph: the main graph (and its on_node)
        self.cleanup_hooks: list = []  # undo trace-time switches (autocast, ...) of with-blocks not yet left
        self.functorch_state_saved = False  # a torch.func switch ran: a cleanup hook restores functorch's state
        self.functorch_counters: dict = {}  # functorch's nesting globals as the trace found them (functorch.py)
        self.reparametrized: frozenset = frozenset()  # ids of modules a functional_call swaps tensors into now
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
        if self.shapes is not None:
            fake = self.shapes.fake_tensor(tx, source, value, self.static_reason(source, value))
        else:
            fake = self.fake_mode.from_tensor(value, static_shapes=True)
        if not isinstance(source, DictKeySource):  # a dict's key: matched by identity (its ID_MATCH), as Dynamo
            self.install_guard(source, "TENSOR_MATCH", TensorMeta.of(value, *shape_graph.size_patterns(fake)))
        for prop, index, symint in shape_graph.unbound_symbols(fake, self.bound_symbols):
            real = getattr(value, prop)() if index is None else getattr(value, prop)(index)
            node = self._placeholder(TensorPropertySource(source, prop, index), str(symint.node.expr),
                                     torch.SymInt, symint, real)
            self.bound_symbols[symint.node.expr] = node
        node = self._placeholder(source, source.graph_input_name(), type(value), fake, value)
        tracker = TensorVariable(node=node, example=fake, source=source)
        self.input_trackers[name] = tracker
        return tracker

    def add_symint_input(self, tx, source: Source, value: int) -> SymNodeVariable:
        """An int argument made symbolic (automatic dynamic, dynamic=True): a `torch.SymInt` placeholder."""
        name = source.name()
        if name in self.input_trackers:
            return self.input_trackers[name]
        symint = self.shapes.symbolic_int(tx, source, value)
        self.install_guard(source, "TYPE_MATCH", int)
        node = self._placeholder(source, source.graph_input_name(), torch.SymInt, symint, value)
        self.bound_symbols[symint.node.expr] = node
        tracker = SymNodeVariable(node=node, value=symint, shapes=self.shapes, source=source)
        self.input_trackers[name] = tracker
        return tracker

    def add_symfloat_input(self, tx, source: Source, value: float) -> SymNodeVariable:
        """A float argument made symbolic: as Dynamo, a 0-d float64 tensor placeholder read back with item()."""
        name = source.name()
        if name in self.input_trackers:
            return self.input_trackers[name]
        symfloat = self.shapes.symbolic_float(tx, source, value)
        self.install_guard(source, "TYPE_MATCH", float)
        real = torch.tensor(value, dtype=torch.float64)
        fake = self.fake_mode.from_tensor(real, static_shapes=True)
        placeholder = self._placeholder(FloatTensorSource(source), source.graph_input_name(), torch.Tensor,
                                        fake, real)
        node = self.graph.create_node("call_method", "item", (placeholder,), {})
        node.meta["example_value"] = symfloat
        self.bound_symbols[symfloat.node.expr] = node
        tracker = SymNodeVariable(node=node, value=symfloat, shapes=self.shapes, source=source)
        self.input_trackers[name] = tracker
        if self.on_node is not None:
            self.on_node(node)
        return tracker

    def _placeholder(self, source: Source, node_name: str, type_expr, example, real) -> torch.fx.Node:
        graph, on_node = self.outer if self.outer is not None else (self.graph, self.on_node)
        if self._last_placeholder is None:
            first = next(iter(graph.nodes), None)
            ctx = graph.inserting_before(first)
        else:
            ctx = graph.inserting_after(self._last_placeholder)
        with ctx:
            node = graph.placeholder(node_name, type_expr=type_expr)
        self._last_placeholder = node
        node.meta["example_value"] = example
        node.meta["grapharg_source"] = source.name()
        self.inputs[source.name()] = GraphInput(source, node, real)
        if on_node is not None:
            on_node(node)
        return node

    def data_dependent_shapes(self) -> ShapeTracking:
        """The ShapeEnv that holds unbacked symbols: the trace's own, or (every size static so far) one
        made now that the fake mode and its fakes share."""
        if self.shapes is None:
            self.shapes = ShapeTracking(False, None, capture=self.capture)
            self.shapes.adopt(self.fake_mode)
            self.shapes.current_tx = lambda: self.tx
        return self.shapes

    def static_reason(self, source: Source, value) -> str | None:
        """Why a tensor stays static whatever `dynamic=` says (as in Dynamo), or None."""
        if isinstance(value, torch.nn.Parameter):
            return "a parameter: parameters keep static shapes"
        if self.reads_through_module(source):
            return "read through an nn.Module: module attributes keep static shapes"
        return None

    def reads_through_module(self, source: Source) -> bool:
        return any(link.name() in self.module_sources for link in source.chain()[:-1])

    def int_may_be_symbolic(self, source: Source) -> bool:
        """As Dynamo: an int from the frame's locals (not a global's, not a module's, not a function's
        default, such as HF's `logits_to_keep=0`) may become a symbol."""
        return self.shapes is not None and not source.is_global() and not self.reads_through_module(source) \
            and not _reads_defaults(source)

    def float_may_be_symbolic(self, source: Source) -> bool:
        """As Dynamo: a float from anywhere (a global, a module's attribute too) may become a symbol."""
        return self.shapes is not None

    # ---- operations -------------------------------------------------------------
    def call(self, tx, op: str, target, args: tuple, kwargs: dict) -> VariableTracker:
        """Add `op target(*args, **kwargs)` to the graph and wrap its result."""
        args = tuple(a.realize() for a in args)
        kwargs = {k: v.realize() for k, v in kwargs.items()}
        proxy_args = tuple(_as_graph_arg(self.graph, a) for a in args)
        proxy_kwargs = {k: _as_graph_arg(self.graph, v) for k, v in kwargs.items()}
        fake_args = tree_map(_example_of, proxy_args, is_leaf=_is_slice)
        fake_kwargs = tree_map(_example_of, proxy_kwargs, is_leaf=_is_slice)
        example = self._run_on_fakes(tx, op, target, fake_args, fake_kwargs)
        node = self.graph.create_node(op, target, proxy_args, proxy_kwargs)
        node.meta["example_value"] = example
        if self.shapes is not None:
            self.shapes.note_unbacked_bindings(node)
        if tx is not None:
            node.meta["stack_trace"] = tx.stack_trace_text()
        if self.on_node is not None:
            self.on_node(node)
        return self._wrap(tx, node, example)

    def _run_on_fakes(self, tx, op: str, target, fake_args, fake_kwargs):
        """The operation's result on the fake values.  An op whose output size depends on the data
        (`nonzero`, a boolean mask) gets an unbacked size where the trace captures those (a static
        trace gains a ShapeEnv for it), as in Dynamo; elsewhere it is a break that says so."""
        for attempt in (1, 2):
            try:
                with self._shape_facts(tx, target), self._python_dispatcher(), self.fake_mode:
                    if op == "call_method":
                        return getattr(fake_args[0], target)(*fake_args[1:], **fake_kwargs)
                    return target(*fake_args, **fake_kwargs)
            except Unsupported:
                raise
            except DynamicOutputShapeException as error:
                if attempt == 1 and self.capture.output_shapes and self.shapes is None:
                    self.data_dependent_shapes()
                    continue
                raise Unsupported(f"{_op_name(target)}() makes a tensor whose size depends on the data "
                                  "(torch._dynamo.config.capture_dynamic_output_shape_ops = True records it "
                                  "with an unbacked size)") from error
            except Exception as error:
                raise Unsupported(f"{_op_name(target)}() raised {type(error).__name__} on the traced values: "
                                  f"{str(error).splitlines()[0] if str(error) else ''}") from error

    def _python_dispatcher(self):
        """With symbolic sizes an op runs on the fakes through torch's Python dispatcher, as in Dynamo: a
        composite op (F.pad) then reads sizes as symbols, where its C++ kernel would read them as ints
        and so specialise them."""
        return enable_python_dispatcher() if self.shapes is not None else contextlib.nullcontext()

    def install_subgraph(self, prefix: str, body: torch.fx.GraphModule) -> str:
        """A graph of its own the main graph reads by name (`hook_body_0`, as Dynamo names it)."""
        name = f"{prefix}_{sum(key.startswith(prefix) for key in self.subgraphs)}"
        self.subgraphs[name] = body
        return name

    @contextlib.contextmanager
    def tracing_into(self, body: torch.fx.Graph):
        """Operations go to `body` meanwhile (a hook's own graph); a new graph input still goes to the
        main graph, and the body reads it as it reads any node of the main graph (lifted later)."""
        saved = self.graph, self.on_node, self.outer
        self.outer = (self.graph, self.on_node) if self.outer is None else self.outer
        self.graph, self.on_node = body, None
        try:
            yield
        finally:
            self.graph, self.on_node, self.outer = saved

    def graph_module(self) -> torch.fx.GraphModule:
        """The graph as a module, its subgraphs as attributes."""
        root = torch.nn.Module()
        for name, body in self.subgraphs.items():
            setattr(root, name, body)
        return torch.fx.GraphModule(root, self.graph)

    def _shape_facts(self, tx, target):
        """Guards an operation adds on symbolic sizes (broadcasting, a view's divisibility) name it."""
        if self.shapes is None or not self.shapes.log.active():
            return contextlib.nullcontext()
        name = target if isinstance(target, str) else getattr(target, "__name__", str(target))
        return self.shapes.log.because(tx, f"{name}() on symbolic sizes needed it", name)

    def _wrap(self, tx, node: torch.fx.Node, example) -> VariableTracker:
        if isinstance(example, torch.Tensor):
            return TensorVariable(node=node, example=example)
        if isinstance(example, SYM_TYPES):
            return SymNodeVariable(node=node, value=example, shapes=self.shapes)
        if isinstance(example, torch.Size):  # x.size() of a tensor with a symbolic size
            return SizeVariable(tuple(self._size_item(node, i, item) for i, item in enumerate(example)), node=node)
        if type(example) is tuple and any(isinstance(e, SYM_TYPES) for e in example) and \
                all(isinstance(e, (int, *SYM_TYPES)) for e in example):  # x.stride() with a symbolic stride
            return TupleVariable(tuple(self._size_item(node, i, item) for i, item in enumerate(example)))
        if isinstance(example, (tuple, list)) and all(isinstance(e, torch.Tensor) or e is None for e in example):
            items = []
            for i, item in enumerate(example):
                if item is None:  # multi_head_attention_forward's weights when need_weights=False
                    items.append(ConstantVariable(None))
                    continue
                getitem = self._getitem(node, i, item)
                items.append(TensorVariable(node=getitem, example=item))
            if tuple_fields(type(example)):
                return NamedTupleVariable(tuple(items), tuple_cls=type(example))
            return TupleVariable(tuple(items))
        if example is None:
            return ConstantVariable(None)
        if type(example) in (int, float) and node.target in _SYM_HELPERS:
            # torch.sym_max(3, 2) on plain numbers: as Dynamo, the node stays and its value is a constant
            # (Dynamo breaks on sym_not, sym_ite and sym_sum of plain numbers: so does Standin)
            return ConstantVariable(example)
        if type(example) is bool and node.target is operator.not_:  # `not s`: decided on the fakes, guarded
            return ConstantVariable(example)
        if node.op == "call_method" and _is_constant_tree(example) and \
                isinstance(_example_of(node.args[0]), SYM_TYPES):  # `s.hex()`: the symbol specialised, guarded
            return VariableTracker.build(tx, example)
        raise Unsupported(f"{node.target} returned a {type(example).__name__}, "
                          "a value that depends on tensor data")

    def _size_item(self, size_node, index: int, item) -> VariableTracker:
        getitem = self._getitem(size_node, index, item)
        if isinstance(item, SYM_TYPES):
            return SymNodeVariable(node=getitem, value=item, shapes=self.shapes)
        return ConstantVariable(item)

    def _getitem(self, node, index: int, example) -> torch.fx.Node:
        """node[index], announced as every node is (the debugger's graph as it grows shows it)."""
        getitem = self.graph.create_node("call_function", operator.getitem, (node, index), {})
        getitem.meta["example_value"] = example
        if self.on_node is not None:
            self.on_node(getitem)
        return getitem

    # ---- finishing --------------------------------------------------------------
    def prune(self) -> None:
        """Dynamo's miniature DCE: drop unused getitems, size reads and symbolic arithmetic, unused
        placeholders (a symbol's only once nothing left uses it), and a grad-mode switch undone by
        the very next node.  Then the ShapeEnv's guards join the others."""
        symbolic = self.bound_symbols or (self.shapes is not None and self.shapes.has_unbacked())
        if symbolic:  # as Dynamo: sizes read from inputs become the symbols' placeholders; `u0 >= 0` is asserted
            shape_graph.reify_symbols(self.graph, self.shapes.env)
        for node in reversed(list(self.graph.nodes)):
            if not node.users and node.op == "call_function" and node.target is operator.getitem:
                self.graph.erase_node(node)
            elif not node.users and symbolic and shape_graph.is_pure_size_node(node):
                self.graph.erase_node(node)
            elif not node.users and shape_graph.reads_float_input(node):  # a float only guards read
                self.graph.erase_node(node)
        self._drop_undone_grad_switches()
        symbol_inputs = []
        for name, graph_input in list(self.inputs.items()):
            if shape_graph.binds_symbol(graph_input.node):
                symbol_inputs.append((name, graph_input))
            elif not graph_input.node.users:
                self.graph.erase_node(graph_input.node)
                del self.inputs[name]
        used = shape_graph.symbols_used_by(graph_input.node for graph_input in self.inputs.values()
                                           if not shape_graph.binds_symbol(graph_input.node))
        for name, graph_input in symbol_inputs:
            symbol = graph_input.node.meta["example_value"].node.expr
            if not graph_input.node.users and symbol not in used:
                self.graph.erase_node(graph_input.node)
                del self.inputs[name]
            else:
                used.discard(symbol)
        self._install_shape_guards()

    def _install_shape_guards(self) -> None:
        if self.shapes is None:
            return
        for key, guard in list(self.guards.items()):  # a size the trace specialised is matched exactly
            if guard.kind == "TENSOR_MATCH" and not guard.expected.is_static():
                fake = self.input_trackers[guard.source_name].example
                size, stride = shape_graph.size_patterns(fake)
                causes = self.shapes.specialisation_causes(guard.source_name, guard.expected.size, size)
                self.guards[key] = dataclasses.replace(guard, causes=causes, expected=dataclasses.replace(
                    guard.expected, size=size, stride=stride))
        for produced, python, source in self.shapes.produce_guards():
            terms = shape_graph.terms_of(python)
            key = (source.name() if source is not None else "", "SHAPE_ENV", python)
            first = produced.causes[-1] if produced.causes else None
            guard = Guard(source, "SHAPE_ENV", ShapeCheck(python, produced.text, terms),
                          first.installed_at if first is not None else None,
                          first.tracker if first is not None else None, causes=produced.causes)
            self.guards[key] = guard
            if self.on_guard is not None:  # the debugger sees them at the end of the trace
                self.on_guard(guard)

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


def _op_name(target) -> str:
    return target if isinstance(target, str) else getattr(target, "__name__", str(target))


def _reads_defaults(source: Source) -> bool:
    return any(isinstance(link, AttrSource) and link.member in ("__defaults__", "__kwdefaults__")
               for link in source.chain())


def _switches_grad_mode_to(node: torch.fx.Node, mode: bool) -> bool:
    return node.op == "call_function" and node.target is torch._C._set_grad_enabled and tuple(node.args) == (mode,)


_FX_LITERALS = (int, float, bool, str, type(None), torch.dtype, torch.device, torch.memory_format, torch.layout,
                torch.Size, type(Ellipsis), complex, range)


def _as_graph_arg(graph: torch.fx.Graph, v: VariableTracker):
    v = v.realize()
    if isinstance(v, (TensorVariable, SymNodeVariable)):
        return v.node
    if isinstance(v, SizeVariable):
        return v.node if v.node is not None else _size_node(graph, v)
    if isinstance(v, TupleVariable) or type(v).__name__ == "ListVariable":
        return v.python_type()(_as_graph_arg(graph, item) for item in v.items)
    if type(v).__name__ == "SliceVariable":
        return slice(*(_as_graph_arg(graph, p) for p in v.parts()))
    if v.is_python_constant():
        literal = _as_literal(graph, v.as_python_constant())
        if literal is not _NOT_LITERAL:
            return literal
    raise Unsupported(f"{v.describe()} cannot be passed to a graph operation")


def _size_node(graph: torch.fx.Graph, size: SizeVariable):
    """A torch.Size built at trace time (`x.size()[:-1] + (n,)`) with symbolic items: as Dynamo, a
    `torch.Size((...))` node made where it is used, since a torch.Size cannot hold FX nodes itself."""
    items = tuple(_as_graph_arg(graph, item) for item in size.items)
    if not any(isinstance(item, torch.fx.Node) for item in items):
        return torch.Size(items)
    node = graph.create_node("call_function", torch.Size, (list(items),), {})
    node.meta["example_value"] = torch.Size(_example_of(item) for item in items)
    return node


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
    if type(value) is type and value in _DTYPE_OF_TYPE:  # x.to(float): the dtype it stands for, as Dynamo
        return _DTYPE_OF_TYPE[value]
    if type(value) in (tuple, list):
        items = [_as_literal(graph, item) for item in value]
        return _NOT_LITERAL if _NOT_LITERAL in items else type(value)(items)
    return _NOT_LITERAL


_SYM_HELPERS = frozenset({torch.sym_max, torch.sym_min, torch.sym_int, torch.sym_float})

# A Python number type where torch takes a dtype: what Dynamo writes in the graph for it.
_DTYPE_OF_TYPE = {bool: torch.bool, int: torch.int64, float: torch.float64}


def _example_of(x):
    if isinstance(x, torch.fx.Node):
        return x.meta["example_value"]
    if isinstance(x, slice):  # x[:n] with a symbolic n: the slice holds a node
        return slice(_example_of(x.start), _example_of(x.stop), _example_of(x.step))
    return x


def _is_slice(x) -> bool:
    return isinstance(x, slice)


def _is_constant_tree(value) -> bool:
    """A plain number or string, or a tuple of them: a constant once every symbol in it is decided."""
    if isinstance(value, tuple):
        return all(_is_constant_tree(item) for item in value)
    return type(value) in (int, float, bool, str)
