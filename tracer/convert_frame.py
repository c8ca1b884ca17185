"""Turning one call's frame into a cache entry: trace, then compile the graph and the code.

The translator runs until the frame returns — one graph, one rewritten code
object — or until it meets something it cannot trace.  Then, as Dynamo does,
the trace starts again and stops just before the instruction that was
unsupported (for a failure deep inside inlined calls: before the call in this
frame that led there).  The graph so far is compiled; the rewritten code runs
it, performs that instruction for real and hands the rest of the frame to a
resume function.
"""
from __future__ import annotations

import inspect
import types
import warnings
from dataclasses import dataclass, field

import torch
import torch.fx

from . import resume as resume_mod
from . import trace_rules
from .break_code import BreakCode, break_site, emit_break
from .codegen import GRAPH_OUT, GraphCallable, PyCodegen, assemble
from .collector import collector_paused
from .exc import InternalTracerWarning, ObservedException, Unresumable, Unsupported, UserError, UserLocation
from .guards import GuardSet
from .input_loading import SharedInputLoads
from .output_graph import OutputGraph
from .run_count import RunCounter
from .shapes.env import tracking_for
from .shapes.policy import DataCapture
from .source import LocalSource, Source
from .symbolic_convert import InstructionTranslator
from .trace_end import TraceEnd
from .warmup import finish_background_imports
from .variables.leaving_generators import generators_as_iterators
from .variables.sym import fullgraph_error
from .variables.key_hashes import tracing
from .variables.tensor import TensorVariable
from .variables.ctx_manager import (GradModeVariable, InferenceModeVariable, NullContextVariable,
                                    ProfilerContextVariable, ResumedGradMode, StateSwitchVariable, WithExitVariable)


@dataclass
class GraphBreak:
    """Why and where a frame was split."""

    reason: str
    location: UserLocation
    user_stack: list[UserLocation] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.reason} (at {self.location})"


@dataclass
class CacheEntry:
    compile_id: str
    guards: GuardSet
    graphs: list[torch.fx.GraphModule]
    input_sources: list[Source]
    compiled: object = None  # what the backend returned
    eager_reason: str | None = None
    code: types.CodeType | None = None  # the rewritten code (None: the original runs)
    original_code: types.CodeType | None = None
    function: object = None  # the rewritten code as a function with the original's signature
    graph_break: GraphBreak | None = None
    resume_functions: list = field(default_factory=list)
    run_counter: RunCounter | None = None  # counts the runs of `code` (run_count.py)
    # False once torch runs this code as it is for good (an entry that always runs the original):
    # its later calls never reach Standin, so `hits` stops at the compiling call
    hits_counted: bool = True
    became_dynamic: list = field(default_factory=list)  # BecameDynamic: what automatic dynamic made symbolic here
    shapes: object = None  # the trace's ShapeTracking (symbols, why each dimension is symbolic), or None

    @property
    def hits(self) -> int:
        """The calls this entry served, its compiling call included (which runs the new code too); an
        entry without code (the original runs, for good) served its compiling call only."""
        return self.run_counter.runs if self.run_counter is not None else 1


def convert_frame(owner, compile_id: str, f_locals: dict, f_globals: dict, closure=None) -> CacheEntry:
    """Trace the frame of `owner` (a CompiledFunction) for this call into a cache entry.

    The cyclic garbage collector is paused meanwhile: a trace allocates objects by the
    hundred thousand but leaves little cyclic garbage, and collections run during it cost
    half the compile time (three quarters with the debugger recording every step).
    """
    finish_background_imports()
    grad_mode = torch.is_grad_enabled()
    try:
        with collector_paused():
            return _convert(owner, compile_id, f_locals, f_globals, closure)
    finally:
        torch._C._set_grad_enabled(grad_mode)  # a trace inside `with no_grad()` switched it


