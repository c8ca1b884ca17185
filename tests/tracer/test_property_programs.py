"""Property test: random straight-line tensor programs, traced vs. eager.

Hypothesis generates a small function

    def prog(x, y, n):
        v0 = <expr>
        ...
        return (vI, vJ)

as Python *source text*, valid by construction: the generator tracks, for every
live name, what it holds (a float/bool tensor of a known shape and layout, a
Python int/float/bool with its value known, or a tuple of those), and only
emits expressions that are legal for those operands. Expressions cover
binary/unary arithmetic on tensors and Python scalars, torch functions
(sin/cos/tanh/relu/sigmoid/exp-of-clamp/add(alpha=)/where/cat/stack), tensor
methods (sum/mean(dim=0, keepdim=True)/t/view(-1)/clone/relu/clamp), constants
read from shapes (a.shape[0], a.shape[-1], a.ndim, len(a.shape)), tuples built
and indexed, and comparisons giving bool tensors or Python bools. ``n`` is
always read, so it is always guarded on.

The source is written to a real file and compiled with that path (so the
tracer sees real file names and line numbers), then:

1. ``prog(x, y, n)`` runs eagerly and under ``tracer.compile`` with a counting
   backend; results must match (tensors: assert_close with equal_nan, exact
   dtype/shape; ints/floats/bools: exact equality and same type), and the first
   call must produce exactly one "compile" event, one cache entry, at most one
   graph, no eager fallback, and as many backend calls as graphs.
2. a fresh ``x`` of the same shape must hit the cache (no new
   compile/recompile/eager_fallback/cache_limit event, still one cache entry)
   and still match eager;
3. a different ``n`` must recompile (a "recompile" event whose reason names
   ``L['n']``) and match eager;
4. the original ``n`` again must be a cache hit.

The generator was checked against real TorchDynamo
(``torch.compile(prog, backend=counter, dynamic=False, fullgraph=True)``):
every generated program compiles to at most one graph, matches eager, hits
the cache on a fresh ``x`` and recompiles exactly once when ``n`` changes.

On failure the generated source and its bytecode (``dis``) are printed via
hypothesis ``note()``.
"""

from __future__ import annotations

import atexit
import dis
import hashlib
import io
import math
import os
import shutil
import tempfile
from dataclasses import dataclass

import pytest
import torch
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import tracer

# ---------------------------------------------------------------------------
# Kinds: what a generated name holds.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TensorK:
    shape: tuple
    dtype: str  # "float" | "bool"
    # True when .view(-1) is known to be legal (contiguous, or at most one
    # non-size-1 dim). Conservative: False means "don't try".
    viewable: bool = True


@dataclass(frozen=True)
class ScalarK:
    typ: type  # int | float | bool
    # Value in the first world (original n) and in the second world (n changed).
    vals: tuple


@dataclass(frozen=True)
class TupleK:
    elems: tuple  # of (expr_str_for_element_kind_only, kind) -> we keep kinds only


def _is_ft(k):
    return isinstance(k, TensorK) and k.dtype == "float"


def _is_bt(k):
    return isinstance(k, TensorK) and k.dtype == "bool"


def _is_num(k):
    """Python int/float (not bool), with bounded values in both worlds."""
    return (
        isinstance(k, ScalarK)
        and k.typ in (int, float)
        and all(abs(v) <= 1000 for v in k.vals)
    )


def _bcast(a, b):
    try:
        return tuple(torch.broadcast_shapes(a, b))
    except RuntimeError:
        return None


def _viewable(shape):
    return sum(1 for d in shape if d != 1) <= 1


INT_LITS = [1, 2, 3, -1]
FLOAT_LITS = [0.5, 2.0, -1.5, 0.25, 3.0]


# ---------------------------------------------------------------------------
# Program generator.
# ---------------------------------------------------------------------------


