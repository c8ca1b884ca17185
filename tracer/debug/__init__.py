"""The headless debugger: a step hook, recorded timelines, navigation, breakpoints, sessions."""
from .breakpoints import (KINDS, Breakpoint, BreakpointKind, ConditionBreakpoint, DepthBreakpoint,
                          ExceptionHandledBreakpoint, GraphBreakBreakpoint, GuardInstalledBreakpoint, LineBreakpoint,
                          OffsetBreakpoint, OpcodeBreakpoint, TopIsTensorBreakpoint, depth_exceeds, exception_handled,
                          graph_break, guard_installed_on, top_is_tensor)
from .navigation import Navigator
from .recorder import Recorder, record
from .timeline import Timeline, TimelineEvent
from ..trace_end import TraceEnd
from .session import CallOutcome, ScriptError, Session
from .views import FrameView, GraphNodeView, Snapshot, TrackerView

__all__ = ["KINDS", "Breakpoint", "BreakpointKind", "ConditionBreakpoint", "DepthBreakpoint",
           "ExceptionHandledBreakpoint", "GraphBreakBreakpoint", "GuardInstalledBreakpoint", "LineBreakpoint",
           "OffsetBreakpoint", "OpcodeBreakpoint", "TopIsTensorBreakpoint", "depth_exceeds", "exception_handled",
           "graph_break", "guard_installed_on", "top_is_tensor", "Navigator", "Recorder", "Timeline",
           "TimelineEvent", "TraceEnd", "record", "CallOutcome", "ScriptError", "Session", "FrameView",
           "GraphNodeView", "Snapshot", "TrackerView"]