def _convert(owner, compile_id: str, f_locals: dict, f_globals: dict, closure) -> CacheEntry:
    code = owner.code
    skip = trace_rules.frame_skip_reason(code, f_locals)  # an RNN's forward: it runs as it is, as in Dynamo
    if skip is not None:
        if owner.fullgraph:
            raise Unsupported(skip)
        return eager_entry(owner, compile_id, skip)
    break_at, first_error, unresumable = None, None, None
    grad_mode = torch.is_grad_enabled()
    hook = owner.hook
    for attempt in (1, 2, 3):
        torch._C._set_grad_enabled(grad_mode)  # each attempt starts in the caller's mode
        _notify(hook, "on_trace_start", owner.code.co_name, compile_id, attempt)
        capture = DataCapture.for_trace(owner.fullgraph)
        output = OutputGraph(shapes=tracking_for(owner.dynamic, owner.automatic_dynamic, compile_id, f_locals,
                                                 f_globals, code.co_names, capture), capture=capture)
        tx = InstructionTranslator(code, f_locals, f_globals, output, hook=owner.hook, break_at=break_at,
                                   closure=closure)
        try:
            try:
                with tracing(output):
                    result = tx.run()
            finally:
                output.run_cleanup_hooks()  # a with-block (autocast, ...) the trace stopped inside
        except Unsupported as error:
            _notify(hook, "on_graph_break", str(error))
            if owner.fullgraph:
                _notify(hook, "on_trace_end", f"error: {error.reason}", TraceEnd.ERROR)
                raise fullgraph_error(error)
            if isinstance(error, ObservedException):  # as Dynamo: no graph; Python raises it for real
                _notify(hook, "on_trace_end", f"runs eagerly: {error.reason}", TraceEnd.EAGER)
                return eager_entry(owner, compile_id, f"{error}\nno handler in the frame catches it: "
                                                      "the frame runs eagerly")
            if break_at is None and tx.current is not None:
                break_at, first_error = tx.current.index, error
                _notify(hook, "on_trace_end", "restarting to stop before the graph break", TraceEnd.RESTARTING)
                continue
            _notify(hook, "on_trace_end", f"runs eagerly: {error.reason}", TraceEnd.EAGER)
            return eager_entry(owner, compile_id, str(error))
        except Exception as error:  # noqa: BLE001 - a bug of ours: never the user's problem
            _notify(hook, "on_trace_end", f"internal error: {error}", TraceEnd.INTERNAL_ERROR)
            return internal_error(owner, compile_id, error)
        except BaseException as error:  # stopped from outside (Ctrl+C, a session's Stop): say so, then go
            _notify(hook, "on_trace_end", f"stopped ({type(error).__name__})", TraceEnd.STOPPED)
            raise
        if result is None:  # stopped before the instruction that broke the first attempt
            _notify(hook, "on_graph_break", str(first_error))
        try:
            if result is None and unresumable is not None:
                entry = compile_checkpoint(owner, compile_id, tx, output, unresumable)
            elif result is None:
                entry = compile_break(owner, compile_id, tx, output, first_error)
            else:
                entry = compile_return(owner, compile_id, tx, output, result)
        except Unresumable as error:
            if tx.checkpoint is None or unresumable is not None or owner.fullgraph:
                _notify(hook, "on_trace_end", f"runs eagerly: {error.reason}", TraceEnd.EAGER)
                return eager_entry(owner, compile_id, f"{error} (and no checkpoint before it): the frame "
                                                      "runs eagerly")
            break_at, unresumable = tx.checkpoint, error
            _notify(hook, "on_trace_end", "restarting to stop at the last checkpoint before the graph break",
                    TraceEnd.RESTARTING)
            continue
        except Unsupported as error:
            _notify(hook, "on_trace_end", f"runs eagerly: {error.reason}", TraceEnd.EAGER)
            if owner.fullgraph:
                raise
            return eager_entry(owner, compile_id, str(error))
        except UserError as error:  # the user's own contradiction (a mark_dynamic size the code specialises)
            _notify(hook, "on_trace_end", f"error: {error}", TraceEnd.ERROR)
            raise
        except Exception as error:  # noqa: BLE001 - a bug of ours: the frame runs eagerly with the error named
            _notify(hook, "on_trace_end", f"internal error: {error}", TraceEnd.INTERNAL_ERROR)
            return internal_error(owner, compile_id, error)
        outcome = entry.eager_reason or (f"graph break: {first_error.reason}" if result is None
                                         else f"returned; {len(entry.graphs)} graph(s)")
        ending = TraceEnd.EAGER if entry.eager_reason else TraceEnd.GRAPH_BREAK if result is None else TraceEnd.COMPILED
        _notify(hook, "on_trace_end", outcome, ending)
        return entry
    return eager_entry(owner, compile_id, str(first_error))


