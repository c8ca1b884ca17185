"""How often a cache entry ran, and which entry served each call: counted by the entry's own code.

The debugger shows both (a cache entry's hits, `CompiledFunction.calls`).  They used to be
counted by a last guard of the entry's native tree, a Python function torch's lookup called
after every other guard held: a Python call out of C on every lookup, which cost more than a
small tree's whole check, and which had to tell torch's lookups from Standin's own questions
(what-if, a failure's reason).  The rewritten code counts instead, in its first instructions:
it runs exactly when the entry is used, and never when it is only asked.  Both counting calls
are C functions called straight from the bytecode (the log's `append` of the compile id, `next`
of an itertools counter, which disassembles as `count(<runs>)`): no Python frame, ~0.1 µs a run.
"""
from __future__ import annotations

import itertools


class RunCounter:
    """The runs of one entry's code; each run also appends the entry's compile id to `calls`
    (the frame's log of which entry served each call)."""

    __slots__ = ("_count", "_log", "_compile_id")

    def __init__(self, calls, compile_id: str):
        self._count = itertools.count()
        self._log = calls.append
        self._compile_id = compile_id

    @property
    def runs(self) -> int:
        """The runs so far (an itertools counter tells its next value only in its repr)."""
        return int(repr(self._count)[len("count("):-1])

    def emit(self, cg) -> None:
        """The instructions that count one run, for the start of the rewritten code."""
        cg.call(self._log, lambda: cg.load_const(self._compile_id), 1)
        cg.emit("POP_TOP")
        cg.call(next, lambda: cg.load_const(self._count), 1)
        cg.emit("POP_TOP")
