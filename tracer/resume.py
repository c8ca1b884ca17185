"""Resume functions: where a frame continues after a graph break.

A resume function is a new code object whose arguments are the values left on
the stack after the unsupported instruction ran, followed by the live locals.
It pushes those stack values and jumps to the instruction after the break; the
rest is the original bytecode.  It is compiled like any frame on its first
call, with its own frame id and guards.
"""
from __future__ import annotations

import types

import bytecode as bc

from .bytecode import (DecodedCode, JUMP_OPNAMES, decode, ends_block, handler_at, plain_function_flags, pushes_null,
                       unpack_ex_counts)
from .code_check import check_code

def successors(decoded: DecodedCode, index: int) -> list[int]:
    """The instructions control may reach right after instruction `index` (its handler too)."""
    inst = decoded.instructions[index]
    nexts = []
    if inst.target is not None:
        nexts.append(inst.target)
    if not ends_block(inst):
        nexts.append(index + 1)
    row = handler_at(decoded.exception_table, inst.offset)
    if row is not None:
        nexts.append(decoded.index_of_offset[row.target])
    return [n for n in nexts if n < len(decoded.instructions)]


def live_locals(decoded: DecodedCode, start: int) -> set[str]:
    """Plain locals that may be read before being written, from instruction `start` on."""
    instructions = decoded.instructions
    count = len(instructions)
    uses = [set() for _ in range(count)]
    defs = [set() for _ in range(count)]
    implicit_self = zero_arg_super_self(decoded.code)
    for i, inst in enumerate(instructions):
        if inst.opname in ("LOAD_FAST", "LOAD_FAST_CHECK", "DELETE_FAST"):
            uses[i].add(inst.argval)
        elif implicit_self is not None and _is_zero_arg_super(instructions, i):
            uses[i].add(implicit_self)  # what super() reads, the frame's first local
        elif inst.opname == "STORE_FAST":
            defs[i].add(inst.argval)
    live_in = [set() for _ in range(count)]
    succ = [successors(decoded, i) for i in range(count)]
    changed = True
    while changed:
        changed = False
        for i in range(count - 1, -1, -1):
            out = set().union(*(live_in[s] for s in succ[i]))
            new = (out - defs[i]) | uses[i]
            if new != live_in[i]:
                live_in[i] = new
                changed = True
    return live_in[start]


def zero_arg_super_self(code: types.CodeType) -> str | None:
    """The local a zero-argument `super()` in `code` reads (its first argument, not a cell), if any."""
    takes_args = code.co_argcount or code.co_flags & 0x04  # CO_VARARGS
    if "__class__" not in code.co_freevars or not takes_args or code.co_varnames[0] in code.co_cellvars:
        return None
    return code.co_varnames[0]


def _is_zero_arg_super(instructions, i: int) -> bool:
    """`super()`: LOAD_GLOBAL (NULL + super), then at once PRECALL 0, CALL 0."""
    inst = instructions[i]
    return inst.opname == "LOAD_GLOBAL" and inst.argval == "super" and i + 2 < len(instructions) \
        and [(x.opname, x.arg) for x in instructions[i + 1:i + 3]] == [("PRECALL", 0), ("CALL", 0)]


def _explicit_super(body: list, self_name: str) -> list:
    """A resume function's frame starts with other arguments, where a zero-argument super() looks
    for `self`: each such call becomes `super(__class__, self)`."""
    out, n = [], 0
    while n < len(body):
        item, following = body[n], body[n + 1:n + 3]
        out.append(item)
        n += 1
        if _is_library_super_call(body, n - 1):
            out += [bc.Instr("LOAD_DEREF", bc.FreeVar("__class__"), lineno=item.lineno),
                    bc.Instr("LOAD_FAST", self_name, lineno=item.lineno),
                    *(bc.Instr(x.name, 2, lineno=x.lineno) for x in following)]
            n += 2
    return out


SUPER_ARGUMENTS = 2  # what _explicit_super inserts per call: LOAD_DEREF __class__, LOAD_FAST self


def _is_library_super_call(items: list, n: int) -> bool:
    """items[n:n + 3] (the bytecode package's items) is `super()`: LOAD_GLOBAL super, PRECALL 0, CALL 0."""
    item, following = items[n], items[n + 1:n + 3]
    return isinstance(item, bc.Instr) and item.name == "LOAD_GLOBAL" and item.arg == (True, "super") \
        and all(isinstance(x, bc.Instr) for x in following) \
        and [(x.name, x.arg) for x in following] == [("PRECALL", 0), ("CALL", 0)]


def _rewritten_supers(resume_code: types.CodeType, origin_code: types.CodeType) -> list[int]:
    """Where the resume function of `origin_code` made each `super()` explicit: the calls' positions among
    the original's instructions after its MAKE_CELL / COPY_FREE_VARS, when it did (its `self` is live)."""
    self_name = zero_arg_super_self(origin_code)
    if self_name is None or self_name not in resume_code.co_varnames[:resume_code.co_argcount]:
        return []
    _, instrs = library_instructions(origin_code)
    setup = setup_instructions(origin_code)
    return [n - setup for n in range(setup, len(instrs)) if _is_library_super_call(instrs, n)]


