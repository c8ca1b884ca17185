"""One self-contained HTML page per script: opens offline, from a file, in any browser.

Rendered from the standin.report/1 dict (reports.build_report), so it shows
exactly what report.json says. No scripts, no external stylesheets, fonts or
images: the CSS is inline and the graphs are inline SVG drawn by svg.py.
Everything that comes from the user's program (source, string constants in
bytecode, guard expressions, stdout, reasons) goes through html.escape, so a
`<script>` in a string literal is shown as text, never run.
"""
from __future__ import annotations

import html
import os
import re

from .svg import graph_svg

CSS = """
:root { --fg:#0f172a; --muted:#64748b; --line:#e2e8f0; --bg:#f8fafc; --card:#ffffff;
        --accent:#2563eb; --bad:#dc2626; --warn:#d97706; --ok:#16a34a; }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--fg); background: var(--bg); }
header { background:#0f172a; color:#f8fafc; padding:18px 32px 14px; }
header h1 { margin:0; font-size:20px; font-weight:600; }
header h1 .tool { color:#93c5fd; font-weight:500; }
header .meta { color:#cbd5e1; font-size:12px; margin-top:4px; word-break: break-all; }
nav { position: sticky; top:0; z-index:1; background:#1e293b; padding:6px 32px; }
nav a { color:#e2e8f0; text-decoration:none; margin-right:18px; font-size:13px; }
nav a:hover { color:#93c5fd; }
main { padding: 8px 32px 48px; max-width: 1400px; }
section { margin-top: 26px; }
h2 { font-size:17px; border-bottom:2px solid var(--line); padding-bottom:4px; margin:0 0 12px; }
h3 { font-size:15px; margin: 0 0 8px; }
h4 { font-size:13px; margin: 14px 0 6px; color:#334155; }
h4 .muted { font-weight:400; }
code, pre, .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size:12.5px; }
pre { margin:0; background:#f1f5f9; border:1px solid var(--line); border-radius:6px; padding:10px 12px;
      overflow:auto; }
.cards { display:flex; flex-wrap:wrap; gap:10px; margin-top:16px; }
.card-num { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:8px 16px;
            min-width:110px; }
.card-num b { display:block; font-size:22px; }
.card-num span { color:var(--muted); font-size:12px; }
.card-num.bad b { color:var(--bad); } .card-num.warn b { color:var(--warn); }
.badge { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px; font-weight:600;
         vertical-align: middle; }
.badge.ok { background:#dcfce7; color:#166534; } .badge.bad { background:#fee2e2; color:#991b1b; }
.badge.warn { background:#fef3c7; color:#92400e; } .badge.info { background:#dbeafe; color:#1e40af; }
.alert { border-left:4px solid var(--bad); background:#fef2f2; padding:8px 12px; border-radius:4px; }
table { border-collapse: collapse; width:100%; background:var(--card); }
th, td { text-align:left; padding:4px 8px; border-bottom:1px solid var(--line); vertical-align: top; }
th { font-size:12px; color:var(--muted); font-weight:600; background:#f8fafc; }
table.source { border:1px solid var(--line); border-radius:6px; }
table.source td { border:0; padding:0 8px; white-space: pre; }
table.source td.ln { color:#94a3b8; text-align:right; width:1%; user-select:none; border-right:1px solid var(--line); }
table.source td.mark { width:1%; padding:0 4px; }
table.source tr.break td { background:#fee2e2; } table.source tr.recompile td { background:#fef3c7; }
table.source tr.graph td.ln, table.source tr.recompile td.ln { color: var(--accent); font-weight:600; }
.frame { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:14px 18px;
         margin-bottom:18px; }
.entry { border-top:1px dashed var(--line); padding-top:12px; margin-top:12px; }
.muted { color: var(--muted); }
.graph-view { display:inline-block; max-width:100%; overflow:auto; background:#fff;
              border:1px solid var(--line); border-radius:6px; padding:6px 14px; margin-bottom:4px; }
details { margin: 6px 0; } summary { cursor:pointer; color:#334155; font-weight:600; font-size:13px; }
.cols { display:grid; grid-template-columns: 1fr 1fr; gap:12px; }
.cols > div { min-width:0; }
ul.plain { margin:0; padding-left:18px; }
table.guards { table-layout: fixed; }
table.guards td { overflow-wrap: anywhere; word-break: break-word; }
table.guards th:nth-child(1) { width: 24%; } table.guards th:nth-child(2) { width: 12%; }
table.guards th:nth-child(3) { width: 38%; } table.guards th:nth-child(4) { width: 14%; }
"""