def _notify(hook, name: str, *args) -> None:
    method = getattr(hook, name, None) if hook is not None else None
    if method is not None:
        method(*args)


def eager_entry(owner, compile_id: str, reason: str) -> CacheEntry:
    """An entry that always matches and runs the original function: the frame is skipped."""
    return CacheEntry(compile_id, GuardSet([]), [], [], eager_reason=reason, original_code=owner.code)


def internal_error(owner, compile_id, error) -> CacheEntry:
    if owner.fullgraph:
        raise error
    message = f"internal tracer error {type(error).__name__}: {error}"
    warnings.warn(f"{message}; running {owner.code.co_name} eagerly", InternalTracerWarning, stacklevel=5)
    return eager_entry(owner, compile_id, message)


# ---- a frame that returned: one graph ----------------------------------------------------------

def compile_return(owner, compile_id, tx, output: OutputGraph, result) -> CacheEntry:
    through_graph = _returned_through_graph(owner, output, result)

    def emit(cg: PyCodegen):
        if through_graph:
            cg.graph_output(result.realize().node)
        else:
            cg.returned(result)
        effects = output.side_effects
        if effects.is_empty() and not cg.frame_cells_used and not effects.assigned_cells:
            cg.emit("RETURN_VALUE")
            return
        cg.store("___ret")
        staged = cg.stage_side_effects()
        # a closure that leaves the frame sees the values its cells hold at the return
        cells = cg.stage_cells(frame_cellvars=cg.frame_cells_used, returning=True)
        cg.apply_side_effects(staged)
        cg.apply_cells(cells)
        cg.load("___ret")
        cg.emit("RETURN_VALUE")

    output_nodes = _collect(owner, output, emit)
    output.graph.output(tuple(output_nodes))
    output.prune()
    if output.count_calls() == 0 and not output_nodes and not owner.fullgraph:
        # As Dynamo: a frame with no graph operation (and no symbolic size to hand back) is skipped for good.
        return eager_entry(owner, compile_id, "No ops traced for the FX graph: the frame is skipped "
                                              "and runs eagerly from now on")
    return _finish(owner, compile_id, output, output_nodes, emit)


def _returned_through_graph(owner, output: OutputGraph, result) -> bool:
    """Under fullgraph, a frame that returns one plain tensor and changes nothing outside gets it
    back from the graph even when it is an input, as Dynamo's codegen does in that case (so the
    backend gets a graph that only hands the input back)."""
    return owner.fullgraph and output.side_effects.is_empty() and type(result.realize()) is TensorVariable


# ---- a frame that stopped before an unsupported instruction -------------------------------------------

