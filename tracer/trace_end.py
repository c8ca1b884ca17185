"""How one trace of a frame ended: the kind the debugger and the app branch on, beside the text they show."""
from __future__ import annotations

import enum


class TraceEnd(enum.Enum):
    COMPILED = "compiled"  # the trace returned: its graphs are compiled
    GRAPH_BREAK = "graph_break"  # compiled up to a graph break; a resume function runs the rest
    RESTARTING = "restarting"  # a first attempt, traced again to stop before its graph break
    EAGER = "eager"  # the frame runs eagerly: a construct the engine cannot trace or resume after
    ERROR = "error"  # a graph break under fullgraph: the error goes to the caller
    INTERNAL_ERROR = "internal_error"  # a bug of ours: the frame runs eagerly, the error named
    STOPPED = "stopped"  # stopped from outside (Ctrl+C, a session's Stop)
