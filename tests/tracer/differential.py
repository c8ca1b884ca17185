"""Differential test harness: eager Python vs. our tracer vs. real TorchDynamo.

Style of byterun's differential tests, with torch.compile as a third party that
decides what the *right* graphs, recompiles and guard failures are.

A case is a function plus a list of calls.  Before a call a *mutation* may run
(rebind a global, set an attribute of a global object, ...); argument changes
(shape / dtype / int value) are simply expressed by the call's own arguments.
The whole call sequence is run three times, each time starting from the same
snapshot of the function's module globals (and of the instance attributes of
plain objects stored in those globals), which is restored afterwards:

1. eagerly                                   -> reference outputs
2. ``tracer.compile(fn, backend=counter)``   -> our engine
3. ``torch.compile(fn, backend=counter, dynamic=False)`` after
   ``torch._dynamo.reset()``                 -> reference graphs / recompiles

(``dynamic=`` is the case's, False unless it says otherwise; both engines get the same.)

Checked per call:
* output equals eager (tensors: ``torch.testing.assert_close``; containers and
  constants structurally, with exact types),
* number of backend calls (graphs) made by the call equals Dynamo's,
* whether the call (re)compiled equals Dynamo's, and the event kind
  ("compile" for the first, "recompile" after).  Dynamo: the number of times
  ``ConvertFrame`` was entered for the function's code object during the call
  (this includes frames whose graph is empty; Dynamo then installs no cache
  entry and marks the code object as skipped, so it never recompiles it --
  we translate that to our event kinds as ["compile", "eager_fallback"]);
  tracer: the call's ``opt.compile_events`` (kinds other than "cache_hit"),
* the op list of each graph equals Dynamo's: each call's op, target and
  arguments (node names normalised: see ``differential_compare``),
* on a recompile, for each cache entry, the guard Dynamo reports as failing
  (``torch._dynamo.utils.guard_failures``) is one of our guards that fail: its
  source, kind and expected value, and for a tensor the attribute that changed
  (``differential_compare.reason_problems``).

The Dynamo run also validates the case itself: no graph breaks, every frame
compiled ok, at most one graph per compile, outputs equal eager, and the
optional ``compiles=`` pattern (e.g. ``"C.C"``: compile, cache hit, recompile).

On failure the report contains ``dis.dis(fn)``, both sides' graph code, and
the tracer's cache entries with their guards and compile events.

Writing a case (see test_diff_*.py)::

    CASES = []

    @case(CASES, call(T(3), 1), call(T(3), 1, mutate=set_attr("cfg.scale", 3)), compiles="CC")
    def f(x, n):
        return x * cfg.scale + n

    test_something = parametrize(CASES)

Cases must compile under Dynamo without graph breaks (one graph per compile).

Program state.  ``@case(..., state=lambda: (LOG, cfg.acc))`` snapshots (deep
copy; tensors cloned, plain objects by their attributes) whatever the function
mutates after every call; the three runs must agree on it.  The arguments of
every call are compared after the call as well (in-place ops on inputs).
Every run starts from the same initial state: globals are rebound, and global
lists / dicts (and dict subclasses: Counters, ...) / sets / plain objects / nn.Modules (attributes, parameters, buffers),
user classes' attributes, user functions' defaults and the values of every
reachable tensor are restored in place before each run and after the last (a
tensor whose shape, dtype or strides changed in place gets them back too), and so
are torch's default dtype, grad mode and deterministic-algorithms switches.

Modules.  ``module_case(CASES, "mlp", net, call(T(2, 4)), ...)`` compares
``torch.compile(net)`` with ``tracer.compile(net)``; ``net`` should also be
a global of the test file so that mutations (``set_attr("net.flag", 0)``) can
reach it.  ``same_placeholders=True`` also compares the graph inputs: their number, and
which are symbols (``torch.SymInt``) and which tensors, in order.

Dynamic shapes.  ``@case(..., dynamic=None)`` (or True) compiles both engines with that
``dynamic=``; the default False keeps every size static.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import dis
import io
import re
import sys
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

import tracer
from differential_compare import failing_guards, op_list, op_list_problems, reason_problems  # noqa: F401


# --------------------------------------------------------------------------
# case description
# --------------------------------------------------------------------------

Mutation = Callable[[dict], None]


@dataclass
class Call:
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    mutate: Mutation | None = None  # runs right before this call, gets fn.__globals__

    def describe(self) -> str:
        parts = [_short(a) for a in self.args]
        parts += [f"{k}={_short(v)}" for k, v in self.kwargs.items()]
        s = f"({', '.join(parts)})"
        if self.mutate is not None:
            s = f"[{getattr(self.mutate, 'desc', 'mutate')}] " + s
        return s


def call(*args, mutate: Mutation | None = None, **kwargs) -> Call:
    return Call(args=args, kwargs=kwargs, mutate=mutate)


def set_global(name: str, value: Any) -> Mutation:
    def m(g: dict) -> None:
        g[name] = value

    m.desc = f"{name} = {_short(value)}"
    return m


def set_attr(path: str, value: Any) -> Mutation:
    """set_attr("cfg.scale", 3) sets attribute ``scale`` of global ``cfg``."""
    head, *mid, last = path.split(".")

    def m(g: dict) -> None:
        obj = g[head]
        for a in mid:
            obj = getattr(obj, a)
        setattr(obj, last, value)

    m.desc = f"{path} = {_short(value)}"
    return m


def mutate_with(fn: Mutation, desc: str) -> Mutation:
    """An arbitrary mutation (e.g. an in-place change of a global list)."""
    fn.desc = desc
    return fn


def chain(*muts: Mutation) -> Mutation:
    def m(g: dict) -> None:
        for mu in muts:
            mu(g)

    m.desc = "; ".join(getattr(mu, "desc", "mutate") for mu in muts)
    return m


_gen = torch.Generator().manual_seed(1234)


def T(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:  # noqa: N802 - as every case writes it
    """Deterministic random tensor."""
    t = torch.randn(*shape, generator=_gen)
    return t.to(dtype)


@dataclass
class Case:
    fn: Callable  # a Python function or an nn.Module instance
    calls: list[Call]
    compiles: str | None = None  # e.g. "C..C": C = (re)compile on that call, . = cache hit
    state: Callable[[], Any] | None = None  # snapshot of mutated program state, after each call
    same_placeholders: bool = False  # also compare the number of graph inputs with Dynamo's
    case_name: str | None = None
    globals: dict | None = None  # the globals mutations get (default: fn.__globals__)
    dynamic: bool | None = False  # torch.compile's dynamic= for both Dynamo and the tracer (None: automatic)
    fullgraph: bool = False  # torch.compile's fullgraph= for both: a graph break is then an error

    @property
    def name(self) -> str:
        return self.case_name or self.fn.__name__

    @property
    def is_module(self) -> bool:
        return isinstance(self.fn, torch.nn.Module)

    @property
    def g(self) -> dict:
        return self.globals if self.globals is not None else self.fn.__globals__

    @property
    def pyfunc(self) -> Callable:
        """The Python function whose bytecode runs (a module's forward)."""
        if self.is_module:
            return type(self.fn).forward
        return self.fn


def case(registry: list, *calls: Call, compiles: str | None = None, state=None,
         same_placeholders: bool = False, dynamic: bool | None = False, name: str | None = None,
         fullgraph: bool = False):
    """Decorator: register ``fn`` with its calls in ``registry``; returns fn unchanged.

    ``dynamic`` is passed as ``torch.compile(dynamic=...)`` to both Dynamo and the tracer
    (False, the default, keeps every size static; None is automatic dynamic); ``fullgraph`` likewise."""

    def deco(fn):
        registry.append(Case(fn, list(calls), compiles, state, same_placeholders, name, dynamic=dynamic,
                             fullgraph=fullgraph))
        return fn

    return deco


def module_case(registry: list, name: str, module: torch.nn.Module, *calls: Call,
                compiles: str | None = None, state=None, same_placeholders: bool = False,
                dynamic: bool | None = False) -> None:
    """Register an nn.Module instance as the callable under test (its globals for
    mutations and restoring are the calling test file's)."""
    g = sys._getframe(1).f_globals
    registry.append(Case(module, list(calls), compiles, state, same_placeholders, name, g, dynamic=dynamic))


def parametrize(registry: list):
    """Build the pytest test function for a registry of cases."""

    @pytest.mark.parametrize("c", registry, ids=[c.name for c in registry])
    def test_differential(c: Case) -> None:
        check_case(c)

    return test_differential


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def _short(v: Any) -> str:
    if isinstance(v, torch.Tensor):
        return f"T{tuple(v.shape)}:{str(v.dtype).replace('torch.', '')}"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(_short(x) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner}{',' if len(v) == 1 else ''})"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {_short(x)}" for k, x in v.items()) + "}"
    r = repr(v)
    return r if len(r) < 40 else r[:37] + "..."


