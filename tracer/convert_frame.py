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

import types
import warnings
from dataclasses import dataclass, field

import bytecode as bc
import torch
import torch.fx

from . import resume as resume_mod
from .bytecode import JUMP_IF_OR_POP, POP_JUMPS, has_kwargs_mapping, stack_effect
from .codegen import GRAPH_OUT, NamedCallable, PyCodegen, assemble
from .collector import collector_paused
from .exc import InternalTracerWarning, Unsupported, UserLocation
from .guards import GuardSet
from .output_graph import OutputGraph
from .source import Source
from .symbolic_convert import InstructionTranslator
from .variables.ctx_manager import GradModeVariable, ResumedGradMode, WithExitVariable
from .variables.misc import NullVariable


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
    hits: int = 0

    def run(self, original, args, kwargs):
        self.hits += 1
        if self.function is None:
            return original(*args, **kwargs)
        function = self.function
        if original.__closure__ is not function.__closure__ or original.__defaults__ is not function.__defaults__ \
                or original.__kwdefaults__ is not function.__kwdefaults__:
            # this call's function object differs from the one compiled: a resume function over the
            # calling frame's cells, a function made in a trace, or defaults assigned since
            function = types.FunctionType(self.code, original.__globals__, function.__name__,
                                          original.__defaults__, original.__closure__)
            function.__kwdefaults__ = original.__kwdefaults__
        return function(*args, **kwargs)


def convert_frame(owner, compile_id: str, f_locals: dict, f_globals: dict, closure=None) -> CacheEntry:
    """Trace the frame of `owner` (a CompiledFunction) for this call into a cache entry.

    The cyclic garbage collector is paused meanwhile: a trace allocates objects by the
    hundred thousand but leaves little cyclic garbage, and collections run during it cost
    half the compile time (three quarters with the debugger recording every step).
    """
    grad_mode = torch.is_grad_enabled()
    try:
        with collector_paused():
            return _convert(owner, compile_id, f_locals, f_globals, closure)
    finally:
        torch._C._set_grad_enabled(grad_mode)  # a trace inside `with no_grad()` switched it


def _convert(owner, compile_id: str, f_locals: dict, f_globals: dict, closure) -> CacheEntry:
    code = owner.code
    break_at, first_error = None, None
    grad_mode = torch.is_grad_enabled()
    hook = owner.hook
    for attempt in (1, 2):
        torch._C._set_grad_enabled(grad_mode)  # each attempt starts in the caller's mode
        _notify(hook, "on_trace_start", owner.code.co_name, compile_id, attempt)
        output = OutputGraph()
        tx = InstructionTranslator(code, f_locals, f_globals, output, hook=owner.hook, break_at=break_at,
                                   closure=closure)
        try:
            try:
                result = tx.run()
            finally:
                output.run_cleanup_hooks()  # a with-block (autocast, ...) the trace stopped inside
        except Unsupported as error:
            _notify(hook, "on_graph_break", str(error))
            if owner.fullgraph:
                _notify(hook, "on_trace_end", f"error: {error.reason}")
                raise
            if break_at is None and tx.current is not None:
                break_at, first_error = tx.current.index, error
                _notify(hook, "on_trace_end", "restarting to stop before the graph break")
                continue
            _notify(hook, "on_trace_end", f"runs eagerly: {error.reason}")
            return eager_entry(owner, compile_id, str(error))
        except Exception as error:  # a bug of ours: never the user's problem
            _notify(hook, "on_trace_end", f"internal error: {error}")
            return internal_error(owner, compile_id, error)
        except BaseException as error:  # stopped from outside (Ctrl+C, a session's Stop): say so, then go
            _notify(hook, "on_trace_end", f"stopped ({type(error).__name__})")
            raise
        if result is None:  # stopped before the instruction that broke the first attempt
            _notify(hook, "on_graph_break", str(first_error))
        try:
            if result is None:
                entry = compile_break(owner, compile_id, tx, output, first_error)
            else:
                entry = compile_return(owner, compile_id, tx, output, result)
        except Unsupported as error:
            _notify(hook, "on_trace_end", f"runs eagerly: {error.reason}")
            if owner.fullgraph:
                raise
            return eager_entry(owner, compile_id, str(error))
        except Exception as error:
            _notify(hook, "on_trace_end", f"internal error: {error}")
            return internal_error(owner, compile_id, error)
        outcome = entry.eager_reason or (f"graph break: {first_error.reason}" if result is None
                                         else f"returned; {len(entry.graphs)} graph(s)")
        _notify(hook, "on_trace_end", outcome)
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
    def emit(cg: PyCodegen):
        cg.reconstruct(result)
        effects = output.side_effects
        if effects.is_empty() and not cg.frame_cells_used and not effects.assigned_cells:
            cg.emit("RETURN_VALUE")
            return
        cg.store("___ret")
        staged = cg.stage_side_effects()
        # a closure that leaves the frame sees the values its cells hold at the return
        cells = cg.stage_cells(frame_cellvars=cg.frame_cells_used)
        cg.apply_side_effects(staged)
        cg.apply_cells(cells)
        cg.load("___ret")
        cg.emit("RETURN_VALUE")

    output_nodes = _collect(owner, output, emit)
    output.graph.output(tuple(output_nodes))
    output.prune()
    if output.count_calls() == 0 and not owner.fullgraph:
        # As Dynamo: a frame with no graph operation is skipped for good.
        return eager_entry(owner, compile_id, "No ops traced for the FX graph: the frame is skipped "
                                              "and runs eagerly from now on")
    return _finish(owner, compile_id, output, output_nodes, emit)