def compile_break(owner, compile_id, tx: InstructionTranslator, output: OutputGraph, error) -> CacheEntry:
    """The graph so far, and code that runs the unsupported instruction and resumes after it."""
    decoded, inst = tx.decoded, tx.current
    where = error.location or tx.location()
    record = GraphBreak(error.reason, where, list(error.user_stack or [where]))
    stack = list(tx.stack)
    contexts, blocks = _reentered_contexts(decoded, inst.index, stack, error)  # first: a try block in a loop
    if resume_mod.has_backedge(decoded, inst.index):
        raise Unsupported(f"graph break in a loop ({error.reason}): the frame is skipped, as Dynamo does")
    _leave_blocks(tx, blocks)
    locals_ = _alive_at_break(tx, stack)
    site = break_site(inst, stack, error.reason)
    resumes = []
    for target, depth in site.continuations:
        live = sorted(name for name in resume_mod.live_locals(decoded, target) if name in locals_)
        resumes.append((owner.resume_function(decoded, target, depth, live, site.nulls, contexts), depth, live))
    code = BreakCode(site, resume_mod.library_instruction(owner.code, decoded, inst.index), stack, locals_,
                     resumes, frozenset(slot for slot, _ in contexts), tuple(context for _, context in contexts),
                     tuple(tx.kw_names))

    def emit(cg: PyCodegen):
        emit_break(cg, code)

    output_nodes = _collect(owner, output, emit)
    output.graph.output(tuple(output_nodes))
    output.prune()
    entry = _finish(owner, compile_id, output, output_nodes, emit)
    entry.graph_break = record
    entry.resume_functions = [fn for fn, _, _ in resumes]
    return entry


def _alive_at_break(tx: InstructionTranslator, stack: list) -> dict:
    """The locals at a break, and the stack in place, with the generators made in the trace drained
    into iterators of what they have left (no bytecode can rebuild a suspended generator)."""
    names = list(tx.symbolic_locals)
    values = generators_as_iterators(tx, stack + [tx.symbolic_locals[name] for name in names])
    stack[:] = values[:len(stack)]
    return dict(zip(names, values[len(stack):]))


def compile_checkpoint(owner, compile_id, tx: InstructionTranslator, output: OutputGraph, error) -> CacheEntry:
    """The graph up to the last checkpoint, then the rest of the frame as it is (Dynamo's
    step_graph_break): the stack is empty there and no block is open, so the rewritten code
    stores the locals back and jumps into a copy of the original code."""
    decoded, target = tx.decoded, tx.current.index
    locals_ = dict(tx.symbolic_locals)
    # the locals the trace rebound (a local still holding the value it came in with stays as it is)
    live = sorted(name for name in resume_mod.live_locals(decoded, target) if name in locals_
                  and name not in owner.code.co_cellvars and name not in owner.code.co_freevars
                  and locals_[name].source != LocalSource(name))
    deleted = [name for name in _argument_names(owner.code) if name not in locals_
               and name not in owner.code.co_cellvars]  # an argument the trace deleted: gone from the frame too
    line = tx.current.line
    record = GraphBreak(f"{error.reason}: compiled up to line {line}, the last point it can stop at; "
                        "the rest of the frame runs from there as it is", error.location or tx.location(),
                        list(error.user_stack or [tx.location()]))

    def emit(cg: PyCodegen):
        for name in live:
            cg.reconstruct(locals_[name])
            cg.store(f"___live_{name}")
        staged = cg.stage_side_effects()
        cells = cg.stage_cells(frame_cellvars=True)
        cg.apply_side_effects(staged)
        cg.apply_cells(cells)
        for name in live:
            cg.load(f"___live_{name}")
            cg.store(name)
        for name in deleted:
            cg.emit("DELETE_FAST", name)
        cg.instructions.extend(resume_mod.original_from(owner.code, decoded, target))

    output_nodes = _collect(owner, output, emit)
    output.graph.output(tuple(output_nodes))
    output.prune()
    entry = _finish(owner, compile_id, output, output_nodes, emit)
    entry.graph_break = record
    return entry


def _argument_names(code: types.CodeType) -> tuple[str, ...]:
    count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS) \
        + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return code.co_varnames[:count]


# with-blocks a graph break inside can leave and enter again (a null or ignored profiler block: a no-op)
RESUMABLE_BLOCKS = (GradModeVariable, StateSwitchVariable, NullContextVariable, ProfilerContextVariable)


