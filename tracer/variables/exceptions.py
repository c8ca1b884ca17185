"""ExceptionVariable: an exception object the traced program made or met at trace time.

It lets `try/except` run symbolically: `raise` throws one, the handler the
exception table names receives it, `except E as e` binds it, and `e.args`,
`str(e)` or `isinstance(e, E)` read it without a real exception ever existing.
"""
from __future__ import annotations

import inspect
import itertools
import types
from dataclasses import dataclass, field, replace

from ..exc import Unsupported, observed
from .base import VariableTracker
from .constant import ConstantVariable
from .lists import TupleVariable
from .get_attr import GetAttrVariable
from .misc import UserDefinedClassVariable
from .user_functions import UserFunctionVariable

_exception_ids = itertools.count()

# Methods a user exception class may not define for us to model it: we would have to run them.
_BEHAVIOUR = ("__new__", "__init__", "__str__", "__repr__", "__getattribute__", "__getattr__",
              "__setattr__", "__eq__", "__hash__")


_CHAIN = ("__cause__", "__context__")


def _links_an_exception(value: VariableTracker) -> bool:
    """What __cause__ and __context__ accept: an exception object, or None."""
    return isinstance(value, ExceptionVariable) or (value.is_python_constant() and value.as_python_constant() is None)


def is_exception_class(value) -> bool:
    return isinstance(value, type) and issubclass(value, BaseException)


def plain_exception_class(cls: type, allowed: tuple = ()) -> bool:
    """True when every behaviour of cls is a builtin exception's (but the `allowed` ones)."""
    for klass in cls.__mro__:
        if klass.__module__ == "builtins":
            continue
        if any(isinstance(vars(klass).get(name), (types.FunctionType, classmethod, staticmethod))
               for name in _BEHAVIOUR if name not in allowed):
            return False
    return True


def python_init(cls: type):
    """The Python __init__ an exception class defines (on itself or a user base), if any."""
    init = inspect.getattr_static(cls, "__init__")
    return init if isinstance(init, types.FunctionType) else None


def as_exception(var: VariableTracker) -> "ExceptionVariable | None":
    """What `raise var` throws: the exception itself, or an instance of its class."""
    if isinstance(var, ExceptionVariable):
        return var
    if isinstance(var, UserDefinedClassVariable) and is_exception_class(var.value):
        return ExceptionVariable.construct(var.value, [], {})
    return None


# builtin exceptions whose __init__ does more than `self.args = args` (OSError's errno, StopIteration's value)
_OWN_INITS = (OSError, StopIteration, StopAsyncIteration, SystemExit, ImportError, SyntaxError, UnicodeError,
              AttributeError, NameError, BaseExceptionGroup)


def is_base_exception_init(fn) -> bool:
    """`Exception.__init__` (the slot of a builtin exception that only sets `args`), as a user
    __init__ reaches it through super() or by name."""
    owner = getattr(fn, "__objclass__", None)
    return getattr(fn, "__name__", None) == "__init__" and isinstance(owner, type) and \
        issubclass(owner, BaseException) and owner.__module__ == "builtins" and not issubclass(owner, _OWN_INITS)


def init_exception(tx, exception, args, kwargs) -> VariableTracker:
    """BaseException.__init__(exception, *args): its args become `args`; the trackers of it are swapped
    for the new version wherever the trace holds them (trackers are immutable)."""
    exception = exception.realize()
    if kwargs:
        error = TypeError(f"{exception.exc_type.__name__}() takes no keyword arguments")
        raise observed(error, f"TypeError: {error}")
    new = replace(exception, args=tuple(args))
    tx.replace_tracker(exception, new)
    tx.output.side_effects.exception_versions[exception.exc_id] = new
    return ConstantVariable(None)


@dataclass(frozen=True, eq=False)
class ExceptionInitVariable(VariableTracker):
    """`super().__init__` of an exception made in the trace, bound to it."""

    exception: VariableTracker = None

    def call_function(self, tx, args, kwargs):
        return init_exception(tx, self.exception, args, kwargs)


