"""The frame hook: torch's PEP 523 machinery, with Standin's translator, guards and cache behind it.

While a compiled call runs, `torch._C._dynamo.eval_frame.set_eval_frame` has
CPython hand every Python frame about to start to torch's C evaluator.  For a
code object it has cache entries for (in Standin's own region of the cache,
`set_eval_frame_isolate_recompiles_id`), C runs the native guard tree of each
entry and, on a hit, runs that entry's rewritten code in the frame.  On a miss
it calls `FrameHook.__call__` with the frame: a frame Standin does not compile
(skip_rules) is marked SKIP for good and runs as it is — its callees are still
offered —; any other is traced by convert_frame, and the new entry goes back to
C as guarded code with its native guard tree.  The callback runs with the hook
off, as does every graph (codegen.NamedCallable), so neither is offered.

Every code object Standin touched is listed, so that `reset()` can hand torch
its eval-frame state back as it found it (`reset_code`), and real Dynamo can
run in the same process before or after.
"""
from __future__ import annotations

import threading

from torch._C._dynamo import eval_frame as native
from torch._C._dynamo.guards import RootGuardManager

FrameAction = getattr(native, "_FrameAction")  # torch's names for these small types are private
FrameExecStrategy = getattr(native, "_FrameExecStrategy")

RUN_AS_IS = FrameExecStrategy(FrameAction.SKIP, FrameAction.DEFAULT)  # this frame eagerly; callees offered
COMPILED = FrameExecStrategy(FrameAction.DEFAULT, FrameAction.DEFAULT)

# Standin's region of torch's cache (torch's own are counted from 0).  The region is one number for
# the whole process, not per thread, so it is one for every Standin call: a thread must not switch it
# under another thread's call.  Which root an entry belongs to is the backend torch filed it under:
# the root's own Callback, which torch's lookup compares with the running one (see Callback).
STANDIN_REGION = 1 << 40
_touched: dict[int, object] = {}  # code objects whose torch extra state Standin wrote, by id
_region_lock = threading.Lock()
_calls_in_region: set = set()  # the Standin calls running, on every thread
_region_before = -1  # the region torch had when the first of them started


class Callback:
    """The callback torch's C evaluator calls for a frame of one root's calls that no entry admits.

    torch files each cache entry under the backend of the callback that made it and, on a lookup,
    runs an entry only if its backend equals the current callback's (compared only between objects
    of one type).  In Standin's region a lookup also reads Dynamo's entries of the default region;
    a type of our own, equal only to itself, is what keeps Standin from ever running them, and
    Dynamo from ever running ours."""

    __slots__ = ("handle", "root")

    def __init__(self, root, handle):
        self.root = root
        self.handle = handle  # handle(root, frame) -> FrameReturn

    def __call__(self, frame, cache_entry, frame_state):
        return self.handle(self.root, frame)

    __eq__ = object.__eq__
    __hash__ = object.__hash__


class FrameReturn:
    """What torch's C evaluator reads from the callback's answer (Dynamo's ConvertFrameReturn)."""

    __slots__ = ("frame_exec_strategy", "apply_to_code", "guarded_code", "skip_reason")

    def __init__(self, strategy, apply_to_code: bool, guarded_code=None, skip_reason: str | None = None):
        self.frame_exec_strategy = strategy
        self.apply_to_code = apply_to_code
        self.guarded_code = guarded_code
        self.skip_reason = skip_reason


class GuardedCode:
    """A new cache entry for C: the code to run and the guard manager that admits a frame to it."""

    __slots__ = ("code", "guard_manager", "compile_id", "trace_annotation")

    def __init__(self, code, guard_manager, compile_id: str):
        self.code = code
        self.guard_manager = guard_manager
        self.compile_id = compile_id
        self.trace_annotation = f"standin [{compile_id}]"


class GuardManagerHolder:
    """The object C keeps per cache entry: `root` is the RootGuardManager it runs.  The other fields
    are those torch's C side and Dynamo's recompile logger read on any entry of a code object."""

    def __init__(self, root, f_globals: dict):
        self.root = root
        self.global_scope = {"G": f_globals}
        self.closure_vars: dict = {}
        self.diff_guard_root = None
        self.args = None
        self.code_parts: list = []
        self.verbose_code_parts = None
        self.guard_fail_fn = None
        self.cache_entry = None  # set by C
        self.extra_state = None  # set by C
        self.id_matched_objs: dict = {}
        self.no_tensor_aliasing_sources: list = []

    def check_verbose(self, f_locals):
        return self.root.check_verbose(f_locals)


def run_as_is(code, reason: str, for_good: bool = True) -> FrameReturn:
    """The frame runs eagerly; `for_good`: so does every later frame of its code (callees still offered)."""
    if for_good:
        _touched[id(code)] = code
    return FrameReturn(RUN_AS_IS, for_good, skip_reason=reason)


def run_compiled(code, guarded_code: GuardedCode) -> FrameReturn:
    _touched[id(code)] = code
    return FrameReturn(COMPILED, False, guarded_code)


def call_under_hook(callback, fn, args, kwargs):
    """fn(*args, **kwargs) with every frame under it offered to `callback` (one root's), in Standin's
    cache region; torch's previous hook (this thread's) and region (the process's, once the last
    Standin call on any thread ends) are back when it returns or raises, whatever it raises.

    The hook is put back and the region left even when an exception raised from another thread (a
    session's Stop) lands in between: each step is idempotent and both are done before the call
    returns.  The region is a set of the calls running, not a count: leaving twice is leaving once.
    Both steps are written out here, not called: this runs on every compiled call."""
    global _region_before
    token = object()
    with _region_lock:
        if not _calls_in_region:
            _region_before = native.get_eval_frame_isolate_recompiles_id()
            native.set_eval_frame_isolate_recompiles_id(STANDIN_REGION)
        _calls_in_region.add(token)
    prior = native.get_eval_frame_callback()
    try:
        native.set_eval_frame(callback)
        return fn(*args, **kwargs)
    finally:
        pending = None
        while True:
            try:
                native.set_eval_frame(prior)
                with _region_lock:
                    _calls_in_region.discard(token)
                    if not _calls_in_region:
                        native.set_eval_frame_isolate_recompiles_id(_region_before)
                break
            except BaseException as error:  # noqa: BLE001 - re-raised below, once all are back
                pending = error
        if pending is not None:
            raise pending


def native_root() -> RootGuardManager:
    return RootGuardManager()


def forget(codes=None) -> None:
    """Drop torch's extra state (cache entries, skip marks) of the codes Standin touched (all: None)."""
    for code in list(_touched.values() if codes is None else codes):
        if _touched.pop(id(code), None) is not None:
            native.reset_code(code)
