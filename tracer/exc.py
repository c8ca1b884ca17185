"""Why the tracer stopped: structured reasons instead of crashes."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class UserLocation:
    """Where in the user's program something happened."""

    filename: str
    line: int | None
    function: str
    offset: int | None = None
    opname: str | None = None

    def __str__(self) -> str:
        where = f"{self.filename}:{self.line} in {self.function}"
        if self.opname:
            where += f" ({self.opname} at offset {self.offset})"
        return where


class Unsupported(RuntimeError):
    """The tracer met something it cannot put in a graph.

    Without fullgraph the frame runs eagerly (the reason is recorded);
    with fullgraph=True this reaches the user, naming the construct and line.
    A RuntimeError, as Dynamo's Unsupported is: code that guards a compiled call with
    `except RuntimeError` catches both alike.
    """

    def __init__(self, reason: str, location: UserLocation | None = None,
                 user_stack: list[UserLocation] | None = None):
        self.reason = reason
        self.location = location
        self.user_stack = user_stack or ([location] if location else [])
        super().__init__(self._message())

    def _message(self) -> str:
        if self.location is None:
            return self.reason
        if len(self.user_stack) > 1:
            frames = "\n".join(f"  {frame}" for frame in self.user_stack)
            return f"{self.reason}\n  at {self.location}\nUser stack (root first):\n{frames}"
        return f"{self.reason}\n  at {self.location}"

    def at(self, location: UserLocation, user_stack: list[UserLocation] | None = None) -> "Unsupported":
        """The same reason, pinned to the instruction that met it (first pin wins)."""
        if self.location is not None:
            return self
        error = Unsupported(self.reason, location, user_stack)
        error.__cause__ = self.__cause__
        return error


class Unresumable(Unsupported):
    """A graph break where no resume function can take the frame over (inside a try block, or
    a with-block Standin cannot enter again): as Dynamo, the graph stops at the frame's last
    checkpoint instead, and the rest of the frame runs from there as it is."""


class DataDependentBranch(Unsupported):
    """A decision on an unbacked symbol (`if u0 > 0:`): a graph break, or under fullgraph=True the
    user's to annotate with torch._check, as Dynamo says."""

    def at(self, location: UserLocation, user_stack: list[UserLocation] | None = None) -> "DataDependentBranch":
        if self.location is not None:
            return self
        error = DataDependentBranch(self.reason, location, user_stack)
        error.__cause__ = self.__cause__
        return error


class ObservedException(Unsupported):
    """The traced program raised an exception at trace time (a missing key, 1 / 0, `raise`).

    A handler in the traced code may catch it: the translator then jumps there and
    the trace goes on.  Uncaught, it is an ordinary Unsupported (the frame breaks or
    runs eagerly, so Python raises it for real).  `exception` is the real exception a
    tracker met, or the ExceptionVariable a `raise` statement threw.
    """

    def __init__(self, reason: str, exception, location: UserLocation | None = None,
                 user_stack: list[UserLocation] | None = None):
        self.exception = exception
        super().__init__(reason, location, user_stack)

    def raised_type(self) -> type:
        """The class of what was raised: an ExceptionVariable's, or the real exception's."""
        return getattr(self.exception, "exc_type", type(self.exception))

    def at(self, location: UserLocation, user_stack: list[UserLocation] | None = None) -> "ObservedException":
        if self.location is not None:
            return self
        error = ObservedException(self.reason, self.exception, location, user_stack)
        error.__cause__ = self.__cause__
        return error


def observed(error: Exception, reason: str | None = None) -> ObservedException:
    """The trace-time form of a real exception a tracker met evaluating user code."""
    return ObservedException(reason or f"{type(error).__name__}: {error} at trace time", error)


class UserError(Exception):
    """Bad input from the user of the API (not from the traced program)."""


class CacheLimitExceeded(Warning):
    """A frame recompiled cache_size_limit times and now runs eagerly."""


class InternalTracerWarning(Warning):
    """The tracer hit a bug of its own; the frame ran eagerly instead."""


class InvalidCode(Exception):
    """A code object the engine made would not run safely (a wrong stack depth, an exception-table
    row past the end, ...): an internal error caught before CPython could crash on it."""


class ScriptExit(BaseException):
    """The script under a session ended itself: `sys.exit(n)` or `os._exit(n)`.

    `status` is the process status it asked for; `how` says which call, and where.
    """

    def __init__(self, status: int, how: str):
        super().__init__(status, how)
        self.status = status
        self.how = how


class ScriptStopped(BaseException):
    """Raised inside a session's script when the user stops it.

    A BaseException, like KeyboardInterrupt, so that the script's own
    `except Exception` cannot swallow it.
    """
