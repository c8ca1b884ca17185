"""Threads calling one compiled function: one cache entry per guard set, every effect once.

Eight threads start together (a barrier) and call the function with three
different guard sets.  Each miss compiles under one lock and looks at the
cache again once it holds it, so the threads that lost the race run the entry
the winner installed instead of compiling their own.
"""
import threading

import torch

import tracer

THREADS = 8
SCALES = (1, 2, 3)


class Seen:
    last = None


SEEN = Seen()


def scaled_and_logged(x, n, log):
    log.append(n)  # the call's own list: its length is guarded the same (0) on every call
    SEEN.last = n  # an attribute written and never read: no guard on it
    return x * n + 1


def _run_in_threads(opt, x):
    barrier = threading.Barrier(THREADS)
    results, errors = {}, []

    def worker(i):
        try:
            barrier.wait()
            results[i] = [(n, log, opt(x, n, log)) for n in SCALES for log in [[]]]
        except BaseException as error:  # reported by the test, not lost in the thread
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors


def test_threads_make_one_entry_per_guard_set_and_each_effect_once():
    tracer.reset()
    opt = tracer.compile(scaled_and_logged)
    x = torch.arange(3.0)
    results, errors = _run_in_threads(opt, x)
    assert not errors
    assert len(opt.cache_entries) == len(SCALES), [e.compile_id for e in opt.cache_entries]
    kinds = [e.kind for e in opt.compile_events]
    assert kinds.count("compile") + kinds.count("recompile") == len(SCALES), kinds
    assert len(results) == THREADS
    for calls in results.values():
        for n, log, out in calls:
            torch.testing.assert_close(out, x * n + 1)
            assert log == [n]  # the append happened once: not lost, not replayed twice
    assert SEEN.last in SCALES


def broken_in_two(x, n):
    total = x.sum().item()  # a graph break: the rest runs in a resume function, compiled on first use
    return x * n + total


def test_threads_compile_each_resume_function_once_per_guard_set():
    tracer.reset()
    opt = tracer.compile(broken_in_two)
    x = torch.arange(3.0)
    barrier = threading.Barrier(THREADS)
    outputs, errors = [], []

    def worker():
        try:
            barrier.wait()
            outputs.extend((n, opt(x, n)) for n in SCALES)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for n, out in outputs:
        torch.testing.assert_close(out, x * n + 3.0)
    threaded = [len(frame.cache_entries) for frame in opt.all_frames()]
    tracer.reset()
    alone = tracer.compile(broken_in_two)
    for n in SCALES * 2:
        alone(x, n)
    assert threaded == [len(frame.cache_entries) for frame in alone.all_frames()]  # as one thread makes
    assert len(threaded) == 2
