"""Raising and catching inside the trace: the exception opcodes and the 3.11 exception table.

An exception the traced program raises (a KeyError from a dict lookup, a
`raise` of its own) is an ObservedException carrying an ExceptionVariable.
The translator that sees it looks up its frame's exception table, as CPython
does, and jumps to the handler; a frame without one passes it to its caller,
whose CALL may be covered by a handler of its own.  Nothing catches it: the
trace breaks there and Python raises it for real.

The exception being handled (CPython's exc_info) lives on the root translator:
like the thread state, it is shared by every frame of the trace.
"""
from __future__ import annotations

from .bytecode import handler_at
from .exc import ObservedException, Unsupported
from .variables.constant import ConstantVariable
from .variables.ctx_manager import exit_through_exception
from .variables.exceptions import ExceptionVariable, as_exception


class ExceptionOpcodes:
    """The part of InstructionTranslator that raises, catches and re-raises."""

    def handle_exception(self, error: ObservedException) -> bool:
        """Jump to the handler the exception table names for the current instruction, as
        CPython does: cut the stack to the entry's depth, push lasti if asked, then the
        exception.  False when this frame has no handler there."""
        offset = self.current.offset
        entry = handler_at(self.decoded.exception_table, offset)
        if entry is None:
            return False
        exception = error.exception
        if not isinstance(exception, ExceptionVariable):
            exception = ExceptionVariable.from_real(self, exception)
        del self.stack[entry.depth:]
        if entry.lasti:
            self.push(ConstantVariable(offset))
        self.push(exception)
        self.ip = self.decoded.index_of_offset[entry.target]
        on_exception = getattr(self.hook, "on_exception", None)
        if on_exception is not None:  # the debugger marks the step the handler starts at
            on_exception(self, exception, entry.target)
        return True

    def RAISE_VARARGS(self, inst):
        if inst.arg == 0:
            if self.root.exc_info is None:
                raise ObservedException("bare raise with no active exception",
                                        RuntimeError("No active exception to reraise"))
            raise ObservedException(f"{self.root.exc_info.short_repr()} re-raised", self.root.exc_info)
        cause = self.pop().realize() if inst.arg == 2 else None
        thrown = self.pop().realize()
        exception = as_exception(thrown)
        if exception is None:
            raise Unsupported(f"raising {thrown.describe()}")
        if inst.arg == 2:  # raise ... from cause (an exception, its class, or None)
            linked = as_exception(cause)
            if linked is None and not (cause.is_python_constant() and cause.as_python_constant() is None):
                raise Unsupported(f"raise ... from {cause.describe()}")
            exception.raised_from(self, linked)
        exception.raised_while(self, self.root.exc_info)
        raise ObservedException(f"{exception.short_repr()} raised in the traced code", exception)

    def RERAISE(self, inst):
        exception = self.pop()  # an oparg names lasti below it, for tracebacks: not modelled
        raise ObservedException(f"{exception.short_repr()} re-raised", exception)

    def PUSH_EXC_INFO(self, inst):
        exception = self.pop()
        previous = self.root.exc_info
        self.push(previous if previous is not None else ConstantVariable(None))
        self.push(exception)
        self.root.exc_info = exception

    def POP_EXCEPT(self, inst):
        previous = self.pop()
        self.root.exc_info = previous if isinstance(previous, ExceptionVariable) else None

    def CHECK_EXC_MATCH(self, inst):
        classes = self.pop().realize()
        exception = self.stack[-1]
        try:
            wanted = classes.as_python_constant()
        except Unsupported:
            raise Unsupported(f"except clause naming {classes.describe()}") from None
        self.push(ConstantVariable(issubclass(exception.python_type(), wanted)))

    def WITH_EXCEPT_START(self, inst):
        # stack: __exit__, lasti, the previous exception, the exception; what __exit__ returns decides
        # whether the exception goes on (the next instruction tests it)
        self.push(exit_through_exception(self, self.stack[-4].realize(), self.stack[-1]))
