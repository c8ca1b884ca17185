"""The bytecode layer: CPython 3.11 code objects as plain instruction records.

Everything that depends on the interpreter's version lives here, so the
translator speaks only of instructions, offsets, jump targets and positions.
"""
from __future__ import annotations

import dis
import functools
import inspect
import sys
import types
from dataclasses import dataclass, field

if sys.version_info[:2] != (3, 11):  # pragma: no cover - guarded at import
    raise ImportError("Standin's tracer decodes CPython 3.11 bytecode only")


@dataclass(frozen=True, slots=True)
class Positions:
    """Source span of one instruction (1-based lines, 0-based columns)."""

    lineno: int | None
    end_lineno: int | None
    col_offset: int | None
    end_col_offset: int | None


@dataclass(frozen=True, slots=True)
class ExceptionTableEntry:
    """One row of 3.11's exception table: instructions in [start, end) jump to target."""

    start: int
    end: int
    target: int
    depth: int
    lasti: bool


@dataclass(frozen=True, slots=True)
class Instruction:
    """One decoded instruction.

    offset: byte offset in co_code; index: position in the decoded list.
    arg: the raw oparg; argval: its resolved meaning (a name, a constant, an
    absolute jump target, ...); argrepr: how `dis` prints it.
    line: the source line it belongs to; positions: its exact source span.
    target: for jumps, the index of the instruction it may jump to.
    """

    index: int
    offset: int
    opname: str
    opcode: int
    arg: int | None
    argval: object
    argrepr: str
    line: int | None
    positions: Positions
    is_jump_target: bool
    target: int | None = None


@dataclass(frozen=True)
class DecodedCode:
    """A code object with its instructions and the lookups the translator needs."""

    code: types.CodeType
    instructions: tuple[Instruction, ...]
    exception_table: tuple[ExceptionTableEntry, ...]
    index_of_offset: dict = field(repr=False)

    def at_offset(self, offset: int) -> Instruction:
        return self.instructions[self.index_of_offset[offset]]


JUMP_OPNAMES = frozenset(dis.opname[op] for op in dis.hasjrel + dis.hasjabs)
UNCONDITIONAL_JUMPS = frozenset({"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"})
POP_JUMPS = frozenset(name for name in JUMP_OPNAMES if name.startswith("POP_JUMP_"))
JUMP_IF_OR_POP = frozenset({"JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP"})  # pops only when it falls through
# Instructions after which control never reaches the next one.
TERMINATORS = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"}) | UNCONDITIONAL_JUMPS


@functools.lru_cache(maxsize=1024)
def decode(code: types.CodeType) -> DecodedCode:
    """Decode a code object once; the result is immutable and shared."""
    raw = list(dis.get_instructions(code, show_caches=False))
    index_of_offset = {inst.offset: i for i, inst in enumerate(raw)}
    line = code.co_firstlineno
    records = []
    for i, inst in enumerate(raw):
        if inst.starts_line is not None:
            line = inst.starts_line
        pos = inst.positions
        target = None
        if inst.opname in JUMP_OPNAMES:
            target = index_of_offset[inst.argval]
        records.append(
            Instruction(
                index=i,
                offset=inst.offset,
                opname=inst.opname,
                opcode=inst.opcode,
                arg=inst.arg,
                argval=inst.argval,
                argrepr=inst.argrepr,
                line=pos.lineno if pos and pos.lineno is not None else line,
                positions=Positions(
                    pos.lineno if pos else None,
                    pos.end_lineno if pos else None,
                    pos.col_offset if pos else None,
                    pos.end_col_offset if pos else None,
                ),
                is_jump_target=inst.is_jump_target,
                target=target,
            )
        )
    return DecodedCode(code, tuple(records), exception_table(code), index_of_offset)


def exception_table(code: types.CodeType) -> tuple[ExceptionTableEntry, ...]:
    """The rows of a code object's exception table, in offset order."""
    return tuple(ExceptionTableEntry(e.start, e.end, e.target, e.depth, e.lasti)
                 for e in dis._parse_exception_table(code))


def handler_at(table, offset: int) -> ExceptionTableEntry | None:
    """The row whose handler catches an exception raised by the instruction at `offset` (3.11 has
    one row per instruction: the innermost block's)."""
    return next((row for row in table if row.start <= offset < row.end), None)


@dataclass(frozen=True, slots=True)
class RawInstruction:
    """An instruction as the bytes say, no operand resolved: readable even in a broken code object."""

    offset: int
    opcode: int
    opname: str
    arg: int | None


def raw_instructions(code: types.CodeType) -> list[RawInstruction]:
    """Every instruction of co_code (EXTENDED_ARG included, inline caches skipped)."""
    return [RawInstruction(offset, op, dis.opname[op], arg) for offset, op, arg in dis._unpack_opargs(code.co_code)]


def jump_target(inst) -> int | None:
    """The offset a jump instruction may go to (None for other instructions), as dis computes it."""
    if inst.opcode in dis.hasjabs:
        return inst.arg * 2
    if inst.opcode in dis.hasjrel:
        backward = "BACKWARD" in inst.opname
        return inst.offset + 2 + (-inst.arg if backward else inst.arg) * 2
    return None


