"""Where each shape guard came from: the instruction, line and tracker behind every ShapeEnv fact.

The ShapeEnv stamps each fact it learns (a guard, a bound of a symbol's range, a replacement)
with an `SLoc`, a location in *Python's* stack, which for a bytecode tracer is the tracer's own
code.  So Standin watches the ShapeEnv instead: after each traced instruction, and around each
operation that may specialise (a branch, a fake-tensor op, a Python int taken from a symbol),
every SLoc object the ShapeEnv made since is attributed to the instruction the translator is on,
with the reason and the tracker that caused it.  When the guards are produced, each one is
matched to the SLoc objects behind it (see `attribute`), so a guard names the `if x.shape[0] > 4`
that bounded its symbol, the `view` that needed a concrete size, or the 0/1 rule applied when
the tensor entered the trace.
"""
from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass

from ..guards import InstalledAt

_BRANCH_OPS = ("POP_JUMP", "JUMP_IF")


@dataclass(frozen=True)
class ShapeCause:
    """One reason a shape guard exists: what happened, at which instruction, in which tracker."""

    why: str
    installed_at: InstalledAt | None = None
    opname: str | None = None
    tracker: str | None = None

    def __str__(self) -> str:
        where = f" at {self.installed_at}" if self.installed_at is not None else ""
        op = f" [{self.opname}]" if self.opname else ""
        return f"{self.why}{where}{op}"


def default_why(opname: str | None) -> str:
    if opname and opname.startswith(_BRANCH_OPS):
        return "a branch on a symbolic value needed it decided"
    return f"{opname or 'the trace'} needed a concrete value"


class CauseLog:
    """SLoc objects of one ShapeEnv, each with the ShapeCause that made it."""

    def __init__(self, env):
        self.env = env
        self.by_sloc: dict[int, tuple[object, ShapeCause]] = {}  # id(SLoc) -> (SLoc kept alive, cause)
        self.guards_seen = 0
        self.reasons: list[tuple[str, str | None]] = []  # the innermost `because` wins
        self.wrapped_at: dict[str, ShapeCause] = {}  # source name -> where that input entered the trace

    def active(self) -> bool:
        return bool(self.env.var_to_range_sloc)

    @contextlib.contextmanager
    def because(self, tx, why: str, tracker: str | None = None):
        """Facts learnt inside the block are attributed to `why` (and the instruction tx is on)."""
        self.stamp(tx)  # what came before belongs to the instruction, not to this reason
        self.reasons.append((why, tracker))
        try:
            yield
        finally:
            self.stamp(tx)
            self.reasons.pop()

    def stamp(self, tx) -> None:
        """Attribute every SLoc made since the last stamp to the instruction tx is on."""
        env = self.env
        cause = None
        guards = env.guards
        for guard in guards[self.guards_seen:]:
            cause = cause or self._cause(tx)
            self._record(guard.sloc, cause)
        self.guards_seen = len(guards)
        for ranges in env.var_to_range_sloc.values():
            for sloc in (ranges.lower, ranges.upper):
                if id(sloc) not in self.by_sloc:
                    cause = cause or self._cause(tx)
                    self._record(sloc, cause)
        for sloc in env.replacements_slocs.values():
            if id(sloc) not in self.by_sloc:
                cause = cause or self._cause(tx)
                self._record(sloc, cause)

    def _cause(self, tx) -> ShapeCause:
        why, tracker = self.reasons[-1] if self.reasons else (None, None)
        inst = getattr(tx, "current", None) if tx is not None else None
        opname = inst.opname if inst is not None else None
        at = tx.installed_at() if tx is not None else None
        return ShapeCause(why or default_why(opname), at, opname, tracker)

    def _record(self, sloc, cause: ShapeCause) -> None:
        if id(sloc) not in self.by_sloc:
            self.by_sloc[id(sloc)] = (sloc, cause)

    def cause_of(self, sloc) -> ShapeCause | None:
        found = self.by_sloc.get(id(sloc))
        return found[1] if found is not None else None


@dataclass(frozen=True)
class ProducedGuard:
    """One guard the ShapeEnv produced: its check, its display and the causes behind it."""

    python: str  # evaluable over L and G
    text: str  # as Dynamo prints it
    causes: tuple[ShapeCause, ...]


