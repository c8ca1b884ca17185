"""torch.optim optimizers, traced as Dynamo traces their `step()`.

An optimizer is a user object with one exception, Dynamo's: its `_init_group(group, [], [], ...)`
(the lazy creation of the state, slow and full of Python) is not traced but run for real at trace
time, on the real param group and fresh lists; the lists it filled come back into the trace as
the parameters, their gradients and the state tensors, each a graph input named by where it lives
(`L['self'].param_groups[0]['params'][0]`, `.grad`, `L['self'].state[list(dict.keys(L['self'].state))[0]]['step']`)
and guarded there, with the state's layout (how many entries, which keys).  The graph then holds
only the update's tensor ops.  As in Dynamo, the trace reads every param group's `capturable` as
True (the real groups are left alone), so the update takes the branch that keeps the step count a
tensor instead of reading it back with `.item()`.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from ..exc import Unsupported
from ..source import AttrSource, DictValueSource, GetItemSource
from .base import VariableTracker
from .constant import ConstantVariable, is_constant_value
from .dicts import ConstDictVariable
from .lists import ListVariable
from .misc import UserDefinedObjectVariable


def is_optimizer(value) -> bool:
    """An optimizer whose state is made by `_init_group`, the method the trace runs for real."""
    return isinstance(value, torch.optim.Optimizer) and callable(getattr(value, "_init_group", None))


@dataclass(frozen=True, eq=False)
class OptimizerVariable(UserDefinedObjectVariable):
    """A torch.optim optimizer from outside the frame (it has a source)."""

    def var_getattr(self, tx, name):
        if name == "_init_group" and self.source is not None:
            return InitGroupVariable(self)
        if name == "param_groups" and self.source is not None:
            self._read_groups_as_capturable(tx)
        return super().var_getattr(tx, name)

    def groups_source(self) -> AttrSource:
        return AttrSource(self.source, "param_groups")

    def group_source(self, index: int) -> GetItemSource:
        return GetItemSource(self.groups_source(), index)

    def _read_groups_as_capturable(self, tx) -> None:
        """The trace's view of every group holding `capturable` says True (Dynamo's); not written back."""
        effects = tx.output.side_effects
        for index, group in enumerate(self.value.param_groups):
            if type(group) is not dict or "capturable" not in group:
                continue
            tracker = VariableTracker.build(tx, group, self.group_source(index)).realize()
            if not isinstance(tracker, ConstDictVariable) or effects.is_mutated(tracker):
                continue
            entries = {**tracker.entries, "capturable": ConstantVariable(True)}
            effects.track_container(group, ConstDictVariable(entries, mutation_id=tracker.mutation_id,
                                                             source=tracker.source, keys_guard=tracker.keys_guard))

    def tensor_sources(self) -> dict[int, object]:
        """id(tensor) -> the source it is read from: parameters, their gradients, the state."""
        found = {}
        for g, group in enumerate(self.value.param_groups):
            params = GetItemSource(self.group_source(g), "params")
            for j, param in enumerate(group["params"]):
                found.setdefault(id(param), GetItemSource(params, j))
                if param.grad is not None:
                    found.setdefault(id(param.grad), AttrSource(GetItemSource(params, j), "grad"))
        state = AttrSource(self.source, "state")
        for index, entry in enumerate(self.value.state.values()):
            for key, value in entry.items():
                if isinstance(value, torch.Tensor):
                    found.setdefault(id(value), GetItemSource(DictValueSource(state, index), key))
        return found

    def guard_state_layout(self, tx) -> None:
        """What the trace read the state as: its number of entries, each entry's keys, and which
        parameters have no gradient (they are left out of the update)."""
        guard = tx.output.install_guard
        state = AttrSource(self.source, "state")
        guard(state, "TYPE_MATCH", type(self.value.state))
        guard(state, "LENGTH_CHECK", len(self.value.state))
        for index, entry in enumerate(self.value.state.values()):
            guard(DictValueSource(state, index), "TYPE_MATCH", type(entry))
            guard(DictValueSource(state, index), "DICT_KEYS_MATCH", tuple(entry))
        for g, group in enumerate(self.value.param_groups):
            for j, param in enumerate(group["params"]):
                if param.grad is None:
                    guard(AttrSource(GetItemSource(GetItemSource(self.group_source(g), "params"), j), "grad"),
                          "NONE_MATCH", None)


@dataclass(frozen=True, eq=False)
class InitGroupVariable(VariableTracker):
    """`self._init_group` of an optimizer: called, it runs for real and fills the traced lists."""

    optimizer: OptimizerVariable = None

    def call_function(self, tx, args, kwargs):
        opt = self.optimizer
        name = f"{type(opt.value).__qualname__}._init_group"
        pending = tx.output.side_effects.attrs
        if any(pending.get(id(p)) for group in opt.value.param_groups for p in group["params"]):
            raise Unsupported(f"{name} after the trace set an attribute of a parameter (it runs on the real ones)")
        real_args = [self._real(tx, arg) for arg in args]
        real_kwargs = {key: self._real(tx, arg) for key, arg in kwargs.items()}
        try:
            result = opt.value._init_group(*real_args, **real_kwargs)
        except Exception as error:  # sparse gradients, ...: the frame runs eagerly and raises it there
            raise Unsupported(f"{name} raised {type(error).__name__}: {error}") from error
        if not all(is_constant_value(part) for part in (result if type(result) is tuple else (result,))):
            raise Unsupported(f"{name} returned {type(result).__name__}")
        opt.guard_state_layout(tx)
        sources = opt.tensor_sources()
        for arg, real in zip([*args, *kwargs.values()], [*real_args, *real_kwargs.values()]):
            arg = arg.realize()
            if isinstance(arg, ListVariable) and real:
                arg.mutated(tx, [self._wrap(tx, item, sources) for item in real])
        return VariableTracker.build(tx, result)  # a flag (has_complex), or a tuple of flags (Adagrad's)

    def _real(self, tx, arg):
        """The real value `_init_group` gets for a traced argument: a param group, a new empty list,
        a constant; anything else is not run for real."""
        arg = arg.realize()
        if isinstance(arg, ListVariable) and not arg.items and arg.source is None:
            return []
        if isinstance(arg, ConstDictVariable) and arg.source is not None:
            for index, group in enumerate(self.optimizer.value.param_groups):
                if arg.source == self.optimizer.group_source(index):
                    return group
        if arg.is_python_constant():
            return arg.as_python_constant()
        raise Unsupported(f"{type(self.optimizer.value).__qualname__}._init_group with {arg.describe()}, "
                          "which is not a param group, a new empty list or a constant")

    @staticmethod
    def _wrap(tx, value, sources: dict):
        if isinstance(value, torch.Tensor):
            source = sources.get(id(value))
            if source is None:
                raise Unsupported("optimizer._init_group gave a tensor that is not a parameter, "
                                  "a gradient or in the optimizer's state")
            return VariableTracker.build(tx, value, source)
        if is_constant_value(value):
            return ConstantVariable(value)
        raise Unsupported(f"optimizer._init_group put a {type(value).__name__} in a list")

    def short_repr(self) -> str:
        return f"{type(self.optimizer.value).__qualname__}._init_group"
