"""Standin's tracer side by side with torch.compile (TorchDynamo), both with a no-op backend.

    .venv/bin/python -m bench [--quick] [--repeat N] [--markdown] [--models | --no-models] [--json PATH]
                              [--workloads A,B] [--threads N]

For each workload, tracer and Dynamo run interleaved in one process (the order
alternates per repetition, both caches are reset before every compile) and the
medians over repetitions are reported, with the ratio tracer/Dynamo.  Warm calls are timed
in rounds, each a run of compiled calls and a run of the graphs those calls ran, called alone
on the same inputs (bench/timing.py, GraphKeeper), back to back; `overhead` is the median of
the rounds' differences, what the compiler adds to the graphs.  Times are this thread's CPU
time (time.thread_time_ns): the machine's other processes do not add to it, as they add to a
wall clock; torch runs one intra-op thread (--threads), so all the timed work is on this thread
(and on a shared machine a second thread's spin-waits cost milliseconds on small ops).

  compile   first call minus one eager call                       (ms)
  warm      one warm compiled call                                (us)
  overhead  a warm compiled call minus its graphs run alone       (us)
  guards    one check of the first cache entry's guards           (us)
  import    `import tracer` vs `import torch._dynamo`, after `import torch`,
            each in a fresh interpreter                           (ms)

The workloads above run with dynamic=False on both sides; `dynamic_batch` (bench/dynamic.py)
runs with dynamic=None: an MLP over batch sizes 4, 8, 16, 5 (a static compile, one dynamic
recompile, hits), its compile time, a warm call at a new batch size and its guard check.

plus the debugger's recording overhead on our first-call compile, when
`tracer.debug` has a recorder.
"""
from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys

import torch
import torch._dynamo
from torch._dynamo.eval_frame import _debug_get_cache_entry_list
from torch.utils._pytree import tree_leaves

import tracer

from .dynamic import dynamic_samples
from .timing import (GraphKeeper, calls_for, clock, load_average, loop_ns, machine_info, median, once_ns, quiet,
                     warm_and_overhead)
from .workloads import DEPTHS, QUICK, WORKLOADS, make_deep

KINDS = ("tracer", "dynamo")
RECORDED = ("global_config", "mlp3", "graph_break", "linear_relu_50", "long_trace_2000")
UNITS = {"compile": "ms", "warm": "us/call", "overhead": "us/call", "guards": "us/call", "import": "ms"}
METRICS = ("compile", "warm", "overhead", "guards")
ROUNDS = 9  # warm-call rounds per repetition


def noop(gm, example_inputs):
    return gm.forward


def compile_with(kind, fn, backend=noop):
    """The static workloads: both compilers with dynamic=False (the dynamic one is in dynamic.py)."""
    if kind == "tracer":
        return tracer.compile(fn, backend=backend, dynamic=False)
    return torch.compile(fn, backend=backend, dynamic=False)


def reset_all():
    torch._dynamo.reset()
    tracer.reset()


def function_of(fn):
    """The Python function whose frame gets compiled (a module's forward)."""
    return type(fn).forward if isinstance(fn, torch.nn.Module) else fn


def same(a, b) -> bool:
    la, lb = tree_leaves(a), tree_leaves(b)
    return len(la) == len(lb) and all(
        torch.allclose(x, y) if isinstance(x, torch.Tensor) else x == y for x, y in zip(la, lb))


def guard_check(kind, opt, fn, args):
    """(check, check_args): one guard check of the first cache entry, on this call's locals."""
    f_locals = (opt if kind == "tracer" else tracer.compile(fn, dynamic=False)).bind(args, {})
    if kind == "tracer":  # what the frame hook's lookup runs: the native tree, else the Python check
        guards = opt.cache_entries[0].guards
        if guards.native is not None:
            return guards.native.root.check, (f_locals,)
        return guards.python_check, (f_locals, function_of(fn).__globals__)
    entries = _debug_get_cache_entry_list(function_of(fn).__code__)
    return entries[-1].guard_manager.check, (f_locals,)


def compile_ms(kind, make, quiet_stdout=False, check=False, backend=noop):
    """First-call compile time minus eager time; also returns the warm compiled fn."""
    reset_all()
    gc.collect()
    fn, args = make()
    with quiet(quiet_stdout):
        for _ in range(3):
            expected = fn(*args)
        eager = median([once_ns(fn, *args) for _ in range(5)])
        opt = compile_with(kind, fn, backend)
        start = clock()
        got = opt(*args)
        first = clock() - start
    if check and not same(got, expected):
        raise AssertionError(f"{kind} gave a different result than eager for {make.__name__}")
    return (first - eager) / 1e6, fn, opt, args