def has_backedge(decoded: DecodedCode, index: int) -> bool:
    """True when the code after a break can jump back before it: the break is in a loop.

    As Dynamo: scan forward from the next instruction up to the first return.
    """
    for inst in decoded.instructions[index + 1:]:
        if inst.opname == "RETURN_VALUE":
            return False
        if inst.opname in JUMP_OPNAMES and inst.target < index:
            return True
    return False


def with_blocks_around(decoded: DecodedCode, index: int) -> list[int] | None:
    """The stack slots holding the `__exit__` of each with-block around instruction `index`,
    outermost first; None when a try block encloses it.

    3.11's exception table has one row per instruction, for the innermost block.  A
    with-block's row jumps to a handler that starts PUSH_EXC_INFO, WITH_EXCEPT_START, and its
    depth counts the `__exit__` below the body's stack.  The block around that one covers the
    handler's cleanup (the target of the row covering the handler), and so on outwards.
    """
    slots = []
    offset = decoded.instructions[index].offset
    while (row := handler_at(decoded.exception_table, offset)) is not None:
        handler = decoded.index_of_offset[row.target]
        opnames = [inst.opname for inst in decoded.instructions[handler:handler + 2]]
        if opnames != ["PUSH_EXC_INFO", "WITH_EXCEPT_START"]:
            return None
        slots.append(row.depth - 1)
        cleanup = handler_at(decoded.exception_table, row.target)
        if cleanup is None:
            break
        offset = cleanup.target
    return sorted(slots)


def library_instructions(code: types.CodeType) -> tuple[bc.Bytecode, list[bc.Instr]]:
    """The `bytecode` package's view of code, and its Instr objects in dis order."""
    # Each try region keeps its depth: a resume function enters mid-code, and a region it never
    # enters (code before the entry point) would otherwise get no depth at all.
    program = bc.Bytecode.from_code(code, conserve_exception_block_stackdepth=True)
    instrs = [item for item in program if isinstance(item, bc.Instr)]
    return program, instrs


def library_instruction(code: types.CodeType, decoded: DecodedCode, index: int) -> bc.Instr:
    """The bytecode package's Instr for decoded instruction `index` of `code`."""
    _, instrs = library_instructions(code)
    return instrs[decoded_index_to_library(decoded)[index]]


def origin_index(decoded: DecodedCode, target: int, origin_code: types.CodeType, prologue: int) -> int:
    """The instruction of the original code that instruction `target` of a resume function (`decoded`,
    with `prologue` instructions of its own before the copy) copies."""
    position = decoded_index_to_library(decoded)[target] - prologue
    for call in _rewritten_supers(decoded.code, origin_code):  # each inserted two instructions after it
        if call < position:
            position -= SUPER_ARGUMENTS
    return decoded_index_to_library(decode(origin_code)).index(position + setup_instructions(origin_code))


def decoded_index_to_library(decoded: DecodedCode) -> list[int]:
    """For each decoded instruction, its position among the library's Instrs (EXTENDED_ARG folds away)."""
    mapping, position = [], 0
    for inst in decoded.instructions:
        mapping.append(position)
        if inst.opname != "EXTENDED_ARG":
            position += 1
    return mapping


def make_resume_code(code: types.CodeType, decoded: DecodedCode, target: int, n_stack: int,
                     live: list[str], name: str, nulls: frozenset = frozenset(),
                     contexts: tuple = ()) -> types.CodeType:
    """The original code entered at instruction `target` with `n_stack` values on the stack.

    Stack positions in `nulls` hold the NULL of a pending call: they are pushed, not passed.
    The original's cell variables become free variables: the caller passes its own cells.
    `contexts` are (position, context manager) pairs: the resume function enters each there,
    as its with-statement did, so `__exit__` sits where the body expects it.
    """
    program, instrs = library_instructions(code)
    target_instr = instrs[decoded_index_to_library(decoded)[target]]
    label = bc.Label()
    body = []
    active = None  # the try region (exception-table row) the instruction being copied is in
    renamed = {}  # a try region split at the entry point: its rows after the split
    for item in program:
        if item is target_instr:
            body.append(label)
            if active is not None:
                # Entering mid-region: the region restarts at the label, so the path from the
                # prologue passes a TryBegin and the handler's stack depth is computed along it.
                split = bc.TryBegin(active.target, active.push_lasti, active.stack_depth)
                body[-1:] = [bc.TryEnd(active), label, split]
                renamed[active] = split
        if isinstance(item, bc.TryBegin):
            active = item
        elif isinstance(item, bc.TryEnd):
            active = None
            if item.entry in renamed:
                item = bc.TryEnd(renamed[item.entry])
        if isinstance(item, bc.Instr) and item.name in ("MAKE_CELL", "COPY_FREE_VARS"):
            continue
        if isinstance(item, bc.Instr) and isinstance(item.arg, bc.CellVar):
            item = item.copy()  # the frame's own cells arrive as this function's closure
            item.arg = bc.FreeVar(item.arg.name)
        body.append(item)
    self_name = zero_arg_super_self(code)
    if self_name is not None and self_name in live:
        body = _explicit_super(body, self_name)
    entered = dict(contexts)
    stack_names = [f"___stack{i}" for i in range(n_stack) if i not in nulls and i not in entered]
    freevars = list(program.freevars) + list(program.cellvars)
    prologue = [bc.Instr("COPY_FREE_VARS", len(freevars))] if freevars else []
    prologue.append(bc.Instr("RESUME", 0))
    for i in range(n_stack):
        if i in entered:
            prologue += [bc.Instr("LOAD_CONST", entered[i]), bc.Instr("BEFORE_WITH"), bc.Instr("POP_TOP")]
        else:
            prologue.append(bc.Instr("PUSH_NULL") if i in nulls else bc.Instr("LOAD_FAST", f"___stack{i}"))
    prologue.append(bc.Instr("JUMP_FORWARD", label))
    resumed = bc.Bytecode(prologue + body)
    resumed.name = name
    resumed.qualname = name
    resumed.filename = program.filename
    resumed.first_lineno = program.first_lineno
    resumed.freevars = freevars
    resumed.argnames = stack_names + list(live)
    resumed.argcount = len(resumed.argnames)
    resumed.flags = plain_function_flags(program.flags)
    # The rows keep the original's depths: at the entry point the stack is laid out as the original's
    # is there, and the bytecode package would measure a region restarted mid-expression from the
    # values pending on the stack, not from the block's own depth.
    return check_code(resumed.to_code(compute_exception_stack_depths=False))


