"""Checks a code object Standin made before it may run.

CPython trusts a code object: a wrong stack size, an exception-table row with
the wrong depth or a jump out of range is not an error but a crash (the
interpreter reads and writes past its value stack).  So every code object the
engine assembles passes `check_code` first; one that fails is an internal error
naming the code object and the problem, and the frame runs eagerly instead.

What is checked, by walking every path from the first instruction and every
exception handler the exception table can enter:

- each opcode is known; jump targets and handler targets are instructions;
- the exception table's rows lie inside the code, on instruction boundaries,
  in order, with a depth the stack really has where the row applies;
- the stack depth is the same on every path into an instruction, never
  negative and never above `co_stacksize`; no path falls off the end;
- a handler that reads the instruction offset (`RERAISE n` with n > 0) was
  entered through a row with the `lasti` flag, so that slot holds one;
- constant, name, local and cell indices are in range;
- the `bytecode` package can decode it (its own checks of the format).
"""
from __future__ import annotations

import types

import bytecode as bc

from . import bytecode as layer
from .exc import InvalidCode

__all__ = ["InvalidCode", "check_code"]


def check_code(code: types.CodeType) -> types.CodeType:
    """Return `code` if it is safe to run; raise InvalidCode naming the first problem otherwise."""
    try:
        instructions = layer.raw_instructions(code)
    except Exception as error:  # dis could not even read it
        raise _invalid(code, f"cannot be decoded: {type(error).__name__}: {error}") from error
    offsets = {inst.offset: inst for inst in instructions}
    for inst in instructions:
        _check_instruction(code, inst, offsets)
    table = _checked_table(code, offsets)
    _StackWalk(code, instructions, table).run()
    try:
        bc.ConcreteBytecode.from_code(code)
    except Exception as error:
        raise _invalid(code, f"the bytecode package rejects it: {type(error).__name__}: {error}") from error
    return code


def _invalid(code: types.CodeType, problem: str, offset: int | None = None) -> InvalidCode:
    where = f" at offset {offset}" if offset is not None else ""
    return InvalidCode(f"generated code object {code.co_qualname!r} ({code.co_filename}:{code.co_firstlineno}) "
                       f"is invalid{where}: {problem}")


def _check_instruction(code: types.CodeType, inst, offsets: dict) -> None:
    if inst.opname.startswith("<"):
        raise _invalid(code, f"unknown opcode {inst.opcode}", inst.offset)
    if inst.opname == "CACHE":  # co_code shows an opcode CPython does not know as a cache entry
        raise _invalid(code, "an inline-cache entry (or an unknown opcode) where an instruction belongs",
                       inst.offset)
    target = layer.jump_target(inst)
    if target is not None and target not in offsets:
        raise _invalid(code, f"{inst.opname} jumps to {target}, which is not an instruction "
                             f"(the code is {len(code.co_code)} bytes)", inst.offset)
    index_problem = layer.operand_index_problem(code, inst)
    if index_problem is not None:
        raise _invalid(code, f"{inst.opname}: {index_problem}", inst.offset)


def _checked_table(code: types.CodeType, offsets: dict) -> tuple:
    try:
        table = layer.exception_table(code)
    except Exception as error:
        raise _invalid(code, f"the exception table cannot be read: {type(error).__name__}: {error}") from error
    size = len(code.co_code)
    previous_end = 0
    for row in table:
        text = f"exception-table row {row.start} to {row.end} -> {row.target} [depth {row.depth}]"
        if not row.start < row.end <= size:
            raise _invalid(code, f"{text} is empty or reaches past the end of the code ({size} bytes)")
        if row.start not in offsets or (row.end not in offsets and row.end != size):
            raise _invalid(code, f"{text} does not start and end on instruction boundaries")
        if row.start < previous_end:
            raise _invalid(code, f"{text} overlaps the row before it")
        if row.target not in offsets:
            raise _invalid(code, f"{text} has a handler that is not an instruction")
        previous_end = row.end
    return table


