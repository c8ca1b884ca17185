"""The public entry: a compiled function, its cache entries and its compile events.

`compile(fn)` returns a CompiledFunction, the root.  Each call runs fn under the
frame hook (frame_hook.py): torch's C evaluator checks the native guards of each
cache entry of a frame's code and runs the first entry whose guards hold; when
none does, the frame comes to `compile_frame`, is converted again, and the
failing guards are recorded as the reason.  Every frame compiled under the
root's calls — resume functions after a graph break, the functions a frame run
eagerly calls, callees called at a break — is a CompiledFunction too, one per
code object: the `frames` of the frame that was running when it was first seen.
"""
from __future__ import annotations

import collections
import contextlib
import contextvars
import functools
import inspect
import itertools
import linecache
import threading
import time
import types
import warnings
import weakref
from dataclasses import dataclass, field

import torch
from torch.nn.modules import module as module_py

from . import frame_hook, skip_rules
from .convert_frame import CacheEntry, GraphBreak, convert_frame
from .exc import CacheLimitExceeded, InternalTracerWarning, Unsupported, UserError
from .bytecode import decode, has_var_parameters
from .stack_room import MAX_NESTED_COMPILED_CALLS, nesting
from .resume import make_resume_code, origin_index, resume_prologue_length
from .guards.report import report_text
from .guards.whatif import predict
from .shapes import AutomaticDynamic, check_dynamic, code_identity

_frame_ids: dict[types.CodeType, int] = {}
_frame_counter = itertools.count()
_live: "weakref.WeakSet[CompiledFunction]" = weakref.WeakSet()
# One compile at a time in the process, as Dynamo's compile lock: a trace uses process-wide state
# (the garbage collector switch, frame numbers, torch's global modes), and two threads missing
# the cache together must install one entry.  Re-entrant: a compile may run code that compiles.
_compile_lock = threading.RLock()


class FrameNumbers:
    """Frame numbers of their own, for a run that should count from 0 as a fresh process does
    (a debugger session over a script): use with `numbered_by`."""

    def __init__(self):
        self.ids: dict[types.CodeType, int] = {}
        self.counter = itertools.count()


_numbering: contextvars.ContextVar[FrameNumbers | None] = contextvars.ContextVar("standin_frame_numbers",
                                                                                 default=None)


@contextlib.contextmanager
def numbered_by(numbers: FrameNumbers):
    """Frames first compiled inside this block (in this thread) are numbered by `numbers`."""
    token = _numbering.set(numbers)
    try:
        yield numbers
    finally:
        _numbering.reset(token)


def frame_id(code: types.CodeType) -> int:
    """Dynamo numbers frames in the order they are first compiled: the `0` of `[0/1]`."""
    numbers = _numbering.get()
    ids = numbers.ids if numbers is not None else _frame_ids
    if code not in ids:
        ids[code] = next(numbers.counter if numbers is not None else _frame_counter)
    return ids[code]