def _copy_arg(v: Any, memo: dict | None = None) -> Any:
    """A fresh copy of a call's argument (the three runs must not share what a
    call mutates): tensors cloned, containers and plain objects copied deeply;
    modules, functions and other objects are passed as they are.  One object
    reached twice (the same tensor as two arguments) is one copy (`memo`)."""
    memo = {} if memo is None else memo
    if id(v) in memo:
        return memo[id(v)][1]
    new = _copy_new(v, memo)
    memo[id(v)] = (v, new)  # the original is kept alive: its id stays its own
    return new


def _copy_new(v: Any, memo: dict) -> Any:
    if isinstance(v, torch.Tensor):
        new = v.clone()  # with the attributes it holds itself: mark_dynamic's markers, `x.tag = ...`
        new.__dict__.update({k: copy.copy(x) for k, x in vars(v).items()})
        return new
    if _is_plain_object(v) and not isinstance(v, (Case, Call)):
        new = copy.copy(v)
        d = vars(new)
        for k, x in vars(v).items():
            d[k] = _copy_arg(x, memo)
        return new
    if isinstance(v, list):
        return [_copy_arg(x, memo) for x in v]
    if isinstance(v, tuple) and type(v) is tuple:
        return tuple(_copy_arg(x, memo) for x in v)
    if isinstance(v, tuple) and hasattr(type(v), "_fields"):  # a namedtuple: its tensors copied too
        return type(v)(*(_copy_arg(x, memo) for x in v))
    if isinstance(v, dict):
        return {k: _copy_arg(x, memo) for k, x in v.items()}
    if type(v) is set:
        return set(v)
    return v