def e(value) -> str:
    """Escape anything from the user's program for HTML text or attributes."""
    return html.escape("" if value is None else str(value), quote=True)


def _where(loc: dict | None) -> str:
    if not loc:
        return ""
    return f"{os.path.basename(loc['file'])}:{loc['line']} in {loc['function']}"


def _card(number, label, level="") -> str:
    return f'<div class="card-num {level}"><b>{number}</b><span>{e(label)}</span></div>'


def _source(report: dict) -> str:
    path = report["script"]["path"]
    marks: dict[int, list[tuple[str, str]]] = {}
    for brk in report["graph_breaks"]:
        loc = brk["location"]
        if loc and loc["file"] == path and loc["line"]:
            marks.setdefault(loc["line"], []).append(("break", f"graph break [{brk['compile_id']}]: {brk['reason']}"))
    for rec in report["recompiles"]:  # the failed guard's line, as the reason names it
        for file, line in re.findall(r"# (.+?):(\d+) in ", rec["reason"] or ""):
            if file == path:
                marks.setdefault(int(line), []).append(("recompile", f"recompile [{rec['compile_id']}]: {rec['reason']}"))
    for frame in report["frames"]:
        for entry in frame["entries"]:
            for graph in entry["graphs"]:
                for node in graph["nodes"]:
                    loc = node["location"]
                    if loc and loc["file"] == path:
                        marks.setdefault(loc["line"], []).append(("graph", f"in graph [{entry['compile_id']}]"))
    rows = []
    for number, line in enumerate(report["script"]["source"].splitlines(), 1):
        kinds = [k for k, _ in marks.get(number, [])]
        cls = next((k for k in ("break", "recompile", "graph") if k in kinds), "")
        tips = list(dict.fromkeys(t for _, t in marks.get(number, [])))
        mark = {"break": "&#9888;", "recompile": "&#8635;", "graph": "&#9679;"}.get(cls, "")
        title = f' title="{e(chr(10).join(tips))}"' if tips else ""
        rows.append(f'<tr id="L{number}" class="{cls}"{title}><td class="ln">{number}</td>'
                    f'<td class="mark">{mark}</td><td>{e(line)}</td></tr>')
    return ('<section id="source"><h2>Source</h2>'
            '<p class="muted">&#9679; a line that produced graph nodes &nbsp; &#9888; a graph break &nbsp; '
            '&#8635; a guard that failed and caused a recompile (hover a line for details)</p>'
            f'<table class="source mono">{"".join(rows)}</table></section>')


def _breaks(report: dict) -> str:
    if not report["graph_breaks"]:
        return '<section id="graph-breaks"><h2>Graph breaks</h2><p class="muted">No graph breaks.</p></section>'
    rows = []
    for brk in report["graph_breaks"]:
        stack = "<br>".join(e(_where(loc)) for loc in brk["user_stack"])
        loc = brk["location"]
        where = e(_where(loc))
        if loc and loc["file"] == report["script"]["path"]:
            where = f'<a href="#L{loc["line"]}">{where}</a>'
        rows.append(f'<tr><td class="mono">{e(brk["compile_id"])}</td><td class="mono">{e(brk["frame"])}</td>'
                    f'<td>{where}</td><td>{e(brk["reason"])}</td><td class="mono">{stack}</td></tr>')
    return ('<section id="graph-breaks"><h2>Graph breaks</h2><table><tr><th>Entry</th><th>Frame</th>'
            '<th>Where</th><th>Reason</th><th>User stack</th></tr>' + "".join(rows) + "</table></section>")