@dataclass
class CompileEvent:
    kind: str  # "compile", "recompile", "graph_break", "eager_fallback", "cache_limit"
    compile_id: str | None
    reason: str | None
    time: float = field(default_factory=time.time)
    duration_s: float | None = None
    frame: str | None = None

    def __str__(self) -> str:
        text = f"[{self.compile_id}] {self.kind}" if self.compile_id else self.kind
        return f"{text}: {self.reason}" if self.reason else text


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

    def __new__(cls, fn, *args, **kwargs):
        """A module's is a CompiledModule (which answers as the module too)."""
        if cls is CompiledFunction and isinstance(fn, torch.nn.Module):
            cls = CompiledModule
        return super().__new__(cls)

    def __init__(self, fn, backend="eager", fullgraph=False, cache_size_limit=8, *, parent=None, dynamic=None):
        check_dynamic(dynamic)
        if not callable(fn):
            raise UserError(f"tracer.compile() needs a Python function, got {type(fn).__name__} {fn!r}")
        self.module = fn if isinstance(fn, torch.nn.Module) else None
        self.hooks_outside = False  # a module whose hooks nn.Module.__call__ runs, outside its forward's frame
        if self.module is not None:
            fn = self.module.forward
            if skip_rules.code_reason(type(self.module).forward.__code__) is not None:
                fn = _calling_inline(self.module, type(self.module).__qualname__)  # torch's own module
                # (nn.Sequential): as Dynamo's wrap_inline
            else:
                self.hooks_outside = True
        self.bound_self = None
        self.partial_args, self.partial_keywords = (), {}
        while isinstance(fn, functools.partial):  # as Dynamo: compile the function, bind the arguments
            self.partial_args = fn.args + self.partial_args
            self.partial_keywords = {**fn.keywords, **self.partial_keywords}
            fn = fn.func
        if isinstance(fn, types.MethodType):
            self.bound_self, fn = fn.__self__, fn.__func__
        # a generator function: as under Dynamo, nothing is compiled (the call only makes the generator, whose
        # frame Dynamo skips; its body runs when iterated, after the compiled call)
        self.runs_as_is = isinstance(fn, types.FunctionType) and bool(
            fn.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR))
        if not _has_plain_code(fn):
            # a builtin, a class, a generator or coroutine function: a frame that calls it is compiled, as
            # torch.compile does (torch.sin is then a graph; a generator's own frame is left alone)
            target = fn if self.bound_self is None else types.MethodType(fn, self.bound_self)
            self.bound_self = None
            fn = _calling_inline(target, getattr(fn, "__qualname__", type(fn).__qualname__))
        if not isinstance(cache_size_limit, int) or cache_size_limit < 1:
            raise UserError(f"cache_size_limit must be a positive int, got {cache_size_limit!r}")
        self.fn = fn
        self.code = fn.__code__
        self.backend = resolve_backend(backend)
        self.fullgraph = fullgraph
        self.cache_size_limit = cache_size_limit
        self.dynamic = dynamic  # None: automatic dynamic; True / False as torch.compile's
        # the root's: the sizes seen per source, by code identity (shapes.code_identity), for all its frames
        self._sizes_seen: dict[tuple, AutomaticDynamic] = {}
        self.cache_entries: list[CacheEntry] = []
        self.compile_events: list[CompileEvent] = []
        self.hook = None  # the debugger attaches here
        # the compile id of the entry each call ran (appended by the entry's code, run_count.py: a compiling
        # call's is its new entry's); None: a call that ran as it is (cache limit, an entry without code)
        self.calls: collections.deque = collections.deque(maxlen=10_000)
        self.parent = parent
        self.is_resume = False  # a resume function after a graph break in `parent`
        self.resume_origin = None  # for a resume function: (the frame it resumes, its prologue length)
        self.cell_names: tuple[str, ...] = ()  # for a resume function: the resumed frame's cells it takes
        self.frames: list[CompiledFunction] = []  # resume functions and callees compiled from here
        self._resumes: dict = {}
        # the root's: every frame of its calls by code object (originals and resume functions), the
        # frame each rewritten code belongs to, its the callback torch calls
        # (by id: a rewritten code holding an unhashable constant has no hash; the record keeps it alive)
        self._records: dict[int, CompiledFunction] = {id(self.code): self} if parent is None else {}
        self._by_rewritten: dict[int, CompiledFunction] = {}
        self._callback = frame_hook.Callback(self, _on_frame)
        # The code's own parameters (not a wrapped function's), made at the first call that needs them:
        # a resume function, always called positionally, may take locals no signature can name
        # (pytest's rewritten asserts keep theirs in `@py_assert1`).
        self._signature: inspect.Signature | None = None
        self._defaults = _defaults_of(fn)  # those the signature holds: a change to fn.__defaults__ renews it
        self._simple_args = self.code.co_varnames[: self.code.co_argcount] \
            if not has_var_parameters(self.code) and not self.code.co_kwonlyargcount else None
        self._warned_limit = False
        self._root_call = None if parent is not None else RootCall(self)
        functools.update_wrapper(self, fn)
        _live.add(self)

    @property
    def user_function_name(self) -> str:
        """The user's function this frame belongs to (a resume function's original)."""
        if self.is_resume:
            return self.parent.user_function_name
        return self.code.co_name

    @property
    def inline_target(self):
        """The function a trace inlines when the traced code calls this compiled function (as Dynamo
        inlines a compiled function called under another); None: the call is not inlined."""
        plain = self.module is None and self.bound_self is None and not self.partial_args \
            and not self.partial_keywords and self.parent is None
        return self.fn if plain else None

    @property
    def automatic_dynamic(self) -> AutomaticDynamic:
        """The sizes this frame's compiles saw, per source, shared with every frame of its root
        whose code has the same identity (a resume function and its namesakes)."""
        return self.root._sizes_seen.setdefault(code_identity(self.code), AutomaticDynamic())

    @property
    def root(self) -> "CompiledFunction":
        return self if self.parent is None else self.parent.root

    def all_frames(self) -> list["CompiledFunction"]:
        """This frame and every frame compiled from it, in creation order."""
        result = [self]
        for child in self.frames:
            result.extend(child.all_frames())
        return result

    # ---- calling ----------------------------------------------------------------------
    def _full_args(self, args) -> tuple:
        return args if self.bound_self is None else (self.bound_self, *args)

    def bind(self, args, kwargs, fn=None) -> dict | None:
        """The frame's initial locals, or None when Python itself would reject the call."""
        fn = fn or self.fn
        closure = fn.__closure__
        args = self._full_args(args)
        names = self._simple_args
        if names is not None and not kwargs and len(args) == len(names):
            f_locals = dict(zip(names, args))
        else:
            try:
                bound = self._signature_of(fn).bind(*args, **kwargs)
            except TypeError:
                return None
            bound.apply_defaults()
            f_locals = dict(bound.arguments)
        if closure:
            for name, cell in zip(self.code.co_freevars, closure):
                try:
                    f_locals[name] = cell.cell_contents
                except ValueError:
                    pass
        return f_locals

    def _signature_of(self, fn) -> inspect.Signature:
        """The signature that binds a call of fn (this code): made again when fn's defaults are not
        those it was made with (a user assigned __defaults__, or fn is another function of this code)."""
        defaults = _defaults_of(fn)
        if self._signature is not None and defaults[0] is self._defaults[0] and defaults[1] is self._defaults[1]:
            return self._signature
        signature = inspect.signature(fn, follow_wrapped=False)
        if fn is self.fn:
            self._signature, self._defaults = signature, defaults
        return signature

    def __call__(self, *args, **kwargs):
        """The root: fn under the frame hook.  Any other frame (a resume function): its function, under
        the hook already running (outside one, it runs as it is).  Written out in one frame, reading
        slots (RootCall): this runs on every call."""
        root = self._root_call
        if root is None:
            return self.fn(*args, **kwargs)
        if root.partial:
            args, kwargs = self._with_partial(args, kwargs)
        if not root.running:  # the outermost call ("call again" repeats it; a recursive call inside does not count)
            root.last_call = (args, kwargs)
        module = root.module
        if module is not None and (  # nn.Module.__call__'s own question, in its order: any hook to run?
                module._backward_hooks or module._backward_pre_hooks or module._forward_hooks
                or module._forward_pre_hooks or module_py._global_backward_pre_hooks
                or module_py._global_backward_hooks or module_py._global_forward_hooks
                or module_py._global_forward_pre_hooks):
            # as Dynamo: nn.Module.__call__ runs the hooks outside the graphs, under the frame hook, so
            # the forward frame is this one and each hook a frame of its own
            fn = module
        elif root.bound_self is None:
            fn = root.fn
        else:
            fn, args = root.fn, (root.bound_self, *args)
        depth = nesting.depth
        if root.runs_as_is or depth >= MAX_NESTED_COMPILED_CALLS:  # nested too deep: plain Python from
            return fn(*args, **kwargs)                              # here (stack_room.py)
        nesting.depth = depth + 1
        root.running += 1
        try:
            return frame_hook.call_under_hook(root.callback, fn, args, kwargs)
        finally:
            nesting.depth = depth
            root.running -= 1

    @property
    def last_call(self) -> tuple | None:
        """(args, kwargs) of the root's latest call: what "call again" repeats (None before one)."""
        return None if self._root_call is None else self._root_call.last_call

    @last_call.setter
    def last_call(self, value: tuple | None) -> None:
        if self._root_call is not None:
            self._root_call.last_call = value

    def _with_partial(self, args, kwargs) -> tuple[tuple, dict]:
        """A compiled functools.partial: its bound arguments, then this call's."""
        return self.partial_args + args, {**self.partial_keywords, **kwargs}

    def call_with_cells(self, cells: tuple, *args):
        """Call a resume function over the cells of the frame it continues: its closure this call."""
        fn = types.FunctionType(self.code, self.fn.__globals__, self.fn.__name__, None, cells)
        return fn(*args)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    # ---- compiling ----------------------------------------------------------------------
    def compile_frame(self, frame) -> frame_hook.FrameReturn:
        """A frame of this code that no cache entry admits: trace it into a new entry for torch's C
        evaluator (or say why it runs as it is)."""
        f_locals, f_globals = dict(frame.f_locals), frame.f_globals
        fid = frame_id(self.code)
        compile_id = f"{fid}/{len(self.cache_entries)}"
        if len(self.cache_entries) >= self.cache_size_limit:
            reason = (f"cache_size_limit ({self.cache_size_limit}) reached for {self.code.co_name}; "
                      f"running eagerly. Last failure: {self.failure_reasons(f_locals, f_globals)}")
            self._event("cache_limit", None, reason)
            if not self._warned_limit:
                warnings.warn(reason, CacheLimitExceeded, stacklevel=2)
                self._warned_limit = True
            self.calls.append(None)
            return frame_hook.run_as_is(self.code, reason, for_good=False)
        kind = "recompile" if self.cache_entries else "compile"
        reason = self.failure_reasons(f_locals, f_globals) if self.cache_entries else None
        started = time.perf_counter()
        entry = convert_frame(self, compile_id, f_locals, f_globals, frame.closure)
        entry.became_dynamic = [c for c in self.automatic_dynamic.changes if c.compile_id == compile_id]
        if entry.became_dynamic:  # say which dimension automatic dynamic made symbolic
            reason = "; ".join([reason or "", *map(str, entry.became_dynamic)]).lstrip("; ")
        self._event(kind, compile_id, reason, duration_s=time.perf_counter() - started)
        if entry.graph_break is not None:
            self._event("graph_break", compile_id, str(entry.graph_break))
        if entry.eager_reason is not None:
            self._event("eager_fallback", compile_id, entry.eager_reason)
        self.cache_entries.append(entry)  # its code counts its runs, this call's first (run_count.py)
        if entry.code is None:  # an entry that always runs the original: the code is skipped for good,
            entry.hits_counted = False  # in C, which no longer asks us (as Dynamo's skip): calls not counted
            self.calls.append(None)
            return frame_hook.run_as_is(self.code, entry.eager_reason)
        self.root._by_rewritten[id(entry.code)] = self
        return frame_hook.run_compiled(self.code, self._guarded_code(entry, f_locals, f_globals))

    def _guarded_code(self, entry, f_locals, f_globals) -> frame_hook.GuardedCode:
        """The entry for C: its rewritten code and the native guard tree that admits a frame to it."""
        native = entry.guards.attach_native(self.code, f_locals, f_globals)
        if native is None:  # torch's tree cannot hold a guard: the generated Python check, as one lambda
            root = frame_hook.native_root()
            python_check = entry.guards.python_check
            root.add_lambda_guard(lambda L: python_check(L, f_globals), [f"[{entry.compile_id}] guards"], None)
        else:
            root = native.root
        return frame_hook.GuardedCode(entry.code, frame_hook.GuardManagerHolder(root, f_globals), entry.compile_id)

    def _event(self, kind, compile_id, reason, duration_s=None) -> None:
        event = CompileEvent(kind, compile_id, reason, duration_s=duration_s, frame=self.code.co_name)
        self.compile_events.append(event)
        for observer in list(_observers):
            observer(self, event)

    def failure_reasons(self, f_locals, f_globals) -> str:
        """For each entry, the first guard that fails now, as `0/0: G['cfg'].scale == 2, got 3`."""
        lines = []
        for entry in reversed(self.cache_entries):
            failure = entry.guards.first_failure(f_locals, f_globals)
            if failure is not None:
                lines.append(f"{entry.compile_id}: {failure}")
        return "; ".join(lines)

    def what_if(self, *args, **kwargs):
        """Which entry would run for this call, or which guards would fail — without calling."""
        return predict(self, *self._with_partial(args, kwargs))

    def guard_report(self, entry=None) -> str:
        """The guards of an entry (default: the newest) as TORCH_LOGS=guards prints them."""
        entry = entry or self.cache_entries[-1]
        return report_text(entry)

    def resume_function(self, decoded, target: int, depth: int, live: list[str],
                        nulls: frozenset = frozenset(), contexts: tuple = ()) -> "CompiledFunction":
        """The compiled resume function entering this frame's code at instruction `target`.

        As Dynamo: a break inside a resume function resumes the *original* code, so a loop
        that breaks on every iteration reuses one resume function instead of nesting new ones.
        """
        if self.resume_origin is not None:
            origin, prologue = self.resume_origin
            index = origin_index(decoded, target, origin.code, prologue)
            return origin.resume_function(decode(origin.code), index, depth, live, nulls, contexts)
        key = (target, depth, tuple(live), nulls, contexts)
        if key not in self._resumes:
            line = decoded.instructions[target].line
            name = f"torch_dynamo_resume_in_{self.user_function_name}_at_{line}"
            code = make_resume_code(self.code, decoded, target, depth, live, name, nulls, contexts)
            # this frame's cell variables are the resume function's last free variables: each
            # call passes the calling frame's own cells (call_with_cells); these stand in till then
            closure = (self.fn.__closure__ or ()) + tuple(types.CellType() for _ in self.code.co_cellvars)
            fn = types.FunctionType(code, self.fn.__globals__, name, None, closure or None)
            compiled = CompiledFunction(fn, self.backend, False, self.cache_size_limit, parent=self,
                                        dynamic=self.dynamic)
            # all of them, free variables too: the frame may be a function made at run time, one
            # closure per call, so the resume function's closure comes from the frame each time
            compiled.cell_names = self.code.co_freevars + self.code.co_cellvars
            compiled.hook = self.hook
            compiled.is_resume = True
            compiled.resume_origin = (self, resume_prologue_length(self.code, depth, nulls, contexts))
            self._resumes[key] = compiled
            self.root._records[id(code)] = compiled
            self.frames.append(compiled)
        return self._resumes[key]

    def adopt(self, frame) -> "CompiledFunction":
        """The root's record for a new code object first seen under its calls: a frame of the frame
        running below it on the stack (the nearest one this root compiled), else of the root."""
        code = frame.f_code
        parent, back = self, frame.f_back
        while back is not None:
            found = self._records.get(id(back.f_code)) or self._by_rewritten.get(id(back.f_code))
            if found is not None:
                parent = found
                break
            back = back.f_back
        fn = types.FunctionType(code, frame.f_globals, code.co_name, None, frame.closure)
        compiled = CompiledFunction(fn, self.backend, False, self.cache_size_limit, parent=parent,
                                    dynamic=parent.dynamic)
        compiled.hook = parent.hook
        self._records[id(code)] = compiled
        parent.frames.append(compiled)
        return compiled

    def reset(self) -> None:
        """Forget every entry; a root also drops the state torch keeps for the codes it compiled or
        skipped."""
        if self.parent is None:
            frame_hook.forget([record.code for record in self._records.values()])
            self._records = {id(self.code): self}
            self._by_rewritten.clear()
        self.calls.clear()
        self.cache_entries.clear()
        self.compile_events.clear()
        self._sizes_seen.clear()
        self.frames.clear()
        self._resumes.clear()
        self._warned_limit = False

    def __repr__(self) -> str:
        return f"<tracer.compile of {self.fn.__qualname__}: {len(self.cache_entries)} cache entries>"