def _is_plain_object(v: Any) -> bool:
    """Instances of user classes whose attributes a mutation may change."""
    if isinstance(v, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
                      torch.Tensor, torch.nn.Module)):
        return False
    d = getattr(v, "__dict__", None)
    return (isinstance(d, dict) or bool(_slot_names(type(v)))) and type(v).__module__ not in ("builtins",) and \
        not type(v).__module__.startswith(("torch", "pytest", "_pytest"))


def _slot_names(cls: type) -> list[str]:
    """The __slots__ members of cls and its bases (an object of such a class may have no __dict__)."""
    names = []
    for klass in cls.__mro__:
        slots = vars(klass).get("__slots__", ())
        names += [slots] if isinstance(slots, str) else [n for n in slots if n not in ("__dict__", "__weakref__")]
    return names


def _attributes(v: Any) -> dict:
    """An object's attributes: its __dict__ and the slots it has filled."""
    attrs = dict(vars(v)) if hasattr(v, "__dict__") else {}
    for name in _slot_names(type(v)):
        if hasattr(v, name):
            attrs[name] = getattr(v, name)
    return attrs


def _set_attributes(v: Any, attrs: dict) -> None:
    """Put back what _attributes read: the __dict__ as it was, each slot filled or emptied."""
    slots = _slot_names(type(v))
    if hasattr(v, "__dict__"):
        vars(v).clear()
        vars(v).update({name: value for name, value in attrs.items() if name not in slots})
    for name in slots:
        if name in attrs:
            object.__setattr__(v, name, attrs[name])
        elif hasattr(v, name):
            object.__delattr__(v, name)