def attribute(env, log: CauseLog, python: list[str], verbose: list[str], symbol_sources: dict) -> list[ProducedGuard]:
    """Match each produced guard to the SLoc objects behind it.

    `produce_guards_verbose` emits, in this order: equalities between input sizes (duck sizing or a
    replacement), the guards added while tracing, then each symbol's range; its verbose form ends
    with the SLoc text of what made it.  Each verbose line is compared with the text the same
    SLoc objects would print, so a guard is tied to objects, not to a guess from its wording.
    """
    pending = list(env.guards)
    produced = []
    for py, text in zip(python, verbose):
        causes = _range_causes(env, log, text, symbol_sources) or _issued_causes(log, py, text, pending) \
            or _equality_causes(env, log, py, text, symbol_sources) or _not_nan_causes(log, py)
        display = text.split("  # ", 1)[0]
        produced.append(ProducedGuard(py, display, tuple(causes or ())))
    return produced


def _range_causes(env, log, text, symbol_sources):
    for symbol, name in symbol_sources.items():
        vr = env.var_to_range.get(symbol)
        slocs = env.var_to_range_sloc.get(symbol)
        if vr is None or slocs is None or name not in text:
            continue
        candidates = {f"{vr.lower} <= {name}  # {slocs.lower}": [slocs.lower],
                      f"{name} <= {vr.upper}  # {slocs.upper}": [slocs.upper],
                      f"{vr.lower} <= {name} <= {vr.upper}  # {slocs.lower} and {slocs.upper}":
                          [slocs.lower, slocs.upper]}
        if text in candidates:
            return _unique([log.cause_of(s) for s in candidates[text]])
    return None


def _issued_causes(log, py, text, pending):
    for i, guard in enumerate(pending):
        if text == f"{py}  # {guard.sloc}":
            del pending[: i + 1]  # guards are issued in order: the earlier ones were skipped
            return _unique([log.cause_of(guard.sloc)])
    return None


def _equality_causes(env, log, py, text, symbol_sources):
    """`A == B` between two inputs' sizes: duck sizing, a replacement the trace made, or a stride
    that follows the sizes."""
    left, _, right = py.partition(" == ")
    base = _tensor_of(left)
    wrapped = log.wrapped_at.get(base)
    if "duck sizing added this equality" in text:
        value = re.search(r"had the same size (\S+)", text)
        why = f"duck sizing: {left} had the same size{(' ' + value.group(1)) if value else ''} as {right} " \
              f"when {base} entered the trace"
        return [_at_wrap(why, wrapped)]
    symbols = [env.source_to_var.get(name) for name in (left, right)]
    causes = [log.cause_of(env.replacements_slocs[s]) for s in symbols if s in env.replacements_slocs]
    if causes:
        return _unique(causes)
    if ".stride()[" in left:
        return [_at_wrap(f"{left} follows the sizes of {base}: its strides are inferred from them", wrapped)]
    return None


def _not_nan_causes(log, py):
    """`not math.isnan(L['s'])`: a symbolic float is assumed not NaN (a NaN argument is specialised)."""
    found = re.fullmatch(r"not math\.isnan\((.+)\)", py)
    if found is None:
        return None
    why = f"{found.group(1)} is a symbolic float: it is assumed not NaN (a NaN gets a graph of its own)"
    return [_at_wrap(why, log.wrapped_at.get(found.group(1)), "SymNodeVariable")]


def _at_wrap(why: str, wrapped: ShapeCause | None, tracker: str = "TensorVariable") -> ShapeCause:
    """A cause located where an input entered the trace."""
    return ShapeCause(why, wrapped.installed_at if wrapped else None, wrapped.opname if wrapped else None,
                      tracker)


def _tensor_of(size_source: str) -> str:
    """"L['y'].size()[0]" -> "L['y']"."""
    return re.sub(r"\.(size|stride)\(\)\[\d+\]$|\.storage_offset\(\)$", "", size_source)


def _unique(causes) -> list[ShapeCause]:
    out = []
    for cause in causes:
        if cause is not None and cause not in out:
            out.append(cause)
    return out