class CompiledModule(CompiledFunction):
    """What `tracer.compile(module)` returns: a compiled function that still answers as the module
    (train(), parameters(), ...).  A class of its own: a `__getattr__` makes every attribute read of
    an instance slower, and a compiled function has no need of one."""

    def __getattr__(self, name):
        module = self.__dict__.get("module")
        if module is None:
            raise AttributeError(name)
        return getattr(module, name)


class RootCall:
    """What a root's every call reads, in slots (a compiled module's `__getattr__` slows each read of
    its own attributes): fixed when the root is made, but for the latest call's arguments."""

    __slots__ = ("fn", "bound_self", "module", "partial", "runs_as_is", "callback", "last_call", "running")

    def __init__(self, compiled: CompiledFunction):
        self.fn = compiled.fn
        self.bound_self = compiled.bound_self
        self.module = compiled.module if compiled.hooks_outside else None  # a module whose hooks run outside
        self.partial = bool(compiled.partial_args or compiled.partial_keywords)
        self.runs_as_is = compiled.runs_as_is
        self.callback = compiled._callback
        self.last_call: tuple | None = None
        self.running = 0  # calls under way through this root (a recursive one goes through it again)


def _has_plain_code(fn) -> bool:
    """A Python function whose own frame a trace can start in (not a generator or coroutine's)."""
    flags = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
    return isinstance(fn, types.FunctionType) and not fn.__code__.co_flags & flags


