"""The headless debugger: a step hook, recorded timelines, navigation, breakpoints, sessions."""
from .breakpoints import (Breakpoint, ConditionBreakpoint, LineBreakpoint, OffsetBreakpoint, OpcodeBreakpoint,
                          depth_exceeds, exception_handled, graph_break, guard_installed_on, top_is_tensor)
from .navigation import Navigator
from .recorder import Recorder, record
from .timeline import Timeline, TimelineEvent
from .session import CallOutcome, Session
from .views import FrameView, GraphNodeView, Snapshot, TrackerView

__all__ = ["Breakpoint", "ConditionBreakpoint", "LineBreakpoint", "OffsetBreakpoint", "OpcodeBreakpoint",
           "depth_exceeds", "exception_handled", "graph_break", "guard_installed_on", "top_is_tensor", "Navigator",
           "Recorder", "Timeline", "TimelineEvent", "record", "CallOutcome", "Session", "FrameView", "GraphNodeView",
           "Snapshot", "TrackerView"]