class _GlobalsSnapshot:
    """The initial program state of a case, restorable in place.

    Globals are rebound; lists, dicts, plain objects and nn.Modules reachable from
    the globals (a few levels deep) get their contents / attributes back; user
    classes of the test file get their class attributes back, user functions their
    defaults; every reachable tensor gets its values back (``copy_``), so in-place
    updates of buffers and global tensors are undone too.  Object identities are
    kept: guards on ids (modules, objects) see the same objects in every run.
    """

    MAX_DEPTH = 6

    def __init__(self, g: dict, extra_roots: tuple = ()):
        self.g = g
        self.items = dict(g)
        self.seen: set[int] = set()
        self.attrs: list[tuple[Any, dict]] = []
        self.lists: list[tuple[list, list]] = []
        self.dicts: list[tuple[dict, dict]] = []
        self.tensors: list[tuple[torch.Tensor, torch.Tensor]] = []
        self.sets: list[tuple[set, set]] = []
        self.classes: list[tuple[type, dict]] = []
        self.functions: list[tuple[types.FunctionType, Any, Any]] = []
        self.torch_state = _torch_state()
        modname = g.get("__name__")
        for k, v in g.items():
            if k.startswith("__"):
                continue
            if isinstance(v, type) and v.__module__ == modname:
                self.classes.append((v, dict(vars(v))))
            elif isinstance(v, types.FunctionType) and v.__module__ == modname:
                self.functions.append((v, v.__defaults__, v.__kwdefaults__))
            else:
                self._walk(v, 0)
        for r in extra_roots:
            self._walk(r, 0)

    def _walk(self, v: Any, depth: int) -> None:
        if depth > self.MAX_DEPTH or id(v) in self.seen:
            return
        if isinstance(v, torch.Tensor):
            self.seen.add(id(v))
            self.tensors.append((v, v.detach().clone()))
            return
        if type(v) is tuple:
            for x in v:
                self._walk(x, depth + 1)
            return
        if isinstance(v, (Case, Call)):
            return
        if type(v) is list:
            self.seen.add(id(v))
            self.lists.append((v, list(v)))
            for x in v:
                self._walk(x, depth + 1)
        elif type(v) is set:
            self.seen.add(id(v))
            self.sets.append((v, set(v)))
        elif isinstance(v, dict):  # a Counter, a dict subclass of the test file's: their items as dict's
            self.seen.add(id(v))
            self.dicts.append((v, dict(dict.items(v))))
            for x in list(v.values()):
                self._walk(x, depth + 1)
        elif isinstance(v, torch.nn.Module) or _is_plain_object(v):
            self.seen.add(id(v))
            self.attrs.append((v, _attributes(v)))
            for x in list(_attributes(v).values()):
                self._walk(x, depth + 1)

    def restore(self) -> None:
        for k in list(self.g):
            # names a mutation added; leave underscore names alone (Dynamo installs
            # helpers like __builtins_dict___0 into the function's globals)
            if k not in self.items and not k.startswith("_"):
                del self.g[k]
        self.g.update(self.items)
        for obj, attrs in self.attrs:
            _set_attributes(obj, attrs)
        for obj, content in self.lists:
            obj[:] = content
        for obj, content in self.dicts:  # dict's own methods: a subclass's update may add (Counter) or refuse
            base = collections.OrderedDict if isinstance(obj, collections.OrderedDict) else dict
            base.clear(obj)
            base.update(obj, content)
        for obj, content in self.sets:
            obj.clear()
            obj.update(content)
        _set_torch_state(self.torch_state)
        for cls, content in self.classes:
            for k in list(vars(cls)):
                if k not in content:
                    delattr(cls, k)
            for k, v in content.items():
                if vars(cls).get(k, _MISSING) is not v:
                    setattr(cls, k, v)
        for fn, defaults, kwdefaults in self.functions:
            fn.__defaults__ = defaults
            fn.__kwdefaults__ = kwdefaults
        with torch.no_grad():
            for t, saved in self.tensors:
                if (t.shape, t.dtype, t.stride()) == (saved.shape, saved.dtype, saved.stride()):
                    t.copy_(saved)  # in place: views of it see the old values again
                else:  # resized, retyped or restrided in place: its metadata comes back too
                    t.data = saved.clone()
                    if (t.shape, t.dtype, t.stride()) != (saved.shape, saved.dtype, saved.stride()):
                        raise AssertionError(f"could not restore a tensor of shape {tuple(saved.shape)}")


_MISSING = object()


def _torch_state() -> tuple:
    """The process-wide switches a case may change between calls (its graphs depend on them)."""
    return (torch.get_default_dtype(), torch.is_grad_enabled(), torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled())


def _set_torch_state(state: tuple) -> None:
    dtype, grad, deterministic, warn_only = state
    torch.set_default_dtype(dtype)
    torch.set_grad_enabled(grad)
    torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)


@dataclass
class _ObjSnap:
    """A frozen plain object (its class and attributes), compared structurally."""
    cls: type
    attrs: dict


def _freeze(v: Any, depth: int = 0) -> Any:
    """A deep snapshot of an output / program state: tensors cloned, containers
    copied, plain objects turned into _ObjSnap."""
    if depth > 8:
        return v
    if isinstance(v, torch.Tensor):
        return v.detach().clone()
    if type(v) is list:
        return [_freeze(x, depth + 1) for x in v]
    if type(v) is tuple:
        return tuple(_freeze(x, depth + 1) for x in v)
    if isinstance(v, tuple) and hasattr(type(v), "_fields"):
        return type(v)(*(_freeze(x, depth + 1) for x in v))
    if type(v) in (dict, collections.OrderedDict):
        return type(v)((k, _freeze(x, depth + 1)) for k, x in v.items())
    if type(v) is set:
        return set(v)  # a copy: the live set changes in the next call
    if _is_plain_object(v) and not isinstance(v, (Case, Call)):
        attrs = {k: _freeze(x, depth + 1) for k, x in vars(v).items()}
        base = next((b for b in (dict, list, tuple, set, frozenset) if isinstance(v, b)), None)
        if base is not None and type(v).__module__ != "collections":  # a user container subclass: its items too
            attrs["<items>"] = set(v) if base in (set, frozenset) else _freeze(base(v), depth + 1)
        return _ObjSnap(type(v), attrs)
    return v


