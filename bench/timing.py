"""Small timing helpers: nanosecond clocks with the garbage collector off, medians."""
from __future__ import annotations

import contextlib
import gc
import os
import platform
import statistics
import sys
import time

import torch

clock = time.perf_counter_ns


@contextlib.contextmanager
def no_gc():
    """The garbage collector off (no collection: gc.collect() costs ~100 ms with torch loaded)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextlib.contextmanager
def quiet(enabled: bool = True):
    """Send stdout to devnull (a workload's print() must not dominate the timing)."""
    if not enabled:
        yield
        return
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        yield


def once_ns(fn, *args) -> int:
    """One call, in nanoseconds."""
    with no_gc():
        start = clock()
        fn(*args)
        return clock() - start


def loop_ns(fn, args, n: int) -> int:
    """n calls of fn(*args), in nanoseconds in all."""
    with no_gc():
        start = clock()
        for _ in range(n):
            fn(*args)
        return clock() - start


def median(values):
    return statistics.median(values) if values else float("nan")


def calls_for(fn, args, budget_s: float, low: int = 50, high: int = 5000) -> int:
    """How many calls of fn fit in about budget_s seconds (clamped to [low, high])."""
    per_call = min(once_ns(fn, *args) for _ in range(3)) or 1
    return max(low, min(high, int(budget_s * 1e9 / per_call)))


def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"cpu": cpu, "cores": os.cpu_count(), "python": sys.version.split()[0],
            "torch": torch.__version__, "platform": platform.platform(),
            "torch_threads": torch.get_num_threads()}

