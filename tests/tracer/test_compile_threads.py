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
    opt = tracer.compile(scaled_and_logged, dynamic=False)  # one entry per int: its guard sets are static
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



def shared_helper(x):
    return torch.cos(x) + 1


def first_root(x):
    for _ in range(2):
        x.sum().item()  # a break in a loop: this frame runs as it is, its callee compiles as a frame
    return shared_helper(x) * 2


def second_root(x):
    for _ in range(2):
        x.sum().item()
    return shared_helper(x) - 3


def test_two_compiled_functions_on_two_threads_keep_their_own_entries_and_hand_the_region_back():
    """torch's cache region is one number for the process: a thread ending its call must not switch
    it under another thread's call, and each compiled function still has a cache of its own."""
    from torch._C._dynamo import eval_frame as native
    tracer.reset()
    region_before = native.get_eval_frame_isolate_recompiles_id()
    first, second = tracer.compile(first_root), tracer.compile(second_root)
    x = torch.arange(3.0)
    barrier = threading.Barrier(2)
    outputs, errors = {}, []

    def worker(opt, name):
        try:
            barrier.wait()
            outputs[name] = [opt(x) for _ in range(30)]
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(opt, name))
               for opt, name in ((first, "first"), (second, "second"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert native.get_eval_frame_isolate_recompiles_id() == region_before
    for out in outputs["first"]:
        torch.testing.assert_close(out, first_root(x))
    for out in outputs["second"]:
        torch.testing.assert_close(out, second_root(x))
    for opt in (first, second):
        helpers = [f for f in opt.all_frames() if f.code is shared_helper.__code__]
        assert len(helpers) == 1 and len(helpers[0].cache_entries) == 1  # its own entry, compiled once
        assert helpers[0].cache_entries[0].hits == 30  # every call of this root ran it