def assert_same(actual: Any, expected: Any, path: str = "out") -> None:
    """Structural equality; tensors via assert_close; exact container/const types."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, torch.Tensor), f"{path}: expected Tensor, got {type(actual).__name__}"
        torch.testing.assert_close(actual, expected, msg=lambda m: f"{path}: {m}")
        return
    if type(expected).__module__ == "numpy" and hasattr(expected, "dtype"):  # an ndarray or a NumPy scalar
        assert type(actual) is type(expected), (
            f"{path}: type {type(actual).__name__} != expected {type(expected).__name__}")
        import numpy
        numpy.testing.assert_allclose(actual, expected, rtol=1.3e-6, atol=1e-5, err_msg=path)
        assert actual.dtype == expected.dtype, f"{path}: dtype {actual.dtype} != {expected.dtype}"
        return
    if isinstance(expected, _ObjSnap):
        assert isinstance(actual, _ObjSnap) and actual.cls is expected.cls, (
            f"{path}: expected a {expected.cls.__name__} object, got {actual!r}")
        assert list(actual.attrs) == list(expected.attrs), (
            f"{path}: attributes {list(actual.attrs)} != {list(expected.attrs)}")
        for k in expected.attrs:
            assert_same(actual.attrs[k], expected.attrs[k], f"{path}.{k}")
        return
    assert type(actual) is type(expected), (
        f"{path}: type {type(actual).__name__} != expected {type(expected).__name__} "
        f"({actual!r} vs {expected!r})")
    if isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), f"{path}: len {len(actual)} != {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{path}[{i}]")
    elif isinstance(expected, dict):
        assert list(actual.keys()) == list(expected.keys()), (
            f"{path}: keys {list(actual.keys())} != {list(expected.keys())}")
        for k in expected:
            assert_same(actual[k], expected[k], f"{path}[{k!r}]")
    elif isinstance(expected, float) and expected != expected:
        assert actual != actual, f"{path}: {actual!r} != nan"
    else:
        assert actual == expected, f"{path}: {actual!r} != expected {expected!r}"


class CountingBackend:
    def __init__(self) -> None:
        self.graphs: list[torch.fx.GraphModule] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs):
        self.graphs.append(gm)
        return gm.forward


@dataclass
class CallRecord:
    output: Any = None
    error: BaseException | None = None
    graphs: list = field(default_factory=list)  # GraphModules produced during this call
    compiled: bool = False
    kinds: list = field(default_factory=list)  # tracer: event kinds; dynamo: derived
    reasons: list = field(default_factory=list)
    args_after: Any = None  # (args, kwargs) frozen after the call (in-place ops on inputs)
    state: Any = None  # the case's state() frozen after the call
    state_error: BaseException | None = None
    inputs: tuple = ((), {})  # (args, kwargs) the call gets
    failing: dict = field(default_factory=dict)  # tracer: entry index -> every guard of it failing at the call


@dataclass
class RunRecord:
    calls: list[CallRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # validity problems of this run
    notes: str = ""  # extra diagnostics for the report (tracer: cache entries and guards)


def _graph_code(gm: torch.fx.GraphModule) -> str:
    try:
        return gm.code.strip()
    except Exception as e:  # pragma: no cover - diagnostic only
        return f"<no code: {e}>"


# --------------------------------------------------------------------------
# the three runners
# --------------------------------------------------------------------------


def snapshot(c: Case) -> _GlobalsSnapshot:
    return _GlobalsSnapshot(c.g, (c.fn,) if c.is_module else ())


def _run_sequence(c: Case, invoke: Callable, before=None, after=None,
                  snap: _GlobalsSnapshot | None = None) -> RunRecord:
    g = c.g
    if snap is None:
        snap = snapshot(c)
    else:
        snap.restore()
    rec = RunRecord()
    try:
        for cl in c.calls:
            if cl.mutate is not None:
                cl.mutate(g)
            cr = CallRecord()
            memo: dict = {}  # one object passed twice stays one copy
            args, kwargs = _copy_arg(cl.args, memo), _copy_arg(cl.kwargs, memo)
            cr.inputs = (args, kwargs)
            if before:
                before(cr)
            try:
                cr.output = _freeze(invoke(*args, **kwargs))
            except Exception as e:  # recorded, reported by the comparison
                cr.error = e
            if after:
                after(cr)
            cr.args_after = _freeze((args, kwargs))
            if c.state is not None:
                try:
                    cr.state = _freeze(c.state())
                except Exception as e:
                    cr.state_error = e
            rec.calls.append(cr)
    finally:
        snap.restore()
    return rec


def run_eager(c: Case, snap: _GlobalsSnapshot | None = None) -> RunRecord:
    return _run_sequence(c, c.fn, snap=snap)


@contextlib.contextmanager
def _watch_convert_frame(code: types.CodeType, fullgraph: bool = False):
    """Count Dynamo's frame conversions of ``code`` (also those whose graph is empty).

    ``counters["frames"]["total"]`` is not usable per function: it also counts
    unrelated frames that run while the eval-frame callback is set (e.g. import
    hooks on the first compile).  So we wrap ``ConvertFrame.__call__`` and keep
    only the frames of the function under test.  Under fullgraph=True Dynamo's callback is
    the ConvertFrameAssert that ConvertFrame otherwise wraps.
    """
    from torch._dynamo.convert_frame import ConvertFrame, ConvertFrameAssert

    watched = ConvertFrameAssert if fullgraph else ConvertFrame

    seen = {"n": 0, "failed": 0}
    orig = watched.__call__

    def wrapped(self, frame, *args, **kwargs):
        if frame.f_code is not code:
            return orig(self, frame, *args, **kwargs)
        seen["n"] += 1
        try:
            return orig(self, frame, *args, **kwargs)
        except BaseException:
            seen["failed"] += 1
            raise

    watched.__call__ = wrapped
    try:
        yield seen
    finally:
        watched.__call__ = orig


def _first_failure(reason: str) -> str:
    """Dynamo guard-failure text "0/0: G['cfg'].scale == 2   # src ..." -> "0/0: G['cfg'].scale == 2"
    (the entry it is about and the guard)."""
    first = reason.strip().splitlines()[0] if reason.strip() else ""
    first = re.sub(r"^\s*-?\s*(\d+/\d+:)\s*", r"\1 ", first)
    return first.split("  #")[0].strip()


def _dynamo_code(c: Case, opt: Any) -> types.CodeType:
    """The code object Dynamo converts for the case: the function's; a module's
    forward; for a module whose forward lives in torch (nn.Sequential) Dynamo
    converts the wrapper ``external_utils.wrap_inline(forward)``."""
    if not c.is_module:
        # a function whose code is torch's (a @torch.no_grad() wrapper): Dynamo converts the
        # external_utils wrapper it puts around it, which calls it inline
        fn = opt
        for _ in range(5):
            code = getattr(fn, "__code__", None)
            if code is not None and code.co_filename.endswith("external_utils.py"):
                return code
            fn = getattr(fn, "__wrapped__", None)
            if fn is None:
                break
        return c.fn.__code__
    fwd = opt.__dict__.get("forward")
    for _ in range(5):  # dynamo's _fn -> wrap_inline's inner -> the bound forward
        if fwd is None:
            break
        code = getattr(fwd, "__code__", None)
        if code is not None and code.co_filename.endswith("external_utils.py"):
            return code
        fwd = getattr(fwd, "__wrapped__", None)
    return type(c.fn).forward.__code__


def run_dynamo(c: Case, snap: _GlobalsSnapshot | None = None) -> RunRecord:
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list
    from torch._dynamo.utils import guard_failures

    backend = CountingBackend()
    torch._dynamo.reset()
    counters.clear()
    opt = torch.compile(c.fn, backend=backend, dynamic=c.dynamic, fullgraph=c.fullgraph)
    code = _dynamo_code(c, opt)
    state = {"frames": 0, "graphs": 0, "fail": 0, "compiles_so_far": 0}
    rec_problems: list[str] = []
    with _watch_convert_frame(code, c.fullgraph) as seen:
        def before(cr):
            state["frames"] = seen["n"]
            state["graphs"] = len(backend.graphs)
            state["fail"] = len(guard_failures.get(code, ()))
            state["entries"] = len(_debug_get_cache_entry_list(code))

        def after(cr):
            n = seen["n"] - state["frames"]
            cr.graphs = backend.graphs[state["graphs"]:]
            cr.compiled = n > 0
            if n > 1:
                rec_problems.append(f"one call converted the frame {n} times")
            if n:
                cr.kinds = ["compile" if state["compiles_so_far"] == 0 else "recompile"]
                state["compiles_so_far"] += 1
                if len(_debug_get_cache_entry_list(code)) == state["entries"]:
                    # converted but no cache entry installed: Dynamo skipped the code
                    # object (e.g. "no content in function call", an empty graph) and
                    # runs it eagerly from now on -- our tracer's "eager_fallback"
                    cr.kinds.append("eager_fallback")
            cr.reasons = [_first_failure(r) for r in guard_failures.get(code, [])[state["fail"]:]]
            if len(cr.graphs) > n:
                rec_problems.append(f"{len(cr.graphs)} graphs for {n} compiled frame(s)")

        try:
            rec = _run_sequence(c, opt, before, after, snap=snap)
        finally:
            breaks = {k: v for k, v in counters["graph_break"].items()}
            torch._dynamo.reset()
    rec.problems.extend(rec_problems)
    if breaks:
        rec.problems.append(f"Dynamo graph breaks: {breaks}")
    if seen["failed"]:
        rec.problems.append(f"Dynamo failed to convert the frame {seen['failed']} time(s)")
    return rec


def run_tracer(c: Case, snap: _GlobalsSnapshot | None = None) -> RunRecord:
    backend = CountingBackend()
    tracer.reset()
    opt = tracer.compile(c.fn, backend=backend, dynamic=c.dynamic, fullgraph=c.fullgraph)
    state = {"events": 0, "graphs": 0}

    def before(cr):
        state["events"] = len(opt.compile_events)
        state["graphs"] = len(backend.graphs)
        cr.failing = failing_guards(opt, *cr.inputs)

    def after(cr):
        evs = list(opt.compile_events)[state["events"]:]
        cr.graphs = backend.graphs[state["graphs"]:]
        cr.kinds = [e.kind for e in evs]
        cr.compiled = any(e.kind in ("compile", "recompile") for e in evs)
        cr.reasons = [f"{e.kind}: {e.reason}" for e in evs if e.reason]

    try:
        rec = _run_sequence(c, opt, before, after, snap=snap)
        rec.notes = _describe_entries(opt)
        return rec
    finally:
        tracer.reset()


def _describe_entries(opt: Any) -> str:
    """The tracer's cache entries with their guards, for the failure report."""
    lines = []
    try:
        for e in opt.cache_entries:
            lines.append(f"  entry {getattr(e, 'compile_id', '?')}: graphs={len(getattr(e, 'graphs', []))}"
                         f" eager_reason={getattr(e, 'eager_reason', None)!r}")
            for gd in getattr(e, "guards", []):
                lines.append(f"    {getattr(gd, 'kind', '?'):<16} {getattr(gd, 'expr', gd)}")
        for ev in opt.compile_events:
            lines.append(f"  event {ev.kind} {getattr(ev, 'compile_id', '')} {getattr(ev, 'reason', None)!r}")
    except Exception as ex:  # diagnostics must never hide the real failure
        lines.append(f"  <could not describe cache entries: {ex!r}>")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# comparison
