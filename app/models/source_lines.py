"""Which lines of a source file hold code, so a breakpoint is only accepted where it can stop.

A line can stop the debugger only if an instruction of some code object in
the file belongs to it (blank lines, comments, a lone `else:` do not). The
answer comes from compiling the file, as a debugger's breakpoint check does;
a file that does not compile falls back to "not blank and not a comment".
"""
from __future__ import annotations

import dis
import types


def executable_lines(text: str, filename: str = "<source>") -> set[int]:
    try:
        code = compile(text, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return {number for number, line in enumerate(text.splitlines(), 1)
                if line.strip() and not line.lstrip().startswith("#")}
    lines: set[int] = set()
    pending = [code]
    while pending:
        current = pending.pop()
        lines.update(line for _, line in dis.findlinestarts(current) if line is not None and line > 0)
        pending.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return lines


def read_executable_lines(path: str) -> set[int] | None:
    """The executable lines of a file, or None when it cannot be read (then any line is accepted)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return executable_lines(handle.read(), path)
    except OSError:
        return None


__all__ = ["executable_lines", "read_executable_lines"]