def _calling_inline(fn, name: str):
    """A frame that calls `fn`, compiled in its place, as Dynamo's wrap_inline (whose free variable is
    `fn` too: the graph inputs are L_fn_...): a module whose forward is torch's (the trace enters
    nn.Module.__call__ and inlines it, hooks and all; a frame of torch's own is never compiled), a
    builtin, a class, a generator function."""
    def forward(*args, **kwargs):
        return fn(*args, **kwargs)

    # a file of its own (frames of Standin's files are never compiled), its source known to linecache
    filename = f"<compiled {name}>"
    source = f"def forward(*args, **kwargs):  # torch.compile({name}(...))\n    return fn(*args, **kwargs)\n"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    forward.__code__ = forward.__code__.replace(co_filename=filename, co_firstlineno=1, co_qualname=f"{name}.__call__")
    forward.__qualname__ = f"{name}.__call__"
    return forward


def _defaults_of(fn) -> tuple:
    """(__defaults__, __kwdefaults__) of a function; a user may assign either between calls."""
    return getattr(fn, "__defaults__", None), getattr(fn, "__kwdefaults__", None)


_observers: list = []


# torch.compile's modes (torch 2.13): Inductor's settings, which a backend given here does not read
TORCH_COMPILE_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(fn=None, *, backend="eager", fullgraph=False, dynamic=None, cache_size_limit=8, mode=None,
            options=None, disable=False):
    """Like torch.compile(fn, backend=..., dynamic=...); also usable as a decorator.

    dynamic=None (the default, as torch's) is automatic dynamic: static first, and a size or int
    argument that changes between compiles is symbolic from then on; True: symbolic from the
    start; False: always static.  mode= and options= are Inductor's: checked as torch checks them,
    then ignored with a warning, as torch's eager backend ignores them; disable=True returns fn.
    """
    check_dynamic(dynamic)
    _check_inductor_settings(mode, options)
    if disable:
        return fn if fn is not None else (lambda f: f)
    if fn is None:
        return lambda f: CompiledFunction(f, backend, fullgraph, cache_size_limit, dynamic=dynamic)
    return CompiledFunction(fn, backend, fullgraph, cache_size_limit, dynamic=dynamic)