def original_from(code: types.CodeType, decoded: DecodedCode, target: int) -> list:
    """A jump to instruction `target` and the original code after it (its try regions too), for a
    frame that goes on as it is from a point with an empty stack and no open block."""
    program, instrs = library_instructions(code)
    target_instr = instrs[decoded_index_to_library(decoded)[target]]
    label = bc.Label()
    items = [bc.Instr("JUMP_FORWARD", label)]
    for item in program:
        if isinstance(item, bc.Instr) and item.name in ("MAKE_CELL", "COPY_FREE_VARS", "RESUME") \
                and item is not target_instr:
            continue
        if item is target_instr:
            items.append(label)
        items.append(item)
    return items


def setup_instructions(code: types.CodeType) -> int:
    """How many MAKE_CELL / COPY_FREE_VARS open the code (a resume function drops them)."""
    _, instrs = library_instructions(code)
    count = 0
    for instr in instrs:
        if instr.name not in ("MAKE_CELL", "COPY_FREE_VARS"):
            break
        count += 1
    return count


ENTER_CONTEXT_LENGTH = 3  # LOAD_CONST context, BEFORE_WITH, POP_TOP


def resume_prologue_length(code: types.CodeType, n_stack: int, nulls: frozenset = frozenset(),
                           contexts: tuple = ()) -> int:
    """Instructions a resume function puts before the original code (see make_resume_code)."""
    return bool(code.co_freevars or code.co_cellvars) + 1 + n_stack + (ENTER_CONTEXT_LENGTH - 1) * len(contexts) + 1


# How many values an instruction leaves for the code after it, for the opcodes a graph
# break can stop at and resume after.  Anything else (entering a with-block, comprehension
# internals, stack shuffles) is not resumable: its frame runs eagerly.
_NO_RESULT = frozenset({"STORE_ATTR", "DELETE_ATTR", "STORE_GLOBAL", "DELETE_GLOBAL", "STORE_SUBSCR",
                        "DELETE_SUBSCR", "STORE_NAME", "DELETE_NAME", "POP_TOP", "IMPORT_STAR",
                        "PRINT_EXPR", "DELETE_FAST", "STORE_FAST"})
_ONE_RESULT = frozenset({"BINARY_OP", "BINARY_SUBSCR", "COMPARE_OP", "IS_OP", "CONTAINS_OP",
                         "UNARY_NEGATIVE", "UNARY_POSITIVE", "UNARY_INVERT", "UNARY_NOT", "GET_ITER",
                         "LOAD_ATTR", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CONST",
                         "LOAD_FAST", "BUILD_TUPLE", "BUILD_LIST", "BUILD_SET", "BUILD_MAP",
                         "BUILD_CONST_KEY_MAP", "BUILD_STRING", "BUILD_SLICE", "FORMAT_VALUE",
                         "IMPORT_NAME", "CALL_FUNCTION_EX", "MAKE_FUNCTION", "LIST_TO_TUPLE",
                         "LOAD_ASSERTION_ERROR", "GET_LEN", "LOAD_BUILD_CLASS"})


def results_of(inst) -> int | None:
    if inst.opname in _NO_RESULT:
        return 0
    if inst.opname in _ONE_RESULT:
        if pushes_null(inst):
            return None  # it pushes a NULL too
        return 1
    if inst.opname == "UNPACK_SEQUENCE":
        return inst.arg
    if inst.opname == "UNPACK_EX":
        before, after = unpack_ex_counts(inst)
        return before + after + 1
    if inst.opname == "IMPORT_FROM":
        return 2  # the module stays below the imported name
    return None