# --------------------------------------------------------------------------

def output_problem(actual: CallRecord, expected: CallRecord, raises: bool = False) -> str | None:
    """What differs in a call's outcome; with `raises`, a call may raise: then the other side
    must raise the same exception (type and args)."""
    if expected.error is not None and raises:
        if actual.error is None:
            return f"returned {actual.output!r}, eager raised {expected.error!r}"
        if type(actual.error) is not type(expected.error) or actual.error.args != expected.error.args:
            return f"raised {actual.error!r}, eager raised {expected.error!r}"
        return None
    if expected.error is not None:
        return f"eager raised {expected.error!r}"
    if actual.error is not None:
        return f"raised {type(actual.error).__name__}: {actual.error}"
    try:
        assert_same(actual.output, expected.output)
    except AssertionError as e:
        return f"wrong output: {e}"
    return None


def state_problems(actual: CallRecord, expected: CallRecord, who: str, i: int,
                    has_state: bool) -> list[str]:
    out = []
    try:
        assert_same(actual.args_after, expected.args_after, "args")
    except AssertionError as e:
        out.append(f"call {i}: {who} arguments after the call differ from eager: {e}")
    if has_state:
        if expected.state_error is not None:
            out.append(f"call {i}: eager state() raised {expected.state_error!r}")
        elif actual.state_error is not None:
            out.append(f"call {i}: {who} state() raised {actual.state_error!r}")
        else:
            try:
                assert_same(actual.state, expected.state, "state")
            except AssertionError as e:
                out.append(f"call {i}: {who} program state after the call differs from eager: {e}")
    return out