class _Gen:
    def __init__(self, draw, env):
        self.draw = draw
        self.env = env  # name -> kind, insertion ordered

    # -- helpers ------------------------------------------------------------
    def names(self, pred):
        return [nm for nm, k in self.env.items() if pred(k)]

    def pick(self, pred):
        cands = self.names(pred)
        return self.draw(st.sampled_from(cands)) if cands else None

    def scalar_operand(self):
        """A Python number operand: an existing int/float name or a literal."""
        nums = self.names(_is_num)
        choice = self.draw(st.sampled_from(["int_lit", "float_lit"] + (["name"] if nums else [])))
        if choice == "name":
            nm = self.draw(st.sampled_from(nums))
            return nm, self.env[nm]
        if choice == "int_lit":
            v = self.draw(st.sampled_from(INT_LITS))
            return repr(v), ScalarK(int, (v, v))
        v = self.draw(st.sampled_from(FLOAT_LITS))
        return repr(v), ScalarK(float, (v, v))

    # -- expression families (each returns (src, kind)) ---------------------
    def e_tensor_binop(self):
        a = self.pick(_is_ft)
        op = self.draw(st.sampled_from(["+", "*", "-", "/"]))
        rhs_kind = self.draw(st.sampled_from(["tensor", "scalar"]))
        ka = self.env[a]
        if rhs_kind == "tensor":
            b = self.pick(lambda k: _is_ft(k) and _bcast(ka.shape, k.shape) is not None)
            kb = self.env[b]
            shape = _bcast(ka.shape, kb.shape)
            viewable = (ka.viewable and kb.viewable and ka.shape == kb.shape) or _viewable(shape)
            if self.draw(st.booleans()):
                a, b = b, a
            return f"{a} {op} {b}", TensorK(shape, "float", viewable)
        s, _ = self.scalar_operand()
        if self.draw(st.booleans()):
            return f"{a} {op} {s}", TensorK(ka.shape, "float", ka.viewable)
        return f"{s} {op} {a}", TensorK(ka.shape, "float", ka.viewable)

    def e_mask_mul(self):
        a = self.pick(_is_ft)
        ka = self.env[a]
        c = self.pick(lambda k: _is_bt(k) and _bcast(ka.shape, k.shape) is not None)
        if c is None:
            return None
        shape = _bcast(ka.shape, self.env[c].shape)
        return f"{a} * {c}", TensorK(shape, "float", _viewable(shape) or (ka.viewable and ka.shape == shape and self.env[c].viewable))

    def e_tensor_unary(self):
        a = self.pick(_is_ft)
        ka = self.env[a]
        form = self.draw(st.sampled_from(["-{}", "abs({})", "{}.relu()", "{}.clone()"]))
        return form.format(a), ka

    def e_torch_fn(self):
        a = self.pick(_is_ft)
        ka = self.env[a]
        form = self.draw(
            st.sampled_from(
                [
                    "torch.sin({})",
                    "torch.cos({})",
                    "torch.tanh({})",
                    "torch.relu({})",
                    "torch.sigmoid({})",
                    "torch.exp({}.clamp(-5.0, 5.0))",
                    "torch.exp(torch.clamp({}, max=4.0))",
                ]
            )
        )
        return form.format(a), ka

    def e_torch_add_alpha(self):
        a = self.pick(_is_ft)
        ka = self.env[a]
        b = self.pick(lambda k: _is_ft(k) and _bcast(ka.shape, k.shape) is not None)
        shape = _bcast(ka.shape, self.env[b].shape)
        alpha = self.draw(st.sampled_from([2, -1, 3]))
        return f"torch.add({a}, {b}, alpha={alpha})", TensorK(shape, "float", _viewable(shape) or (ka.viewable and ka.shape == shape and self.env[b].viewable))

    def e_where(self):
        a = self.pick(_is_ft)
        ka = self.env[a]
        b = self.pick(lambda k: _is_ft(k) and _bcast(ka.shape, k.shape) is not None)
        kb = self.env[b]
        shape = _bcast(ka.shape, kb.shape)
        conds = self.names(lambda k: _is_bt(k) and _bcast(shape, k.shape) is not None)
        if conds and self.draw(st.booleans()):
            c = self.draw(st.sampled_from(conds))
            shape = _bcast(shape, self.env[c].shape)
            return f"torch.where({c}, {a}, {b})", TensorK(shape, "float", _viewable(shape))
        cmp = self.draw(st.sampled_from([">", "<"]))
        return f"torch.where({a} {cmp} {b}, {a}, {b})", TensorK(shape, "float", _viewable(shape))

    def e_cat(self):
        a = self.pick(lambda k: _is_ft(k) and len(k.shape) >= 1)
        if a is None:
            return None
        ka = self.env[a]
        b = self.pick(lambda k: _is_ft(k) and len(k.shape) == len(ka.shape) and k.shape[1:] == ka.shape[1:])
        shape = (ka.shape[0] + self.env[b].shape[0],) + ka.shape[1:]
        if shape[0] > 16:
            return None
        bracket = self.draw(st.sampled_from(["[{}, {}]", "({}, {})"]))
        return f"torch.cat({bracket.format(a, b)})", TensorK(shape, "float", True)

    def e_stack(self):
        a = self.pick(lambda k: _is_ft(k) and len(k.shape) <= 2)
        if a is None:
            return None
        ka = self.env[a]
        b = self.pick(lambda k: _is_ft(k) and k.shape == ka.shape)
        return f"torch.stack([{a}, {b}])", TensorK((2,) + ka.shape, "float", True)

    def e_reduce(self):
        a = self.pick(_is_ft)
        ka = self.env[a]
        forms = ["sum"]
        if len(ka.shape) >= 1:
            forms.append("mean")
        form = self.draw(st.sampled_from(forms))
        if form == "sum":
            return f"{a}.sum()", TensorK((), "float", True)
        shape = (1,) + ka.shape[1:]
        return f"{a}.mean(dim=0, keepdim=True)", TensorK(shape, "float", ka.viewable or _viewable(shape))

    def e_layout(self):
        a = self.pick(lambda k: _is_ft(k) and (len(k.shape) == 2 or k.viewable))
        if a is None:
            return None
        ka = self.env[a]
        forms = []
        if len(ka.shape) == 2:
            forms.append("t")
        if ka.viewable:
            forms.append("view")
        form = self.draw(st.sampled_from(forms))
        if form == "t":
            shape = ka.shape[::-1]
            return f"{a}.t()", TensorK(shape, "float", _viewable(shape))
        return f"{a}.view(-1)", TensorK((math.prod(ka.shape),), "float", True)

    def e_shape_const(self):
        a = self.pick(lambda k: isinstance(k, TensorK))
        ka = self.env[a]
        forms = ["ndim", "len"]
        if len(ka.shape) >= 1:
            forms += ["shape0", "shape-1"]
        form = self.draw(st.sampled_from(forms))
        if form == "ndim":
            v = len(ka.shape)
            return f"{a}.ndim", ScalarK(int, (v, v))
        if form == "len":
            v = len(ka.shape)
            return f"len({a}.shape)", ScalarK(int, (v, v))
        if form == "shape0":
            v = ka.shape[0]
            return f"{a}.shape[0]", ScalarK(int, (v, v))
        v = ka.shape[-1]
        return f"{a}.shape[-1]", ScalarK(int, (v, v))

    def e_scalar_binop(self):
        nums = self.names(_is_num)
        if not nums:
            return None
        a = self.draw(st.sampled_from(nums))
        ka = self.env[a]
        b, kb = self.scalar_operand()
        op = self.draw(st.sampled_from(["+", "*", "-", "/"]))
        if self.draw(st.booleans()):
            a, ka, b, kb = b, kb, a, ka
        if op == "/" and 0 in kb.vals:
            op = "+"  # keep the program valid in both worlds (n and changed n)
        f = {"+": lambda p, q: p + q, "-": lambda p, q: p - q,
             "*": lambda p, q: p * q, "/": lambda p, q: p / q}[op]
        vals = tuple(f(va, vb) for va, vb in zip(ka.vals, kb.vals))
        typ = type(vals[0])
        assert type(vals[1]) is typ
        return f"{a} {op} {b}", ScalarK(typ, vals)

    def e_scalar_unary(self):
        a = self.pick(_is_num)
        if a is None:
            return None
        ka = self.env[a]
        if self.draw(st.booleans()):
            return f"-{a}", ScalarK(ka.typ, tuple(-v for v in ka.vals))
        return f"abs({a})", ScalarK(ka.typ, tuple(abs(v) for v in ka.vals))

    def e_compare(self):
        if self.draw(st.booleans()):
            # tensor comparison -> bool tensor
            a = self.pick(_is_ft)
            ka = self.env[a]
            op = self.draw(st.sampled_from([">", "<=", "=="]))
            if self.draw(st.booleans()):
                b = self.pick(lambda k: _is_ft(k) and _bcast(ka.shape, k.shape) is not None)
                shape = _bcast(ka.shape, self.env[b].shape)
            else:
                b, _ = self.scalar_operand()
                shape = ka.shape
            return f"{a} {op} {b}", TensorK(shape, "bool", _viewable(shape))
        nums = self.names(_is_num)
        if not nums:
            return None
        a = self.draw(st.sampled_from(nums))
        b, kb = self.scalar_operand()
        op = self.draw(st.sampled_from([">", "==", "<="]))
        f = {">": lambda p, q: p > q, "==": lambda p, q: p == q, "<=": lambda p, q: p <= q}[op]
        vals = tuple(f(va, vb) for va, vb in zip(self.env[a].vals, kb.vals))
        return f"{a} {op} {b}", ScalarK(bool, vals)

    def e_bool_ops(self):
        c = self.pick(_is_bt)
        if c is None:
            return None
        kc = self.env[c]
        if self.draw(st.booleans()):
            return f"~{c}", kc
        d = self.pick(lambda k: _is_bt(k) and _bcast(kc.shape, k.shape) is not None)
        shape = _bcast(kc.shape, self.env[d].shape)
        op = self.draw(st.sampled_from(["&", "|"]))
        return f"{c} {op} {d}", TensorK(shape, "bool", _viewable(shape))

    def e_tuple_build(self):
        k = self.draw(st.integers(2, 3))
        names = list(self.env)
        elems = [self.draw(st.sampled_from(names)) for _ in range(k)]
        return "(" + ", ".join(elems) + ")", TupleK(tuple(self.env[e] for e in elems))

    def e_tuple_index(self):
        t = self.pick(lambda k: isinstance(k, TupleK))
        if t is None:
            return None
        kt = self.env[t]
        i = self.draw(st.integers(-len(kt.elems), len(kt.elems) - 1))
        return f"{t}[{i}]", kt.elems[i]

    FAMILIES = [
        "e_tensor_binop",
        "e_torch_fn",
        "e_tensor_unary",
        "e_reduce",
        "e_shape_const",
        "e_scalar_binop",
        "e_compare",
        "e_where",
        "e_torch_add_alpha",
        "e_cat",
        "e_stack",
        "e_layout",
        "e_tuple_build",
        "e_tuple_index",
        "e_scalar_unary",
        "e_bool_ops",
        "e_mask_mul",
    ]

    def expr(self):
        while True:
            fam = self.draw(st.sampled_from(self.FAMILIES))
            out = getattr(self, fam)()
            if out is not None:
                return fam, out


