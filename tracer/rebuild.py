"""How a cache entry rebuilds the frame's return value from the graph's outputs.

The tracker the frame returned is turned into a small plan: which parts are
graph outputs, which are constants, which are fetched again from their Source
(an input returned unchanged keeps its identity), and which containers wrap
them.  Issue "graph breaks" replaces this with rewritten bytecode; the plan is
the same information in data form.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from .exc import Unsupported
from .source import Source
from .variables.base import VariableTracker
from .variables.dicts import ConstDictVariable
from .variables.lists import BaseListVariable, ListVariable, RangeVariable, SliceVariable
from .variables.tensor import TensorVariable


@dataclass(frozen=True)
class Plan:
    kind: str  # "output", "const", "source", "tuple", "list", "dict", "slice"
    value: object = None
    parts: tuple = ()


def make_plan(var: VariableTracker, output_nodes: list[torch.fx.Node]) -> Plan:
    """Plan for `var`; appends the graph nodes it needs to output_nodes."""
    if var.is_lazy():
        return Plan("source", var.source)
    var = var.realize()
    if isinstance(var, TensorVariable):
        if var.node.op == "placeholder" and var.source is not None:
            return Plan("source", var.source)
        if var.node not in output_nodes:
            output_nodes.append(var.node)
        return Plan("output", output_nodes.index(var.node))
    if isinstance(var, BaseListVariable):
        if var.source is not None and not isinstance(var, ListVariable):
            pass  # a tuple from outside is rebuilt from its parts (they may be graph outputs)
        elif var.source is not None:
            return Plan("source", var.source)
        kind = "list" if isinstance(var, ListVariable) else "tuple"
        return Plan(kind, var.python_type() if kind == "tuple" else None,
                    tuple(make_plan(item, output_nodes) for item in var.items))
    if isinstance(var, ConstDictVariable):
        if var.source is not None:
            return Plan("source", var.source)
        return Plan("dict", tuple(var.entries), tuple(make_plan(v, output_nodes) for v in var.entries.values()))
    if isinstance(var, SliceVariable):
        return Plan("slice", None, tuple(make_plan(p, output_nodes) for p in var.parts()))
    if var.source is not None:
        return Plan("source", var.source)
    if var.is_python_constant() or isinstance(var, RangeVariable):
        return Plan("const", var.as_python_constant())
    raise Unsupported(f"returning {var.describe()}, which cannot be rebuilt after the graph runs")


def run_plan(plan: Plan, outputs, f_locals: dict, f_globals: dict):
    kind = plan.kind
    if kind == "output":
        return outputs[plan.value]
    if kind == "const":
        return plan.value
    if kind == "source":
        return plan.value.get_value(f_locals, f_globals)
    parts = [run_plan(p, outputs, f_locals, f_globals) for p in plan.parts]
    if kind == "tuple":
        return tuple(parts) if plan.value is tuple else plan.value(parts)
    if kind == "list":
        return parts
    if kind == "dict":
        return dict(zip(plan.value, parts))
    if kind == "slice":
        return slice(*parts)
    raise ValueError(kind)


def plan_sources(plan: Plan) -> list[Source]:
    if plan.kind == "source":
        return [plan.value]
    return [s for p in plan.parts for s in plan_sources(p)]
