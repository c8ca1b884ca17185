"""What one engine did with one script, as plain data both sides can write and the diff can read.

A `RunRecord` is made in the process that ran the script (Standin's or real
Dynamo's) and travels to the parent as JSON, so nothing live crosses over:
frames by the identity the two engines share (code name, file, first line),
each compile with its reason, graphs as op lists, graph breaks with their
line and reason, guards by source, and every top-level call with a summary of
its output.  The words of each engine are kept as it wrote them.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

SCHEMA = "standin.compare-run/1"


@dataclass(frozen=True)
class BreakRecord:
    file: str
    line: int | None
    reason: str
    function: str | None = None
    offset: int | None = None  # Standin only: the instruction the trace broke at


@dataclass(frozen=True)
class GuardRecord:
    source: str  # "" for guards on global state (grad mode, the default device, ...)
    kind: str
    expr: str


@dataclass
class CompileRecord:
    compile_id: str  # as the engine numbered it ("0/1")
    kind: str  # "compile" or "recompile"
    reason: str | None = None  # a recompile's failed guards, verbatim
    graphs: list[list[str]] = field(default_factory=list)  # one op list per graph sent to the backend
    breaks: list[BreakRecord] = field(default_factory=list)
    guards: list[GuardRecord] = field(default_factory=list)
    eager_reason: str | None = None  # the frame ran eagerly instead (Standin's fallback, Dynamo's skip)
    error: str | None = None  # the compile itself failed


@dataclass
class FrameRecord:
    name: str
    file: str
    first_line: int
    compiles: list[CompileRecord] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str, int]:
        return self.name, self.file, self.first_line

    @property
    def is_resume(self) -> bool:
        return self.name.startswith("torch_dynamo_resume_in_")


@dataclass
class CallRecord:
    """The n-th call (from 1) of a function torch.compile returned, as the script made it."""

    function: str
    index: int
    output: dict | None = None  # a value summary (see tracer.compare.values)
    error: str | None = None  # the call raised this
    compile_ids: list[str] = field(default_factory=list)  # compiles (any frame) the call caused


@dataclass
class RunRecord:
    engine: str  # "standin" or "dynamo"
    script: str
    argv: list[str] = field(default_factory=list)
    frames: list[FrameRecord] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    calls_not_recorded: int = 0  # beyond the per-function cap
    stdout: str = ""
    error: str | None = None  # the script raised this (or the engine failed under it)
    exit_status: int | None = None  # the script's own sys.exit / os._exit status
    crashed: str | None = None  # the engine's process died ("killed by signal 11 (SIGSEGV)")
    stderr_tail: str = ""  # the end of the process's stderr, when it crashed
    version: str = ""  # torch's version for Dynamo, Standin's for Standin

    @property
    def ok(self) -> bool:
        return self.error is None and self.crashed is None

    @property
    def status_text(self) -> str:
        if self.crashed:
            return f"crashed: {self.crashed}"
        if self.error:
            return f"raised {self.error}"
        if self.exit_status:
            return f"exited with status {self.exit_status}"
        return "finished"

    def to_json(self) -> dict:
        return {"schema": SCHEMA, **dataclasses.asdict(self)}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), default=str)

    @classmethod
    def from_json(cls, data: dict) -> "RunRecord":
        data = {k: v for k, v in data.items() if k != "schema"}
        frames = [_frame_from_json(f) for f in data.pop("frames", [])]
        calls = [CallRecord(**c) for c in data.pop("calls", [])]
        return cls(frames=frames, calls=calls, **data)

    @classmethod
    def loads(cls, text: str) -> "RunRecord":
        data = json.loads(text)
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a {SCHEMA} record: schema {data.get('schema')!r}")
        return cls.from_json(data)


def _frame_from_json(data: dict) -> FrameRecord:
    compiles = []
    for c in data.get("compiles", []):
        c = dict(c)
        c["breaks"] = [BreakRecord(**b) for b in c.get("breaks", [])]
        c["guards"] = [GuardRecord(**g) for g in c.get("guards", [])]
        compiles.append(CompileRecord(**c))
    return FrameRecord(data["name"], data["file"], data["first_line"], compiles)


def failed_run(engine: str, script: str, argv: list[str], crashed: str, stderr_tail: str = "") -> RunRecord:
    """The record of a side whose process died before it could write its own."""
    return RunRecord(engine, script, list(argv), crashed=crashed, stderr_tail=stderr_tail)