def ends_block(inst) -> bool:
    """Whether control never falls through to the next instruction."""
    return inst.opname in TERMINATORS


def stack_effect(inst, *, jump: bool = False) -> int:
    """Net change of the stack depth, on the jump (jump=True) or the fall-through path."""
    arg = inst.arg if inst.opcode >= dis.HAVE_ARGUMENT else None
    return dis.stack_effect(inst.opcode, arg, jump=jump)


def initial_stack_depth(code: types.CodeType) -> int:
    """3.11 resumes a new generator with the value sent to it on the stack (its first POP_TOP pops it)."""
    return 1 if is_generator_code(code) else 0


def local_slots(code: types.CodeType) -> int:
    """How many "fast locals plus" slots a frame has: locals, then cells that are not arguments, then free
    variables (the operand of LOAD_DEREF / LOAD_CLOSURE / MAKE_CELL indexes these)."""
    return code.co_nlocals + sum(name not in code.co_varnames for name in code.co_cellvars) + len(code.co_freevars)


def operand_index_problem(code: types.CodeType, inst) -> str | None:
    """What is wrong with an operand that indexes one of the code object's tables, or None."""
    arg, op = inst.arg, inst.opcode
    if arg is None:
        return None
    if op in dis.hasconst:
        if not 0 <= arg < len(code.co_consts):
            return f"constant {arg} of {len(code.co_consts)}"
        if inst.opname == "KW_NAMES" and not _all_strings(code.co_consts[arg]):
            return f"keyword names {code.co_consts[arg]!r} are not a tuple of str"
    elif op in dis.hasname:
        index = arg >> 1 if inst.opname == "LOAD_GLOBAL" else arg
        if not 0 <= index < len(code.co_names):
            return f"name {index} of {len(code.co_names)}"
    elif op in dis.haslocal and not 0 <= arg < code.co_nlocals:
        return f"local {arg} of {code.co_nlocals}"
    elif op in dis.hasfree and not 0 <= arg < local_slots(code):
        return f"cell or free variable slot {arg} of {local_slots(code)}"
    elif op in dis.hascompare and not 0 <= arg < len(dis.cmp_op):
        return f"comparison {arg} of {len(dis.cmp_op)}"
    elif inst.opname == "BINARY_OP" and not 0 <= arg < len(dis._nb_ops):
        return f"operator {arg} of {len(dis._nb_ops)}"
    return None


# ---- operands whose bits carry meaning, and code flags (CPython 3.11) ------------------------------

@dataclass(frozen=True, slots=True)
class FunctionParts:
    """What MAKE_FUNCTION pops below the code object, as its oparg's flag bits say (in pop order)."""

    closure: bool
    annotations: bool
    kwdefaults: bool
    defaults: bool


def function_parts(inst) -> FunctionParts:
    return FunctionParts(closure=bool(inst.arg & 0x08), annotations=bool(inst.arg & 0x04),
                         kwdefaults=bool(inst.arg & 0x02), defaults=bool(inst.arg & 0x01))


def annotation_pairs(items) -> tuple:
    """MAKE_FUNCTION's annotations (a flat tuple: name, annotation, name, annotation, ...) as
    (name, annotation tracker) pairs."""
    return tuple((name.as_python_constant(), value) for name, value in zip(items[0::2], items[1::2]))


def format_conversion(inst) -> tuple:
    """FORMAT_VALUE's (conversion: None, str, repr or ascii; whether a format spec is on the stack)."""
    return inst.argval  # dis decodes the oparg into exactly this pair


def unpack_ex_counts(inst) -> tuple[int, int]:
    """UNPACK_EX's (names before the starred one, names after it)."""
    return inst.arg & 0xFF, inst.arg >> 8


def pushes_null(inst) -> bool:
    """Whether LOAD_GLOBAL also pushes the NULL a CALL of the global expects below it."""
    return inst.opname == "LOAD_GLOBAL" and bool(inst.arg & 1)


def has_kwargs_mapping(inst) -> bool:
    """Whether CALL_FUNCTION_EX has a mapping of keyword arguments on top of its positional ones."""
    return bool(inst.arg & 1)


VAR_PARAMETER_FLAGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def has_var_parameters(code: types.CodeType) -> bool:
    """Whether the code takes *args or **kwargs."""
    return bool(code.co_flags & VAR_PARAMETER_FLAGS)


def is_generator_code(code: types.CodeType) -> bool:
    """Whether calling the code makes a generator, coroutine or async generator instead of running it."""
    return bool(code.co_flags & GENERATOR_FLAGS)


def plain_function_flags(flags: int) -> int:
    """`flags` for a code object made from another whose parameters are all plain positional ones and
    that runs when called (a resume function, rewritten code with its own argument list)."""
    return flags & ~(VAR_PARAMETER_FLAGS | inspect.CO_GENERATOR)


def _all_strings(value) -> bool:
    return isinstance(value, tuple) and all(isinstance(item, str) for item in value)
