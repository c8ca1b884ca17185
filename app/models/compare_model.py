"""What the Compare panel shows, as plain data (no Qt): the table, a frame side by side, its breaks.

Built from a `tracer.compare.Comparison` as RowItems and text; the panel only
hands them to a RowTreeModel and its text boxes, so everything here is tested
without a window.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from tracer.compare import CallDiff, Comparison, FrameDiff
from tracer.compare.diff import source_text
from tracer.compare.records import CallRecord, FrameRecord
from tracer.debug import TraceEnd

from .rows import RowItem

COLUMNS = ("", "Frame or call", "Standin", "Dynamo", "Differs in")
COL_MARK, COL_TITLE, COL_STANDIN, COL_DYNAMO, COL_DIFFERS = range(len(COLUMNS))
AGREE, DIFFER = "✓", "✗"
SUMMARY_ASPECTS = ("frame", "call", "compiles", "graphs", "breaks", "output")


def _summary(aspects, side: str) -> str:
    return ", ".join(getattr(a, side) for a in aspects if a.name in SUMMARY_ASPECTS)


def _row(title: str, same: bool, aspects, payload) -> RowItem:
    differing = [a for a in aspects if not a.same]
    tooltip = "\n".join(f"{a.name}: {detail}" for a in differing for detail in a.details)
    return RowItem((AGREE if same else DIFFER, title, _summary(aspects, "standin"), _summary(aspects, "dynamo"),
                    ", ".join(a.name for a in differing)), payload=payload, error=not same, tooltip=tooltip or None)


def table_rows(comparison: Comparison) -> list[RowItem]:
    """The script run, then every frame, then every call: each with its agree (✓) or differ (✗) mark.

    A row's payload is its FrameDiff or CallDiff (None for the script run); a differing row is an error row.
    """
    status = comparison.status
    rows = [RowItem((AGREE if status.same else DIFFER, "the script run", status.standin, status.dynamo,
                     "" if status.same else "how it ended"), error=not status.same, bold=True,
                    tooltip="\n".join(status.details) or None)]
    rows += [_row(frame.title, frame.same, frame.aspects, frame) for frame in comparison.frames]
    rows += [_row(call.title, call.same, call.aspects, call) for call in comparison.calls]
    return rows


def verdict(comparison: Comparison) -> str:
    if comparison.agree:
        return f"Standin and torch.compile agree on every frame ({len(comparison.frames)}) and call."
    return (f"They differ: {len(comparison.differing_frames)} of {len(comparison.frames)} frames, "
            f"{len(comparison.differing_calls)} of {len(comparison.calls)} calls"
            + ("" if comparison.status.same else ", and how the script ended") + ".")


# ---- one frame or call, side by side -------------------------------------------------------------


def frame_text(frame: FrameRecord | None, engine: str) -> str:
    """Everything one engine did with a frame: each compile, its graphs, breaks and guards."""
    if frame is None:
        return f"{engine} did not compile this frame."
    out = [f"{frame.name}  {os.path.basename(frame.file)}:{frame.first_line}"]
    for compile_ in frame.compiles:
        out.append("")
        out.append(f"[{compile_.compile_id}] {compile_.kind}" + (f": {compile_.reason}" if compile_.reason else ""))
        if compile_.error or compile_.eager_reason:
            out.append(f"  runs eagerly: {compile_.error or compile_.eager_reason}")
        for number, ops in enumerate(compile_.graphs):
            out.append(f"  graph {number}: {', '.join(ops) or '(no ops)'}")
        for brk in compile_.breaks:
            out.append(f"  graph break at {os.path.basename(brk.file)}:{brk.line}: {brk.reason}")
        if compile_.guards:
            out.append("  guards:")
            out.extend(f"    {source_text(g.source)}  {g.kind}  {g.expr}" for g in compile_.guards)
    return "\n".join(out)


def call_text(call: CallRecord | None, engine: str) -> str:
    if call is None:
        return f"{engine} did not make this call."
    lines = [f"{call.function} call {call.index}",
             f"compiles it caused: {', '.join(call.compile_ids) or 'none'}"]
    lines.append(f"raised {call.error}" if call.error else f"returned {call.output}")
    return "\n".join(lines)


def side_by_side(payload) -> tuple[str, str, list[str]]:
    """(Standin's text, Dynamo's text, what differs) for a table row's payload."""
    if isinstance(payload, FrameDiff):
        texts = frame_text(payload.standin, "Standin"), frame_text(payload.dynamo, "Dynamo")
    elif isinstance(payload, CallDiff):
        texts = call_text(payload.standin, "Standin"), call_text(payload.dynamo, "Dynamo")
    else:
        return "", "", []
    differences = [f"{a.name}: {detail}" if a.details else f"{a.name}: Standin {a.standin}; Dynamo {a.dynamo}"
                   for a in payload.aspects if not a.same for detail in (a.details or [""])]
    return *texts, differences


