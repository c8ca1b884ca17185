"""Which sizes a trace makes symbolic: the `dynamic=` modes, automatic dynamic and the user's markers.

As in Dynamo (torch 2.13):

* ``dynamic=False``: every size and int is static; a dimension the user marked with
  ``torch._dynamo.mark_dynamic`` is symbolic all the same.
* ``dynamic=True``: every size of a tensor input is symbolic from the first compile (duck-sized:
  equal sizes share a symbol), and so is every int and (finite) float argument.
* ``dynamic=None``, automatic dynamic: the first compile is static.  Each compile records, per
  Source, the sizes (and ints, floats) it saw; a dimension whose size differs from an earlier
  compile's is symbolic from the next compile on, with a symbol of its own; so is a number.

Parameters, and anything read through an ``nn.Module``, stay static; so do ints read from
globals (Dynamo specialises those too).  A float may be symbolic wherever it is read from.
``mark_static`` wins over automatic dynamic, ``mark_dynamic`` over everything.
Data-dependent values (`.item()`, `nonzero`) become unbacked symbols where `DataCapture` says so.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from ..exc import UserError

DYNAMIC = "dynamic"  # a dimension (or int) whose value changed between compiles


def check_dynamic(dynamic) -> None:
    """`dynamic=` takes None, True or False, as torch.compile."""
    if dynamic is not None and type(dynamic) is not bool:
        raise UserError(f"dynamic must be None (automatic dynamic), True or False, got {dynamic!r}")


@dataclass
class SeenSizes:
    """What the compiles of one frame saw at one Source (Dynamo's FrameStateSizeEntry).

    Each of `size`, `stride` is None before a tensor was seen, DYNAMIC when its rank changed,
    else a tuple with an int or DYNAMIC per dimension; `scalar` is None, an int, or DYNAMIC.
    """

    size: tuple | str | None = None
    stride: tuple | str | None = None
    scalar: int | str | None = None

    def size_is_dynamic(self, dim: int) -> bool:
        return self.size is DYNAMIC or (isinstance(self.size, tuple) and self.size[dim] is DYNAMIC)

    def stride_is_dynamic(self, dim: int) -> bool:
        """As Dynamo: strides are made dynamic only while every size is still static."""
        if not isinstance(self.size, tuple) or any(s is DYNAMIC for s in self.size):
            return False
        return self.stride is DYNAMIC or (isinstance(self.stride, tuple) and self.stride[dim] is DYNAMIC)


@dataclass(frozen=True)
class BecameDynamic:
    """One dimension (or int) that automatic dynamic made symbolic, and why."""

    source: str  # "L['x']"
    dim: int | None  # None: the int itself
    before: object
    now: object
    compile_id: str | None = None

    def target(self) -> str:
        return self.source if self.dim is None else f"{self.source}.size()[{self.dim}]"

    def __str__(self) -> str:
        return f"{self.target()} became dynamic (was {self.before}, now {self.now})"


@dataclass(frozen=True)
class InferStride:
    """A stride that is the product of the sizes inside it: it follows them, it never changes alone."""

    dim: int


def _stride_pattern(size, stride) -> tuple:
    """Each stride as an int, or InferStride(i) when it equals stride[i] * size[i] (Dynamo's inference)."""
    pattern: list = [None] * len(size)
    follows: dict = {}
    for s, neg_i in sorted((stride[i], -i) for i in range(len(size))):
        i = -neg_i
        pattern[i] = follows.get(s, s)
        follows.setdefault(s * size[i], InferStride(i))
    return tuple(pattern)


def _merge(old, new):
    if old is None:
        return new
    if old is DYNAMIC or old != new:
        return DYNAMIC
    return old


def _merge_tuple(old, new):
    if old is None:
        return new
    if old is DYNAMIC or len(old) != len(new):
        return DYNAMIC
    return tuple(_merge(a, b) for a, b in zip(old, new))


def code_identity(code) -> tuple[str, int, str]:
    """What automatic dynamic remembers sizes per, as Dynamo's per-code state: file, first line and
    name, not the code object.  Two resume functions after breaks on one line are named alike, so
    a resume function first made after the root recompiled starts from the sizes its namesake saw."""
    return code.co_filename, code.co_firstlineno, code.co_name


class AutomaticDynamic:
    """Per code identity: the sizes each Source had in its compiles, and what became dynamic."""

    def __init__(self):
        self.seen: dict[str, SeenSizes] = {}
        self.changes: list[BecameDynamic] = []

    def record_tensor(self, name: str, size: tuple, stride: tuple, compile_id=None) -> SeenSizes:
        entry = self.seen.setdefault(name, SeenSizes())
        old_size = entry.size
        entry.size = _merge_tuple(entry.size, tuple(size))
        entry.stride = _merge_tuple(entry.stride, _stride_pattern(size, stride))
        entry.scalar = DYNAMIC
        if isinstance(old_size, tuple):
            if entry.size is DYNAMIC and len(old_size) != len(size):
                self._changed(BecameDynamic(name, None, f"rank {len(old_size)}", f"rank {len(size)}", compile_id))
            elif isinstance(entry.size, tuple):
                for dim, (before, now) in enumerate(zip(old_size, size)):
                    if before is not DYNAMIC and entry.size[dim] is DYNAMIC:
                        self._changed(BecameDynamic(name, dim, before, now, compile_id))
        return entry

    def record_scalar(self, name: str, value: int | float, compile_id=None) -> SeenSizes:
        entry = self.seen.setdefault(name, SeenSizes())
        before = entry.scalar
        entry.scalar = _merge(before, value)
        entry.size = entry.stride = DYNAMIC
        if before is not None and before is not DYNAMIC and entry.scalar is DYNAMIC:
            self._changed(BecameDynamic(name, None, before, value, compile_id))
        return entry

    def _changed(self, change: BecameDynamic) -> None:
        if all((c.source, c.dim) != (change.source, change.dim) for c in self.changes):
            self.changes.append(change)


@dataclass(frozen=True)
class DimChoice:
    """Whether one dimension of a graph input is symbolic, and why (shown by the app)."""

    dynamic: bool
    why: str
    duck: bool = False  # may share a symbol with another size of the same value
    strict: bool = False  # mark_dynamic: specialising it is the user's error
    dynamic_stride: bool = False
    automatic: bool = False  # made symbolic by automatic dynamic: specialising it again only warns


@dataclass
class Markers:
    """The dimension markers torch._dynamo.mark_dynamic / maybe_mark_dynamic / mark_static leave."""

    dynamic: frozenset = frozenset()
    weak: frozenset = frozenset()
    static: frozenset = frozenset()
    ranges: dict = field(default_factory=dict)  # dim -> (min, max) from mark_dynamic(min=, max=)

    @classmethod
    def of(cls, tensor) -> Markers:
        ranges = {}
        for constraint in getattr(tensor, "_dynamo_dynamic_range", ()) or ():
            ranges[constraint.dim] = (constraint.min, constraint.max)
        return cls(frozenset(getattr(tensor, "_dynamo_dynamic_indices", ()) or ()),
                   frozenset(getattr(tensor, "_dynamo_weak_dynamic_indices", ()) or ()),
                   frozenset(getattr(tensor, "_dynamo_static_indices", ()) or ()), ranges)

    def any(self) -> bool:
        return bool(self.dynamic or self.weak or self.static)


def has_markers(tensor) -> bool:
    return getattr(tensor, "_dynamo_dynamic_indices", None) is not None or \
        getattr(tensor, "_dynamo_weak_dynamic_indices", None) is not None


def tensor_dims(mode, memory: AutomaticDynamic | None, name: str, tensor, static_reason: str | None,
                compile_id=None) -> list[DimChoice]:
    """Per dimension of `tensor` (a graph input at Source `name`): symbolic or static, and why."""
    markers = Markers.of(tensor)
    if static_reason is not None and not markers.dynamic:
        return [DimChoice(False, static_reason) for _ in range(tensor.dim())]
    seen = None
    if mode is not False and memory is not None:
        seen = memory.record_tensor(name, tuple(tensor.size()), tuple(tensor.stride()), compile_id)
    choices = []
    for dim in range(tensor.dim()):
        auto = seen is not None and seen.size_is_dynamic(dim)
        auto_stride = seen is not None and seen.stride_is_dynamic(dim)
        if dim in markers.dynamic:
            choices.append(DimChoice(True, "mark_dynamic", strict=True))
        elif dim in markers.static:
            choices.append(DimChoice(False, "mark_static"))
        elif auto or auto_stride:
            why = "automatic dynamic: its size changed between compiles" if auto else \
                "automatic dynamic: its stride changed between compiles"
            choices.append(DimChoice(auto, why, dynamic_stride=auto_stride, automatic=True))
        elif dim in markers.weak:
            choices.append(DimChoice(True, "maybe_mark_dynamic"))
        elif mode is True:
            choices.append(DimChoice(True, "dynamic=True", duck=True))
        else:
            choices.append(DimChoice(False, "static until its size changes" if mode is None else "dynamic=False"))
    return choices


def scalar_is_dynamic(mode, memory: AutomaticDynamic | None, name: str, value: int | float, compile_id=None) -> bool:
    """Whether an int or float argument becomes a symbol: always with dynamic=True, after a change with None."""
    if mode is False or memory is None:
        return False
    seen = memory.record_scalar(name, value, compile_id)
    return mode is True or seen.scalar is DYNAMIC


@dataclass(frozen=True)
class DataCapture:
    """Whether a trace records data-dependent numbers and sizes as unbacked symbols (`u0`, `zuf0`).

    As Dynamo: `.item()` (and `int(t)`, `float(t)`, `t.tolist()`) is captured under fullgraph=True or
    with `torch._dynamo.config.capture_scalar_outputs`; ops whose output size depends on data
    (`nonzero`, a boolean mask) under fullgraph=True or `capture_dynamic_output_shape_ops`.  Standin
    reads torch._dynamo.config's switches, so a program (or test) sets them once for both engines.
    """

    scalars: bool = False
    output_shapes: bool = False

    @classmethod
    def for_trace(cls, fullgraph: bool) -> DataCapture:
        config = sys.modules.get("torch._dynamo.config")  # set by the user only once torch._dynamo is imported
        return cls(fullgraph or bool(getattr(config, "capture_scalar_outputs", False)),
                   fullgraph or bool(getattr(config, "capture_dynamic_output_shape_ops", False)))

    def any(self) -> bool:
        return self.scalars or self.output_shapes