def _history(report: dict) -> str:
    rows = []
    for frame in report["frames"]:
        for event in frame["compile_events"]:
            level = {"recompile": "warn", "compile": "info", "graph_break": "bad",
                     "eager_fallback": "bad", "cache_limit": "bad"}.get(event["kind"], "info")
            duration = f"{event['duration_s'] * 1000:.1f} ms" if event.get("duration_s") else ""
            rows.append(f'<tr><td class="mono">{e(event["compile_id"] or "")}</td>'
                        f'<td class="mono">{e(frame["name"])}</td>'
                        f'<td><span class="badge {level}">{e(event["kind"])}</span></td>'
                        f'<td class="mono">{e(event["reason"] or "")}</td><td class="muted">{duration}</td></tr>')
    count = len(report["recompiles"])
    lead = (f'<p>{count} recompile{"s" if count != 1 else ""}; each names the guard that failed.</p>'
            if count else '<p class="muted">No recompiles.</p>')
    return ('<section id="recompiles"><h2>Compile and recompile history</h2>' + lead +
            '<table><tr><th>Compile id</th><th>Frame</th><th>Event</th><th>Reason</th><th>Time</th></tr>'
            + "".join(rows) + "</table></section>")


def _guards(entry: dict) -> str:
    if not entry["guards"]:
        return '<p class="muted">No guards.</p>'
    rows = []
    for guard in entry["guards"]:
        at = guard["installed_at"]
        where = f'{e(os.path.basename(at["file"]))}:{at["line"]}' if at else ""
        line = e(at["source_line"]) if at else ""
        rows.append(f'<tr><td class="mono">{e(guard["source"])}</td><td class="mono">{e(guard["kind"])}</td>'
                    f'<td class="mono">{e(guard["expression"])}</td><td class="mono">{where}</td>'
                    f'<td class="mono">{line}</td></tr>')
        for cause in guard.get("causes", ()):  # why a shape guard exists, at the instruction that caused it
            at = cause["installed_at"]
            cause_where = f'{e(os.path.basename(at["file"]))}:{at["line"]}' if at else ""
            rows.append(f'<tr class="cause"><td></td><td class="muted">because</td><td>{e(cause["why"])}</td>'
                        f'<td class="mono">{cause_where}</td><td class="mono">{e(cause["opname"] or "")}</td></tr>')
    return ('<table class="guards"><tr><th>Source</th><th>Kind</th><th>Guard</th><th>Installed at</th>'
            '<th>Line</th></tr>' + "".join(rows) + "</table>")


def _graph(entry: dict, graph: dict) -> str:
    prefix = f"g{entry['compile_id'].replace('/', '_')}-{graph['index']}"
    svg = graph_svg({"nodes": graph["nodes"]}, id_prefix=prefix)
    ops = ", ".join(graph["ops"]) or "no ops"
    return (f'<div class="graph" id="{e(prefix)}"><h4>Graph {graph["index"]} '
            f'<span class="muted">— {len(graph["ops"])} ops: {e(ops)}</span></h4>'
            f'<div class="graph-view">{svg}</div>'
            f'<details><summary>FX code ({e(graph["files"]["py"])})</summary><pre>{e(graph["code"])}</pre>'
            '</details></div>')


def _shapes(shapes: dict) -> str:
    """The entry's symbols with their ranges, and what automatic dynamic made symbolic here."""
    rows = "".join(f'<tr><td class="mono">{e(s["name"])}</td><td class="mono">{e(s["source"])}</td>'
                   f'<td class="mono">{e(str(s["value"]))}</td><td class="mono">{e(s["range"])}</td></tr>'
                   for s in shapes["symbols"])
    changes = "".join(f"<li>{e(text)}</li>" for text in shapes["became_dynamic"])
    return ('<h4>Symbolic sizes</h4>' + (f'<ul>{changes}</ul>' if changes else '') +
            ('<table class="guards"><tr><th>Symbol</th><th>Stands for</th><th>Seen</th><th>Range</th></tr>'
             + rows + '</table>' if rows else ''))


