"""A Comparison as the table `standin compare` prints, and as JSON for report.json."""
from __future__ import annotations

import dataclasses
import os
import textwrap

from .calls import MAX_CALLS_PER_FUNCTION
from .diff import Aspect, Comparison

SCHEMA = "standin.compare/1"
MARK = {True: "same", False: "DIFFERS"}  # the first column of every row


FRAME_WIDTH, SIDE_WIDTH = 44, 36
SUMMARY_ASPECTS = ("frame", "call", "compiles", "graphs", "breaks", "output")


def _cell(text: str, width: int) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _side_summary(aspects: list[Aspect], side: str) -> str:
    return ", ".join(getattr(a, side) for a in aspects if a.name in SUMMARY_ASPECTS)


def _row(mark: str, title: str, aspects: list[Aspect]) -> list[str]:
    """A table row (verdict first, so agreement reads at a glance), and what differs under it."""
    row = (f"{mark:8} {_cell(title, FRAME_WIDTH):{FRAME_WIDTH}} {_cell(_side_summary(aspects, 'standin'), SIDE_WIDTH):{SIDE_WIDTH}}"
           f" {_side_summary(aspects, 'dynamo')}")  # the last column is never cut
    differing = [a.name for a in aspects if not a.same]
    return [row.rstrip()] + ([f"{'':8} differs in: {', '.join(differing)}"] if differing else [])


def _header(first: str) -> str:
    return f"{'':8} {first:{FRAME_WIDTH}} {'Standin':{SIDE_WIDTH}} Dynamo"


def comparison_text(comparison: Comparison) -> str:
    """The table of frames and calls, then each difference with both engines' words."""
    s, d = comparison.standin, comparison.dynamo
    out = [f"{os.path.basename(s.script)}: Standin ({s.version or 'standin'}) vs torch.compile "
           f"(torch {d.version or '?'}, recording backend)", ""]
    status = comparison.status
    out.append(f"{MARK[status.same]:8} {'the script run':{FRAME_WIDTH}} {_cell(status.standin, SIDE_WIDTH):{SIDE_WIDTH}} "
               f"{status.dynamo}")
    out.append("")
    if comparison.frames:
        out.append(_header("Frame"))
        for frame in comparison.frames:
            out.extend(_row(MARK[frame.same], frame.title, frame.aspects))
    else:
        out.append("Frames: neither engine compiled a frame (the script never called a compiled function).")
    if comparison.calls:
        out.append("")
        out.append(_header("Call"))
        for call in comparison.calls:
            out.extend(_row(MARK[call.same], call.title, call.aspects))
    if s.calls_not_recorded or d.calls_not_recorded:
        out.append(f"  (calls beyond the first {MAX_CALLS_PER_FUNCTION} of a function are counted, not compared)")
    out.extend(_differences(comparison))
    if comparison.not_compared:
        out.append("")
        out.append("Not compared (documented differences): " + "; ".join(comparison.not_compared) + ".")
    out.append("")
    out.append(verdict_text(comparison))
    return "\n".join(out) + "\n"


def verdict_text(comparison: Comparison) -> str:
    if comparison.agree:
        return (f"Verdict: Standin and Dynamo agree on every frame ({len(comparison.frames)}) "
                f"and call ({len(comparison.calls)}).")
    parts = [f"{len(comparison.differing_frames)} of {len(comparison.frames)} frames",
             f"{len(comparison.differing_calls)} of {len(comparison.calls)} calls"]
    if not comparison.status.same:
        parts.insert(0, "how the script ended")
    return "Verdict: they differ in " + ", ".join(parts) + "."


def _indent(text: str, prefix: str = "      ") -> str:
    return textwrap.indent(text.rstrip(), prefix)


def _differences(comparison: Comparison) -> list[str]:
    out = []
    rows = [("the script run", [comparison.status])] if not comparison.status.same else []
    rows += [(f.title, f.differing) for f in comparison.differing_frames]
    rows += [(c.title, [a for a in c.aspects if not a.same]) for c in comparison.differing_calls]
    if not rows:
        return out
    out.extend(["", "Differences:"])
    for title, aspects in rows:
        for aspect in aspects:
            out.append(f"  {title} — {aspect.name}: Standin {aspect.standin}; Dynamo {aspect.dynamo}")
            for detail in aspect.details:
                first, _, rest = detail.partition("\n")
                out.append(f"    - {first}")
                if rest:
                    out.append(_indent(rest))
    return out


def comparison_json(comparison: Comparison) -> dict:
    """The comparison for report.json (schema standin.compare/1): both records and every verdict."""
    def aspects(items):
        return [dataclasses.asdict(a) for a in items]
    return {
        "schema": SCHEMA,
        "agree": comparison.agree,
        "status": dataclasses.asdict(comparison.status),
        "frames": [{"name": f.name, "file": f.file, "first_line": f.first_line, "same": f.same,
                    "aspects": aspects(f.aspects)} for f in comparison.frames],
        "calls": [{"function": c.function, "index": c.index, "same": c.same, "aspects": aspects(c.aspects)}
                  for c in comparison.calls],
        "not_compared": list(comparison.not_compared),
        "standin": comparison.standin.to_json(),
        "dynamo": comparison.dynamo.to_json(),
    }
