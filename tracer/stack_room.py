"""Room left on the Python stack: the tracer must never turn a working program into a RecursionError.

Two things cost Python frames the program itself would not use.  Tracing: each
inlined call is about eight frames of the translator, and a trace then needs room
for building trackers and fake-tensor ops under the deepest call.  Running: a
compiled function called from compiled code (a recursion through a graph break)
is four frames per level where eager Python uses one.  So a trace stops inlining
(a graph break) before it could exhaust the recursion limit, and compiled calls
nest only so deep: a compiled function called under MAX_NESTED_COMPILED_CALLS
others runs as plain Python, and its callees with it, at one frame per level.
"""
from __future__ import annotations

import sys
import threading

# Frames an inlined call must leave free: one more level of the translator and the work under it.
INLINE_RESERVE = 150
# Compiled calls in progress, one inside another, on one thread, before calls run as plain Python:
# a recursion through compiled frames then costs about 3 * 16 frames more than eager Python.
MAX_NESTED_COMPILED_CALLS = 16


class _Nesting(threading.local):
    """Compiled calls in progress on this thread, one inside another (read and set by the root's call)."""

    depth = 0


nesting = _Nesting()


def room_below(reserve: int) -> bool:
    """Whether at least `reserve` frames of the recursion limit are still free (one walk in C)."""
    try:
        sys._getframe(sys.getrecursionlimit() - reserve)
    except ValueError:
        return True
    return False