def _entry(frame: dict, entry: dict) -> str:
    badges = [f'<span class="badge info">{entry["hits"]} hit{"s" if entry["hits"] != 1 else ""}'
              f'{"" if entry.get("hits_counted", True) else ", then skipped: later calls not counted"}</span>']
    if entry["eager_reason"]:
        badges.append('<span class="badge bad">runs eagerly</span>')
    if entry["graph_break"]:
        badges.append('<span class="badge bad">graph break</span>')
    parts = [f'<div class="entry" id="entry-{e(entry["dir"].replace("/", "-"))}">'
             f'<h3><span class="mono">[{e(entry["compile_id"])}]</span> {" ".join(badges)}</h3>']
    if entry["eager_reason"]:
        parts.append(f'<p class="alert">Runs eagerly: {e(entry["eager_reason"])}</p>')
    if entry["graph_break"]:
        brk = entry["graph_break"]
        parts.append(f'<p class="alert">Graph break at {e(_where(brk["location"]))}: {e(brk["reason"])}</p>')
    parts.append(f'<h4>Guards ({len(entry["guards"])})</h4>' + _guards(entry))
    if entry.get("shapes") and (entry["shapes"]["symbols"] or entry["shapes"]["became_dynamic"]):
        parts.append(_shapes(entry["shapes"]))
    if entry["graphs"]:
        parts.extend(_graph(entry, graph) for graph in entry["graphs"])
    else:
        parts.append('<h4>Graphs</h4><p class="muted">No graph.</p>')
    code = entry["bytecode"]
    rewritten = (f'<pre>{e(code["rewritten"])}</pre>' if code["rewritten"] is not None
                 else '<p class="muted">No rewritten code: the original bytecode runs.</p>')
    parts.append('<details class="bytecode"><summary>Bytecode: original and rewritten</summary><div class="cols">'
                 f'<div><h4>Original</h4><pre>{e(code["original"] or "")}</pre></div>'
                 f'<div><h4>Rewritten</h4>{rewritten}</div></div></details>')
    parts.append("</div>")
    return "".join(parts)


def _frames(report: dict) -> str:
    parts = ['<section id="frames"><h2>Compiled frames and cache entries</h2>']
    if not report["frames"]:
        parts.append('<p class="muted">The script compiled nothing.</p>')
    for n, frame in enumerate(report["frames"]):
        parent = f' <span class="muted">(from {e(frame["parent"])})</span>' if frame["parent"] else ""
        parts.append(f'<div class="frame" id="frame-{n}"><h3>Frame <span class="mono">{e(frame["qualname"])}'
                     f'</span>{parent} <span class="muted mono">{e(os.path.basename(frame["file"]))}:'
                     f'{frame["first_line"]}</span></h3>')
        parts.extend(_entry(frame, entry) for entry in frame["entries"])
        parts.append("</div>")
    parts.append("</section>")
    return "".join(parts)


def _aspect_rows(title: str, same: bool, aspects: list[dict]) -> str:
    badge = '<span class="badge ok">same</span>' if same else '<span class="badge bad">differs</span>'
    shown = [a for a in aspects if a["name"] in ("frame", "call", "compiles", "graphs", "breaks", "output")]
    standin = e(", ".join(a["standin"] for a in shown))
    dynamo = e(", ".join(a["dynamo"] for a in shown))
    details = "".join(f'<li><b>{e(a["name"])}</b>: '
                      + "".join(f"<pre>{e(d)}</pre>" for d in a["details"] or [f'Standin {a["standin"]}; Dynamo {a["dynamo"]}'])
                      + "</li>" for a in aspects if not a["same"])
    return (f'<tr><td>{badge}</td><td class="mono">{e(title)}</td><td>{standin}</td><td>{dynamo}</td></tr>'
            + (f'<tr><td></td><td colspan="3"><ul class="details">{details}</ul></td></tr>' if details else ""))


