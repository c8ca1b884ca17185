"""One trace's symbolic sizes: torch's ShapeEnv, symbolic fake tensors, and the shape guards.

Nothing here is a home-made algebra: symbols, their ranges, duck sizing, 0/1 specialisation,
the guards and their Python text all come from `torch.fx.experimental.symbolic_shapes`.
What Standin adds is the bookkeeping a debugger needs: why each dimension is symbolic
(`DimChoice`), which graph placeholder binds each symbol, and the cause of every guard
(`provenance`).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import torch
from torch._guards import GuardSource
from torch._guards import Source as TorchSource
from torch._subclasses.fake_tensor import FakeTensorMode

from ..exc import UserError
from ..source import Source
from .policy import (
    AutomaticDynamic,
    DataCapture,
    DimChoice,
    has_markers,
    scalar_is_dynamic,
    tensor_dims,
)
from .provenance import CauseLog, ShapeCause, attribute


@functools.cache
def _torch_source_class():
    """A torch Source naming a Standin Source: what ShapeEnv keys symbols and guards by."""
    @dataclass(frozen=True)
    class StandinSource(TorchSource):
        standin: Source

        @functools.cached_property
        def name(self) -> str:
            return self.standin.name()

        @functools.cached_property
        def guard_source(self):
            return GuardSource.GLOBAL if self.standin.is_global() else GuardSource.LOCAL

        @property
        def _name_template(self) -> str:
            return self.standin.name()

    return StandinSource


@dataclass
class SymbolicInput:
    """A graph input whose value carries symbols, as produce_guards wants it."""

    source: Source
    torch_source: object
    example: object  # a symbolic FakeTensor or a SymInt
    context: object = None  # the tensor's symbolic context (its constraints), None for an int


@dataclass
class Symbol:
    """A symbol the trace made, for the app: its name, the size it stands for and its range."""

    name: str
    source: str  # "L['x'].size()[0]"
    value: int | float | None  # the size (or the int or float argument) seen when it was made; None: unbacked
    range: str  # "[2, int_oo]"


@dataclass
class ShapeTracking:
    """The ShapeEnv of one trace and what Standin knows about each of its symbols."""

    mode: object  # None, True or False
    memory: AutomaticDynamic | None
    compile_id: str | None = None
    inputs: list[SymbolicInput] = field(default_factory=list)
    choices: dict[str, list[DimChoice]] = field(default_factory=dict)  # by source name
    scalars: dict[str, str] = field(default_factory=dict)  # int and float inputs made symbols: source name -> why
    current_tx: object = field(default=lambda: None, repr=False)  # the translator on the current instruction
    float_outputs: dict = field(default_factory=dict)  # SymFloat node -> its 0-d tensor graph output
    capture: DataCapture = DataCapture()
    unbacked: dict = field(default_factory=dict)  # unbacked symbol -> the graph node that made it, described

    def __post_init__(self):
        from torch.fx.experimental.symbolic_shapes import ShapeEnv, compute_unbacked_bindings  # lazy: sympy
        self._unbacked_bindings = compute_unbacked_bindings
        self.env = ShapeEnv(allow_scalar_outputs=self.capture.scalars,
                            allow_dynamic_output_shape_ops=self.capture.output_shapes)
        self.fake_mode = FakeTensorMode(shape_env=self.env)
        self.log = CauseLog(self.env)

    def adopt(self, fake_mode) -> None:
        """Serve a trace that began without a ShapeEnv (every size static) and now meets its first
        data-dependent value: its fake mode, and the fakes it made, gain this ShapeEnv."""
        fake_mode.shape_env = self.env
        self.fake_mode = fake_mode

    def note_unbacked_bindings(self, node) -> None:
        """Which unbacked symbols (`u0` of an `item()`, a `nonzero`'s length) a node's value defines, as
        Dynamo records them: torch's runtime-assert pass finds where each symbol is bound from it."""
        bindings = self._unbacked_bindings(self.env, node.meta["example_value"])
        if bindings:
            node.meta["unbacked_bindings"] = bindings
            target = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", node.target)
            for symbol in bindings:
                self.unbacked[symbol] = f"{target}() (graph node {node.name}): depends on tensor data"

    def has_unbacked(self) -> bool:
        """Whether the trace made unbacked symbols (`u0`): then the graph gets their runtime asserts."""
        return bool(self.env.unbacked_symint_counter or self.env.unbacked_symfloat_counter
                    or self.env.deferred_runtime_asserts)

    # ---- inputs ---------------------------------------------------------------------
    def fake_tensor(self, tx, source: Source, value: torch.Tensor, static_reason: str | None):
        """The fake for a tensor input: static, or with symbols for the dimensions chosen dynamic."""
        name = source.name()
        choices = tensor_dims(self.mode, self.memory, name, value, static_reason, self.compile_id)
        self.choices[name] = choices
        if not any(c.dynamic or c.dynamic_stride for c in choices):
            return self.fake_mode.from_tensor(value, static_shapes=True)
        from torch.fx.experimental.symbolic_shapes import (
            DimDynamic,
            RelaxedUnspecConstraint,
            StatefulSymbolicContext,
            StrictMinMaxConstraint,
        )  # lazy: sympy (warmup.py)
        from torch.utils._sympy.value_ranges import ValueRanges  # lazy: sympy (warmup.py)
        sizes, constraints = [], []
        for dim, choice in enumerate(choices):
            if not choice.dynamic:
                sizes.append(DimDynamic.STATIC)
                constraints.append(None)
                continue
            sizes.append(DimDynamic.DUCK if choice.duck else DimDynamic.DYNAMIC)
            bounds = _marked_range(value, dim) if choice.strict else None
            if bounds is not None:
                constraints.append(StrictMinMaxConstraint(vr=ValueRanges(*bounds), warn_only=False))
            elif choice.strict or choice.automatic:
                constraints.append(RelaxedUnspecConstraint(warn_only=not choice.strict))
            else:
                constraints.append(None)
        strides = [DimDynamic.DYNAMIC if c.dynamic_stride else DimDynamic.INFER_STRIDE for c in choices]
        torch_source = _torch_source_class()(source)
        context = StatefulSymbolicContext(dynamic_sizes=sizes, dynamic_strides=strides, constraint_sizes=constraints,
                                          constraint_strides=[None] * len(choices), tensor_source=torch_source)
        why = (f"{name} entered the trace with symbolic sizes; each size symbol is assumed >= 2 "
               "(0/1 specialisation: sizes 0 and 1 get graphs of their own)")
        with self.log.because(tx, why, "TensorVariable"):
            fake = self.fake_mode.from_tensor(value, source=torch_source, symbolic_context=context)
        self.log.wrapped_at[name] = ShapeCause(why, tx.installed_at() if tx is not None else None,
                                               getattr(getattr(tx, "current", None), "opname", None),
                                               "TensorVariable")
        self.inputs.append(SymbolicInput(source, torch_source, fake, context))
        return fake

    def number_is_dynamic(self, source: Source, value: int | float) -> bool:
        """Whether an int or float argument becomes a symbol (records the value for automatic dynamic)."""
        return scalar_is_dynamic(self.mode, self.memory, source.name(), value, self.compile_id)

    def symbolic_int(self, tx, source: Source, value: int):
        """A SymInt for an int argument that automatic dynamic (or dynamic=True) made symbolic."""
        from torch.fx.experimental.symbolic_shapes import DimDynamic  # lazy: sympy (warmup.py)
        torch_source = _torch_source_class()(source)
        why = f"the int {source.name()} is symbolic ({'dynamic=True' if self.mode is True else 'its value changed'})"
        with self.log.because(tx, why, "SymNodeVariable"):
            sym = self.env.create_unspecified_symint_and_symbol(value, torch_source, DimDynamic.DYNAMIC)
        self.scalars[source.name()] = why
        self.inputs.append(SymbolicInput(source, torch_source, sym, None))
        return sym

    def symbolic_float(self, tx, source: Source, value: float):
        """A SymFloat for a float argument whose value changed (or any, with dynamic=True), as Dynamo's
        unspecialised floats: the graph takes it as a 0-d float64 tensor and reads it back with item()."""
        from torch.fx.experimental.symbolic_shapes import DimDynamic  # lazy: sympy (warmup.py)
        torch_source = _torch_source_class()(source)
        why = f"the float {source.name()} is symbolic ({'dynamic=True' if self.mode is True else 'its value changed'})"
        with self.log.because(tx, why, "SymNodeVariable"):
            symbol = self.env.create_unspecified_symbol(value, source=torch_source, dynamic_dim=DimDynamic.DYNAMIC)
            sym = self.env.create_symfloatnode(symbol, hint=value, source=torch_source)
        self.scalars[source.name()] = why
        self.log.wrapped_at[source.name()] = ShapeCause(why, tx.installed_at() if tx is not None else None,
                                                        getattr(getattr(tx, "current", None), "opname", None),
                                                        "SymNodeVariable")
        self.inputs.append(SymbolicInput(source, torch_source, sym, None))
        return sym

    # ---- what the app and the reports show -------------------------------------------
    def symbols(self) -> list[Symbol]:
        env = self.env
        out = []
        for symbol, sources in env.var_to_sources.items():
            if not sources:
                continue
            value = env.backed_var_to_val.get(symbol) if hasattr(env, "backed_var_to_val") else None
            vr = env.var_to_range.get(symbol)
            out.append(Symbol(str(symbol), sources[0].name, value if value is None else _plain(value),
                              f"[{vr.lower}, {vr.upper}]" if vr is not None else "?"))
        for symbol, origin in self.unbacked.items():  # no input holds them, nor a value: their range
            vr = env.var_to_range.get(symbol)
            out.append(Symbol(str(symbol), origin, None, f"[{vr.lower}, {vr.upper}]" if vr is not None else "?"))
        return out

    def describe(self) -> dict:
        """Plain data for reports and the app: the symbols, and why each input dimension is what it is."""
        return {
            "symbols": [vars(symbol) for symbol in self.symbols()],
            "dimensions": {name: [{"dim": dim, "dynamic": choice.dynamic, "why": choice.why}
                                  for dim, choice in enumerate(choices)]
                           for name, choices in self.choices.items()},
            "numbers": dict(self.scalars),  # int and float arguments made symbols, and why
        }

    # ---- the end of the trace ----------------------------------------------------------
    def produce_guards(self):
        """The ShapeEnv's guards over the symbolic inputs, each with its causes."""
        if not self.inputs:
            return []
        placeholders = [i.example for i in self.inputs]
        sources = [i.torch_source for i in self.inputs]
        contexts = [i.context for i in self.inputs]
        from torch.fx.experimental.symbolic_shapes import ConstraintViolationError  # lazy: sympy (warmup.py)
        try:
            python, verbose = self.env.produce_guards_verbose(placeholders, sources, source_ref=lambda s: s.name,
                                                              input_contexts=contexts)[:2]
        except ConstraintViolationError as error:  # as Dynamo: a marked dimension the code specialised
            raise UserError(str(error)) from error
        symbol_sources = {symbol: sources_[0].name for symbol, sources_ in self.env.var_to_sources.items() if sources_}
        produced = attribute(self.env, self.log, python.exprs, verbose.exprs, symbol_sources)
        rename = {i.source.name(): i.source.expression() for i in self.inputs
                  if i.source.name() != i.source.expression()}
        out = []
        for guard in produced:
            python_text = guard.python
            for name, expression in rename.items():
                python_text = python_text.replace(name, expression)
            out.append((guard, python_text, self._guarded_source(guard.python)))
        return out

    def specialisation_causes(self, name: str, before: tuple, after: tuple) -> tuple:
        """Why dimensions of input `name` that entered symbolic ended static (range(n), a `==` branch...)."""
        causes = []
        for dim, (was, now) in enumerate(zip(before, after)):
            symbol = self.env.source_to_var.get(f"{name}.size()[{dim}]")
            sloc = self.env.replacements_slocs.get(symbol) if was is None and now is not None else None
            cause = self.log.cause_of(sloc) if sloc is not None else None
            if cause is not None:
                causes.append(ShapeCause(f"{name}.size()[{dim}] specialised to {now}: {cause.why}",
                                         cause.installed_at, cause.opname, cause.tracker))
        return tuple(causes)

    def _guarded_source(self, text: str) -> Source | None:
        """The input a guard is shown under: the first one it mentions."""
        best, at = None, None
        for symbolic in self.inputs:
            position = text.find(symbolic.source.name())
            if position >= 0 and (at is None or position < at):
                best, at = symbolic.source, position
        return best


def tracking_for(mode, memory: AutomaticDynamic | None, compile_id: str | None, f_locals: dict,
                 f_globals: dict | None = None, names: tuple = (), capture: DataCapture = DataCapture()):
    """The ShapeTracking of one trace, or None when every size will be static.

    With dynamic=False a trace needs no ShapeEnv, unless a tensor it may read carries a mark_dynamic
    marker: an argument, an item of a list, tuple or dict argument, or a global the code names
    (`names`: its co_names).  A marked tensor further away (inside a module) stays static.
    """
    if mode is False:
        reachable = list(f_locals.values()) + [f_globals[n] for n in names if f_globals and n in f_globals]
        if not any(isinstance(v, torch.Tensor) and has_markers(v) for v in _one_level_down(reachable)):
            return None
    return ShapeTracking(mode, memory, compile_id, capture=capture)


def _one_level_down(values):
    for value in values:
        yield value
        if type(value) in (list, tuple):
            yield from value
        elif type(value) is dict:
            yield from value.values()


def _plain(value):
    """A sympy number as the Python int or float it stands for."""
    return int(value) if getattr(value, "is_integer", False) else float(value)


def _marked_range(tensor, dim: int):
    for constraint in getattr(tensor, "_dynamo_dynamic_range", ()) or ():
        if constraint.dim == dim and (constraint.min is not None or constraint.max is not None):
            from torch.utils._sympy.numbers import int_oo  # lazy: sympy (warmup.py)
            return (constraint.min if constraint.min is not None else 2,
                    constraint.max if constraint.max is not None else int_oo)
    return None


__all__ = ["ShapeTracking", "Symbol", "SymbolicInput", "tracking_for"]
