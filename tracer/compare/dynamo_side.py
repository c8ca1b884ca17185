"""The oracle: run the script under real `torch.compile` and record what Dynamo did, in Dynamo's words.

This module runs only in a child process of its own (tracer.compare.child),
and it is the one place in tracer/ that imports `torch._dynamo`: real Dynamo is
what Standin is compared against, never a part of Standin's tracing.

While the script runs, `torch.compile(fn, backend=..., dynamic=..., fullgraph=...)`
is torch's own, with the backend replaced by one that records each graph's ops
and runs the graph as it is (`dynamic`, `fullgraph` and `disable` are kept).
What Dynamo did comes from what it publishes for tools:

- compiles and recompiles, their frames and reasons: `torch._dynamo.utils.get_compilation_metrics()`;
- graph breaks, with line and reason: the `graph_breaks` log (what TORCH_LOGS=graph_breaks prints);
- guards: the `guards` log, the guard manager's tree (what TORCH_LOGS=guards prints).
"""
from __future__ import annotations

import contextlib
import io
import logging
import os
import re

import torch
import torch._dynamo
import torch._guards
from torch._dynamo.utils import get_compilation_metrics

from ..exc import ScriptExit
from ..export.graphs import describe
from ..script import run_as_main
from .calls import CallLog, name_of
from .records import BreakRecord, CompileRecord, FrameRecord, GuardRecord, RunRecord

LOGGED = ("graph_breaks", "guards")
BREAK_TEXT = re.compile(r"Graph break .*?in user code at (?P<file>.*):(?P<line>\d+)\n"
                        r"Graph Break Reason: (?P<reason>.*?)(?:\n\nUser code traceback:.*)?\Z", re.S)
GUARD_LINE = re.compile(r"^(?P<indent>[| ]*)\+- (?P<label>[A-Za-z_]+):? ?(?P<rest>.*)$")
MANAGER_SOURCE = re.compile(r"source=(?P<source>.*?), accessed_by=")


def compile_id_now() -> str | None:
    """"0/1" for the compile Dynamo is in (the attempt left out: a restart is the same compile)."""
    compile_id = torch._guards.CompileContext.current_compile_id()
    if compile_id is None or compile_id.frame_id is None:
        return None
    return f"{compile_id.frame_id}/{compile_id.frame_compile_id}"


class DynamoObserver(logging.Handler):
    """Collects graphs (from the recording backend) and the graph-break and guard logs, by compile id."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.graphs: dict[str, list[list[str]]] = {}
        self.breaks: dict[str, list[BreakRecord]] = {}
        self.guards: dict[str, list[GuardRecord]] = {}

    # ---- the backend ---------------------------------------------------------------------------
    def backend(self, gm: torch.fx.GraphModule, example_inputs):
        self.graphs.setdefault(compile_id_now() or "?", []).append(describe(gm)["ops"])
        return gm.forward

    # ---- the logs ------------------------------------------------------------------------------
    def emit(self, record: logging.LogRecord) -> None:
        compile_id = compile_id_now() or "?"
        artifact = record.name.rsplit(".__", 1)[-1]
        try:
            if artifact == "graph_breaks":
                self.graph_break_logged(compile_id, record.getMessage())
            elif artifact == "guards" and record.args and "GuardManager" in str(record.args[0]):
                self.guards_logged(compile_id, str(record.args[0]))
        except Exception as error:  # noqa: BLE001 - a log format we do not know: keep the rest of the run
            self.breaks.setdefault(compile_id, []).append(
                BreakRecord("?", None, f"<unreadable {artifact} log: {type(error).__name__}: {error}>"))

    def graph_break_logged(self, compile_id: str, text: str) -> None:
        match = BREAK_TEXT.match(text)
        if match is None:
            return
        found = BreakRecord(match["file"], int(match["line"]), match["reason"].strip())
        known = self.breaks.setdefault(compile_id, [])
        if found not in known:  # a restarted trace logs its break again
            known.append(found)

    def guards_logged(self, compile_id: str, tree: str) -> None:
        """Leaf guards of the TREE_GUARD_MANAGER text, each with the source of the manager above it."""
        sources: dict[int, str] = {}  # depth of a manager line -> its source
        guards: list[GuardRecord] = []
        for line in tree.splitlines():
            match = GUARD_LINE.match(line)
            if match is None:
                continue
            depth = len(match["indent"]) // 2
            label, rest = match["label"], match["rest"]
            if label in ("RootGuardManager", "GuardManager", "DictGuardManager", "DictSubclassGuardManager"):
                source = MANAGER_SOURCE.search(rest)
                sources[depth] = source["source"] if source else ""
                continue
            owner = max((d for d in sources if d < depth), default=None)
            expr = rest.split("  #", 1)[0].strip()
            guards.append(GuardRecord(sources.get(owner, "") if owner is not None else "", label, expr))
        self.guards[compile_id] = guards

    @contextlib.contextmanager
    def listening(self):
        """Turn on Dynamo's graph-break and guard logs, routed here and nowhere else."""
        torch._logging.set_logs(**{name: True for name in LOGGED})
        loggers = [logging.getLogger(name) for name in logging.root.manager.loggerDict
                   if name.startswith("torch.") and name.rsplit(".__", 1)[-1] in LOGGED]
        saved = [(log, list(log.handlers), log.propagate) for log in loggers]
        for log in loggers:
            log.handlers = [self]
            log.propagate = False
        try:
            yield
        finally:
            for log, handlers, propagate in saved:
                log.handlers, log.propagate = handlers, propagate
            torch._logging.set_logs()


