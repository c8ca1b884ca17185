"""Small timing helpers: a nanosecond CPU-time clock with the garbage collector off, medians, paired rounds, and a
no-op backend that keeps its graphs so they can be timed alone."""
from __future__ import annotations

import contextlib
import gc
import os
import platform
import statistics
import sys
import time

import torch

clock = time.thread_time_ns  # this thread's CPU time: what other processes on a loaded machine do not add to


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


def paired_ns(first, second, n: int, rounds: int) -> tuple[list[float], list[float]]:
    """Per-call nanoseconds of first() and second(), `rounds` rounds of n calls each, the two back to back
    in each round and in alternating order: a burst of load on the machine lands on both of a round."""
    times: dict = {first: [], second: []}
    for r in range(rounds):
        for fn in ((first, second) if r % 2 == 0 else (second, first)):
            times[fn].append(loop_ns(fn, (), n) / n)
    return times[first], times[second]


class KeptGraph:
    """One compiled graph's callable, remembering the arguments of its last call."""

    __slots__ = ("forward", "last")

    def __init__(self, forward):
        self.forward, self.last = forward, None

    def __call__(self, *args):
        self.last = args
        return self.forward(*args)


class GraphKeeper:
    """A no-op backend (the graph's own forward) that keeps every graph it was given, so that the graphs a
    warm compiled call ran can be run again alone, on the inputs that call gave them: what the compiled
    call costs beyond them is the compiler's overhead (frame hook, cache lookup, guards, calling convention,
    the Python left between graphs)."""

    def __init__(self):
        self.graphs: list[KeptGraph] = []
        self.ran: list[KeptGraph] = []

    def __call__(self, gm, example_inputs):
        graph = KeptGraph(gm.forward)
        self.graphs.append(graph)
        return graph

    def keep_call(self, call) -> None:
        """Run call() once and note which graphs it ran, with their inputs."""
        for graph in self.graphs:
            graph.last = None
        call()
        self.ran = [graph for graph in self.graphs if graph.last is not None]

    def run_graphs(self) -> None:
        for graph in self.ran:  # through the same wrapper the compiled call goes through
            graph(*graph.last)


def warm_and_overhead(call, keeper: GraphKeeper, n: int, rounds: int) -> tuple[float, float]:
    """(median per-call ns of a warm call(), median over rounds of that minus its graphs run alone)."""
    keeper.keep_call(call)
    calls, graphs = paired_ns(call, keeper.run_graphs, n, rounds)
    return median(calls), median([c - g for c, g in zip(calls, graphs)])


def median(values):
    return statistics.median(values) if values else float("nan")


def calls_for(fn, args, budget_s: float, low: int = 50, high: int = 5000) -> int:
    """How many calls of fn fit in about budget_s seconds (clamped to [low, high])."""
    per_call = min(once_ns(fn, *args) for _ in range(3)) or 1
    return max(low, min(high, int(budget_s * 1e9 / per_call)))


def load_average() -> float:
    """The machine's one-minute load average (the machine is shared: it says how much the numbers mean)."""
    return os.getloadavg()[0]


def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"cpu": cpu, "cores": os.cpu_count(), "python": sys.version.split()[0],
            "torch": torch.__version__, "platform": platform.platform(),
            "torch_threads": torch.get_num_threads(), "load": load_average()}