# Instructions that push and pop nothing below the top: a lasti slot under them survives.
_PURE_PUSHES = frozenset({
    "NOP", "RESUME", "CACHE", "EXTENDED_ARG", "PRECALL", "KW_NAMES", "MAKE_CELL", "COPY_FREE_VARS",
    "LOAD_FAST", "LOAD_CONST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_CLOSURE", "LOAD_CLASSDEREF",
    "LOAD_NAME", "PUSH_NULL", "LOAD_ASSERTION_ERROR", "LOAD_BUILD_CLASS", "GET_LEN",
    "WITH_EXCEPT_START", "MATCH_MAPPING", "MATCH_SEQUENCE", "MATCH_KEYS", "JUMP_FORWARD",
    "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "FOR_ITER"})
# Instructions that only pop: every slot below the new depth survives.
_ONLY_POPS = frozenset({
    "POP_TOP", "STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF", "STORE_ATTR", "STORE_SUBSCR",
    "DELETE_SUBSCR", "DELETE_ATTR", "POP_EXCEPT", "PRINT_EXPR", "IMPORT_STAR", "LIST_APPEND",
    "SET_ADD", "MAP_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE", "DICT_MERGE", "RETURN_VALUE",
    "RAISE_VARARGS", "RERAISE", "END_ASYNC_FOR", "JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP",
    *layer.POP_JUMPS})


class _StackWalk:
    """Abstract interpretation of stack depths (and where a lasti sits) over every path."""

    def __init__(self, code: types.CodeType, instructions: list, table: tuple):
        self.code = code
        self.instructions = instructions
        self.index_of = {inst.offset: i for i, inst in enumerate(instructions)}
        self.table = table
        self.states: dict[int, tuple[int, frozenset]] = {}  # instruction index -> (depth, lasti slots)
        self.pending: list[int] = []

    def run(self) -> None:
        self.reach(0, layer.initial_stack_depth(self.code), frozenset(), "the entry")
        while self.pending:
            index = self.pending.pop()
            self.step(index, *self.states[index])

    def reach(self, index: int, depth: int, lasti: frozenset, via: str) -> None:
        code = self.code
        if index >= len(self.instructions):
            raise _invalid(code, f"{via} runs past the last instruction")
        offset = self.instructions[index].offset
        if depth < 0:
            raise _invalid(code, f"the stack underflows ({depth} values) reaching it from {via}", offset)
        if depth > code.co_stacksize:
            raise _invalid(code, f"{depth} values on the stack reaching it from {via}, but co_stacksize is "
                                 f"{code.co_stacksize}", offset)
        known = self.states.get(index)
        if known is None:
            self.states[index] = (depth, lasti)
            self.pending.append(index)
        elif known[0] != depth:
            raise _invalid(code, f"reached with {known[0]} values on the stack on one path and {depth} from "
                                 f"{via}", offset)
        elif not known[1] <= lasti:  # keep only the lasti slots every path agrees on
            self.states[index] = (depth, known[1] & lasti)
            self.pending.append(index)

    def step(self, index: int, depth: int, lasti: frozenset) -> None:
        inst = self.instructions[index]
        via = f"{inst.opname} at offset {inst.offset}"
        self.check_handler(inst, depth, lasti)
        if inst.opname == "RERAISE" and inst.arg and depth - inst.arg - 1 not in lasti:
            raise _invalid(self.code, f"RERAISE {inst.arg} reads an instruction offset {inst.arg} below the "
                                      "exception, but no exception-table row with lasti put one there", inst.offset)
        target = layer.jump_target(inst)
        if target is not None:
            after = depth + layer.stack_effect(inst, jump=True)
            self.reach(self.index_of[target], after, _moved(inst, depth, after, lasti), via)
        if not layer.ends_block(inst):
            after = depth + layer.stack_effect(inst, jump=False)
            self.reach(index + 1, after, _moved(inst, depth, after, lasti), via)

    def check_handler(self, inst, depth: int, lasti: frozenset) -> None:
        row = layer.handler_at(self.table, inst.offset)
        if row is None:
            return
        if depth < row.depth:
            raise _invalid(self.code, f"{inst.opname} has {depth} values on the stack, but its exception-table "
                                      f"row (-> {row.target}) keeps {row.depth}", inst.offset)
        kept = frozenset(slot for slot in lasti if slot < row.depth)
        entry_lasti = kept | {row.depth} if row.lasti else kept
        self.reach(self.index_of[row.target], row.depth + row.lasti + 1, entry_lasti,
                   f"the exception handler of {inst.opname} at offset {inst.offset}")


def _moved(inst, before: int, after: int, lasti: frozenset) -> frozenset:
    """Where the lasti slots are after `inst` (COPY and SWAP move them; other ops overwrite the top)."""
    if not lasti:
        return lasti
    if inst.opname == "COPY":
        return lasti | {after - 1} if before - inst.arg in lasti else lasti
    if inst.opname == "SWAP":
        top, other = before - 1, before - inst.arg
        swapped = {other if slot == top else top if slot == other else slot for slot in lasti}
        return frozenset(swapped)
    if inst.opname in _PURE_PUSHES:
        return frozenset(slot for slot in lasti if slot < before)
    if inst.opname in _ONLY_POPS:
        return frozenset(slot for slot in lasti if slot < after)
    return frozenset(slot for slot in lasti if slot < min(before, after) - 1)