def measure(kind, workload, budget_s, check):
    """One repetition of every metric for one workload under one compiler."""
    keeper = GraphKeeper()
    ms, fn, opt, args = compile_ms(kind, workload.make, workload.quiet, check, keeper)
    with quiet(workload.quiet):
        for _ in range(20):
            opt(*args)
        n = calls_for(opt, args, budget_s / 4)
        warm, overhead = warm_and_overhead(lambda: opt(*args), keeper, n, ROUNDS)
    guard, guard_args = guard_check(kind, opt, fn, args)
    if guard(*guard_args) is not True:
        raise AssertionError(f"{kind}'s guards fail on the call they were built for ({workload.name})")
    ng = calls_for(guard, guard_args, budget_s / 2, low=200, high=20000)
    guard_us = loop_ns(guard, guard_args, ng) / ng / 1e3
    return {"compile": ms, "warm": warm / 1e3, "overhead": overhead / 1e3, "guards": guard_us}


def interleaved(repeat):
    """Kind order per repetition: tracer first, then Dynamo first, and so on."""
    for rep in range(repeat):
        yield rep, KINDS if rep % 2 == 0 else KINDS[::-1]


def import_ms(module: str) -> float:
    snippet = ("import time, importlib, torch\n"
               "start = time.perf_counter_ns()\n"
               f"importlib.import_module({module!r})\n"
               "print((time.perf_counter_ns() - start) / 1e6)\n")
    out = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


# ---- the debugger's recorder (optional) -----------------------------------------------------
def recorder_attacher():
    """`tracer.debug.record(opt)` (attaches a Recorder as the step hook), or a note why not."""
    try:
        from tracer.debug import record
    except ImportError as error:
        return None, f"n/a (no tracer.debug.record: {error})"
    return record, None


def recording_overhead(workloads, repeat):
    attach, note = recorder_attacher()
    if attach is None:
        return note, []
    rows = []
    for w in workloads:
        plain, recorded = [], []
        for rep in range(repeat):
            for recording in ((False, True) if rep % 2 == 0 else (True, False)):
                reset_all()
                fn, args = w.make()
                with quiet(w.quiet):
                    fn(*args)
                    eager = median([once_ns(fn, *args) for _ in range(3)])
                    opt = tracer.compile(fn, backend=noop, dynamic=False)
                    if recording:
                        attach(opt)
                    first = once_ns(opt, *args)
                (recorded if recording else plain).append((first - eager) / 1e6)
        rows.append({"workload": w.name, "metric": "compile (ms)", "plain": median(plain),
                     "recording": median(recorded), "ratio": median(recorded) / median(plain)})
    return None, rows


# ---- running and reporting -------------------------------------------------------------------
def ratio(ours, theirs):
    return ours / theirs if ours > 0 and theirs > 0 else None


def row(workload, metric, samples):
    ours, theirs = median(samples["tracer"]), median(samples["dynamo"])
    return {"workload": workload, "metric": f"{metric} ({UNITS[metric]})",
            "tracer": ours, "dynamo": theirs, "ratio": ratio(ours, theirs), "samples": samples}


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


def run(args) -> dict:
    workloads = [w for w in WORKLOADS if (not args.quick or w.name in QUICK)
                 and (not args.workloads or w.name in args.workloads.split(","))]
    repeat = args.repeat or (3 if args.quick else 7)
    budget = 0.01 if args.quick else 0.05
    results = {"machine": machine_info(), "repeat": repeat, "quick": args.quick, "recording": [],
               "recording_note": None, "app": None, "models": []}
    results["rows"] = workload_rows(workloads, repeat, budget)
    if not args.workloads:
        run_the_rest(args, results, workloads, repeat, budget)
    results["machine"]["load_end"] = load_average()
    return results


def workload_rows(workloads, repeat, budget) -> list:
    log("warming up (one untimed compile of each workload under both)")
    for w in workloads:
        for kind in KINDS:
            compile_ms(kind, w.make, w.quiet, check=True)
    rows = []
    for w in workloads:
        log(f"{w.name}: {repeat} repetitions")
        samples = {m: {k: [] for k in KINDS} for m in METRICS}
        for rep, order in interleaved(repeat):
            for kind in order:
                for metric, value in measure(kind, w, budget, check=rep == 0).items():
                    samples[metric][kind].append(value)
        rows += [row(w.name, metric, s) for metric, s in samples.items()]
    return rows