def _uses_name(lines, name):
    import re

    pat = re.compile(rf"\b{name}\b")
    return any(pat.search(ln) for ln in lines)


@st.composite
def shapes_xy(draw):
    ndim = draw(st.integers(1, 2))
    xs = tuple(draw(st.integers(1, 4)) for _ in range(ndim))
    mode = draw(st.sampled_from(["same", "ones", "trailing"]))
    if mode == "same":
        ys = xs
    elif mode == "ones":
        ys = tuple(1 if draw(st.booleans()) else d for d in xs)
    else:
        ys = xs[1:] if ndim > 1 else ()
    return xs, ys


@dataclass
class Case:
    source: str
    x_shape: tuple
    y_shape: tuple
    n0: int
    n1: int
    seed: int


@st.composite
def programs(draw):
    xs, ys = draw(shapes_xy())
    n0 = draw(st.integers(1, 3))
    n1 = draw(st.integers(0, 4).filter(lambda v: v != n0))
    env = {
        "x": TensorK(xs, "float", True),
        "y": TensorK(ys, "float", True),
        "n": ScalarK(int, (n0, n1)),
    }
    gen = _Gen(draw, env)
    nstmts = draw(st.integers(1, 8))
    lines = []
    computed = []  # lines that compute with their operands (not mere tuple packing)
    for i in range(nstmts):
        fam, (src, kind) = gen.expr()
        lines.append(f"v{i} = {src}")
        if fam != "e_tuple_build":
            computed.append(lines[-1])
        env[f"v{i}"] = kind
    if not _uses_name(computed, "n"):
        # Always compute with n so it is guarded on (changing it must recompile).
        # Merely packing n into a tuple does not count: Dynamo does not guard
        # on a value it never looks at.
        i = nstmts
        t = draw(st.sampled_from([nm for nm, k in env.items() if _is_ft(k)]))
        form = draw(st.sampled_from(["{t} * n", "n + 1", "{t} + n"]))
        lines.append(f"v{i} = " + form.format(t=t))
        env[f"v{i}"] = ScalarK(int, (n0 + 1, n1 + 1)) if form == "n + 1" else env[t]
        nstmts += 1
    defined = [f"v{i}" for i in range(nstmts)]
    k = draw(st.integers(1, min(3, len(defined))))
    # Bias toward the most recent values, but allow any live value.
    rets = draw(st.lists(st.sampled_from(defined[::-1]), min_size=k, max_size=k))
    body = "\n".join("    " + ln for ln in lines)
    source = (
        "import torch\n\n\n"
        "def prog(x, y, n):\n"
        f"{body}\n"
        f"    return ({', '.join(rets)},)\n"
    )
    seed = draw(st.integers(0, 2**16))
    return Case(source, xs, ys, n0, n1, seed)