@dataclass(frozen=True, eq=False)
class ExceptionVariable(VariableTracker):
    """`exc_type(*args)`; exc_id is its identity.  Its chaining (__context__, __cause__,
    __suppress_context__) lives in the side-effects record, as any attribute of an object made in
    the trace: a `raise` links the one object every name of it sees."""

    exc_type: type = BaseException
    args: tuple = ()
    exc_id: int = field(default_factory=lambda: next(_exception_ids))

    @staticmethod
    def construct(cls: type, args: list, kwargs: dict, tx=None) -> "ExceptionVariable":
        """What calling the exception class does: BaseException.__new__ keeps the positional
        arguments as `args`; a Python __init__ of the class is traced on the new object (its
        attribute writes recorded), as Dynamo traces it."""
        init = python_init(cls)
        if init is not None and tx is not None and plain_exception_class(cls, allowed=("__init__",)):
            exception = ExceptionVariable(exc_type=cls, args=tuple(args))
            versions = tx.output.side_effects.exception_versions
            UserFunctionVariable(init).call_function(tx, [exception, *args], dict(kwargs))
            return versions.pop(exception.exc_id, exception)  # its super().__init__ gave it new args
        if kwargs:
            raise Unsupported(f"{cls.__name__}() with keyword arguments")
        if not plain_exception_class(cls):
            raise Unsupported(f"constructing {cls.__qualname__}, which defines its own methods")
        return ExceptionVariable(exc_type=cls, args=tuple(args))

    @staticmethod
    def from_real(tx, error: BaseException) -> "ExceptionVariable":
        """The tracker of a real exception a tracker met (its args are plain Python values)."""
        return ExceptionVariable(exc_type=type(error), args=tuple(VariableTracker.build(tx, a) for a in error.args))

    def python_type(self) -> type:
        return self.exc_type

    def identity(self):
        return ("exception", self.exc_id)

    def as_python_constant(self):
        """A fresh equal exception, so that str(e), repr(e) and == fold like constants (of a class with
        its own __init__, made by BaseException.__new__ alone: that __init__ ran in the trace)."""
        if not plain_exception_class(self.exc_type, allowed=("__init__",)):
            raise Unsupported(f"{self.exc_type.__qualname__} is not a plain exception class")
        args = [a.as_python_constant() for a in self.args]
        if python_init(self.exc_type) is not None:
            return self.exc_type.__new__(self.exc_type, *args)
        return self.exc_type(*args)

    def is_new(self) -> bool:
        return True  # made in the trace: attributes its __init__ set live in the side-effects record

    def store_attr(self, tx, name, value):
        if name in ("args", "__traceback__"):
            raise Unsupported(f"assigning {name} of the exception {self.exc_type.__name__}")
        if name in _CHAIN:
            value = value.realize()
            if not _links_an_exception(value):
                raise observed(TypeError(f"exception {name[2:-2]} must be None or derive from BaseException"),
                               f"assigning {value.describe()} to {name} of an exception")
        elif name == "__suppress_context__":
            if not value.realize().is_python_constant():
                raise Unsupported(f"assigning {value.describe()} to __suppress_context__")
            value = ConstantVariable(bool(value.as_python_constant()))
        record = tx.output.side_effects
        record.store_attr(self, self.identity(), name, value)
        if name == "__cause__":  # as BaseException's setter: a cause given hides the context
            record.store_attr(self, self.identity(), "__suppress_context__", ConstantVariable(True))

    def var_getattr(self, tx, name):
        stored = tx.output.side_effects.load_attr(self.identity(), name)
        if stored is not None:
            return stored
        if name == "args":
            return TupleVariable(self.args)
        if name == "__class__":
            return VariableTracker.build(tx, self.exc_type)
        if name in _CHAIN:
            return ConstantVariable(None)
        if name == "__suppress_context__":
            return ConstantVariable(False)
        if name == "__traceback__":
            return ConstantVariable(None)  # the trace has no real frames to point at
        if name == "with_traceback":
            return GetAttrVariable(self, name)
        if name == "add_note" or not hasattr(self.exc_type, name):
            raise Unsupported(f"attribute {name!r} of the exception {self.exc_type.__name__}")
        attr = inspect.getattr_static(self.exc_type, name)
        if isinstance(attr, (int, float, str, bool, type(None))):  # a plain class-level constant
            return ConstantVariable(attr)
        raise Unsupported(f"attribute {name!r} of the exception {self.exc_type.__name__}")

    def call_method(self, tx, name, args, kwargs):
        if name == "with_traceback" and len(args) == 1 and not kwargs and args[0].is_python_constant() \
                and args[0].as_python_constant() is None:
            return self  # the trace's exceptions carry no traceback: dropping it leaves the same exception
        return super().call_method(tx, name, args, kwargs)

    def raised_from(self, tx, cause: "ExceptionVariable | None") -> None:
        """`raise self from cause` (cause None: `from None`)."""
        self.store_attr(tx, "__cause__", cause if cause is not None else ConstantVariable(None))

    def raised_while(self, tx, handled: "ExceptionVariable | None") -> None:
        """Raised while `handled` was being handled: as CPython, self's context becomes `handled`,
        after cutting the link in handled's context chain that led back to self (no cycle)."""
        if handled is None or handled.exc_id == self.exc_id:
            return
        record = tx.output.side_effects
        seen, node = set(), handled
        while isinstance(node, ExceptionVariable) and node.exc_id not in seen:
            seen.add(node.exc_id)
            following = node.var_getattr(tx, "__context__")
            if isinstance(following, ExceptionVariable) and following.exc_id == self.exc_id:
                record.store_attr(node, node.identity(), "__context__", ConstantVariable(None))
                break
            node = following
        record.store_attr(self, self.identity(), "__context__", handled)

    def children(self):
        return [(f"args[{i}]", a) for i, a in enumerate(self.args)]

    def replace_children(self, swap):
        return replace(self, args=tuple(swap(a) for a in self.args))

    def short_repr(self) -> str:
        return f"{self.exc_type.__name__}({', '.join(a.short_repr() for a in self.args)})"
