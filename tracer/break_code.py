"""The code a graph break runs: the unsupported instruction for real, then the resume function.

`break_site` reads what the instruction does to the frame's stack: how many of the top
values it consumes, where each way on continues (a conditional jump has two) and with how
many values, and which slot holds a callable it calls for real (a user function there runs
compiled, as a frame of its own).  The slots below the consumed ones go straight to the
resume function; a NULL among them is pushed by the resume function itself, since CPython
can neither store nor pop one.

`emit_break` writes the bytecode that runs after the graph: it rebuilds the stack and the
live locals from the graph's outputs, replays the side effects, runs the instruction (in
the grad mode of the with-blocks around it, restored if it raises) and returns what the
resume function of the way it went on returns.  Inside with-blocks the graph has left them
(as Dynamo's does), so the instruction runs with each block entered again around it and left
after it, also when it raises.
"""
from __future__ import annotations

from dataclasses import dataclass

import bytecode as bc

from .bytecode import JUMP_IF_OR_POP, JUMP_OPNAMES, POP_JUMPS, has_kwargs_mapping, stack_effect
from .codegen import PyCodegen
from .exc import Unresumable
from .resume import results_of
from .source import LocalSource
from .variables.misc import NullVariable


# The instructions Dynamo makes a resume function after (`break_graph_if_unsupported` and the
# conditional jumps of symbolic_convert): a break on any other one compiles the graph up to the
# last checkpoint and runs the rest of the frame as it is, or runs the frame eagerly without one.
RESUMES_AFTER = frozenset({"CALL", "CALL_FUNCTION_EX", "BINARY_SUBSCR", "COMPARE_OP", "STORE_ATTR",
                           "STORE_SUBSCR"}) | POP_JUMPS | JUMP_IF_OR_POP


@dataclass(frozen=True)
class BreakSite:
    """What the instruction at a break does to a stack of `depth` values."""

    depth: int
    consumed: int  # the top slots it runs on
    continuations: tuple[tuple[int, int], ...]  # (target instruction, stack depth after), per way on
    call_slot: int | None  # the slot of the callable it calls for real (its frame compiles under the hook)
    nulls: frozenset  # slots below the consumed ones that hold a NULL

    @property
    def untouched(self) -> int:
        """The slots below the ones the instruction consumes: they are passed on as they are."""
        return self.depth - self.consumed


def break_site(inst, stack: list, reason: str) -> BreakSite:
    """The break site of `inst` over the trace's `stack`; Unsupported where Standin cannot resume."""
    depth = len(stack)
    call_slot = None
    if inst.opname not in RESUMES_AFTER:
        raise Unresumable(f"graph break at {inst.opname} ({reason}): Dynamo resumes only after a call, "
                          "a subscript, a comparison, an attribute or item store or a conditional jump")
    if inst.opname in POP_JUMPS:
        consumed, continuations = 1, ((inst.index + 1, depth - 1), (inst.target, depth - 1))
    elif inst.opname in JUMP_IF_OR_POP:
        consumed, continuations = 1, ((inst.index + 1, depth - 1), (inst.target, depth))
    elif inst.opname in JUMP_OPNAMES or inst.opname in ("RETURN_VALUE", "FOR_ITER"):
        raise Unresumable(f"graph break at {inst.opname} ({reason}): no resume function can take it")
    elif inst.opname == "CALL":  # with its PRECALL, which the trace already passed
        callable_at = depth - inst.arg - 2  # a NULL and the callable, or a method and its self
        consumed, continuations = inst.arg + 2, ((inst.index + 1, depth - inst.arg - 1),)
        call_slot = callable_at + 1 if isinstance(stack[callable_at], NullVariable) else callable_at
    elif inst.opname == "CALL_FUNCTION_EX":  # f(*args, **kwargs): the callable, its NULL, args (and kwargs)
        call_slot = depth - 2 - has_kwargs_mapping(inst)
        below = call_slot - 1 if call_slot > 0 and isinstance(stack[call_slot - 1], NullVariable) else call_slot
        consumed, continuations = depth - below, ((inst.index + 1, below + 1),)
    elif inst.opname == "RAISE_VARARGS":
        consumed, continuations = inst.arg, ()  # it raises: nothing to resume
    else:
        consumed, continuations = _plain_instruction(inst, stack, reason)
    nulls = frozenset(i for i in range(depth - consumed) if isinstance(stack[i], NullVariable))
    return BreakSite(depth, consumed, continuations, call_slot, nulls)


def _plain_instruction(inst, stack: list, reason: str) -> tuple[int, tuple]:
    """An instruction that pops its operands and pushes its results (no jump, no call)."""
    pushes = results_of(inst)
    if pushes is None:
        raise Unresumable(f"graph break at {inst.opname} ({reason}): Standin cannot resume after this "
                          "instruction yet")
    consumed = pushes - stack_effect(inst)
    if consumed > len(stack) or any(isinstance(v, NullVariable) for v in stack[len(stack) - consumed:]):
        raise Unresumable(f"graph break at {inst.opname} next to a pending call ({reason})")
    return consumed, ((inst.index + 1, len(stack) - consumed + pushes),)


