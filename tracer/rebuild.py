"""How a cache entry rebuilds the frame's results after the graph runs.

The tracker the frame returned becomes a small plan: which parts are graph
outputs, which are constants, which are fetched again from their Source (an
input returned unchanged keeps its identity), which are objects the trace
created, and which containers wrap them.  The side effects the trace recorded
on the outside world (attributes, mutated lists and dicts, globals) become
plans too, replayed after every value has been computed, in the order a
Python program would see them.  Issue "graph breaks" turns the same plans into
rewritten bytecode.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from .exc import Unsupported
from .side_effects import SideEffects
from .variables.base import VariableTracker
from .variables.dicts import ConstDictVariable
from .variables.lists import BaseListVariable, ListVariable, RangeVariable, SliceVariable
from .variables.misc import UserDefinedObjectVariable
from .variables.tensor import TensorVariable
from .variables.user_functions import NestedUserFunctionVariable


@dataclass(frozen=True)
class Plan:
    kind: str  # "output", "const", "source", "tuple", "list", "dict", "slice", "new_object"
    value: object = None
    parts: tuple = ()
    keys: tuple = ()


@dataclass(frozen=True)
class FramePlan:
    """The return value and the side effects to replay: (kind, target plan, key, value plan)."""

    result: Plan
    effects: tuple = ()


class PlanBuilder:
    def __init__(self, side_effects: SideEffects):
        self.side_effects = side_effects
        self.output_nodes: list[torch.fx.Node] = []

    def frame(self, result: VariableTracker) -> FramePlan:
        result_plan = self.plan(result)
        effects = []
        for kind, target, key, value in self.side_effects.outside_effects():
            if kind == "setattr":
                if target.is_new():
                    continue  # rebuilt with the object itself
                target_plan = Plan("source", target.source) if target.source is not None \
                    else Plan("const", target.value)
                effects.append(("setattr", target_plan, key, self.plan(value)))
            elif kind == "container":
                effects.append(("container", Plan("source", target), None, self.contents(value)))
            else:
                effects.append(("global", None, key, self.plan(value)))
        return FramePlan(result_plan, tuple(effects))

    def contents(self, var) -> Plan:
        """The items of a mutated container from outside, ignoring its own source."""
        if isinstance(var, ListVariable):
            return Plan("list", None, tuple(self.plan(item) for item in var.items))
        return Plan("dict", None, tuple(self.plan(v) for v in var.entries.values()), tuple(var.entries))

    def plan(self, var: VariableTracker) -> Plan:
        if var.is_lazy():
            return Plan("source", var.source)
        var = var.realize()
        if isinstance(var, TensorVariable):
            if var.node.op == "placeholder" and var.source is not None:
                return Plan("source", var.source)
            if var.node not in self.output_nodes:
                self.output_nodes.append(var.node)
            return Plan("output", self.output_nodes.index(var.node))
        if isinstance(var, ListVariable):
            if var.source is not None:
                return Plan("source", var.source)
            return Plan("list", None, tuple(self.plan(item) for item in var.items))
        if isinstance(var, BaseListVariable):
            return Plan("tuple", var.python_type(), tuple(self.plan(item) for item in var.items))
        if isinstance(var, ConstDictVariable):
            if var.source is not None:
                return Plan("source", var.source)
            return Plan("dict", None, tuple(self.plan(v) for v in var.entries.values()), tuple(var.entries))
        if isinstance(var, SliceVariable):
            return Plan("slice", None, tuple(self.plan(p) for p in var.parts()))
        if isinstance(var, UserDefinedObjectVariable) and var.is_new():
            attrs = self.side_effects.attrs.get(var.identity(), {})
            return Plan("new_object", (var.python_type(), var.new_id),
                        tuple(self.plan(v) for v in attrs.values()), tuple(attrs))
        if isinstance(var, NestedUserFunctionVariable):
            raise Unsupported(f"returning the function {var.qualname} made during the trace")
        if var.source is not None:
            return Plan("source", var.source)
        if var.is_python_constant() or isinstance(var, RangeVariable):
            return Plan("const", var.as_python_constant())
        if hasattr(var, "value") and var.value is not None:
            return Plan("const", var.value)
        raise Unsupported(f"returning {var.describe()}, which cannot be rebuilt after the graph runs")


def run_frame(frame: FramePlan, outputs, f_locals: dict, f_globals: dict):
    memo: dict = {}
    result = run_plan(frame.result, outputs, f_locals, f_globals, memo)
    if not frame.effects:
        return result
    staged = [(kind, target and run_plan(target, outputs, f_locals, f_globals, memo), key,
               run_plan(value, outputs, f_locals, f_globals, memo))
              for kind, target, key, value in frame.effects]
    for kind, target, key, value in staged:
        if kind == "setattr":
            setattr(target, key, value)
        elif kind == "container":
            if isinstance(target, list):
                target[:] = value
            else:
                target.clear()
                target.update(value)
        else:
            f_globals[key] = value
    return result


def run_plan(plan: Plan, outputs, f_locals: dict, f_globals: dict, memo: dict):
    kind = plan.kind
    if kind == "output":
        return outputs[plan.value]
    if kind == "const":
        return plan.value
    if kind == "source":
        return plan.value.get_value(f_locals, f_globals)
    if kind == "new_object":
        cls, new_id = plan.value
        if new_id in memo:
            return memo[new_id]
        obj = memo[new_id] = object.__new__(cls)
        for name, part in zip(plan.keys, plan.parts):
            setattr(obj, name, run_plan(part, outputs, f_locals, f_globals, memo))
        return obj
    parts = [run_plan(p, outputs, f_locals, f_globals, memo) for p in plan.parts]
    if kind == "tuple":
        return tuple(parts) if plan.value is tuple else plan.value(parts)
    if kind == "list":
        return parts
    if kind == "dict":
        return dict(zip(plan.keys, parts))
    if kind == "slice":
        return slice(*parts)
    raise ValueError(kind)
