"""Standin's tracer: a from-scratch symbolic bytecode tracer in the design of TorchDynamo.

    import tracer
    opt = tracer.compile(fn, backend="eager")
    opt(*args)                 # same result as fn(*args), through an FX graph
    opt.cache_entries          # guards, graphs and the reason for each compile
    tracer.reset()
"""
from .eval_frame import CacheEntry, CompiledFunction, CompileEvent, GraphBreak, compile, reset
from .explain import ExplainOutput, explain
from .exc import CacheLimitExceeded, InternalTracerWarning, ScriptStopped, Unsupported, UserError
from .guards import Guard

__all__ = ["compile", "reset", "explain", "ExplainOutput", "CompiledFunction", "CacheEntry", "CompileEvent", "GraphBreak", "Guard",
           "Unsupported", "UserError", "CacheLimitExceeded", "InternalTracerWarning", "ScriptStopped"]
