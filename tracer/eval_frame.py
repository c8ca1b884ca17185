"""The public entry: a compiled function, its cache entries and its compile events.

`compile(fn)` returns a CompiledFunction.  Each call binds the arguments into
the frame's locals, checks every cache entry's guards (newest first) and runs
the first that holds; when none does, it traces the frame again and records
which guard failed.  A frame the tracer cannot handle runs eagerly from then
on, with the reason recorded.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import time
import types
import warnings
import weakref
from dataclasses import dataclass, field

import torch
import torch.fx

from .exc import CacheLimitExceeded, InternalTracerWarning, Unsupported, UserError
from .guards import GuardSet
from .output_graph import OutputGraph
from .rebuild import FramePlan, PlanBuilder, run_frame
from .source import Source
from .symbolic_convert import InstructionTranslator

_frame_ids: dict[types.CodeType, int] = {}
_frame_counter = itertools.count()
_live: "weakref.WeakSet[CompiledFunction]" = weakref.WeakSet()


def frame_id(code: types.CodeType) -> int:
    """Dynamo numbers frames in the order they are first compiled: the `0` of `[0/1]`."""
    if code not in _frame_ids:
        _frame_ids[code] = next(_frame_counter)
    return _frame_ids[code]


@dataclass
class CompileEvent:
    kind: str  # "compile", "recompile", "eager_fallback", "cache_limit"
    compile_id: str | None
    reason: str | None
    time: float = field(default_factory=time.time)
    duration_s: float | None = None

    def __str__(self) -> str:
        text = f"[{self.compile_id}] {self.kind}" if self.compile_id else self.kind
        return f"{text}: {self.reason}" if self.reason else text


@dataclass
class CacheEntry:
    compile_id: str
    guards: GuardSet
    graphs: list[torch.fx.GraphModule]
    input_sources: list[Source]
    plan: FramePlan | None
    compiled: object = None  # what the backend returned
    eager_reason: str | None = None
    code: types.CodeType | None = None
    hits: int = 0

    def run(self, fn, f_locals: dict, f_globals: dict, args, kwargs):
        self.hits += 1
        if self.eager_reason is not None:
            return fn(*args, **kwargs)
        inputs = [source.get_value(f_locals, f_globals) for source in self.input_sources]
        outputs = self.compiled(*inputs) if self.compiled is not None else ()
        return run_frame(self.plan, outputs, f_locals, f_globals)


def _eager_backend(gm: torch.fx.GraphModule, example_inputs):
    return gm.forward


def resolve_backend(backend):
    if backend == "eager":
        return _eager_backend
    if callable(backend):
        return backend
    raise UserError(f"backend must be 'eager' or a callable backend(gm, example_inputs), got {backend!r}")


class CompiledFunction:
    """What `tracer.compile(fn)` returns: call it like fn; inspect its cache."""

    def __init__(self, fn, backend="eager", fullgraph=False, cache_size_limit=8):
        if not callable(fn):
            raise UserError(f"tracer.compile() needs a Python function, got {type(fn).__name__} {fn!r}")
        self.module = fn if isinstance(fn, torch.nn.Module) else None
        if self.module is not None:
            fn = self.module.forward
        self.bound_self = None
        if isinstance(fn, types.MethodType):
            self.bound_self, fn = fn.__self__, fn.__func__
        if not isinstance(fn, types.FunctionType):
            raise UserError(f"tracer.compile() needs a Python function with bytecode; "
                            f"{fn!r} is a {type(fn).__name__} (a builtin or C function has none)")
        if not isinstance(cache_size_limit, int) or cache_size_limit < 1:
            raise UserError(f"cache_size_limit must be a positive int, got {cache_size_limit!r}")
        if fn.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
            raise UserError(f"{fn.__qualname__} is a generator or coroutine; only plain functions compile")
        self.fn = fn
        self.code = fn.__code__
        self.backend = resolve_backend(backend)
        self.fullgraph = fullgraph
        self.cache_size_limit = cache_size_limit
        self.cache_entries: list[CacheEntry] = []
        self.compile_events: list[CompileEvent] = []
        self.hook = None  # the debugger attaches here
        self._signature = inspect.signature(fn)
        self._simple_args = self.code.co_varnames[: self.code.co_argcount] \
            if not (self.code.co_flags & 0x0C) and not self.code.co_kwonlyargcount else None
        self._call_original = fn if self.bound_self is None else functools.partial(fn, self.bound_self)
        self._warned_limit = False
        functools.update_wrapper(self, fn)
        _live.add(self)

    # ---- calling ----------------------------------------------------------------------
    def bind(self, args, kwargs) -> dict | None:
        """The frame's initial locals, or None when Python itself would reject the call."""
        if self.bound_self is not None:
            args = (self.bound_self, *args)
        names = self._simple_args
        if names is not None and not kwargs and len(args) == len(names):
            f_locals = dict(zip(names, args))
        else:
            try:
                bound = self._signature.bind(*args, **kwargs)
            except TypeError:
                return None
            bound.apply_defaults()
            f_locals = dict(bound.arguments)
        if self.fn.__closure__:
            for name, cell in zip(self.code.co_freevars, self.fn.__closure__):
                try:
                    f_locals[name] = cell.cell_contents
                except ValueError:
                    pass
        return f_locals

    def __call__(self, *args, **kwargs):
        f_locals = self.bind(args, kwargs)
        if f_locals is None:
            return self._call_original(*args, **kwargs)  # raises the TypeError Python would raise
        if self.module is not None and _has_hooks(self.module):
            if not any(e.kind == "eager_fallback" and "hooks" in (e.reason or "") for e in self.compile_events):
                self.compile_events.append(CompileEvent(
                    "eager_fallback", None, f"{type(self.module).__qualname__} has hooks registered: "
                    "the module runs eagerly so that they run"))
            return self.module(*args, **kwargs)

        f_globals = self.fn.__globals__
        for entry in reversed(self.cache_entries):
            if entry.guards.check(f_locals, f_globals):
                return entry.run(self._call_original, f_locals, f_globals, args, kwargs)
        return self._miss(f_locals, f_globals, args, kwargs)

    def __getattr__(self, name):
        """A compiled module still answers as the module (train(), parameters(), ...)."""
        module = self.__dict__.get("module")
        if module is None:
            raise AttributeError(name)
        return getattr(module, name)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    # ---- compiling ----------------------------------------------------------------------
    def _miss(self, f_locals, f_globals, args, kwargs):
        fid = frame_id(self.code)
        compile_id = f"{fid}/{len(self.cache_entries)}"
        if len(self.cache_entries) >= self.cache_size_limit:
            reason = (f"cache_size_limit ({self.cache_size_limit}) reached for {self.code.co_name}; "
                      f"running eagerly. Last failure: {self.failure_reasons(f_locals, f_globals)}")
            self.compile_events.append(CompileEvent("cache_limit", None, reason))
            if not self._warned_limit:
                warnings.warn(reason, CacheLimitExceeded, stacklevel=3)
                self._warned_limit = True
            return self._call_original(*args, **kwargs)
        kind = "recompile" if self.cache_entries else "compile"
        reason = self.failure_reasons(f_locals, f_globals) if self.cache_entries else None
        started = time.perf_counter()
        entry = self._trace(compile_id, f_locals, f_globals)
        event = CompileEvent(kind, compile_id, reason, duration_s=time.perf_counter() - started)
        self.compile_events.append(event)
        if entry.eager_reason is not None:
            self.compile_events.append(CompileEvent("eager_fallback", compile_id, entry.eager_reason))
        self.cache_entries.append(entry)
        return entry.run(self._call_original, f_locals, f_globals, args, kwargs)

    def failure_reasons(self, f_locals, f_globals) -> str:
        """For each entry, the first guard that fails now, as `0/0: G['cfg'].scale == 2, got 3`."""
        lines = []
        for entry in reversed(self.cache_entries):
            failure = entry.guards.first_failure(f_locals, f_globals)
            if failure is not None:
                lines.append(f"{entry.compile_id}: {failure}")
        return "; ".join(lines)

    def _trace(self, compile_id, f_locals, f_globals) -> CacheEntry:
        output = OutputGraph()
        tx = InstructionTranslator(self.code, f_locals, f_globals, output, hook=self.hook)
        try:
            result = tx.run()
            builder = PlanBuilder(output.side_effects)
            plan = builder.frame(result)
            output_nodes = builder.output_nodes
        except Unsupported as error:
            if self.fullgraph:
                raise
            return self._eager_entry(compile_id, str(error))
        except Exception as error:  # a bug of ours: never the user's problem
            if self.fullgraph:
                raise
            message = f"internal tracer error {type(error).__name__}: {error}"
            warnings.warn(f"{message}; running {self.code.co_name} eagerly", InternalTracerWarning, stacklevel=4)
            return self._eager_entry(compile_id, message)
        output.graph.output(tuple(output_nodes))
        output.prune()
        if output.count_calls() == 0 and not self.fullgraph:
            # As Dynamo: a frame with no graph operation is skipped for good.
            return self._eager_entry(compile_id, "No ops traced for the FX graph: the frame is skipped "
                                                 "and runs eagerly from now on")
        graphs, compiled = [], None
        if output.count_calls() > 0:
            gm = torch.fx.GraphModule(torch.nn.Module(), output.graph)
            gm.meta["compile_id"] = compile_id
            example_inputs = [graph_input.example for graph_input in output.inputs.values()]
            compiled = self.backend(gm, example_inputs)
            graphs.append(gm)
        elif output_nodes:
            raise AssertionError("graph outputs without graph operations")
        return CacheEntry(
            compile_id=compile_id,
            guards=GuardSet(list(output.guards.values())),
            graphs=graphs,
            input_sources=[graph_input.source for graph_input in output.inputs.values()] if compiled else [],
            plan=plan,
            compiled=compiled,
            code=self.code,
        )

    def _eager_entry(self, compile_id, reason) -> CacheEntry:
        """An entry that always matches and runs the original function: the frame is skipped."""
        return CacheEntry(compile_id, GuardSet([]), [], [], None, eager_reason=reason, code=self.code)

    def reset(self) -> None:
        self.cache_entries.clear()
        self.compile_events.clear()
        self._warned_limit = False

    def __repr__(self) -> str:
        return f"<tracer.compile of {self.fn.__qualname__}: {len(self.cache_entries)} cache entries>"


def _has_hooks(module: torch.nn.Module) -> bool:
    return bool(module._forward_hooks or module._forward_pre_hooks or module._backward_hooks
                or module._backward_pre_hooks)


def compile(fn=None, *, backend="eager", fullgraph=False, cache_size_limit=8):
    """Like torch.compile(fn, backend=..., dynamic=False); also usable as a decorator."""
    if fn is None:
        return lambda f: CompiledFunction(f, backend, fullgraph, cache_size_limit)
    return CompiledFunction(fn, backend, fullgraph, cache_size_limit)


def reset() -> None:
    """Forget every compiled entry and frame number."""
    global _frame_counter
    for compiled in list(_live):
        compiled.reset()
    _frame_ids.clear()
    _frame_counter = itertools.count()