@dataclass
class BreakCode:
    """Everything the code of one graph break is made from."""

    site: BreakSite
    instruction: bc.Instr  # the bytecode package's copy of the unsupported instruction
    stack: list  # the trace's stack before it
    locals: dict  # the trace's locals
    resumes: list  # (resume function, stack depth, live locals) per continuation
    entered: frozenset  # slots holding a with-block's __exit__ the resume functions enter again
    contexts: tuple  # what enters those with-blocks again (ResumedGradMode, ResumedSwitch), outermost first
    kw_names: tuple  # the keyword names of a CALL


def emit_break(cg: PyCodegen, code: BreakCode) -> None:
    _stage_frame(cg, code)
    jump_label, restore_label = bc.Label(), bc.Label()
    _run_instruction(cg, code, jump_label, restore_label)
    for n, resume in enumerate(code.resumes):
        if n == 1:
            cg.instructions.append(jump_label)
        _call_resume(cg, code, *resume)
    if code.contexts:  # the instruction raised: leave the with-blocks as their __exit__ would
        cg.instructions.append(restore_label)
        leave_contexts(cg, code.contexts)
        cg.emit("RERAISE", 0)


def _stage_frame(cg: PyCodegen, code: BreakCode) -> None:
    """Every stack value and live local into a temp, then the side effects and the cells replayed."""
    for i, value in enumerate(code.stack):
        if not isinstance(value, NullVariable) and i not in code.entered:
            cg.reconstruct(value)
            cg.store(f"___slot{i}")
    for name in sorted({name for _, _, live in code.resumes for name in live}):
        value = code.locals[name]
        if value.is_lazy() and value.source == LocalSource(name):
            cg.load_local(name)  # as Dynamo: a local the trace never looked at is passed on unguarded
        else:
            cg.reconstruct(value)
        cg.store(f"___live_{name}")
    staged = cg.stage_side_effects()
    cells = cg.stage_cells(frame_cellvars=True)  # the resume function reads the frame's cells
    cg.apply_side_effects(staged)
    cg.apply_cells(cells)


def _run_instruction(cg: PyCodegen, code: BreakCode, jump_label, restore_label) -> None:
    """The consumed slots pushed again, and the instruction (a jump now goes to jump_label)."""
    site, inst = code.site, code.instruction
    for context in code.contexts:  # the instruction runs inside the with-blocks
        cg.call(type(context).__enter__, lambda context=context: cg.load_const(context), 1)
        cg.emit("POP_TOP")
    for i in range(site.untouched, site.depth):
        if isinstance(code.stack[i], NullVariable):
            cg.emit("PUSH_NULL")
        else:
            cg.load(f"___slot{i}")
    if inst.name == "CALL":
        if code.kw_names:
            cg.emit("KW_NAMES", tuple(code.kw_names))
        cg.emit("PRECALL", inst.arg)
    if code.contexts:  # if it raises, restore_label leaves the blocks
        protected = bc.TryBegin(restore_label, push_lasti=False, stack_depth=bc.UNSET)
        cg.instructions.append(protected)
    if len(site.continuations) == 2:  # the jump now goes forward, to the second resume call
        cg.instructions.append(bc.Instr(inst.name.replace("BACKWARD", "FORWARD"), jump_label))
    else:
        cg.instructions.append(inst.copy())
    if code.contexts:
        cg.instructions.append(bc.TryEnd(protected))
    if not site.continuations:
        cg.load_const(None)
        cg.emit("RETURN_VALUE")  # unreachable: the instruction raised


def _call_resume(cg: PyCodegen, code: BreakCode, fn, depth: int, live: list) -> None:
    """Return what the resume function returns, called with the stack after the instruction and the
    live locals (and, when it continues over this frame's cells, those cells first)."""
    site = code.site
    leave_contexts(cg, code.contexts)  # the resume function enters them again
    for i in reversed(range(site.untouched, depth)):
        cg.store(f"___after{i}")

    def args():
        for i in range(depth):
            if i >= site.untouched:
                cg.load(f"___after{i}")
            elif i not in site.nulls and i not in code.entered:
                cg.load(f"___slot{i}")
        for name in live:
            cg.load(f"___live_{name}")

    nargs = depth - len(site.nulls) - len(code.entered) + len(live)
    if fn.cell_names:
        def args_after_cells():
            for name in fn.cell_names:
                cg.load_closure(name)
            cg.emit("BUILD_TUPLE", len(fn.cell_names))
            args()
        cg.call(fn.call_with_cells, args_after_cells, nargs + 1)
    else:
        cg.call(fn.fn, args, nargs)  # under the frame hook, its frame is compiled
    cg.emit("RETURN_VALUE")


def leave_contexts(cg: PyCodegen, contexts: tuple) -> None:
    """Each context's __exit__(None, None, None), innermost first."""
    for context in reversed(contexts):
        def args(context=context):
            cg.load_const(context)
            for _ in range(3):
                cg.load_const(None)
        cg.call(type(context).__exit__, args, 4)
        cg.emit("POP_TOP")
