"""Lay two RunRecords side by side: per frame and per call, same or different, and in what.

Frames are matched by code name, file and first line (a resume function by
name and file: the engines give it different first lines, and its name holds
the line it resumes at).  A frame's compiles are paired in order.  For each
pair the diff looks at the graphs (how many, their op lists, the first op that
differs), the graph breaks (where, with both engines' reasons), the guards
(sources guarded on one side only) and whether the frame ran eagerly; across
the pairs, at how many compiles the frame stopped.  Calls are matched by
function and number and compare the compiles they caused and their outputs.
Every reason is the engine's own text.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from .records import CallRecord, CompileRecord, FrameRecord, RunRecord
from .values import difference

# Guards one engine installs by design and the other not, documented in the README ("Where Standin
# differs from Dynamo"): listed beside a frame's guards, not counted as a difference.
NOT_COMPARED_GUARDS = (
    (re.compile(r"^G\['__import_torch_dot__dynamo_dot_"),
     "Dynamo guards the modules of its own polyfills (torch._dynamo.polyfills); Standin has none"),
)


@dataclass
class Aspect:
    """One compared property of a frame or call, with what each side says."""

    name: str  # "compiles", "graphs", "breaks", "guards", "eager", "frame", "output", "status"
    same: bool
    standin: str
    dynamo: str
    details: list[str] = field(default_factory=list)  # the first differing op, the guards on one side, ...


@dataclass
class FrameDiff:
    name: str
    file: str
    first_line: int
    standin: FrameRecord | None
    dynamo: FrameRecord | None
    aspects: list[Aspect] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return all(a.same for a in self.aspects)

    @property
    def differing(self) -> list[Aspect]:
        return [a for a in self.aspects if not a.same]

    @property
    def title(self) -> str:
        return f"{self.name} ({os.path.basename(self.file)}:{self.first_line})"


@dataclass
class CallDiff:
    function: str
    index: int
    standin: CallRecord | None
    dynamo: CallRecord | None
    aspects: list[Aspect] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return all(a.same for a in self.aspects)

    @property
    def title(self) -> str:
        return f"{self.function} call {self.index}"


@dataclass
class Comparison:
    standin: RunRecord
    dynamo: RunRecord
    status: Aspect
    frames: list[FrameDiff]
    calls: list[CallDiff]
    not_compared: list[str] = field(default_factory=list)  # guards left out, and why

    @property
    def agree(self) -> bool:
        return self.status.same and all(f.same for f in self.frames) and all(c.same for c in self.calls)

    @property
    def differing_frames(self) -> list[FrameDiff]:
        return [f for f in self.frames if not f.same]

    @property
    def differing_calls(self) -> list[CallDiff]:
        return [c for c in self.calls if not c.same]


# ---- matching ----------------------------------------------------------------------------------


def match_frames(standin: list[FrameRecord], dynamo: list[FrameRecord]) -> list[tuple]:
    """(standin frame or None, dynamo frame or None) pairs, in Standin's order then Dynamo's extras."""
    left = list(dynamo)
    pairs = []
    for frame in standin:
        found = next((d for d in left if d.key == frame.key), None)
        if found is None and frame.is_resume:
            found = next((d for d in left if (d.name, d.file) == (frame.name, frame.file)), None)
        if found is not None:
            left.remove(found)
        pairs.append((frame, found))
    # a frame Dynamo only looked at and left running as it is, Standin did not compile at all: the same
    pairs.extend((None, d) for d in left if not all(c.eager_reason and not c.graphs for c in d.compiles))
    return pairs


def compare(standin: RunRecord, dynamo: RunRecord) -> Comparison:
    frames = [frame_diff(s, d) for s, d in match_frames(standin.frames, dynamo.frames)]
    calls = [call_diff(s, d) for s, d in match_calls(standin.calls, dynamo.calls)]
    not_compared = sorted({why for f in frames for c in _all_compiles(f) for g in c.guards
                           for pattern, why in NOT_COMPARED_GUARDS if pattern.search(g.source)})
    return Comparison(standin, dynamo, status_aspect(standin, dynamo), frames, calls, not_compared)


def _all_compiles(frame: FrameDiff) -> list[CompileRecord]:
    return [c for side in (frame.standin, frame.dynamo) if side is not None for c in side.compiles]


def match_calls(standin: list[CallRecord], dynamo: list[CallRecord]) -> list[tuple]:
    by_key = {(c.function, c.index): c for c in dynamo}
    pairs = [(c, by_key.pop((c.function, c.index), None)) for c in standin]
    pairs.extend((None, c) for c in by_key.values())
    return pairs


# ---- the script as a whole ---------------------------------------------------------------------


def _ending(record: RunRecord) -> tuple:
    """What must match for two runs to have ended alike: crash, exception type, exit status."""
    if record.crashed:
        return ("crashed", record.crashed)
    if record.error:
        return ("raised", record.error.split(":", 1)[0])
    return ("exit", record.exit_status or 0)


def status_aspect(standin: RunRecord, dynamo: RunRecord) -> Aspect:
    same = _ending(standin) == _ending(dynamo)
    details = [] if same else [f"{_ENGINE[side.engine]} {side.status_text}" for side in (standin, dynamo)]
    details += [f"{_ENGINE[side.engine]}'s stderr ends with:\n{side.stderr_tail.strip()}" for side in (standin, dynamo)
                if side.crashed and side.stderr_tail.strip()]
    return Aspect("status", same, standin.status_text, dynamo.status_text, details)


_ENGINE = {"standin": "Standin", "dynamo": "Dynamo"}


# ---- one frame ---------------------------------------------------------------------------------


def frame_diff(standin: FrameRecord | None, dynamo: FrameRecord | None) -> FrameDiff:
    base = standin or dynamo
    diff = FrameDiff(base.name, base.file, base.first_line, standin, dynamo)
    if standin is None or dynamo is None:
        diff.aspects.append(Aspect("frame", False, _compiled(standin), _compiled(dynamo)))
        return diff
    pairs = list(zip(standin.compiles, dynamo.compiles))
    sides = (standin.compiles, dynamo.compiles)
    diff.aspects = [compiles_aspect(standin, dynamo), graphs_aspect(pairs, sides), breaks_aspect(pairs, sides),
                    guards_aspect(pairs, sides), eager_aspect(pairs, sides)]
    return diff


def _compiled(frame: FrameRecord | None) -> str:
    if frame is None:
        return "not compiled"
    return _count(len(frame.compiles), "compile")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _pair_name(index: int, s: CompileRecord, d: CompileRecord) -> str:
    ids = s.compile_id if s.compile_id == d.compile_id else f"Standin {s.compile_id}, Dynamo {d.compile_id}"
    return f"compile {index + 1} [{ids}]"


def compiles_aspect(standin: FrameRecord, dynamo: FrameRecord) -> Aspect:
    details = []
    for side in (standin, dynamo):
        for c in side.compiles:
            if c.kind == "recompile":
                details.append(f"{_engine_name(side, standin)} recompiled [{c.compile_id}]: {c.reason}")
    return Aspect("compiles", len(standin.compiles) == len(dynamo.compiles),
                  _count(len(standin.compiles), "compile"), _count(len(dynamo.compiles), "compile"), details)


def _engine_name(side: FrameRecord, standin: FrameRecord) -> str:
    return "Standin" if side is standin else "Dynamo"


# Each aspect compares the paired compiles (`pairs`) and shows each side's whole frame (`sides`).


def graphs_aspect(pairs: list[tuple], sides: tuple) -> Aspect:
    details = []
    for index, (s, d) in enumerate(pairs):
        found = first_graph_difference(s.graphs, d.graphs)
        if found:
            details.append(f"{_pair_name(index, s, d)}: {found}")
    return Aspect("graphs", not details, *(_graphs_text(side) for side in sides), details)


def _graphs_text(compiles: list[CompileRecord]) -> str:
    graphs = [g for c in compiles for g in c.graphs]
    return f"{_count(len(graphs), 'graph')} ({_count(sum(len(g) for g in graphs), 'op')})"


def first_graph_difference(standin: list[list[str]], dynamo: list[list[str]]) -> str | None:
    """The first graph count or op that differs, in words; None when the op lists are equal."""
    if len(standin) != len(dynamo):
        return f"Standin made {_count(len(standin), 'graph')}, Dynamo {_count(len(dynamo), 'graph')}"
    for number, (a, b) in enumerate(zip(standin, dynamo)):
        for position, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return f"graph {number}, op {position}: Standin {x}, Dynamo {y}"
        if len(a) != len(b):
            longer, side = (a, "Standin") if len(a) > len(b) else (b, "Dynamo")
            return (f"graph {number}: Standin {_count(len(a), 'op')}, Dynamo {_count(len(b), 'op')}; "
                    f"from op {min(len(a), len(b))} only {side} has {', '.join(longer[min(len(a), len(b)):])}")
    return None


def _where(brk) -> tuple:
    return os.path.abspath(brk.file) if brk.file != "?" else "?", brk.line


def breaks_aspect(pairs: list[tuple], sides: tuple) -> Aspect:
    details = []
    for index, (s, d) in enumerate(pairs):
        standin_at = {_where(b): b for b in s.breaks}
        dynamo_at = {_where(b): b for b in d.breaks}
        for where in standin_at.keys() - dynamo_at.keys():
            details.append(f"{_pair_name(index, s, d)}: only Standin breaks at {_loc(where)} "
                           f"(Dynamo does not break there): {standin_at[where].reason}")
        for where in dynamo_at.keys() - standin_at.keys():
            details.append(f"{_pair_name(index, s, d)}: only Dynamo breaks at {_loc(where)} "
                           f"(Standin does not break there): {dynamo_at[where].reason}")
    return Aspect("breaks", not details, *(_breaks_text(side) for side in sides), details)


def _loc(where: tuple) -> str:
    return f"{os.path.basename(where[0])}:{where[1]}"


def _breaks_text(compiles: list[CompileRecord]) -> str:
    places = sorted({_loc(_where(b)) for c in compiles for b in c.breaks})
    return "no breaks" if not places else f"{_count(len(places), 'break')} at {', '.join(places)}"


# Both engines guard the builtins a frame reads through a global named after the builtins dict,
# numbered by each in its own order (`G['__builtins_dict___0']['len']` here, `___2` there).
_BUILTINS_DICT = re.compile(r"__builtins_dict___\d+")


def compared_sources(compile_: CompileRecord) -> set[str]:
    return {_BUILTINS_DICT.sub("__builtins_dict__", g.source) for g in compile_.guards
            if not any(pattern.search(g.source) for pattern, _ in NOT_COMPARED_GUARDS)}


def source_text(source: str) -> str:
    return source or "(global state)"


def _sources_text(sources: set[str]) -> str:
    return ", ".join(source_text(source) for source in sorted(sources))


def guards_aspect(pairs: list[tuple], sides: tuple) -> Aspect:
    details = []
    for index, (s, d) in enumerate(pairs):
        standin, dynamo = compared_sources(s), compared_sources(d)
        if dynamo - standin:
            details.append(f"{_pair_name(index, s, d)}: only Dynamo guards {_sources_text(dynamo - standin)}")
        if standin - dynamo:
            details.append(f"{_pair_name(index, s, d)}: only Standin guards {_sources_text(standin - dynamo)}")
    shown = (_count(len({g for c in side for g in compared_sources(c)}), "guarded source") for side in sides)
    return Aspect("guards", not details, *shown, details)


def _eager_text(c: CompileRecord) -> str | None:
    return c.error or c.eager_reason


def eager_aspect(pairs: list[tuple], sides: tuple) -> Aspect:
    details = []
    for index, (s, d) in enumerate(pairs):
        a, b = _eager_text(s), _eager_text(d)
        if (a is None) != (b is None):
            details.append(f"{_pair_name(index, s, d)}: " + (f"only Standin runs it eagerly: {a}" if a
                                                             else f"only Dynamo does not compile it: {b}"))
    shown = (f"{sum(_eager_text(c) is not None for c in side)} of {len(side)} eager" for side in sides)
    return Aspect("eager", not details, *shown, details)


# ---- one call ----------------------------------------------------------------------------------


def call_diff(standin: CallRecord | None, dynamo: CallRecord | None) -> CallDiff:
    base = standin or dynamo
    diff = CallDiff(base.function, base.index, standin, dynamo)
    if standin is None or dynamo is None:
        diff.aspects.append(Aspect("call", False, "made" if standin else "not made", "made" if dynamo else "not made"))
        return diff
    diff.aspects.append(Aspect("compiles", len(standin.compile_ids) == len(dynamo.compile_ids),
                               _compiles_text(standin), _compiles_text(dynamo)))
    diff.aspects.append(output_aspect(standin, dynamo))
    return diff


def _compiles_text(call: CallRecord) -> str:
    return f"compiled {', '.join(call.compile_ids)}" if call.compile_ids else "no compile"


def output_aspect(standin: CallRecord, dynamo: CallRecord) -> Aspect:
    if standin.error or dynamo.error:
        same = bool(standin.error and dynamo.error) and \
            standin.error.split(":", 1)[0] == dynamo.error.split(":", 1)[0]
        return Aspect("output", same, f"raised {standin.error}" if standin.error else "returned",
                      f"raised {dynamo.error}" if dynamo.error else "returned")
    found = difference(standin.output, dynamo.output)
    text = _value_text(standin.output), _value_text(dynamo.output)
    return Aspect("output", found is None, *text, [found] if found else [])


def _value_text(summary: dict | None) -> str:
    if summary is None:
        return "?"
    if summary["type"] == "tensor":
        return f"tensor{summary['shape']} {summary['dtype'].replace('torch.', '')}"
    if "value" in summary:
        return repr(summary["value"])[:40]
    if "items" in summary:
        return f"{summary['type']} of {summary['len']}"
    return summary["type"]