@contextlib.contextmanager
def routed_to_real_dynamo(observer: DynamoObserver, calls: CallLog):
    """While active, torch.compile is torch's own with the recording backend; its result is observed."""
    real_compile = torch.compile

    def dynamo_compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None,
                       disable=False, **others):
        def wrap(fn):
            compiled = real_compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=observer.backend,
                                    disable=disable, **others)
            return compiled if disable else calls.observe(compiled, name_of(fn))
        return wrap if model is None else wrap(model)

    torch.compile = dynamo_compile
    try:
        yield
    finally:
        torch.compile = real_compile


def frames_of(observer: DynamoObserver) -> list[FrameRecord]:
    """One FrameRecord per code object Dynamo compiled, its compiles in order."""
    frames: dict[tuple, FrameRecord] = {}
    for metric in get_compilation_metrics():
        key = (metric.co_name, os.path.abspath(metric.co_filename or "?"), metric.co_firstlineno or 0)
        frame = frames.setdefault(key, FrameRecord(*key))
        compile_id = str(metric.compile_id)
        failed = f"{metric.fail_type}: {metric.fail_reason}" if metric.fail_type else None
        skipped = None if metric.has_guarded_code else SKIPPED
        frame.compiles.append(CompileRecord(
            compile_id, "recompile" if frame.compiles else "compile", metric.recompile_reason,
            graphs=observer.graphs.get(compile_id, []), breaks=observer.breaks.get(compile_id, []),
            guards=observer.guards.get(compile_id, []), eager_reason=None if failed else skipped, error=failed))
    return list(frames.values())


SKIPPED = "Dynamo installed no code for this frame (nothing to compile): it runs as it is"


def run_under_dynamo(path: str, argv: list[str]) -> RunRecord:
    """Run the script under real torch.compile (in this process) and record what Dynamo did."""
    path = os.path.abspath(path)
    record = RunRecord("dynamo", path, list(argv), version=torch.__version__)
    observer = DynamoObserver()
    calls = CallLog(lambda: [str(m.compile_id) for m in get_compilation_metrics()])
    stdout = io.StringIO()
    try:
        with observer.listening(), routed_to_real_dynamo(observer, calls), contextlib.redirect_stdout(stdout):
            run_as_main(path, argv)
    except ScriptExit as exit_:
        record.exit_status = exit_.status
    except BaseException as error:  # noqa: BLE001 - whatever ended the script is part of the record
        record.error = f"{type(error).__name__}: {error}"
    record.stdout = stdout.getvalue()
    record.frames = frames_of(observer)
    record.calls, record.calls_not_recorded = calls.calls, calls.not_recorded
    return record