def run_the_rest(args, results, workloads, repeat, budget) -> None:
    """The dynamic workload, compile-time growth, import times, the real models, the recorder and the app."""
    rows = results["rows"]
    log("dynamic_batch: batch sizes 4, 8, 16, 5 under dynamic=None")
    samples = dynamic_samples(1 if args.quick else max(3, repeat // 2), budget, KINDS, interleaved)
    rows += [row("dynamic_batch", metric, s) for metric, s in samples.items()]

    if not args.quick:
        log(f"compile-time growth with depth {DEPTHS}")
        for depth in DEPTHS:
            samples = {k: [] for k in KINDS}
            for _, order in interleaved(max(3, repeat // 2)):
                for kind in order:
                    samples[kind].append(compile_ms(kind, make_deep(depth))[0])
            rows.append(row(f"growth: {depth} layers", "compile", samples))

    log("import time, fresh interpreters")
    samples = {k: [] for k in KINDS}
    for _, order in interleaved(1 if args.quick else 5):
        for kind in order:
            samples[kind].append(import_ms("tracer" if kind == "tracer" else "torch._dynamo"))
    rows.append(row("import (after torch)", "import", samples))

    if (args.models or not args.quick) and not args.no_models:
        from . import models as model_table
        results["models"] = model_table.run(2 if args.quick else max(3, repeat // 2), log)

    log("debugger recording overhead")
    results["recording_note"], results["recording"] = recording_overhead(
        [w for w in workloads if w.name in RECORDED], max(3, repeat // 2))
    log("app step latency and recorder memory")
    from .app_latency import memory_per_step, step_latency
    results["app"] = {"latency": step_latency(40 if args.quick else 300), "memory": memory_per_step()}


def app_lines(results) -> list[str]:
    if results["app"] is None:
        return []
    latency, memory = results["app"]["latency"], results["app"]["memory"]
    return [f"App step latency (step command to repainted window, offscreen, a {latency['trace_steps']}-step "
            f"trace): median {latency['median_ms']:.2f} ms, p90 {latency['p90_ms']:.2f} ms (target < 16 ms).",
            f"Recorder memory: {memory['bytes_per_step'] / 1024:.1f} KiB per recorded step "
            f"({memory['steps']} steps); {memory['bytes_per_step_read'] / 1024:.1f} KiB per step once every "
            f"snapshot has been read, at {memory['read_us_per_step']:.1f} µs per snapshot (made on first read)."]


def fmt(value) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if abs(value) < 100 else f"{value:.0f}"


def header(results) -> str:
    m = results["machine"]
    return (f"{m['cpu']}, {m['cores']} cores ({m['torch_threads']} torch threads), "
            f"Python {m['python']}, torch {m['torch']}; load average {m['load']:.1f} at the start, "
            f"{m['load_end']:.1f} at the end; medians of {results['repeat']} repetitions"
            f"{' (--quick)' if results['quick'] else ''}")


COLUMNS = ("workload", "metric", "tracer median", "dynamo median", "tracer/dynamo")


def cells(r):
    return (r["workload"], r["metric"], fmt(r["tracer"]), fmt(r["dynamo"]), fmt(r["ratio"]))


NOTE = ("warm: one warm compiled call; overhead: that call minus the graphs it ran, run alone on the same "
        "inputs (the median of paired rounds): what the compiler adds to its graphs.")


def text_table(results) -> str:
    lines = [header(results), ""]
    body = [COLUMNS] + [cells(r) for r in results["rows"]]
    widths = [max(len(line[i]) for line in body) for i in range(len(COLUMNS))]
    for i, line in enumerate(body):
        lines.append("  ".join(c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(line, widths))))
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append(NOTE)
    if results["recording"] or results["recording_note"]:
        lines += ["", "debugger recording overhead (tracer only, first-call compile):"]
    if results["recording_note"]:
        lines.append(f"  {results['recording_note']}")
    for r in results["recording"]:
        lines.append(f"  {r['workload']}: {fmt(r['plain'])} ms plain, {fmt(r['recording'])} ms recording, "
                     f"x{fmt(r['ratio'])}")
    lines += [""] + app_lines(results)
    if results["models"]:
        from . import models as model_table
        lines += ["", MODELS_NOTE, ""] + model_table.text(results["models"])
    return "\n".join(lines)


MODELS_NOTE = ("Real models (tests/models/zoo.py, eval forward): ops captured and graphs, first-compile time "
               "warm (in this process) and fresh (a new interpreter, the compiler's import included).")


def markdown_table(results) -> str:
    lines = [header(results), "", "| " + " | ".join(COLUMNS) + " |", "|---|---|--:|--:|--:|"]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in results["rows"]]
    lines += ["", NOTE]
    if results["recording"] or results["recording_note"]:
        lines += ["", "Debugger recording overhead (tracer only, first-call compile):", ""]
    if results["recording_note"]:
        lines.append(results["recording_note"])
    elif results["recording"]:
        lines += ["| workload | plain (ms) | recording (ms) | ratio |", "|---|--:|--:|--:|"]
        lines += [f"| {r['workload']} | {fmt(r['plain'])} | {fmt(r['recording'])} | {fmt(r['ratio'])} |"
                  for r in results["recording"]]
    lines += [""] + app_lines(results)
    if results["models"]:
        from . import models as model_table
        lines += ["", MODELS_NOTE, ""] + model_table.markdown(results["models"])
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="two workloads, few repetitions (< 30 s)")
    parser.add_argument("--repeat", type=int, default=None, help="repetitions per workload (default 7; 3 quick)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--models", action="store_true", help="the real-model table with --quick too")
    parser.add_argument("--no-models", action="store_true", help="without the real-model table (the slowest part)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--workloads", metavar="A,B", help="only these workloads, nothing else")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    results = run(args)
    print(markdown_table(results) if args.markdown else text_table(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
