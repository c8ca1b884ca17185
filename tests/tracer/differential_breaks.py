"""Differential harness for graph-break cases: eager vs. our tracer vs. real Dynamo.

Builds on differential.py (same ``call``, ``T``, mutations, snapshots and state
comparison) but allows, and by default requires, graph breaks.  A graph break
splits a call into several frames (the root, resume functions
``torch_dynamo_resume_in_<fn>_at_<offset>``, callees compiled as their own
frames), all compiled with the same counting backend, so per call we compare:

* the output with eager,
* the text the call printed to stdout (``contextlib.redirect_stdout`` around
  every call in each of the three runs) with eager,
* the program state after the call (``state=``) and the arguments with eager,
* the total number of backend graphs the call made (across all frames) and the
  op list of every graph, in order, with Dynamo,
* for the root frame only (Dynamo: the case's own code object; tracer:
  ``opt.compile_events``): whether the call (re)compiled and the event kinds
  ("compile" / "recompile", plus "eager_fallback" when Dynamo entered the frame
  but installed no cache entry, e.g. a graph break inside a loop skips the
  frame).  Our "graph_break" and "cache_hit" events are not compared,
* on a recompile of the root frame, that our reason names the variable whose
  guard Dynamo reports as failing,
* with ``all_frames=True``: for every frame, not only the root, which code
  objects got a new cache entry during the call (Dynamo: ConvertFrame handed
  back guarded code for the code object; tracer: a new entry with rewritten
  code in any frame of ``opt.all_frames()``; in both runs, also the frames a
  ``torch.compile``'d function the program calls eagerly made Dynamo compile), as a
  sorted list of names (a resume function's ``_at_<line>`` left out).

The Dynamo run validates the case: outputs, stdout and state equal eager,
every frame converted without an exception, the optional ``compiles=`` pattern
(root frame), and ``breaks=True`` (default) requires at least one graph break
counted by Dynamo during the run (``breaks=False``: none; ``None``: don't care).
With ``raises=True`` a call may raise: each run must then raise what eager raises
(type and args).

Writing a case::

    CASES = []

    @break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
    def f(x):
        y = x + 1
        print("hi")
        return y * 2

    test_breaks = parametrize_breaks(CASES)
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from typing import Any, Callable

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

import differential as D
from differential import Call, Case, CountingBackend, RunRecord, call, T  # noqa: F401  (re-exported)


@dataclass
class BreakCase(Case):
    breaks: bool | None = True  # Dynamo must (True) / must not (False) graph-break; None: either
    raises: bool = False  # a call may raise: every run must raise what eager raises
    all_frames: bool = False  # also compare which frames got new cache entries, every frame


def break_case(registry: list, *calls: Call, compiles: str | None = None, state=None,
               breaks: bool | None = True, name: str | None = None, raises: bool = False,
               all_frames: bool = False, same_placeholders: bool = False, dynamic: bool | None = False):
    """Decorator: register ``fn`` (a function or, via ``name=``, anything callable
    whose globals are the test file's) with its calls; returns fn unchanged.
    ``raises=True``: calls may raise, and must raise in each run what they raise eagerly.
    ``same_placeholders=True``: every graph also takes as many inputs as Dynamo's, and the same
    ones are symbols (``torch.SymInt``)."""

    def deco(fn):
        registry.append(BreakCase(fn=fn, calls=list(calls), compiles=compiles, state=state,
                                  case_name=name, breaks=breaks, raises=raises, all_frames=all_frames,
                                  same_placeholders=same_placeholders, dynamic=dynamic))
        return fn

    return deco


def module_break_case(registry: list, name: str, module: torch.nn.Module, *calls: Call,
                      compiles: str | None = None, state=None, breaks: bool | None = True,
                      all_frames: bool = False) -> None:
    import sys
    g = sys._getframe(1).f_globals
    registry.append(BreakCase(fn=module, calls=list(calls), compiles=compiles, state=state,
                              case_name=name, globals=g, breaks=breaks, all_frames=all_frames))


# Cases where Standin knowingly differs from Dynamo today; each must still fail (strict),
# so fixing the engine turns them into errors that ask for this entry to be removed.
KNOWN_LIMITATIONS: dict[str, str] = {}


def parametrize_breaks(registry: list):
    params = [pytest.param(c, id=c.name, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_LIMITATIONS[c.name])]
                           if c.name in KNOWN_LIMITATIONS else []) for c in registry]

    @pytest.mark.parametrize("c", params)
    def test_differential_breaks(c: BreakCase) -> None:
        check_break_case(c)

    return test_differential_breaks


# --------------------------------------------------------------------------
# runners
# --------------------------------------------------------------------------


class _StdoutCapture:
    """Wraps ``invoke`` so that every call's stdout is captured separately."""

    def __init__(self, invoke: Callable):
        self.invoke = invoke
        self.texts: list[str] = []

    def __call__(self, *args, **kwargs):
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                return self.invoke(*args, **kwargs)
        finally:
            self.texts.append(buf.getvalue())

    def attach(self, rec: RunRecord) -> RunRecord:
        for cr, text in zip(rec.calls, self.texts):
            cr.stdout = text
        return rec


def run_eager(c: BreakCase, snap) -> RunRecord:
    cap = _StdoutCapture(c.fn)
    return cap.attach(D._run_sequence(c, cap, snap=snap))


@contextlib.contextmanager
def _watch_all_frames(installed: list | None = None, fullgraph: bool = False):
    """Every code object Dynamo's ConvertFrame is entered for (names, in order); in `installed`,
    the names of those it made a new cache entry for."""
    from torch._dynamo.convert_frame import ConvertFrame, ConvertFrameAssert

    watched = ConvertFrameAssert if fullgraph else ConvertFrame
    names: list[str] = []
    orig = watched.__call__

    def counting(self, frame, *args, **kwargs):
        names.append(frame.f_code.co_name)
        result = orig(self, frame, *args, **kwargs)
        # the callback hands C the new entry's code (C installs it after the callback returns)
        if installed is not None and getattr(result, "guarded_code", None) is not None:
            installed.append(frame.f_code.co_name)
        return result

    watched.__call__ = counting
    try:
        yield names
    finally:
        watched.__call__ = orig


def frame_name(name: str) -> str:
    """A frame's name for comparison: a resume function without its `_at_<line>`."""
    return name.rsplit("_at_", 1)[0] if name.startswith("torch_dynamo_resume_in_") else name


def run_dynamo(c: BreakCase, snap) -> RunRecord:
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list
    from torch._dynamo.utils import guard_failures

    backend = CountingBackend()
    torch._dynamo.reset()
    counters.clear()
    opt = torch.compile(c.fn, backend=backend, dynamic=c.dynamic, fullgraph=c.fullgraph)
    code = D._dynamo_code(c, opt)
    st = {"frames": 0, "graphs": 0, "fail": 0, "compiles_so_far": 0, "names": 0, "breaks": 0, "installed": 0}
    problems: list[str] = []
    installed: list[str] = []

    def n_breaks() -> int:
        return sum(counters["graph_break"].values())

    with D._watch_convert_frame(code, c.fullgraph) as seen, _watch_all_frames(installed, c.fullgraph) as names:
        def before(cr):
            st["frames"] = seen["n"]
            st["graphs"] = len(backend.graphs)
            st["fail"] = len(guard_failures.get(code, ()))
            st["entries"] = len(_debug_get_cache_entry_list(code))
            st["names"] = len(names)
            st["breaks"] = n_breaks()
            st["installed"] = len(installed)

        def after(cr):
            n = seen["n"] - st["frames"]
            cr.graphs = backend.graphs[st["graphs"]:]
            cr.compiled = n > 0
            cr.frames = [x for x in names[st["names"]:] if x != "<module>"]
            cr.new_entries = sorted(frame_name(x) for x in installed[st["installed"]:])
            cr.n_breaks = n_breaks() - st["breaks"]
            if n > 1:
                problems.append(f"one call converted the root frame {n} times")
            if n:
                cr.kinds = ["compile" if st["compiles_so_far"] == 0 else "recompile"]
                st["compiles_so_far"] += 1
                if len(_debug_get_cache_entry_list(code)) == st["entries"]:
                    cr.kinds.append("eager_fallback")
            cr.reasons = [D._first_failure(r) for r in guard_failures.get(code, [])[st["fail"]:]]

        cap = _StdoutCapture(opt)
        try:
            rec = cap.attach(D._run_sequence(c, cap, before, after, snap=snap))
        finally:
            breaks = dict(counters["graph_break"])
            unresumed = dict(counters["unimplemented"])
            torch._dynamo.reset()
    rec.problems.extend(problems)
    rec.dynamo_breaks = breaks
    # a graph break shows as a resume function, or as a skipped root frame (a break in a
    # loop or a try block); counters["graph_break"] misses data-dependent jumps and skips
    broke = bool(breaks) or any(
        n.startswith("torch_dynamo_resume_in_") for cr in rec.calls for n in getattr(cr, "frames", [])) \
        or any("eager_fallback" in cr.kinds for cr in rec.calls)
    # a break no resume function can take (inside a try block) stays "unimplemented": Dynamo compiled
    # the graph up to its last checkpoint, and the rest of the frame ran as it is
    if c.breaks is True and not broke and not unresumed:
        rec.problems.append("the case is meant to graph-break but Dynamo made no graph break")
    if c.breaks is False and broke:
        rec.problems.append(f"the case is meant not to graph-break; Dynamo graph breaks: {breaks}")
    if seen["failed"]:
        rec.problems.append(f"Dynamo failed to convert the frame {seen['failed']} time(s)")
    rec.notes = "  Dynamo graph breaks: " + repr(breaks) + "\n" + "\n".join(
        f"  call {i}: frames converted {getattr(cr, 'frames', [])}" for i, cr in enumerate(rec.calls))
    return rec


def run_tracer(c: BreakCase, snap) -> RunRecord:
    import tracer

    backend = CountingBackend()
    tracer.reset()
    opt = tracer.compile(c.fn, backend=backend, dynamic=c.dynamic, fullgraph=c.fullgraph)
    st = {"events": 0, "graphs": 0, "all": 0, "dynamo": 0}
    by_dynamo: list[str] = []  # frames a torch.compile'd function the program calls eagerly compiled

    def all_events():
        return [(f.code.co_name, e) for f in opt.all_frames() for e in f.compile_events]

    def all_entries():
        return [(f.code.co_name, e) for f in opt.all_frames() for e in f.cache_entries]

    def before(cr):
        st["events"] = len(opt.compile_events)
        st["graphs"] = len(backend.graphs)
        st["all"] = {id(e) for _, e in all_events()}
        st["entries"] = {id(e) for _, e in all_entries()}
        st["dynamo"] = len(by_dynamo)
        cr.failing = D.failing_guards(opt, *cr.inputs)

    def after(cr):
        evs = list(opt.compile_events)[st["events"]:]
        cr.graphs = backend.graphs[st["graphs"]:]
        cr.kinds = [e.kind for e in evs]
        cr.compiled = any(e.kind in ("compile", "recompile") for e in evs)
        cr.reasons = [f"{e.kind}: {e.reason}" for e in evs if e.reason and e.kind != "graph_break"]
        new = [(n, e) for n, e in all_events() if id(e) not in st["all"]]
        cr.frames = [n for n, e in new if e.kind in ("compile", "recompile")]
        cr.all_events = [f"{n}: {e}" for n, e in new if e.kind != "cache_hit"]
        cr.new_entries = sorted([frame_name(n) for n, e in all_entries()
                                 if id(e) not in st["entries"] and e.code is not None]
                                + [frame_name(n) for n in by_dynamo[st["dynamo"]:]])

    cap = _StdoutCapture(opt)
    try:
        with _watch_all_frames(by_dynamo):
            rec = cap.attach(D._run_sequence(c, cap, before, after, snap=snap))
        rec.notes = _describe_frames(opt) + "\n" + "\n".join(
            f"  call {i}: frames compiled {getattr(cr, 'frames', [])}\n"
            + "".join(f"      {ev}\n" for ev in getattr(cr, "all_events", []))
            for i, cr in enumerate(rec.calls))
        return rec
    finally:
        tracer.reset()


def _describe_frames(opt: Any) -> str:
    lines = []
    try:
        for f in opt.all_frames():
            lines.append(f"  frame {f.code.co_name}:")
            for e in f.cache_entries:
                brk = getattr(e, "graph_break", None)
                lines.append(f"    entry {e.compile_id}: graphs={len(e.graphs)} "
                             f"eager_reason={e.eager_reason!r}"
                             + (f" graph_break={brk}" if brk is not None else ""))
                for gd in e.guards:
                    lines.append(f"      {getattr(gd, 'kind', '?'):<16} {getattr(gd, 'expr', gd)}")
    except Exception as ex:  # diagnostics must never hide the real failure
        lines.append(f"  <could not describe frames: {ex!r}>")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# comparison
# --------------------------------------------------------------------------


def _stdout_problem(actual, expected, who: str, i: int) -> list[str]:
    a, e = getattr(actual, "stdout", None), getattr(expected, "stdout", None)
    if a != e:
        return [f"call {i}: {who} printed {a!r}, eager printed {e!r}"]
    return []


def _report(c: BreakCase, title: str, problems: list[str], runs: dict[str, RunRecord]) -> str:
    text = D._format_report(c, title, problems, runs)
    extra = io.StringIO()
    for side, rec in runs.items():
        print(f"\n---- {side} stdout per call ----", file=extra)
        for i, cr in enumerate(rec.calls):
            print(f"  call {i}: {getattr(cr, 'stdout', None)!r}", file=extra)
    return text + extra.getvalue()


def check_break_case(c: BreakCase):
    snap = D.snapshot(c)
    eager = run_eager(c, snap)
    dyn = run_dynamo(c, snap)

    invalid = list(dyn.problems)
    for i, (d, e) in enumerate(zip(dyn.calls, eager.calls)):
        p = D.output_problem(d, e, c.raises)
        if p:
            invalid.append(f"call {i}: Dynamo {p}")
        invalid.extend(_stdout_problem(d, e, "Dynamo", i))
        invalid.extend(D.state_problems(d, e, "Dynamo", i, c.state is not None))
    if c.compiles is not None:
        got = "".join("C" if d.compiled else "." for d in dyn.calls)
        if got != c.compiles:
            invalid.append(f"Dynamo compile pattern {got!r} != case's compiles={c.compiles!r}")
    if invalid:
        raise AssertionError(_report(c, "INVALID CASE (eager vs Dynamo)", invalid, {"dynamo": dyn}))

    tr = run_tracer(c, snap)
    problems: list[str] = []
    for i, (t, d, e) in enumerate(zip(tr.calls, dyn.calls, eager.calls)):
        p = D.output_problem(t, e, c.raises)
        if p:
            problems.append(f"call {i}: tracer {p}")
        problems.extend(_stdout_problem(t, e, "tracer", i))
        problems.extend(D.state_problems(t, e, "tracer", i, c.state is not None))
        if t.compiled != d.compiled:
            problems.append(f"call {i}: tracer root frame compiled={t.compiled} (events {t.kinds}), "
                            f"Dynamo compiled={d.compiled} ({d.kinds})")
        else:
            tk = [k for k in t.kinds if k not in ("cache_hit", "graph_break")]
            if tk != d.kinds:
                problems.append(f"call {i}: tracer root frame events {t.kinds}, expected {d.kinds}")
        if len(t.graphs) != len(d.graphs):
            problems.append(f"call {i}: tracer made {len(t.graphs)} graph(s) (all frames), "
                            f"Dynamo {len(d.graphs)}")
        else:
            for j, (tg, dg) in enumerate(zip(t.graphs, d.graphs)):
                problems.extend(D.op_list_problems(f"call {i} graph {j}", tg, dg, c.is_module))
                tp, dp = D._placeholders(tg), D._placeholders(dg)
                if c.same_placeholders and len(tp) != len(dp):
                    problems.append(f"call {i} graph {j}: {len(tp)} graph inputs, Dynamo {len(dp)}\n"
                                    f"      tracer: {tp}\n      dynamo: {dp}")
                elif c.same_placeholders and D.placeholder_kinds(tg) != D.placeholder_kinds(dg):
                    problems.append(f"call {i} graph {j}: graph inputs {D.placeholder_kinds(tg)}, "
                                    f"Dynamo {D.placeholder_kinds(dg)}")
        if d.reasons and t.compiled:
            problems.extend(D.reason_problems(f"call {i}", d.reasons, t.failing, t.reasons, c.is_module))
        if c.all_frames and t.new_entries != d.new_entries:
            problems.append(f"call {i}: frames with a new cache entry: tracer {t.new_entries}, "
                            f"Dynamo {d.new_entries}")
    if problems:
        raise AssertionError(_report(c, "TRACER DIFFERS FROM DYNAMO", problems,
                                     {"tracer": tr, "dynamo": dyn}))
    return eager, dyn, tr
