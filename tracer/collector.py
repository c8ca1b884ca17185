"""Pausing Python's cyclic garbage collector over work that allocates much and frees little.

A trace, or reading a long recorded timeline, makes objects by the hundred
thousand and leaves little cyclic garbage, while each full collection walks
every object torch and the trace hold (~0.2 s here).  Pauses nest and may
overlap across threads (a script traces in a worker while the app reads):
the collector runs again when the last one ends, if it ran before the first.
"""
from __future__ import annotations

import contextlib
import gc
import threading

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextlib.contextmanager
def collector_paused():
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
