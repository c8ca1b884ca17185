"""The dynamic-shape workload: an MLP whose batch size changes, under automatic dynamic (dynamic=None).

Each repetition compiles afresh and calls with batch sizes 4, 8, 16, 5: a static compile, one
recompile with the batch dimension symbolic, then cache hits.  Reported side by side with Dynamo:

  compile   the four calls minus four eager calls (both compiles)           (ms)
  warm      a warm call with a batch size never seen                         (us)
  overhead  that call minus its graphs run alone (bench/timing.py)           (us)
  guards    one check of the dynamic entry's guards (shape guards included) (us)

Both sides must make the same number of cache entries (two), or the comparison means nothing.
"""
from __future__ import annotations

import gc

import torch
import torch._dynamo
from torch._dynamo.eval_frame import _debug_get_cache_entry_list

import tracer

from .timing import GraphKeeper, calls_for, clock, loop_ns, median, once_ns, warm_and_overhead

BATCHES = (4, 8, 16, 5)
NEW_BATCH = 11


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.fc2(h).view(x.shape[0], -1) * x.shape[0]  # the batch size as a Python int


ROUNDS = 9


def _compile(kind, fn, backend):
    if kind == "tracer":
        return tracer.compile(fn, backend=backend, dynamic=None)
    return torch.compile(fn, backend=backend, dynamic=None)


def _entries(kind, opt, net) -> int:
    if kind == "tracer":
        return len(opt.cache_entries)
    return len(_debug_get_cache_entry_list(type(net).forward.__code__))


def _guard_check(kind, opt, net, x):
    f_locals = {"self": net, "x": x}
    if kind == "tracer":  # what the frame hook's lookup runs: the native tree, else the Python check
        guards = opt.cache_entries[-1].guards
        if guards.native is not None:
            return guards.native.root.check, (f_locals,)
        return guards.check, (f_locals, type(net).forward.__globals__)
    entries = _debug_get_cache_entry_list(type(net).forward.__code__)
    return entries[0].guard_manager.check, (f_locals,)  # Dynamo keeps the newest entry first


def measure(kind, budget_s: float) -> dict:
    torch._dynamo.reset()
    tracer.reset()
    gc.collect()
    net = Net()
    inputs = [torch.randn(b, 16) for b in BATCHES]
    new = torch.randn(NEW_BATCH, 16)
    eager = sum(median([once_ns(net, x) for _ in range(3)]) for x in inputs)
    keeper = GraphKeeper()
    opt = _compile(kind, net, keeper)
    start = clock()
    for x in inputs:
        opt(x)
    compile_ns = clock() - start - eager
    entries = _entries(kind, opt, net)
    for _ in range(20):
        opt(new)
    if _entries(kind, opt, net) != entries:
        raise AssertionError(f"{kind}: a new batch size recompiled the dynamic entry")
    n = calls_for(opt, (new,), budget_s / 4)
    warm, overhead = warm_and_overhead(lambda: opt(new), keeper, n, ROUNDS)
    check, check_args = _guard_check(kind, opt, net, new)
    if check(*check_args) is not True:
        raise AssertionError(f"{kind}'s dynamic entry fails on a batch size it should take")
    ng = calls_for(check, check_args, budget_s / 2, low=200, high=20000)
    guards = loop_ns(check, check_args, ng) / ng / 1e3
    return {"compile": compile_ns / 1e6, "warm": warm / 1e3, "overhead": overhead / 1e3, "guards": guards,
            "entries": entries}


def dynamic_samples(repeat: int, budget_s: float, kinds, interleaved) -> dict:
    """{metric: {kind: [samples]}} over `repeat` interleaved repetitions; checks both make two entries."""
    samples = {m: {k: [] for k in kinds} for m in ("compile", "warm", "overhead", "guards")}
    entries = {}
    for _, order in interleaved(repeat):
        for kind in order:
            result = measure(kind, budget_s)
            entries[kind] = result.pop("entries")
            for metric, value in result.items():
                samples[metric][kind].append(value)
    if len(set(entries.values())) != 1:
        raise AssertionError(f"the two compilers made different cache entries: {entries}")
    return samples
