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
* the op list of each graph equals Dynamo's,
* on a recompile, our ``event.reason`` names the variable whose guard Dynamo
  reports as failing (Dynamo's ``torch._dynamo.utils.guard_failures``).

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

Cases must compile under Dynamo without graph breaks and without calls to
user-defined Python functions (comprehensions and lambdas count: in 3.11 they
are nested functions).
"""

from __future__ import annotations

import contextlib
import dis
import io
import re
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

# Local development switch: False runs only eager-vs-Dynamo (used while the
# engine was not importable).  Must be True in the committed state.
INCLUDE_TRACER = True

if INCLUDE_TRACER:
    import tracer  # noqa: E402


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


def T(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Deterministic random tensor."""
    t = torch.randn(*shape, generator=_gen)
    return t.to(dtype)


@dataclass
class Case:
    fn: Callable
    calls: list[Call]
    compiles: str | None = None  # e.g. "C..C": C = (re)compile on that call, . = cache hit

    @property
    def name(self) -> str:
        return self.fn.__name__


def case(registry: list, *calls: Call, compiles: str | None = None):
    """Decorator: register ``fn`` with its calls in ``registry``; returns fn unchanged."""

    def deco(fn):
        registry.append(Case(fn, list(calls), compiles))
        return fn

    return deco


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


def _copy_arg(v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        return v.clone()
    if isinstance(v, list):
        return [_copy_arg(x) for x in v]
    if isinstance(v, tuple) and type(v) is tuple:
        return tuple(_copy_arg(x) for x in v)
    if isinstance(v, dict):
        return {k: _copy_arg(x) for k, x in v.items()}
    return v


def _is_plain_object(v: Any) -> bool:
    """Instances of user classes whose attributes a mutation may change."""
    if isinstance(v, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
                      torch.Tensor, torch.nn.Module)):
        return False
    d = getattr(v, "__dict__", None)
    return isinstance(d, dict) and type(v).__module__ not in ("builtins",) and \
        not type(v).__module__.startswith(("torch", "pytest", "_pytest"))


class _GlobalsSnapshot:
    def __init__(self, g: dict):
        self.g = g
        self.items = dict(g)
        self.attrs: dict[int, tuple[Any, dict]] = {}
        for v in g.values():
            self._snap_obj(v, depth=0)
        # global containers a mutation may change in place (not dunders like __builtins__)
        self.containers = [(v, v.copy()) for k, v in g.items()
                           if not k.startswith("__") and type(v) in (list, dict)]

    def _snap_obj(self, v: Any, depth: int) -> None:
        """Remember the instance attributes of plain objects, following attributes
        (cfg.sub.alpha) a few levels deep."""
        if depth > 3 or not _is_plain_object(v) or id(v) in self.attrs:
            return
        self.attrs[id(v)] = (v, dict(vars(v)))
        for a in list(vars(v).values()):
            self._snap_obj(a, depth + 1)

    def restore(self) -> None:
        for k in list(self.g):
            # names a mutation added; leave underscore names alone (Dynamo installs
            # helpers like __builtins_dict___0 into the function's globals)
            if k not in self.items and not k.startswith("_"):
                del self.g[k]
        self.g.update(self.items)
        for obj, attrs in self.attrs.values():
            d = vars(obj)
            d.clear()
            d.update(attrs)
        for obj, content in self.containers:
            if isinstance(obj, list):
                obj[:] = content
            else:
                obj.clear()
                obj.update(content)


def assert_same(actual: Any, expected: Any, path: str = "out") -> None:
    """Structural equality; tensors via assert_close; exact container/const types."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, torch.Tensor), f"{path}: expected Tensor, got {type(actual).__name__}"
        torch.testing.assert_close(actual, expected, msg=lambda m: f"{path}: {m}")
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


def normalize_target(gm: torch.fx.GraphModule, node: torch.fx.Node) -> str:
    t = node.target
    if node.op == "call_method":
        return str(t)
    if node.op == "call_module":
        return type(gm.get_submodule(t)).__qualname__
    mod = getattr(t, "__module__", None)
    name = getattr(t, "__name__", None) or repr(t)
    if mod is None:
        objclass = getattr(t, "__objclass__", None)
        mod = objclass.__qualname__ if objclass is not None else "?"
    if mod == "_operator":
        mod = "operator"
    return f"{mod}.{name}"


def op_list(gm: torch.fx.GraphModule) -> list[tuple[str, str]]:
    return [(n.op, normalize_target(gm, n)) for n in gm.graph.nodes
            if n.op in ("call_function", "call_method", "call_module")]


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


def _run_sequence(c: Case, invoke: Callable, before=None, after=None) -> RunRecord:
    g = c.fn.__globals__
    snap = _GlobalsSnapshot(g)
    rec = RunRecord()
    try:
        for cl in c.calls:
            if cl.mutate is not None:
                cl.mutate(g)
            cr = CallRecord()
            if before:
                before(cr)
            try:
                cr.output = invoke(*_copy_arg(cl.args), **_copy_arg(cl.kwargs))
            except Exception as e:  # recorded, reported by the comparison
                cr.error = e
            if after:
                after(cr)
            rec.calls.append(cr)
    finally:
        snap.restore()
    return rec


def run_eager(c: Case) -> RunRecord:
    return _run_sequence(c, c.fn)


@contextlib.contextmanager
def _watch_convert_frame(code: types.CodeType):
    """Count Dynamo's frame conversions of ``code`` (also those whose graph is empty).

    ``counters["frames"]["total"]`` is not usable per function: it also counts
    unrelated frames that run while the eval-frame callback is set (e.g. import
    hooks on the first compile).  So we wrap ``ConvertFrame.__call__`` and keep
    only the frames of the function under test.
    """
    from torch._dynamo.convert_frame import ConvertFrame

    seen = {"n": 0, "failed": 0}
    orig = ConvertFrame.__call__

    def wrapped(self, frame, *args, **kwargs):
        if frame.f_code is not code:
            return orig(self, frame, *args, **kwargs)
        seen["n"] += 1
        try:
            return orig(self, frame, *args, **kwargs)
        except BaseException:
            seen["failed"] += 1
            raise

    ConvertFrame.__call__ = wrapped
    try:
        yield seen
    finally:
        ConvertFrame.__call__ = orig


def _first_failure(reason: str) -> str:
    """Dynamo guard-failure text "0/0: G['cfg'].scale == 2   # src ..." -> the guard."""
    first = reason.strip().splitlines()[0] if reason.strip() else ""
    first = re.sub(r"^\s*-?\s*\d+/\d+:\s*", "", first)
    return first.split("  #")[0].strip()


def run_dynamo(c: Case) -> RunRecord:
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list
    from torch._dynamo.utils import guard_failures

    backend = CountingBackend()
    torch._dynamo.reset()
    counters.clear()
    code = c.fn.__code__
    opt = torch.compile(c.fn, backend=backend, dynamic=False)
    state = {"frames": 0, "graphs": 0, "fail": 0, "compiles_so_far": 0}
    rec_problems: list[str] = []
    with _watch_convert_frame(code) as seen:
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
            rec = _run_sequence(c, opt, before, after)
        finally:
            breaks = {k: v for k, v in counters["graph_break"].items()}
            torch._dynamo.reset()
    rec.problems.extend(rec_problems)
    if breaks:
        rec.problems.append(f"Dynamo graph breaks: {breaks}")
    if seen["failed"]:
        rec.problems.append(f"Dynamo failed to convert the frame {seen['failed']} time(s)")
    return rec


def run_tracer(c: Case) -> RunRecord:
    backend = CountingBackend()
    tracer.reset()
    opt = tracer.compile(c.fn, backend=backend)
    state = {"events": 0, "graphs": 0}

    def before(cr):
        state["events"] = len(opt.compile_events)
        state["graphs"] = len(backend.graphs)

    def after(cr):
        evs = list(opt.compile_events)[state["events"]:]
        cr.graphs = backend.graphs[state["graphs"]:]
        cr.kinds = [e.kind for e in evs]
        cr.compiled = any(e.kind in ("compile", "recompile") for e in evs)
        cr.reasons = [f"{e.kind}: {e.reason}" for e in evs if e.reason]

    try:
        rec = _run_sequence(c, opt, before, after)
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

_NOT_VARS = {"len", "type", "id", "isinstance", "hasattr", "not", "tensor", "L", "G",
             "___check_type_id", "___check_obj_id", "___dict_contains", "check_tensor",
             "size", "dtype", "mismatch", "expected", "actual", "at", "index", "and", "or",
             "is", "in", "None", "True", "False"}


def reason_names(dynamo_reason: str) -> list[str]:
    """The variable a Dynamo guard-failure text refers to, e.g.
    "G['cfg'].scale == 2" -> ['cfg'];  "tensor 'xs[1]' size mismatch ..." -> ['xs'];
    "tensor 'G['W']' rank mismatch ..." -> ['W'];  "len(xs) == 2" -> ['xs']."""
    m = re.match(r"tensor '(.*)' (?:size|rank|dtype|stride|device|requires_grad|dispatch)",
                 dynamo_reason)
    text = m.group(1) if m else dynamo_reason
    for gm, plain in re.findall(r"[GL]\['([^']+)'\]|\b([A-Za-z_]\w*)\b", text):
        n = gm or plain
        if n and n not in _NOT_VARS and not n.startswith("___"):
            return [n]
    return []


def _names_in(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None


def _output_problem(actual: CallRecord, expected: CallRecord) -> str | None:
    if expected.error is not None:
        return f"eager raised {expected.error!r}"
    if actual.error is not None:
        return f"raised {type(actual.error).__name__}: {actual.error}"
    try:
        assert_same(actual.output, expected.output)
    except AssertionError as e:
        return f"wrong output: {e}"
    return None


def _format_report(c: Case, title: str, problems: list[str], runs: dict[str, RunRecord]) -> str:
    out = io.StringIO()
    print(f"==== {title}: {c.name} ====", file=out)
    for p in problems:
        print(f"  * {p}", file=out)
    print("\n---- calls ----", file=out)
    for i, cl in enumerate(c.calls):
        print(f"  call {i}: {cl.describe()}", file=out)
    print(f"\n---- dis.dis({c.name}) ----", file=out)
    dis.dis(c.fn, file=out)
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
    tracer: RunRecord | None


def check_case(c: Case, include_tracer: bool | None = None) -> Result:
    if include_tracer is None:
        include_tracer = INCLUDE_TRACER
    eager = run_eager(c)
    dyn = run_dynamo(c)

    # ---- validity of the case itself (eager vs Dynamo) ----
    invalid = list(dyn.problems)
    for i, (d, e) in enumerate(zip(dyn.calls, eager.calls)):
        p = _output_problem(d, e)
        if p:
            invalid.append(f"call {i}: Dynamo {p}")
    if c.compiles is not None:
        got = "".join("C" if d.compiled else "." for d in dyn.calls)
        if got != c.compiles:
            invalid.append(f"Dynamo compile pattern {got!r} != case's compiles={c.compiles!r}")
    if invalid:
        raise AssertionError(_format_report(c, "INVALID CASE (eager vs Dynamo)", invalid,
                                            {"dynamo": dyn}))

    if not include_tracer:
        return Result(eager, dyn, None)

    tr = run_tracer(c)
    problems: list[str] = []
    for i, (t, d, e) in enumerate(zip(tr.calls, dyn.calls, eager.calls)):
        p = _output_problem(t, e)
        if p:
            problems.append(f"call {i}: tracer {p}")
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
                to, do = op_list(tg), op_list(dg)
                if to != do:
                    problems.append(f"call {i} graph {j}: op list differs\n"
                                    f"      tracer: {to}\n      dynamo: {do}")
        if d.reasons and t.compiled:
            # our reason must name (one of) the variable(s) whose guard Dynamo saw fail
            names = [n for r in d.reasons for n in reason_names(r)]
            text = " ".join(t.reasons)
            if names and not any(_names_in(n, text) for n in names):
                problems.append(f"call {i}: recompile reason {t.reasons} does not name "
                                f"{' or '.join(sorted(set(names)))} (Dynamo: {d.reasons})")
    if problems:
        raise AssertionError(_format_report(c, "TRACER DIFFERS FROM DYNAMO", problems,
                                            {"tracer": tr, "dynamo": dyn}))
    return Result(eager, dyn, tr)