# ---- a frame that stopped before an unsupported instruction -------------------------------------------

def compile_break(owner, compile_id, tx: InstructionTranslator, output: OutputGraph, error) -> CacheEntry:
    decoded, inst = tx.decoded, tx.current
    where = error.location or tx.location()
    record = GraphBreak(error.reason, where, list(error.user_stack or [where]))
    if resume_mod.has_backedge(decoded, inst.index):
        raise Unsupported(f"graph break in a loop ({error.reason}): the frame is skipped, as Dynamo does")
    stack = list(tx.stack)
    contexts, modes = _reentered_contexts(decoded, inst.index, stack, error)
    entered = {slot for slot, _ in contexts}
    if modes and torch.is_grad_enabled() != modes[0].initial:  # as Dynamo: the graph leaves the mode it found
        modes[0].set_mode(tx, modes[0].initial)
    locals_ = dict(tx.symbolic_locals)
    _, instrs = resume_mod.library_instructions(owner.code)
    original_instr = instrs[resume_mod.decoded_index_to_library(decoded)[inst.index]]

    # The instruction runs on the top `consumed` slots; the slots below stay as they are and go
    # straight to the resume function (a NULL there is pushed by the resume function itself:
    # CPython cannot store or pop a NULL).  Each continuation: (target, stack depth after).
    if inst.opname in POP_JUMPS:
        consumed = 1
        continuations = [(inst.index + 1, len(stack) - 1), (inst.target, len(stack) - 1)]
    elif inst.opname in JUMP_IF_OR_POP:
        consumed = 1
        continuations = [(inst.index + 1, len(stack) - 1), (inst.target, len(stack))]
    elif inst.opname in resume_mod.JUMP_OPNAMES or inst.opname in ("RETURN_VALUE", "FOR_ITER"):
        raise Unsupported(f"graph break at {inst.opname} ({error.reason}): the frame runs eagerly")
    elif inst.opname == "CALL":  # with its PRECALL, which the trace already passed
        consumed = inst.arg + 2
        continuations = [(inst.index + 1, len(stack) - inst.arg - 1)]
    elif inst.opname == "CALL_FUNCTION_EX":  # f(*args, **kwargs): the callable, its NULL, args (and kwargs)
        callable_at = len(stack) - 2 - has_kwargs_mapping(inst)
        below = callable_at - 1 if callable_at > 0 and isinstance(stack[callable_at - 1], NullVariable) \
            else callable_at
        consumed = len(stack) - below
        continuations = [(inst.index + 1, below + 1)]
    elif inst.opname == "RAISE_VARARGS":
        consumed, continuations = inst.arg, []  # it raises: nothing to resume
    else:
        pushes = resume_mod.results_of(inst)
        if pushes is None:
            raise Unsupported(f"graph break at {inst.opname} ({error.reason}): Standin cannot resume "
                              "after this instruction yet, so the frame runs eagerly")
        consumed = pushes - stack_effect(inst)
        continuations = [(inst.index + 1, len(stack) - consumed + pushes)]
        if consumed > len(stack) or any(isinstance(v, NullVariable) for v in stack[len(stack) - consumed:]):
            raise Unsupported(f"graph break at {inst.opname} next to a pending call ({error.reason}): "
                              "the frame runs eagerly")
    untouched = len(stack) - consumed
    nulls = frozenset(i for i in range(untouched) if isinstance(stack[i], NullVariable))
    resumes = []
    for target, depth in continuations:
        live = sorted(name for name in resume_mod.live_locals(decoded, target) if name in locals_)
        resumes.append((owner.resume_function(decoded, target, depth, live, nulls, contexts), depth, live))

    call_slot = None  # the callable called for real: a user function there runs compiled, as a frame of its own
    if inst.opname == "CALL":
        callable_at = len(stack) - inst.arg - 2
        call_slot = callable_at + 1 if isinstance(stack[callable_at], NullVariable) else callable_at
    elif inst.opname == "CALL_FUNCTION_EX":
        call_slot = len(stack) - 2 - has_kwargs_mapping(inst)

    def emit(cg: PyCodegen):
        for i, value in enumerate(stack):
            if not isinstance(value, NullVariable) and i not in entered:
                cg.reconstruct(value, for_call=(i == call_slot))
                cg.store(f"___slot{i}")
        live_names = sorted({name for _, _, live in resumes for name in live})
        for name in live_names:
            cg.reconstruct(locals_[name])
            cg.store(f"___live_{name}")
        staged = cg.stage_side_effects()
        cells = cg.stage_cells(frame_cellvars=True)  # the resume function reads the frame's cells
        cg.apply_side_effects(staged)
        cg.apply_cells(cells)
        if modes:  # the instruction runs in the innermost with-block's grad mode
            _set_grad_mode(cg, modes[-1].target)
        for i in range(untouched, len(stack)):
            if isinstance(stack[i], NullVariable):
                cg.emit("PUSH_NULL")
            else:
                cg.load(f"___slot{i}")
        if inst.opname == "CALL" and tx.kw_names:
            cg.emit("KW_NAMES", tuple(tx.kw_names))
        if inst.opname == "CALL":
            cg.emit("PRECALL", inst.arg)
        jump_label, restore_label = bc.Label(), bc.Label()
        if modes:  # if it raises, leave the with-blocks' grad mode as their __exit__ would
            protected = bc.TryBegin(restore_label, push_lasti=False, stack_depth=bc.UNSET)
            cg.instructions.append(protected)
        if len(continuations) == 2:  # the jump now goes forward, to the second resume call
            cg.instructions.append(bc.Instr(original_instr.name.replace("BACKWARD", "FORWARD"), jump_label))
        else:
            cg.instructions.append(original_instr.copy())
        if modes:
            cg.instructions.append(bc.TryEnd(protected))
        if not continuations:
            cg.load_const(None)
            cg.emit("RETURN_VALUE")  # unreachable: the instruction raised
        for n, (fn, depth, live) in enumerate(resumes):
            if n == 1:
                cg.instructions.append(jump_label)
            if modes:  # the resume function re-enters the with-blocks from the mode before them
                _set_grad_mode(cg, modes[0].initial)
            for i in reversed(range(untouched, depth)):
                cg.store(f"___after{i}")

            def args(depth=depth, live=live):
                for i in range(depth):
                    if i >= untouched:
                        cg.load(f"___after{i}")
                    elif i not in nulls and i not in entered:
                        cg.load(f"___slot{i}")
                for name in live:
                    cg.load(f"___live_{name}")

            nargs = depth - len(nulls) - len(entered) + len(live)
            if fn.cell_names:  # it continues over this frame's own cells
                def args_after_cells(args=args, fn=fn):
                    for name in fn.cell_names:
                        cg.load_closure(name)
                    cg.emit("BUILD_TUPLE", len(fn.cell_names))
                    args()
                cg.call(fn.call_with_cells, args_after_cells, nargs + 1)
            else:
                cg.call(fn.fn, args, nargs)  # under the frame hook, its frame is compiled
            cg.emit("RETURN_VALUE")
        if modes:
            cg.instructions.append(restore_label)
            _set_grad_mode(cg, modes[0].initial)
            cg.emit("RERAISE", 0)

    output_nodes = _collect(owner, output, emit)
    output.graph.output(tuple(output_nodes))
    output.prune()
    entry = _finish(owner, compile_id, output, output_nodes, emit)
    entry.graph_break = record
    entry.resume_functions = [fn for fn, _, _ in resumes]
    return entry


