"""One report per script run: the JSON model every export view is rendered from.

`build_report(session)` collects, for a `tracer.debug.Session` that has run,
every compiled frame (the user's functions, their resume functions, callees
compiled at a break), each cache entry with its guards, graphs, bytecode and
graph break, and the compile events (compiles, recompiles with the failed
guard that caused them, eager fallbacks). The HTML report, the terminal
summary (`standin explain`) and report.json all read this one dict.

JSON schema "standin.report/1" (formal version:
resources/schemas/standin.report.schema.json):

    {
      "schema": "standin.report/1",
      "generator": "standin 0.1.0",
      "script": {"path": "/abs/script.py", "name": "script.py", "source": "...", "argv": [...]},
      "status": {"ok": true, "error": null,       # error: "ValueError: ..." when the script raised
                 "exit_status": null, "exit_how": null},  # 3, "sys.exit(3)" when the script exited itself
      "stdout": "...",
      "summary": {"frames": 1, "cache_entries": 2, "graphs": 2, "ops": 8, "guards": 12,
                  "graph_breaks": 0, "recompiles": 1, "eager_entries": 0},
      "frames": [
        {"name": "f", "qualname": "f", "function": "f", "file": "...", "first_line": 18,
         "parent": null, "dir": "f",
         "compile_events": [{"kind": "recompile", "compile_id": "0/1", "reason": "...",
                             "duration_s": 0.01}, ...],
         "entries": [
           {"compile_id": "0/0", "dir": "f/0_0", "hits": 2, "eager_reason": null,
            "graph_break": null | {"reason": ..., "location": <location>, "user_stack": [<location>...]},
            "guards": [<guard, as in standin.guards/1>...], "guard_tree": [...],
            "graphs": [{"index": 0, "ops": ["operator.mul", ...],
                        "nodes": [{"name", "op", "target", "args", "inputs", "shape", "dtype",
                                   "location"}...],
                        "code": "<the graph's FX Python>",
                        "files": {"py": "f/0_0/graph_0.py", "dot": ..., "svg": ...}}],
            "bytecode": {"original": "<dis text>" | null, "rewritten": "<dis text>" | null}}
         ]}
      ],
      "graph_breaks": [{"frame", "compile_id", "reason", "location", "user_stack"}],
      "recompiles": [{"frame", "compile_id", "reason"}],
      "comparison": {...}     # only with `standin export --compare`: schema standin.compare/1 (tracer.compare)
    }

A <location> is {"file", "line", "function", "offset", "opname"}.
"""
from __future__ import annotations

import dis
import io
import os
import re
from importlib.metadata import version

from ..guards.report import guard_to_json, source_tree
from .graphs import describe, graph_python

SCHEMA = "standin.report/1"


def _version() -> str:
    try:
        return version("standin")
    except Exception:  # noqa: BLE001 - an uninstalled source tree: the report still writes
        return "0+unknown"