def _check_inductor_settings(mode, options) -> None:
    if mode is not None and mode not in TORCH_COMPILE_MODES:
        raise UserError(f"Unrecognized mode={mode}, should be one of: {', '.join(TORCH_COMPILE_MODES)}")
    if mode is not None and options is not None:
        raise UserError("Either mode or options can be specified, but both can't be specified at the same time.")
    if options is not None and not isinstance(options, dict):
        raise UserError(f"options must be a dict of Inductor settings, got {type(options).__name__}")
    given = {name: value for name, value in (("mode", mode), ("options", options)) if value is not None}
    if given:
        warnings.warn(f"tracer.compile ignores {given}: they are Inductor's settings, and Standin's backends "
                      "do not read them", stacklevel=3)


def _on_frame(root: CompiledFunction, frame) -> frame_hook.FrameReturn:
    """torch's callback: a frame under one of root's calls that no cache entry admits.  A frame it
    cannot handle runs as it is, with the reason warned; the process never sees the error."""
    try:
        return _handle_frame(root, frame)
    except Unsupported:
        if root.fullgraph:
            raise
        reason = "the frame hook could not handle this frame"
    except UserError:  # the user's own contradiction (a mark_dynamic size the code specialises): theirs, as in Dynamo
        raise
    except Exception as error:  # a bug of ours: never the user's problem
        if root.fullgraph:
            raise
        reason = f"internal tracer error {type(error).__name__}: {error}"
    warnings.warn(f"{reason}; running {frame.f_code.co_name} eagerly", InternalTracerWarning, stacklevel=2)
    return frame_hook.run_as_is(frame.f_code, reason, for_good=False)