# ---- graph breaks of a frame ---------------------------------------------------------------------


@dataclass
class BreakRow:
    frame: str  # the compiled frame's name
    engine: str  # "Standin" or "Dynamo"
    where: str  # "train.py:12"
    reason: str
    compile_id: str
    only_here: bool  # the other engine does not break there in the paired compile
    function: str | None = None  # Standin's breaks: the instruction, to jump to in the trace
    line: int | None = None
    offset: int | None = None

    @property
    def jumps(self) -> bool:
        """A Standin-only break can be opened at its instruction in the trace."""
        return self.engine == "Standin" and self.only_here and self.offset is not None


def break_items(frame: FrameDiff) -> list[RowItem]:
    """The breaks table of a frame: a Standin-only break (bold) can be opened in the trace."""
    return [RowItem((row.engine + (" only" if row.only_here else ""), row.where, row.compile_id, row.reason),
                    payload=row, error=row.only_here, bold=row.jumps,
                    tooltip=row.reason + ("\n\nclick: open this instruction in the trace" if row.jumps else ""))
            for row in break_rows(frame)]


def break_rows(frame: FrameDiff) -> list[BreakRow]:
    """Every graph break of the frame under both engines, paired compile by compile."""
    standin = frame.standin.compiles if frame.standin else []
    dynamo = frame.dynamo.compiles if frame.dynamo else []
    rows = []
    for index in range(max(len(standin), len(dynamo))):
        mine = standin[index] if index < len(standin) else None
        theirs = dynamo[index] if index < len(dynamo) else None
        for engine, compile_, other in (("Standin", mine, theirs), ("Dynamo", theirs, mine)):
            if compile_ is None:
                continue
            elsewhere = {(os.path.abspath(b.file), b.line) for b in other.breaks} if other else set()
            for brk in compile_.breaks:
                rows.append(BreakRow(frame.name, engine, f"{os.path.basename(brk.file)}:{brk.line}", brk.reason,
                                     compile_.compile_id, (os.path.abspath(brk.file), brk.line) not in elsewhere,
                                     brk.function, brk.line, brk.offset))
    return rows


def _nth_compile(compile_id: str) -> str:
    """The `1` of `0/1`: frames are numbered per process, so the same run in another process may
    number its frames differently, never its compiles of one frame."""
    return compile_id.rpartition("/")[2]


def find_break_step(timelines, frame: str, compile_id: str, function: str | None,
                    offset: int | None) -> tuple[int, int] | None:
    """(timeline index, step) of the instruction a Standin break happened at, in the session's traces:
    the trace of the same frame's same compile, the last step at that instruction.

    The final attempt of that compile is preferred; a first attempt that restarted to stop before
    the break holds the breaking instruction itself.
    """
    candidates = [i for i, t in enumerate(timelines)
                  if t.frame == frame and _nth_compile(t.compile_id) == _nth_compile(compile_id)]
    candidates.sort(key=lambda i: timelines[i].ending is TraceEnd.RESTARTING)
    for index in candidates:
        snapshots = timelines[index].snapshots
        for step in range(len(snapshots) - 1, -1, -1):
            frame = snapshots[step].frames[-1]
            if frame.offset == offset and (function is None or frame.function == function):
                return index, step
    return None