def _reentered_contexts(decoded, index: int, stack: list, error) -> tuple[tuple, list]:
    """For a break inside with-blocks: ((slot, context) each resume function re-enters, the
    GradModeVariables), outermost first.  Only grad-mode blocks can be left and re-entered."""
    slots = resume_mod.with_blocks_around(decoded, index)
    if slots is None:
        raise Unsupported(f"graph break inside a try block ({error.reason}): the frame runs eagerly")
    modes = []
    for slot in slots:
        value = stack[slot] if slot < len(stack) else None
        if not isinstance(value, WithExitVariable) or not isinstance(value.ctx, GradModeVariable):
            raise Unsupported(f"graph break inside a with-block Standin cannot re-enter ({error.reason}): "
                              "the frame runs eagerly")
        modes.append(value.ctx)
    contexts = tuple((slot, ResumedGradMode(mode.initial, mode.target, apply=slot == slots[-1]))
                     for slot, mode in zip(slots, modes))
    return contexts, modes


def _set_grad_mode(cg: PyCodegen, mode: bool) -> None:
    cg.call(torch._C._set_grad_enabled, lambda: cg.load_const(mode), 1)
    cg.emit("POP_TOP")


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
    if output.count_calls() > 0:
        gm = torch.fx.GraphModule(torch.nn.Module(), output.graph)
        gm.meta["compile_id"] = compile_id
        example_inputs = [graph_input.example for graph_input in output.inputs.values()]
        compiled = owner.backend(gm, example_inputs)
        graphs.append(gm)
        graph_fn = NamedCallable(f"__compiled_fn_{compile_id.replace('/', '_')}", compiled)
        sources = [graph_input.source for graph_input in output.inputs.values()]
        cg.call(graph_fn, lambda: [source.reconstruct(cg) for source in sources], len(sources))
        cg.store(GRAPH_OUT)
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
    )