def _comparison(report: dict) -> str:
    """The comparison with real Dynamo (`standin export --compare`): one row per frame and per call."""
    comparison = report.get("comparison")
    if comparison is None:
        return ""
    status = comparison["status"]
    rows = [_aspect_rows("the script run", status["same"], [{**status, "name": "frame"}])]
    rows += [_aspect_rows(f'{f["name"]} ({os.path.basename(f["file"])}:{f["first_line"]})', f["same"], f["aspects"])
             for f in comparison["frames"]]
    rows += [_aspect_rows(f'{c["function"]} call {c["index"]}', c["same"], c["aspects"]) for c in comparison["calls"]]
    verdict = ('<span class="badge ok">Standin and Dynamo agree</span>' if comparison["agree"]
               else '<span class="badge bad">Standin and Dynamo differ</span>')
    ignored = "".join(f'<p class="muted">Not compared (documented differences): {e(why)}.</p>'
                      for why in comparison["not_compared"])
    return (f'<section id="comparison"><h2>Comparison with torch.compile {verdict}</h2>'
            f'<p class="muted">The same script under real Dynamo (torch {e(comparison["dynamo"]["version"])}, '
            'a recording backend), frame by frame; each engine in its own words.</p>'
            '<table><tr><th></th><th>Frame or call</th><th>Standin</th><th>Dynamo</th></tr>'
            + "".join(rows) + "</table>" + ignored + "</section>")


def _status(status: dict) -> tuple[str, str]:
    """(the badge beside the summary, the alert under it) for how the script ended."""
    if status["error"]:
        return ('<span class="badge bad">script raised</span>',
                f'<p class="alert">The script raised <span class="mono">{e(status["error"])}</span>; '
                'this report shows what ran before that.</p>')
    if status.get("exit_how"):
        badge = "ok" if status["ok"] else "bad"
        return (f'<span class="badge {badge}">exited with status {e(status["exit_status"])}</span>',
                f'<p class="alert">The script ended itself with <span class="mono">{e(status["exit_how"])}</span>; '
                'this report shows what ran before that.</p>')
    return '<span class="badge ok">ran to completion</span>', ""


def render_html(report: dict) -> str:
    """The whole page as a string."""
    s = report["summary"]
    name = report["script"]["name"]
    status, error = _status(report["status"])
    cards = "".join([
        _card(s["frames"], "compiled frames"), _card(s["cache_entries"], "cache entries"),
        _card(s["graphs"], "graphs"), _card(s["ops"], "ops"), _card(s["guards"], "guards"),
        _card(s["graph_breaks"], "graph breaks", "bad" if s["graph_breaks"] else ""),
        _card(s["recompiles"], "recompiles", "warn" if s["recompiles"] else ""),
    ])
    stdout = report["stdout"]
    body = [
        f'<header><h1><span class="tool">Standin</span> report — {e(name)}</h1>'
        f'<div class="meta">{e(report["script"]["path"])} · {e(report["generator"])} · '
        f'schema {e(report["schema"])}</div></header>',
        '<nav><a href="#summary">Summary</a><a href="#source">Source</a><a href="#graph-breaks">Graph breaks</a>'
        '<a href="#recompiles">Recompiles</a><a href="#frames">Frames</a><a href="#stdout">Output</a>'
        + ('<a href="#comparison">Compare</a>' if "comparison" in report else "") + '</nav>',
        "<main>",
        f'<section id="summary"><h2>Summary {status}</h2>{error}<div class="cards">{cards}</div></section>',
        _comparison(report), _source(report), _breaks(report), _history(report), _frames(report),
        '<section id="stdout"><h2>Script output</h2>'
        + (f"<pre>{e(stdout)}</pre>" if stdout else '<p class="muted">The script printed nothing.</p>')
        + "</section>",
        "</main>",
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>Standin report — {e(name)}</title><style>{CSS}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")