def safe_name(text: str) -> str:
    """A file-system-safe directory name for a frame (`<lambda>` -> `_lambda_`)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip(".") or "frame"
    return name[:80]


def entry_dir_name(compile_id: str) -> str:
    return compile_id.replace("/", "_")


def disassemble(code) -> str | None:
    if code is None:
        return None
    buffer = io.StringIO()
    try:
        dis.dis(code, file=buffer)
    except Exception as error:  # noqa: BLE001 - synthetic code dis cannot read: say so rather than fail the export
        buffer.write(f"\n<dis failed: {type(error).__name__}: {error}>\n")
    return buffer.getvalue()


def location_json(loc) -> dict | None:
    if loc is None:
        return None
    return {"file": loc.filename, "line": loc.line, "function": loc.function,
            "offset": loc.offset, "opname": loc.opname}


def all_frames(session) -> list:
    """Every compiled frame of a session, each once, in creation order."""
    seen, frames = set(), []
    for function in session.functions:
        for frame in function.all_frames():
            if id(frame) not in seen:
                seen.add(id(frame))
                frames.append(frame)
    return frames


def _entry_json(frame, entry, frame_dir: str) -> dict:
    guards = list(entry.guards)
    edir = f"{frame_dir}/{entry_dir_name(entry.compile_id)}"
    graphs = []
    for index, gm in enumerate(entry.graphs):
        description = describe(gm)
        graphs.append({
            "index": index,
            "ops": description["ops"],
            "nodes": description["nodes"],
            "code": graph_python(gm, title=graph_title(frame, entry, index)),
            "files": {ext: f"{edir}/graph_{index}.{ext}" for ext in ("py", "dot", "svg")},
        })
    brk = entry.graph_break
    return {
        "compile_id": entry.compile_id,
        "dir": edir,
        "hits": entry.hits,
        "hits_counted": entry.hits_counted,
        "eager_reason": entry.eager_reason,
        "graph_break": None if brk is None else {
            "reason": brk.reason, "location": location_json(brk.location),
            "user_stack": [location_json(loc) for loc in brk.user_stack]},
        "guards": [guard_to_json(g) for g in guards],
        "guard_tree": source_tree(guards),
        "shapes": _shapes_json(entry),
        "graphs": graphs,
        "bytecode": {"original": disassemble(entry.original_code or frame.code),
                     "rewritten": disassemble(entry.code)},
    }


def _shapes_json(entry) -> dict | None:
    """The entry's symbols, why each input dimension is symbolic or static, and what became dynamic."""
    shapes = getattr(entry, "shapes", None)
    if shapes is None:
        return None
    return {**shapes.describe(), "became_dynamic": [str(change) for change in entry.became_dynamic]}


def graph_title(frame, entry, index: int) -> str:
    return (f"Graph {index} of frame {frame.code.co_name} [{entry.compile_id}] "
            f"from {frame.code.co_filename}:{frame.code.co_firstlineno}")


def status_json(session) -> dict:
    """How the script ended: ok (finished, status 0), the error it raised, or the status it exited with."""
    exit_status = getattr(session, "exit_status", None)
    return {"ok": session.error is None and not exit_status, "error": session.error,
            "exit_status": exit_status, "exit_how": getattr(session, "exit_how", None)}


def build_report(session, comparison=None) -> dict:
    """The standin.report/1 document for a session that has run (see the module docstring).

    With a `tracer.compare.Comparison` of this run against real Dynamo, the report holds it too.
    """
    try:
        with open(session.path, encoding="utf-8", errors="replace") as handle:
            source = handle.read()
    except OSError:
        source = ""
    frames_json, breaks, recompiles = [], [], []
    frames = all_frames(session)
    parents = {id(f): f.parent.code.co_name if f.parent is not None else None for f in frames}
    for frame in frames:
        name = frame.code.co_name
        frame_dir = safe_name(name)
        entries = [_entry_json(frame, entry, frame_dir) for entry in frame.cache_entries]
        events = [{"kind": e.kind, "compile_id": e.compile_id, "reason": e.reason,
                   "duration_s": e.duration_s} for e in frame.compile_events]
        frames_json.append({
            "name": name, "qualname": frame.code.co_qualname, "function": frame.user_function_name,
            "file": frame.code.co_filename, "first_line": frame.code.co_firstlineno,
            "parent": parents[id(frame)], "dir": frame_dir,
            "compile_events": events, "entries": entries,
        })
        for entry in entries:
            if entry["graph_break"] is not None:
                breaks.append({"frame": name, "compile_id": entry["compile_id"], **entry["graph_break"]})
        for event in events:
            if event["kind"] == "recompile":
                recompiles.append({"frame": name, "compile_id": event["compile_id"], "reason": event["reason"]})
    entries = [e for f in frames_json for e in f["entries"]]
    graphs = [g for e in entries for g in e["graphs"]]
    report = {
        "schema": SCHEMA,
        "generator": f"standin {_version()}",
        "script": {"path": session.path, "name": os.path.basename(session.path), "source": source,
                   "argv": list(session.argv)},
        "status": status_json(session),
        "stdout": session.stdout,
        "summary": {
            "frames": len(frames_json), "cache_entries": len(entries), "graphs": len(graphs),
            "ops": sum(len(g["ops"]) for g in graphs), "guards": sum(len(e["guards"]) for e in entries),
            "graph_breaks": len(breaks), "recompiles": len(recompiles),
            "eager_entries": sum(e["eager_reason"] is not None for e in entries),
        },
        "frames": frames_json,
        "graph_breaks": breaks,
        "recompiles": recompiles,
    }
    if comparison is not None:
        from ..compare import comparison_json  # cycle: tracer.compare's standin_side imports this module
        report["comparison"] = comparison_json(comparison)
    return report


