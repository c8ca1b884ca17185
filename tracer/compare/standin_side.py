"""Standin's side of a comparison: a script's run under `tracer.debug.Session`, as a RunRecord."""
from __future__ import annotations

import os
from importlib.metadata import version

from ..debug import Session
from ..export.graphs import describe
from ..export.reports import all_frames
from .calls import CallLog
from .records import BreakRecord, CompileRecord, FrameRecord, GuardRecord, RunRecord


def _version() -> str:
    try:
        return f"standin {version('standin')}"
    except Exception:  # noqa: BLE001 - run from a source tree
        return "standin (source tree)"


def frames_of(session: Session) -> list[FrameRecord]:
    """One FrameRecord per compiled frame of the session (resume functions and callees too)."""
    records = []
    for frame in all_frames(session):
        code = frame.code
        record = FrameRecord(code.co_name, os.path.abspath(code.co_filename), code.co_firstlineno)
        reasons = {e.compile_id: (e.kind, e.reason) for e in frame.compile_events
                   if e.kind in ("compile", "recompile")}
        for entry in frame.cache_entries:
            kind, reason = reasons.get(entry.compile_id, ("compile", None))
            brk = entry.graph_break
            breaks = [] if brk is None else [BreakRecord(
                brk.location.filename if brk.location else "?", brk.location.line if brk.location else None,
                brk.reason, brk.location.function if brk.location else None,
                brk.location.offset if brk.location else None)]
            record.compiles.append(CompileRecord(
                entry.compile_id, kind, reason, graphs=[describe(gm)["ops"] for gm in entry.graphs],
                breaks=breaks, guards=[GuardRecord(g.source_name or "", g.kind, g.expr) for g in entry.guards],
                eager_reason=entry.eager_reason))
        records.append(record)
    return records


def record_session(session: Session, calls: CallLog | None = None) -> RunRecord:
    """The RunRecord of a session that has run (its calls, when they were observed through `calls`)."""
    record = RunRecord("standin", session.path, list(session.argv), stdout=session.stdout, error=session.error,
                       exit_status=session.exit_status, version=_version())
    record.frames = frames_of(session)
    if calls is not None:
        record.calls, record.calls_not_recorded = calls.calls, calls.not_recorded
    return record


def run_under_standin(path: str, argv: list[str]) -> RunRecord:
    """Run the script under Standin (in this process) and record what it did, each call observed."""
    calls = CallLog()
    session = Session(path, argv, present=calls.present)
    session.run()
    return record_session(session, calls)