def _handle_frame(root: CompiledFunction, frame) -> frame_hook.FrameReturn:
    code = frame.f_code
    record = root._records.get(id(code))
    if record is None:
        reason = skip_rules.frame_reason(frame)
        if reason is not None:
            return frame_hook.run_as_is(code, reason)
    with _compile_lock:
        if record is None:
            record = root._records.get(id(code)) or root.adopt(frame)
        f_locals = dict(frame.f_locals)
        for entry in record.cache_entries:  # another thread compiled this code while we waited
            if entry.code is not None and entry.guards.check(f_locals, frame.f_globals):
                return frame_hook.run_as_is(code, f"[{entry.compile_id}] was compiled meanwhile by another "
                                                  "thread: this frame runs as it is, the next hits it",
                                            for_good=False)
        return record.compile_frame(frame)


def reset() -> None:
    """Forget every compiled entry and frame number, and what torch keeps for the codes we touched."""
    global _frame_counter
    for compiled in list(_live):
        compiled.reset()
    frame_hook.forget()
    _frame_ids.clear()
    _frame_counter = itertools.count()


__all__ = ["CacheEntry", "CompiledFunction", "CompiledModule", "CompileEvent", "FrameNumbers", "GraphBreak", "compile", "numbered_by",
           "reset"]