# ---- the terminal summary (`standin explain`) --------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _where(loc: dict | None, base: str | None = None) -> str:
    if not loc:
        return "?"
    file = os.path.basename(loc["file"]) if base and os.path.abspath(loc["file"]) == base else loc["file"]
    return f"{file}:{loc['line']} in {loc['function']}"


def source_line(report: dict, loc: dict | None) -> str:
    if not loc or not loc.get("line") or os.path.abspath(loc["file"]) != report["script"]["path"]:
        return ""
    lines = report["script"]["source"].splitlines()
    return lines[loc["line"] - 1].strip() if 0 < loc["line"] <= len(lines) else ""


def explain_text(report: dict) -> str:
    """What `standin explain` prints: frames, graphs, breaks and recompiles with their reasons."""
    s = report["summary"]
    base = report["script"]["path"]
    out = [f"{report['script']['name']}: {_plural(s['frames'], 'compiled frame')}, "
           f"{_plural(s['cache_entries'], 'cache entry').replace('entrys', 'entries')}, "
           f"{_plural(s['graphs'], 'graph')} ({_plural(s['ops'], 'op')}), "
           f"{_plural(s['graph_breaks'], 'graph break')}, {_plural(s['recompiles'], 'recompile')}"]
    status = report["status"]
    if status["error"]:
        out.append(f"The script raised {status['error']} (what ran before that is below).")
    elif status.get("exit_how"):
        out.append(f"The script exited with status {status['exit_status']}: {status['exit_how']}.")
    for frame in report["frames"]:
        parent = f", resumes/called from {frame['parent']}" if frame["parent"] else ""
        where = os.path.basename(frame["file"]) if frame["file"] == base else frame["file"]
        out.append("")
        out.append(f"Frame {frame['qualname']} ({where}:{frame['first_line']}{parent})")
        for entry in frame["entries"]:
            head = f"  [{entry['compile_id']}] {_plural(len(entry['graphs']), 'graph')}, " \
                   f"{_plural(len(entry['guards']), 'guard')}, {_plural(entry['hits'], 'hit')}" \
                   f"{'' if entry.get('hits_counted', True) else ' (then skipped: later calls not counted)'}"
            out.append(head)
            if entry["eager_reason"]:
                out.append(f"      runs eagerly: {entry['eager_reason']}")
            for graph in entry["graphs"]:
                ops = ", ".join(graph["ops"]) or "(no ops)"
                out.append(f"      graph {graph['index']}: {ops}")
            if entry["graph_break"]:
                brk = entry["graph_break"]
                out.append(f"      graph break at {_where(brk['location'], base)}: {brk['reason']}")
        for event in frame["compile_events"]:
            if event["kind"] in ("recompile", "eager_fallback", "cache_limit"):
                cid = f"[{event['compile_id']}] " if event["compile_id"] else ""
                out.append(f"  {cid}{event['kind']}: {event['reason']}")
    out.append("")
    if report["graph_breaks"]:
        out.append("Graph breaks:")
        for n, brk in enumerate(report["graph_breaks"], 1):
            out.append(f"  {n}. {_where(brk['location'], base)} [{brk['compile_id']}]: {brk['reason']}")
            line = source_line(report, brk["location"])
            if line:
                out.append(f"       {line}")
    else:
        out.append("Graph breaks: none")
    if report["recompiles"]:
        out.append("Recompiles:")
        for n, rec in enumerate(report["recompiles"], 1):
            out.append(f"  {n}. {rec['frame']} [{rec['compile_id']}]: {rec['reason']}")
    else:
        out.append("Recompiles: none")
    return "\n".join(out) + "\n"
