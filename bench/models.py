"""The real-model table: each architecture of the model zoo under both compilers.

Per model: the ops each compiler captured (all graphs), the graphs, and the first-compile
time ratio tracer/Dynamo, measured two ways --

  warm   in this process, imports done and both compilers warmed up on another model:
         first call minus one eager call, medians over repetitions, the order alternating;
  fresh  as a user meets it: a new interpreter per (model, compiler) that has imported torch
         and transformers and built the model, then times `import` of the compiler plus the
         first compiled call (minus one eager call).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import torch
import torch._dynamo

import tracer

from .timing import clock, median, once_ns

ZOO_DIR = Path(__file__).resolve().parents[1] / "tests" / "models"
if str(ZOO_DIR) not in sys.path:
    sys.path.insert(0, str(ZOO_DIR))

import zoo  # noqa: E402  (tests/models/zoo.py: the architectures)


def _ops(graphs) -> int:
    return sum(sum(node.op.startswith("call") for node in gm.graph.nodes) for gm in graphs)


class _Keep:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward


def _compile(kind, model, backend):
    if kind == "tracer":
        tracer.reset()
        return tracer.compile(model, backend=backend)
    torch._dynamo.reset()
    return torch.compile(model, backend=backend, dynamic=False)


def warm_sample(kind: str, name: str):
    """(compile ms, graphs, ops) of one first call in this process."""
    model, args, _ = zoo.build(name)
    with torch.no_grad():
        model(*args)
        eager = median([once_ns(model, *args) for _ in range(3)])
        keep = _Keep()
        compiled = _compile(kind, model, keep)
        start = clock()
        compiled(*args)
        first = clock() - start
    return (first - eager) / 1e6, len(keep.graphs), _ops(keep.graphs)


_FRESH = """
import sys, time
sys.path.insert(0, {zoo_dir!r})
import torch, zoo
model, args, _ = zoo.build({name!r})
def noop(gm, example_inputs):
    return gm.forward
with torch.no_grad():
    model(*args)
    t = time.perf_counter_ns(); model(*args); eager = time.perf_counter_ns() - t
    start = time.perf_counter_ns()
    if {kind!r} == "tracer":
        import tracer
        compiled = tracer.compile(model, backend=noop)
    else:
        import torch._dynamo
        compiled = torch.compile(model, backend=noop, dynamic=False)
    compiled(*args)
    print((time.perf_counter_ns() - start - eager) / 1e6)
"""


def fresh_sample(kind: str, name: str) -> float:
    """First compile in a new interpreter, the compiler's import included (ms)."""
    code = _FRESH.format(zoo_dir=str(ZOO_DIR), name=name, kind=kind)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600)
    return float(done.stdout.strip().splitlines()[-1])


def run(repeat: int, log, names=None) -> list[dict]:
    names = names or [arch.name for arch in zoo.ARCHS]
    log("models: warming both compilers up")
    for kind in ("tracer", "dynamo"):
        warm_sample(kind, "gpt2")
    rows = []
    for name in names:
        log(f"models: {name}")
        samples = {"tracer": [], "dynamo": []}
        counts = {}
        for rep in range(repeat):
            for kind in (("tracer", "dynamo") if rep % 2 == 0 else ("dynamo", "tracer")):
                ms, graphs, ops = warm_sample(kind, name)
                samples[kind].append(ms)
                counts[kind] = (graphs, ops)
        fresh = {kind: fresh_sample(kind, name) for kind in ("tracer", "dynamo")}
        rows.append({"model": name, "family": zoo.BY_NAME[name].family,
                     "ops": (counts["tracer"][1], counts["dynamo"][1]),
                     "graphs": (counts["tracer"][0], counts["dynamo"][0]),
                     "warm_ms": (median(samples["tracer"]), median(samples["dynamo"])),
                     "fresh_ms": (fresh["tracer"], fresh["dynamo"])})
    return rows


COLUMNS = ("model", "family", "ops (tracer / dynamo)", "graphs", "warm compile ms (tracer / dynamo)", "ratio",
           "fresh compile ms (tracer / dynamo)", "ratio")


def _cells(r) -> tuple:
    def pair(p, f="{:.0f}"):
        return f"{f.format(p[0])} / {f.format(p[1])}"

    def ratio(p):
        return f"{p[0] / p[1]:.2f}" if p[1] > 0 else "-"
    return (r["model"], r["family"], pair(r["ops"], "{}"), pair(r["graphs"], "{}"), pair(r["warm_ms"]),
            ratio(r["warm_ms"]), pair(r["fresh_ms"]), ratio(r["fresh_ms"]))


def markdown(rows) -> list[str]:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|---|---|--:|--:|--:|--:|--:|--:|"]
    return lines + ["| " + " | ".join(_cells(r)) + " |" for r in rows]


def text(rows) -> list[str]:
    body = [COLUMNS] + [_cells(r) for r in rows]
    widths = [max(len(line[i]) for line in body) for i in range(len(COLUMNS))]
    out = []
    for i, line in enumerate(body):
        out.append("  ".join(c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(line, widths))))
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    return out
