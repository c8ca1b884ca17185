"""tracer.explain: what compiling a function did, in one report.

`explain(fn)(*args)` compiles `fn` afresh, calls it once, and summarises every
frame it compiled (the function, its resume functions, callees run at a
break): graphs and their ops, graph breaks with their user stacks (each
distinct break once), guards per cache entry and the compile events.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from .convert_frame import GraphBreak
from .eval_frame import CompiledFunction


def op_name(node: torch.fx.Node) -> str:
    if node.op == "call_method":
        return f"Tensor.{node.target}"
    target = node.target
    module = getattr(target, "__module__", None) or ""
    module = "operator" if module == "_operator" else module
    name = getattr(target, "__name__", str(target))
    return f"{module}.{name}" if module else name


@dataclass
class ExplainOutput:
    graphs: list[torch.fx.GraphModule] = field(default_factory=list)
    graph_breaks: list[GraphBreak] = field(default_factory=list)  # distinct breaks, first seen first
    ops_per_graph: list[list[str]] = field(default_factory=list)
    guards: dict[str, list[str]] = field(default_factory=dict)  # "frame [id]" -> guard lines
    compile_events: list[str] = field(default_factory=list)
    eager_frames: list[str] = field(default_factory=list)  # frames that run eagerly, with the reason
    result: object = None

    @property
    def graph_count(self) -> int:
        return len(self.graphs)

    @property
    def graph_break_count(self) -> int:
        return len(self.graph_breaks)

    @property
    def op_count(self) -> int:
        return sum(len(ops) for ops in self.ops_per_graph)

    def __str__(self) -> str:
        lines = [f"Graph count: {self.graph_count}", f"Graph break count: {self.graph_break_count}",
                 f"Op count: {self.op_count}"]
        if self.graph_breaks:
            lines.append("Break reasons:")
            for n, brk in enumerate(self.graph_breaks, 1):
                lines.append(f"  {n}. {brk.reason}")
                for frame in brk.user_stack:
                    lines.append(f"       {frame}")
        if self.eager_frames:
            lines.append("Frames that run eagerly:")
            lines.extend(f"  - {text}" for text in self.eager_frames)
        for n, ops in enumerate(self.ops_per_graph):
            lines.append(f"Ops in graph {n}:")
            lines.extend(f"  {op}" for op in ops)
        for frame, guards in self.guards.items():
            lines.append(f"Guards of {frame}:")
            lines.extend(f"  {guard}" for guard in guards)
        lines.append("Compile events:")
        lines.extend(f"  {event}" for event in self.compile_events)
        return "\n".join(lines)


def summarize(root: CompiledFunction) -> ExplainOutput:
    out = ExplainOutput()
    seen = set()
    for frame in root.all_frames():
        for event in frame.compile_events:
            out.compile_events.append(f"{frame.code.co_name}: {event}")
        for entry in frame.cache_entries:
            for gm in entry.graphs:
                out.graphs.append(gm)
                out.ops_per_graph.append([op_name(n) for n in gm.graph.nodes
                                          if n.op in ("call_function", "call_method", "call_module")])
            if entry.graph_break is not None:
                brk = entry.graph_break
                key = (brk.reason, brk.location.filename, brk.location.line)
                if key not in seen:
                    seen.add(key)
                    out.graph_breaks.append(brk)
            if entry.eager_reason is not None:
                out.eager_frames.append(f"{frame.code.co_name} [{entry.compile_id}]: {entry.eager_reason}")
            else:
                out.guards[f"{frame.code.co_name} [{entry.compile_id}]"] = _guard_lines(entry)
    return out


def _guard_lines(entry) -> list[str]:
    """Each guard, a shape guard followed by its causes (the instruction and line behind it)."""
    lines = []
    for guard in entry.guards:
        lines.append(str(guard))
        lines.extend(f"    because {cause}" for cause in guard.causes)
    lines.extend(f"{change} at this compile" for change in entry.became_dynamic)
    return lines


def explain(fn, *, backend="eager", cache_size_limit: int = 8, dynamic=None):
    """`explain(fn)(*args, **kwargs)` -> ExplainOutput for one fresh compile and call of fn."""
    def run(*args, **kwargs) -> ExplainOutput:
        compiled = CompiledFunction(fn, backend, False, cache_size_limit, dynamic=dynamic)
        result = compiled(*args, **kwargs)
        report = summarize(compiled)
        report.result = result
        return report
    return run
