"""The bytecode layer: CPython 3.11 code objects as plain instruction records.

Everything that depends on the interpreter's version lives here, so the
translator speaks only of instructions, offsets, jump targets and positions.
"""
from __future__ import annotations

import dis
import functools
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

# BINARY_OP's oparg indexes this table (CPython's Include/opcode.h NB_* order).
BINARY_OP_SYMBOLS: tuple[str, ...] = tuple(symbol for _, symbol in dis._nb_ops)


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
    table = tuple(
        ExceptionTableEntry(e.start, e.end, e.target, e.depth, e.lasti)
        for e in dis._parse_exception_table(code)
    )
    return DecodedCode(code, tuple(records), table, index_of_offset)


def argument_names(code: types.CodeType) -> tuple[str, ...]:
    """Names of the parameters, in frame order (positional, kw-only, *args, **kwargs)."""
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    return code.co_varnames[:count]