def _reentered_contexts(decoded, index: int, stack: list, error) -> tuple[tuple, list]:
    """For a break inside with-blocks: ((slot, context) each resume function re-enters, the
    blocks' trackers), outermost first.  Grad-mode, autocast and inference-mode blocks can be
    left and entered again, and null ones; of nested grad-mode blocks only the innermost applies its mode."""
    slots = resume_mod.with_blocks_around(decoded, index)
    if slots is None:
        raise Unresumable(f"graph break inside a try block ({error.reason})", error.location, error.user_stack)
    blocks = []
    for slot in slots:
        value = stack[slot] if slot < len(stack) else None
        if not isinstance(value, WithExitVariable) \
                or not isinstance(value.ctx, RESUMABLE_BLOCKS):
            raise Unresumable(f"graph break inside a with-block Standin cannot re-enter ({error.reason})",
                              error.location, error.user_stack)
        blocks.append(value.ctx)
    innermost_grad = max((slot for slot, block in zip(slots, blocks) if isinstance(block, GradModeVariable)),
                         default=None)
    contexts = tuple((slot, ResumedGradMode(block.initial, block.target, apply=slot == innermost_grad)
                      if isinstance(block, GradModeVariable) else block.resumed())
                     for slot, block in zip(slots, blocks))
    return contexts, blocks


def _leave_blocks(tx: InstructionTranslator, blocks: list) -> None:
    """As Dynamo, the graph leaves the with-blocks the break is inside, innermost first; adjacent
    grad-mode blocks with one switch, back to the mode the outermost of them found.  After an
    inference-mode block's exit the grad mode is the one from before it, which the trace does not
    keep: the next grad-mode block sets its mode whatever it is."""
    grad = tx.grad_mode_at_break
    for n in reversed(range(len(blocks))):
        block = blocks[n]
        if isinstance(block, (NullContextVariable, ProfilerContextVariable)):
            continue  # nothing to leave
        if isinstance(block, StateSwitchVariable):
            block.leave_at_break(tx)
            grad = None if isinstance(block, InferenceModeVariable) else grad
        elif n == 0 or not isinstance(blocks[n - 1], GradModeVariable):  # the outermost of adjacent ones
            if grad != block.initial:
                block.set_mode(tx, block.initial)
            grad = block.initial


# ---- shared finishing ------------------------------------------------------------------------------------

def _collect(owner, output, emit) -> list:
    """First pass over the code to emit: which graph values it needs as outputs."""
    probe = PyCodegen(owner.code, output.side_effects)  # a callee called for real: the frame hook compiles it
    emit(probe)
    return probe.output_nodes


def _finish(owner, compile_id, output: OutputGraph, output_nodes, emit) -> CacheEntry:
    graphs, compiled = [], None
    cg = PyCodegen(owner.code, output.side_effects, output_nodes)
    body = cg.instructions
    counter = RunCounter(owner.calls, compile_id)
    counter.emit(cg)
    if output.count_calls() > 0 or output_nodes:  # as Dynamo: a graph may only pass symbolic sizes through
        gm = output.graph_module()
        gm.meta["compile_id"] = compile_id
        example_inputs = [graph_input.example for graph_input in output.inputs.values()]
        compiled = owner.backend(gm, example_inputs)
        graphs.append(gm)
        graph_fn = GraphCallable(f"__compiled_fn_{compile_id.replace('/', '_')}", compiled)
        loads = SharedInputLoads(cg, [graph_input.source for graph_input in output.inputs.values()])
        loads.keep_shared()
        cg.call(graph_fn, loads.push_inputs, len(loads.sources))
        cg.store(GRAPH_OUT)
        loads.forget_kept()
    emit(cg)
    new_code = assemble(owner.code, body)
    function = types.FunctionType(new_code, owner.fn.__globals__, owner.code.co_name,
                                  owner.fn.__defaults__, owner.fn.__closure__)
    function.__kwdefaults__ = owner.fn.__kwdefaults__
    return CacheEntry(
        compile_id=compile_id,
        guards=GuardSet(output.finish_guards()),
        graphs=graphs,
        input_sources=[graph_input.source for graph_input in output.inputs.values()] if compiled else [],
        compiled=compiled,
        code=new_code,
        original_code=owner.code,
        function=function,
        shapes=output.shapes,
        run_counter=counter,
    )