def _placeholders(gm: torch.fx.GraphModule) -> list[str]:
    return [n.name for n in gm.graph.nodes if n.op == "placeholder"]


def placeholder_kinds(gm: torch.fx.GraphModule) -> list[str]:
    """Per graph input, in order: "SymInt" (a symbol: a size or an int argument) or "Tensor"."""
    return ["SymInt" if isinstance(n.meta.get("example_value"), torch.SymInt) else "Tensor"
            for n in gm.graph.nodes if n.op == "placeholder"]


def _format_report(c: Case, title: str, problems: list[str], runs: dict[str, RunRecord]) -> str:
    out = io.StringIO()
    print(f"==== {title}: {c.name} ====", file=out)
    for p in problems:
        print(f"  * {p}", file=out)
    print("\n---- calls ----", file=out)
    for i, cl in enumerate(c.calls):
        print(f"  call {i}: {cl.describe()}", file=out)
    print(f"\n---- dis.dis({c.name}) ----", file=out)
    try:
        dis.dis(c.pyfunc, file=out)
    except Exception as e:  # pragma: no cover - diagnostic only
        print(f"<no bytecode: {e}>", file=out)
    for side, rec in runs.items():
        print(f"\n---- {side} graphs ----", file=out)
        for i, cr in enumerate(rec.calls):
            print(f"  call {i}: compiled={cr.compiled} kinds={cr.kinds} "
                  f"graphs={len(cr.graphs)} reasons={cr.reasons}"
                  + (f" ERROR={cr.error!r}" if cr.error is not None else ""), file=out)
            for gm in cr.graphs:
                print("    " + _graph_code(gm).replace("\n", "\n    "), file=out)
        if rec.notes:
            print(f"---- {side} cache entries / events ----", file=out)
            print(rec.notes, file=out)
    return out.getvalue()


