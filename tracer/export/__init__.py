"""tracer.export: a script's compiled graphs, guards and history as files.

`export_session(session, out_dir)` writes, for a `tracer.debug.Session` that
has run (see `standin export`):

    OUT/report.html                      one self-contained page (offline, inline CSS + SVG)
    OUT/report.json                      schema "standin.report/1" (resources/schemas/)
    OUT/explain.txt                      the terminal summary `standin explain` prints
    OUT/stdout.txt                       what the script printed
    OUT/compare.txt                      with a comparison: what `standin compare` prints
    OUT/<frame>/<compile_id>/            one folder per cache entry ("0/1" is written 0_1)
        graph_<i>.py                     runnable FX code: class Graph(torch.nn.Module)
        graph_<i>.dot                    Graphviz DOT
        graph_<i>.svg                    the graph drawn by Standin's own layout
        guards.txt                       the guard tree (TORCH_LOGS=guards style)
        guards.json                      schema "standin.guards/1"
        original.dis.txt                 dis of the frame's original bytecode
        rewritten.dis.txt                dis of the rewritten bytecode (absent when none)

Nothing here imports Qt: the command line and the app share it.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from ..guards.report import report_json, report_text
from .graphs import describe, graph_dot, graph_python
from .html import render_html
from .reports import SCHEMA, all_frames, build_report, explain_text, safe_name, entry_dir_name
from .svg import graph_svg

__all__ = ["export_session", "ExportResult", "build_report", "explain_text", "render_html",
           "graph_python", "graph_dot", "graph_svg", "describe", "SCHEMA"]


@dataclass
class ExportResult:
    out_dir: str
    report: dict
    files: list[str] = field(default_factory=list)  # paths relative to out_dir, in writing order


def planned_files(report: dict, comparison=None) -> list[tuple[str, str]]:
    """(relative path, text) for everything derived from the report alone."""
    files = [("report.json", json.dumps(report, indent=2, default=str) + "\n"),
             ("report.html", render_html(report)),
             ("explain.txt", explain_text(report)),
             ("stdout.txt", report["stdout"])]
    if comparison is not None:
        from ..compare import comparison_text  # cycle: tracer.compare's standin_side imports tracer.export
        files.append(("compare.txt", comparison_text(comparison)))
    for frame in report["frames"]:
        for entry in frame["entries"]:
            edir = entry["dir"]
            for graph in entry["graphs"]:
                description = {"nodes": graph["nodes"], "ops": graph["ops"]}
                title = f"{frame['name']} [{entry['compile_id']}] graph {graph['index']}"
                files.append((graph["files"]["py"], graph["code"]))
                files.append((graph["files"]["dot"], graph_dot(description, title)))
                files.append((graph["files"]["svg"], '<?xml version="1.0" encoding="UTF-8"?>\n'
                              + graph_svg(description, title=title)))
            files.append((f"{edir}/original.dis.txt", entry["bytecode"]["original"] or ""))
            if entry["bytecode"]["rewritten"] is not None:
                files.append((f"{edir}/rewritten.dis.txt", entry["bytecode"]["rewritten"]))
    return files


def export_session(session, out_dir: str, progress=None, comparison=None) -> ExportResult:
    """Write every export of a run session into out_dir (created if missing); with a Comparison of
    the run against real Dynamo, report.html and report.json hold it and compare.txt prints it."""
    say = progress or (lambda message: None)
    report = build_report(session, comparison)
    files = planned_files(report, comparison)
    # the guard reports come from the engine's own writers, per cache entry
    for frame in all_frames(session):
        frame_dir = safe_name(frame.code.co_name)
        for entry in frame.cache_entries:
            edir = f"{frame_dir}/{entry_dir_name(entry.compile_id)}"
            files.append((f"{edir}/guards.txt", report_text(entry) + "\n"))
            files.append((f"{edir}/guards.json",
                          json.dumps(report_json(entry, frame.code.co_name), indent=2, default=str) + "\n"))
    say(f"writing {len(files)} files to {out_dir}")
    result = ExportResult(os.path.abspath(out_dir), report)
    for relative, text in files:
        path = os.path.join(out_dir, *relative.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        result.files.append(relative)
    return result