# ---------------------------------------------------------------------------
# Harness.
# ---------------------------------------------------------------------------

_SRC_DIR = tempfile.mkdtemp(prefix="standin-prop-")
atexit.register(shutil.rmtree, _SRC_DIR, True)


def load_prog(source):
    """Write the source to a real file and exec it there; returns prog."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:16]
    path = os.path.join(_SRC_DIR, f"prog_{digest}.py")
    with open(path, "w") as f:
        f.write(source)
    code = compile(source, path, "exec")
    mod = {"__name__": f"standin_prop_{digest}", "__file__": path}
    exec(code, mod)
    return mod["prog"]


def dis_text(fn):
    buf = io.StringIO()
    dis.dis(fn, file=buf)
    return buf.getvalue()


class CountingBackend:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward


def assert_same(actual, expected, path="out"):
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, torch.Tensor), f"{path}: expected Tensor, got {type(actual).__name__}"
        assert actual.dtype == expected.dtype, f"{path}: dtype {actual.dtype} != {expected.dtype}"
        assert actual.shape == expected.shape, f"{path}: shape {tuple(actual.shape)} != {tuple(expected.shape)}"
        torch.testing.assert_close(actual, expected, equal_nan=True, msg=lambda m: f"{path}: {m}")
    elif isinstance(expected, tuple):
        assert isinstance(actual, tuple), f"{path}: expected tuple, got {type(actual).__name__}"
        assert len(actual) == len(expected), f"{path}: len {len(actual)} != {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{path}[{i}]")
    else:
        assert type(actual) is type(expected), f"{path}: type {type(actual).__name__} != {type(expected).__name__}"
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def _kinds(events):
    return [e.kind for e in events]


# A cache hit is "no new event of these kinds" (a "cache_hit" event is allowed, not required).
_MISS_KINDS = {"compile", "recompile", "eager_fallback", "cache_limit"}


def check_case(case, prog):
    """Run prog eagerly and traced (4 calls), asserting results and cache events."""
    g = torch.Generator().manual_seed(case.seed)
    x = torch.randn(case.x_shape, generator=g)
    y = torch.randn(case.y_shape, generator=g)
    x2 = torch.randn(case.x_shape, generator=g)

    tracer.reset()
    backend = CountingBackend()
    opt = tracer.compile(prog, backend=backend)
    try:
        # 1. first call compiles and matches eager.
        expected = prog(x, y, case.n0)
        actual = opt(x, y, case.n0)
        assert_same(actual, expected)
        kinds = _kinds(opt.compile_events)
        assert kinds == ["compile"], f"first call events: {kinds}"
        assert len(opt.cache_entries) == 1
        entry = opt.cache_entries[0]
        assert entry.eager_reason is None, f"eager fallback: {entry.eager_reason}"
        assert len(entry.graphs) <= 1, f"straight-line program split into {len(entry.graphs)} graphs"
        assert len(backend.graphs) == len(entry.graphs), (
            f"backend called {len(backend.graphs)}x for {len(entry.graphs)} graphs"
        )

        # 2. fresh x of the same shape: cache hit, still matches eager.
        seen = len(opt.compile_events)
        actual = opt(x2, y, case.n0)
        assert_same(actual, prog(x2, y, case.n0))
        new = _kinds(opt.compile_events[seen:])
        assert not _MISS_KINDS & set(new), f"fresh x (same shape) should hit the cache; events: {new}"
        assert len(opt.cache_entries) == 1

        # 3. n changed: recompile naming L['n'], matches eager.
        seen = len(opt.compile_events)
        actual = opt(x, y, case.n1)
        assert_same(actual, prog(x, y, case.n1))
        new_events = opt.compile_events[seen:]
        new = _kinds(new_events)
        assert new == ["recompile"], f"n changed {case.n0}->{case.n1}: events {new}"
        reason = new_events[0].reason or ""
        assert "L['n']" in reason, f"recompile reason does not name L['n']: {reason!r}"
        assert len(opt.cache_entries) == 2
        assert len(backend.graphs) == sum(len(e.graphs) for e in opt.cache_entries)

        # 4. original n again: served from the first entry.
        seen = len(opt.compile_events)
        actual = opt(x2, y, case.n0)
        assert_same(actual, prog(x2, y, case.n0))
        new = _kinds(opt.compile_events[seen:])
        assert not _MISS_KINDS & set(new), f"back to n={case.n0} should hit the cache; events: {new}"
        assert len(opt.cache_entries) == 2
    finally:
        tracer.reset()


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(case=programs())
def test_traced_program_matches_eager(case):
    note(f"x.shape={case.x_shape} y.shape={case.y_shape} n={case.n0} (then n={case.n1})")
    note("source:\n" + case.source)
    prog = load_prog(case.source)
    note("dis:\n" + dis_text(prog))
    check_case(case, prog)