@dataclass
class Result:
    eager: RunRecord
    dynamo: RunRecord
    tracer: RunRecord


def check_case(c: Case) -> Result:
    snap = snapshot(c)  # the one initial state every run starts from
    eager = run_eager(c, snap)
    dyn = run_dynamo(c, snap)

    # ---- validity of the case itself (eager vs Dynamo) ----
    invalid = list(dyn.problems)
    for i, (d, e) in enumerate(zip(dyn.calls, eager.calls)):
        p = output_problem(d, e)
        if p:
            invalid.append(f"call {i}: Dynamo {p}")
        invalid.extend(state_problems(d, e, "Dynamo", i, c.state is not None))
    if c.compiles is not None:
        got = "".join("C" if d.compiled else "." for d in dyn.calls)
        if got != c.compiles:
            invalid.append(f"Dynamo compile pattern {got!r} != case's compiles={c.compiles!r}")
    if invalid:
        raise AssertionError(_format_report(c, "INVALID CASE (eager vs Dynamo)", invalid,
                                            {"dynamo": dyn}))

    tr = run_tracer(c, snap)
    problems: list[str] = []
    for i, (t, d, e) in enumerate(zip(tr.calls, dyn.calls, eager.calls)):
        p = output_problem(t, e)
        if p:
            problems.append(f"call {i}: tracer {p}")
        problems.extend(state_problems(t, e, "tracer", i, c.state is not None))
        if t.compiled != d.compiled:
            problems.append(f"call {i}: tracer compiled={t.compiled} (events {t.kinds}), "
                            f"Dynamo compiled={d.compiled}")
        else:
            tk = [k for k in t.kinds if k not in ("cache_hit",)]
            if tk != d.kinds:
                problems.append(f"call {i}: tracer events {t.kinds}, expected {d.kinds}")
        if len(t.graphs) != len(d.graphs):
            problems.append(f"call {i}: tracer made {len(t.graphs)} graph(s), "
                            f"Dynamo {len(d.graphs)}")
        else:
            for j, (tg, dg) in enumerate(zip(t.graphs, d.graphs)):
                problems.extend(op_list_problems(f"call {i} graph {j}", tg, dg, c.is_module))
                if c.same_placeholders and placeholder_kinds(tg) != placeholder_kinds(dg):
                    problems.append(f"call {i} graph {j}: graph inputs {placeholder_kinds(tg)}, "
                                    f"Dynamo {placeholder_kinds(dg)}\n"
                                    f"      tracer: {_placeholders(tg)}\n"
                                    f"      dynamo: {_placeholders(dg)}")
        if d.reasons and t.compiled:
            # our reason states the guard Dynamo saw fail, entry by entry (differential_compare)
            problems.extend(reason_problems(f"call {i}", d.reasons, t.failing, t.reasons, c.is_module))
    if problems:
        raise AssertionError(_format_report(c, "TRACER DIFFERS FROM DYNAMO", problems,
                                            {"tracer": tr, "dynamo": dyn}))
    return Result(eager, dyn, tr)


def check_case_against_eager(c: Case) -> RunRecord:
    """For a construct real Dynamo 2.13 itself gets wrong: only eager is the reference.

    Per call: the output, the arguments and the state after it equal eager's; with
    ``compiles=`` the tracer's own compile pattern ("C" a compile or recompile).
    """
    snap = snapshot(c)
    eager = run_eager(c, snap)
    tr = run_tracer(c, snap)
    problems: list[str] = []
    for i, (t, e) in enumerate(zip(tr.calls, eager.calls)):
        p = output_problem(t, e)
        if p:
            problems.append(f"call {i}: tracer {p}")
        problems.extend(state_problems(t, e, "tracer", i, c.state is not None))
    if c.compiles is not None:
        got = "".join("C" if t.compiled else "." for t in tr.calls)
        if got != c.compiles:
            problems.append(f"tracer compile pattern {got!r} != case's compiles={c.compiles!r}")
    if problems:
        raise AssertionError(_format_report(c, "TRACER DIFFERS FROM EAGER", problems, {"tracer": tr}))
    return tr


def parametrize_against_eager(registry: list):
    """The pytest test function for cases compared with eager only (see check_case_against_eager)."""

    @pytest.mark.parametrize("c", registry, ids=[c.name for c in registry])
    def test_against_eager(c: Case) -> None:
        check_case_against_eager(c)

    return test_against_eager
