"""Property test: random straight-line tensor programs, traced vs. eager.

Hypothesis generates a small function as Python *source text*

    SCALE = 2.0; OFFSET = 1; CFG = {'k': 0.5}      # module globals

    def prog(x, y, n):                              # x, y float32, n a small int
        v0 = <expr>
        ...                                         # 1-8 statements
        return (vI, vJ)                             # 1-3 live values

valid by construction: the generator tracks what every name holds (a float or
bool tensor of known shape and layout, a Python int/float/bool whose value is
known both for the original and the changed ``n``, or a tuple / torch.Size /
list / dict of those) and only emits what is legal for it. Covered:

* arithmetic ``+ - * /`` (and ``// % **`` on ints), unary ``-``, ``abs()``,
  between tensors (with broadcasting), Python ints/floats and literals;
* torch functions: sin, cos, tanh, relu, sigmoid, exp(clamp(..)), softmax,
  add(a, b, alpha=), where(a > b, a, b) / where(mask, a, b), cat / stack
  (dim 0 and keyword dims), zeros / full / tensor / arange, *_like,
  torch.nn.functional.relu, builtin sum([a, b]);
* tensor methods: sum(), sum(dim=), mean(dim=0, keepdim=True), mean(), amax,
  t() / .T, view(-1) (only where legal), reshape, unsqueeze, clone, relu,
  pow, neg, abs, exp, float(), indexing ``a[0] a[-1] a[1:] a[:, 0]``;
* shape constants: a.shape[0], a.shape[-1], a.ndim, len(a.shape), a.dim(),
  a.numel(), a.size(i), len(a), a.shape / a.size() as torch.Size values;
* tuples, lists and dicts built, indexed, concatenated, unpacked and
  returned; comparisons giving bool tensors (``~ & |`` on them) or Python
  bools (chained comparisons, ``not/and/or``); ``a if cond else b``;
  max/min/int/float on scalars; augmented assignment;
* in-place ops on program-owned clones (``v += x``, ``v.add_``, ``v.mul_``),
  also after aliases (views, containers) of them were taken;
* module globals read inside the function (``SCALE``, ``OFFSET``, ``CFG['k']``);
* three flavours, each drawn on purpose: any families (30 programs), programs that
  read a module global (15), programs that run no tensor operation (15: shapes,
  Python numbers and containers only); the test asserts each flavour's checks ran
  for every one of its programs;
* ``x`` is sometimes a transposed (non-contiguous) view.

``n`` is always computed with, so it is always guarded on.

The source is written to a real file and compiled with that path (so the
tracer sees real file names and line numbers), then, with a counting backend:

1. ``prog(x, y, n)`` eagerly and through ``tracer.compile`` must agree
   (tensors: assert_close(equal_nan=True) plus exact dtype and shape; Python
   values: exact type and equality; containers: exact type, recursively), and
   returned tensors must alias inputs / each other exactly as in eager. The
   first call makes one cache entry with at most one graph and one backend
   call per graph; it may fall back to eager only when the frame traced no
   tensor op at all (as Dynamo skips such frames), which is checked by
   tracing again with fullgraph=True (must not raise Unsupported, must give
   no graph).
2. a fresh ``x`` of the same shape and layout must hit the cache (no new
   compile/recompile/eager_fallback/cache_limit event) and still agree;
3. a different ``n`` must recompile (one "recompile" event whose reason
   names ``L['n']``) and agree (a skipped frame stays skipped);
4. the first ``n`` again (passed by keyword) must hit the cache;
5. if the program reads a module global, changing it must recompile with a
   reason naming it, and agree.

The generator was validated against real TorchDynamo: for thousands of
programs (up to 25 statements), ``torch.compile(prog, backend=counter,
dynamic=False, fullgraph=True)`` compiled each in at most one graph, matched
eager (values and output aliasing), hit the cache on a fresh ``x``, and
recompiled exactly once on a changed ``n`` and on a changed global.

On failure the generated source and its bytecode (``dis``) are printed via
hypothesis ``note()``.
"""

from __future__ import annotations

import atexit
import collections
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
    # True when the tensor is a fresh clone made by the program itself (or an
    # op/alias of one), so later in-place ops on it never touch the inputs.
    owned: bool = False


@dataclass(frozen=True)
class ScalarK:
    typ: type  # int | float | bool
    # Value in the first world (original n) and in the second world (n changed).
    vals: tuple


@dataclass(frozen=True)
class TupleK:
    """A tuple, torch.Size or list (``ctype``) of elements of known kinds."""

    elems: tuple  # kinds of the elements
    ctype: str = "tuple"  # "tuple" | "size" | "list"

    @property
    def size(self):
        return self.ctype == "size"


@dataclass(frozen=True)
class DictK:
    items: tuple  # ((key, kind), ...) with str keys, in insertion order


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


MAX_STATEMENTS = 8
INT_LITS = [1, 2, 3, -1]
FLOAT_LITS = [0.5, 2.0, -1.5, 0.25, 3.0]


# ---------------------------------------------------------------------------
# Program generator.
# ---------------------------------------------------------------------------


class _Gen:
    def __init__(self, draw, env, families=None):
        self.draw = draw
        self.env = env  # name -> kind, insertion ordered
        self.families = families or self.FAMILIES

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
        op = self.draw(st.sampled_from(["+", "*", "-", "/", "//", "%", "**"]))
        if self.draw(st.booleans()):
            a, ka, b, kb = b, kb, a, ka
        if op in ("/", "//", "%") and 0 in kb.vals:
            op = "+"  # keep the program valid in both worlds (n and changed n)
        if op == "**":
            if ka.typ is not int or any(abs(v) > 30 for v in ka.vals):
                op = "-"
            else:
                b, kb = "2", ScalarK(int, (2, 2))
                if a.startswith("-"):
                    a = f"({a})"  # -1 ** 2 is -(1 ** 2)
        f = {"+": lambda p, q: p + q, "-": lambda p, q: p - q,
             "*": lambda p, q: p * q, "/": lambda p, q: p / q,
             "//": lambda p, q: p // q, "%": lambda p, q: p % q,
             "**": lambda p, q: p ** q}[op]
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

    def e_list_build(self):
        k = self.draw(st.integers(1, 3))
        names = list(self.env)
        elems = [self.draw(st.sampled_from(names)) for _ in range(k)]
        return "[" + ", ".join(elems) + "]", TupleK(tuple(self.env[e] for e in elems), "list")

    def e_dict_build(self):
        k = self.draw(st.integers(1, 3))
        names = list(self.env)
        elems = [self.draw(st.sampled_from(names)) for _ in range(k)]
        items = tuple((f"k{j}", self.env[e]) for j, e in enumerate(elems))
        src = "{" + ", ".join(f"'k{j}': {e}" for j, e in enumerate(elems)) + "}"
        return src, DictK(items)

    def e_dict_get(self):
        d = self.pick(lambda k: isinstance(k, DictK))
        if d is None:
            return None
        key, kind = self.draw(st.sampled_from(self.env[d].items))
        return f"{d}['{key}']", kind

    def e_tuple_index(self):
        t = self.pick(lambda k: isinstance(k, TupleK) and k.elems)
        if t is None:
            return None
        kt = self.env[t]
        i = self.draw(st.integers(-len(kt.elems), len(kt.elems) - 1))
        return f"{t}[{i}]", kt.elems[i]

    def e_scalar_builtin(self):
        a = self.pick(_is_num)
        if a is None:
            return None
        ka = self.env[a]
        form = self.draw(st.sampled_from(["minmax", "float", "int"]))
        if form == "minmax":
            b = self.pick(lambda k: _is_num(k) and k.typ is ka.typ)
            fn = self.draw(st.sampled_from(["max", "min"]))
            f = max if fn == "max" else min
            return f"{fn}({a}, {b})", ScalarK(ka.typ, tuple(f(p, q) for p, q in zip(ka.vals, self.env[b].vals)))
        if form == "float":
            return f"float({a})", ScalarK(float, tuple(float(v) for v in ka.vals))
        return f"int({a})", ScalarK(int, tuple(int(v) for v in ka.vals))

    def e_tensor_index(self):
        a = self.pick(lambda k: _is_ft(k) and len(k.shape) >= 1)
        if a is None:
            return None
        ka = self.env[a]
        forms = ["[0]", "[-1]"]
        if ka.shape[0] >= 2:
            forms.append("[1:]")
        if len(ka.shape) == 2:
            forms.append("[:, 0]")
        form = self.draw(st.sampled_from(forms))
        if form in ("[0]", "[-1]"):
            shape = ka.shape[1:]
        elif form == "[1:]":
            shape = (ka.shape[0] - 1,) + ka.shape[1:]
        else:
            shape = ka.shape[:1]
        return f"{a}{form}", TensorK(shape, "float", ka.viewable or _viewable(shape))

    def e_tensor_more(self):
        a = self.pick(_is_ft)
        ka = self.env[a]
        forms = ["pow", "**", "unsqueeze", "reshape", "mean_all", "ones_like", "zeros_like"]
        if len(ka.shape) >= 1:
            forms += ["sum_last", "amax0"]
        form = self.draw(st.sampled_from(forms))
        if form == "pow":
            return f"{a}.pow(2)", ka
        if form == "**":
            return f"{a} ** 2", ka
        if form == "unsqueeze":
            return f"{a}.unsqueeze(0)", TensorK((1,) + ka.shape, "float", ka.viewable)
        if form == "reshape":
            return f"{a}.reshape(-1)", TensorK((math.prod(ka.shape),), "float", True)
        if form == "mean_all":
            return f"{a}.mean()", TensorK((), "float", True)
        if form in ("ones_like", "zeros_like"):
            return f"torch.{form}({a})", ka
        if form == "sum_last":
            shape = ka.shape[:-1]
            return f"{a}.sum(dim=-1)", TensorK(shape, "float", ka.viewable or _viewable(shape))
        shape = ka.shape[1:]
        return f"{a}.amax(dim=0)", TensorK(shape, "float", ka.viewable or _viewable(shape))

    def e_bool_to_float(self):
        c = self.pick(_is_bt)
        if c is None:
            return None
        kc = self.env[c]
        return f"{c}.float()", TensorK(kc.shape, "float", kc.viewable)

    def e_tensor_meta(self):
        a = self.pick(lambda k: isinstance(k, TensorK))
        ka = self.env[a]
        nd = len(ka.shape)
        forms = ["dim", "numel", "shape", "size()", "isinstance"]
        if nd >= 1:
            forms += ["len", "size0", "size-1"]
        form = self.draw(st.sampled_from(forms))
        if form == "dim":
            return f"{a}.dim()", ScalarK(int, (nd, nd))
        if form == "numel":
            v = math.prod(ka.shape)
            return f"{a}.numel()", ScalarK(int, (v, v))
        if form in ("shape", "size()"):
            elems = tuple(ScalarK(int, (d, d)) for d in ka.shape)
            return (f"{a}.shape" if form == "shape" else f"{a}.size()"), TupleK(elems, "size")
        if form == "isinstance":
            return f"isinstance({a}, torch.Tensor)", ScalarK(bool, (True, True))
        if form == "len":
            return f"len({a})", ScalarK(int, (ka.shape[0],) * 2)
        if form == "size0":
            return f"{a}.size(0)", ScalarK(int, (ka.shape[0],) * 2)
        return f"{a}.size(-1)", ScalarK(int, (ka.shape[-1],) * 2)

    def e_tuple_more(self):
        t = self.pick(lambda k: isinstance(k, (TupleK, DictK)))
        if t is None:
            return None
        kt = self.env[t]
        if isinstance(kt, DictK):
            return f"len({t})", ScalarK(int, (len(kt.items),) * 2)
        if self.draw(st.booleans()):
            return f"len({t})", ScalarK(int, (len(kt.elems),) * 2)
        def all_ints(k):
            return all(isinstance(e, ScalarK) and e.typ is int for e in k.elems)

        # torch.Size + tuple, tuple + torch.Size, Size + Size are all torch.Size,
        # and only legal when every element is an int.
        def compatible(k):
            if (k.ctype == "list") != (kt.ctype == "list"):
                return False  # list + tuple is a TypeError
            return not (k.size or kt.size) or (all_ints(k) and all_ints(kt))

        u = self.pick(
            lambda k: isinstance(k, TupleK) and len(k.elems) + len(kt.elems) <= 6 and compatible(k)
        )
        if u is None:
            return None
        ku = self.env[u]
        ctype = "size" if (kt.size or ku.size) else kt.ctype
        return f"{t} + {u}", TupleK(kt.elems + ku.elems, ctype)

    def e_tensor_methods2(self):
        a = self.pick(_is_ft)
        ka = self.env[a]
        forms = ["add_alpha", "mul", "neg", "abs", "exp", "sigmoid", "F.relu", "sum_kw"]
        if len(ka.shape) >= 1:
            forms += ["softmax", "sum0"]
        if len(ka.shape) == 2:
            forms.append("T")
        form = self.draw(st.sampled_from(forms))
        if form == "add_alpha":
            b = self.pick(lambda k: _is_ft(k) and _bcast(ka.shape, k.shape) == ka.shape)
            return f"{a}.add({b}, alpha=2)", TensorK(ka.shape, "float", ka.viewable and self.env[b].viewable and self.env[b].shape == ka.shape or _viewable(ka.shape))
        if form == "mul":
            sc, _ = self.scalar_operand()
            return f"{a}.mul({sc})", ka
        if form in ("neg", "abs", "exp", "sigmoid"):
            return f"{a}.{form}()", ka
        if form == "F.relu":
            return f"torch.nn.functional.relu({a})", ka
        if form == "sum_kw":
            return f"torch.sum({a})", TensorK((), "float", True)
        if form == "softmax":
            return f"torch.softmax({a}, dim=-1)", ka
        if form == "sum0":
            shape = ka.shape[1:]
            return f"{a}.sum(dim=0)", TensorK(shape, "float", ka.viewable or _viewable(shape))
        shape = ka.shape[::-1]
        return f"{a}.T", TensorK(shape, "float", _viewable(shape))

    def e_cat_stack_kw(self):
        a = self.pick(lambda k: _is_ft(k) and len(k.shape) >= 1)
        if a is None:
            return None
        ka = self.env[a]
        if self.draw(st.booleans()):
            b = self.pick(lambda k: _is_ft(k) and len(k.shape) == len(ka.shape) and k.shape[:-1] == ka.shape[:-1])
            shape = ka.shape[:-1] + (ka.shape[-1] + self.env[b].shape[-1],)
            if shape[-1] > 16:
                return None
            return f"torch.cat([{a}, {b}], dim=-1)", TensorK(shape, "float", True)
        b = self.pick(lambda k: _is_ft(k) and k.shape == ka.shape)
        return f"torch.stack(({a}, {b}), dim=1)", TensorK(ka.shape[:1] + (2,) + ka.shape[1:], "float", True)

    def e_factory(self):
        a = self.pick(lambda k: isinstance(k, TensorK))
        ka = self.env[a]
        form = self.draw(st.sampled_from(["zeros", "full", "tensor", "arange"]))
        if form == "zeros":
            return f"torch.zeros({a}.shape)", TensorK(ka.shape, "float", True)
        if form == "full":
            v = self.draw(st.sampled_from(FLOAT_LITS))
            return f"torch.full({a}.shape, {v!r})", TensorK(ka.shape, "float", True)
        if form == "tensor":
            v = self.draw(st.sampled_from(FLOAT_LITS))
            return f"torch.tensor({v!r})", TensorK((), "float", True)
        k = self.draw(st.integers(1, 4))
        return f"torch.arange({float(k)!r})", TensorK((k,), "float", True)

    def e_builtin_sum(self):
        a = self.pick(_is_ft)
        ka = self.env[a]
        b = self.pick(lambda k: _is_ft(k) and _bcast(ka.shape, k.shape) is not None)
        shape = _bcast(ka.shape, self.env[b].shape)
        return f"sum([{a}, {b}])", TensorK(shape, "float", _viewable(shape) or (ka.viewable and ka.shape == shape == self.env[b].shape and self.env[b].viewable))

    def e_bool_logic(self):
        bools = self.names(lambda k: isinstance(k, ScalarK) and k.typ is bool)
        form = self.draw(st.sampled_from(["chain", "not", "andor"]))
        if form == "chain" or not bools:
            a = self.pick(_is_num)
            if a is None:
                return None
            lo, hi = sorted(self.draw(st.sampled_from(INT_LITS)) for _ in range(2))
            vals = tuple(lo < v <= hi for v in self.env[a].vals)
            return f"{lo} < {a} <= {hi}", ScalarK(bool, vals)
        a = self.draw(st.sampled_from(bools))
        va = self.env[a].vals
        if form == "not":
            return f"not {a}", ScalarK(bool, tuple(not v for v in va))
        b = self.draw(st.sampled_from(bools))
        vb = self.env[b].vals
        if self.draw(st.booleans()):
            return f"{a} and {b}", ScalarK(bool, tuple(p and q for p, q in zip(va, vb)))
        return f"{a} or {b}", ScalarK(bool, tuple(p or q for p, q in zip(va, vb)))

    def e_global(self):
        g = self.draw(st.sampled_from(["SCALE", "OFFSET", "CFG['k']"]))
        a = self.pick(_is_ft)
        if g == "SCALE":
            return f"{a} * SCALE", self.env[a]
        if g == "OFFSET":
            return f"OFFSET - {a}", self.env[a]
        return f"{a} + CFG['k']", self.env[a]

    # -- multi-line statement families: return (lines, {name: kind}) ---------
    def s_unpack(self, fresh):
        t = self.pick(lambda k: isinstance(k, TupleK) and len(k.elems) == 2)
        p, q = fresh(), fresh()
        if t is not None and self.draw(st.booleans()):
            kt = self.env[t]
            return [f"{p}, {q} = {t}"], {p: kt.elems[0], q: kt.elems[1]}
        names = list(self.env)
        a, b = self.draw(st.sampled_from(names)), self.draw(st.sampled_from(names))
        return [f"{p}, {q} = {b}, {a}"], {p: self.env[b], q: self.env[a]}

    def s_inplace(self, fresh):
        a = self.pick(_is_ft)
        ka = self.env[a]
        v = fresh()
        form = self.draw(st.sampled_from(["+=", "*=", "-=", "add_", "mul_", "clamp_"]))
        if form in ("+=", "-=", "add_"):
            b = self.pick(lambda k: _is_ft(k) and _bcast(ka.shape, k.shape) == ka.shape)
        if form in ("+=", "-="):
            second = f"{v} {form} {b}"
        elif form == "*=":
            second = f"{v} *= {self.scalar_operand()[0]}"
        elif form == "add_":
            second = f"{v}.add_({b}, alpha=2)"
        elif form == "mul_":
            second = f"{v}.mul_({self.scalar_operand()[0]})"
        else:
            second = f"{v}.clamp_(min=0.0)"
        return [f"{v} = {a}.clone()", second], {v: TensorK(ka.shape, "float", ka.viewable, owned=True)}

    def s_mutate(self, fresh):
        """In-place op on an earlier program-owned tensor: aliases (views,
        tuples, `a if c else b`) must all see the change."""
        v = self.pick(lambda k: _is_ft(k) and k.owned)
        if v is None:
            return None
        kv = self.env[v]
        form = self.draw(st.sampled_from(["add_", "mul_", "+=", "sub_"]))
        if form == "mul_":
            return [f"{v}.mul_({self.scalar_operand()[0]})"], {}
        # x / y can never alias a program-owned tensor.
        inputs = [nm for nm in ("x", "y") if _bcast(kv.shape, self.env[nm].shape) == kv.shape]
        if not inputs:
            return [f"{v}.add_(1.0)"], {}
        b = self.draw(st.sampled_from(inputs))
        if form == "+=":
            return [f"{v} += {b}"], {}
        return [f"{v}.{form}({b})"], {}

    def s_scalar_aug(self, fresh):
        a = self.pick(_is_num)
        if a is None:
            return None
        ka = self.env[a]
        v = fresh()
        b, kb = self.scalar_operand()
        op = self.draw(st.sampled_from(["+=", "-=", "*="]))
        f = {"+=": lambda p, q: p + q, "-=": lambda p, q: p - q, "*=": lambda p, q: p * q}[op]
        vals = tuple(f(p, q) for p, q in zip(ka.vals, kb.vals))
        return [f"{v} = {a}", f"{v} {op} {b}"], {v: ScalarK(type(vals[0]), vals)}

    def e_ifexp(self):
        conds = self.names(lambda k: isinstance(k, ScalarK) and k.typ is bool)
        if conds and self.draw(st.booleans()):
            cond = self.draw(st.sampled_from(conds))
            cvals = self.env[cond].vals
        else:
            lit = self.draw(st.sampled_from([1, 2, 3]))
            cond = f"n > {lit}"
            cvals = tuple(v > lit for v in self.env["n"].vals)
        a = self.draw(st.sampled_from([nm for nm, k in self.env.items() if isinstance(k, (TensorK, ScalarK))]))
        ka = self.env[a]
        if isinstance(ka, TensorK):
            b = self.pick(lambda k: k == ka)
            kind = ka
        else:
            b = self.pick(lambda k: isinstance(k, ScalarK) and k.typ is ka.typ)
            kb = self.env[b]
            kind = ScalarK(ka.typ, tuple(p if c else q for c, p, q in zip(cvals, ka.vals, kb.vals)))
        return f"{a} if {cond} else {b}", kind

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
        "e_scalar_builtin",
        "e_tensor_index",
        "e_tensor_more",
        "e_bool_to_float",
        "e_tensor_meta",
        "e_tuple_more",
        "e_ifexp",
        "e_list_build",
        "e_dict_build",
        "e_dict_get",
        "e_tensor_methods2",
        "e_cat_stack_kw",
        "e_factory",
        "e_builtin_sum",
        "e_bool_logic",
        "e_global",
        "s_unpack",
        "s_inplace",
        "s_scalar_aug",
        "s_mutate",
    ]
    # Families that only move values around (no operation looks at them).
    PACKING = {"e_tuple_build", "e_list_build", "e_dict_build", "s_unpack"}
    # Families that never run a tensor operation (shapes, Python numbers, containers): a program made
    # of them alone traces to an empty graph, and Dynamo skips such a frame.
    OP_FREE = ["e_shape_const", "e_scalar_binop", "e_scalar_unary", "e_tuple_build", "e_list_build",
               "e_dict_build", "e_dict_get", "e_tuple_index", "e_scalar_builtin", "e_tensor_meta",
               "e_bool_logic", "e_ifexp", "s_unpack", "s_scalar_aug"]

    def stmt(self, fresh):
        """One generated statement: (family, source lines, {new name: kind})."""
        while True:
            fam = self.draw(st.sampled_from(self.families))
            if fam.startswith("s_"):
                out = getattr(self, fam)(fresh)
                if out is not None:
                    return fam, out[0], out[1]
                continue
            out = getattr(self, fam)()
            if out is not None:
                name = fresh()
                return fam, [f"{name} = {out[0]}"], {name: out[1]}


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
    x_transposed: bool = False  # x is a (non-contiguous) transposed view
    flavour: str = "tensor"  # "tensor": any families; "global": reads a module global; "op_free": no tensor op


def make_x(case, g):
    if case.x_transposed:
        return torch.randn(case.x_shape[::-1], generator=g).t()
    return torch.randn(case.x_shape, generator=g)


@st.composite
def programs(draw, flavour="tensor"):
    xs, ys = draw(shapes_xy())
    n0 = draw(st.integers(1, 3))
    n1 = draw(st.integers(0, 4).filter(lambda v: v != n0))
    x_transposed = len(xs) == 2 and draw(st.booleans())
    env = {
        "x": TensorK(xs, "float", not x_transposed or _viewable(xs)),
        "y": TensorK(ys, "float", True),
        "n": ScalarK(int, (n0, n1)),
    }
    scale = draw(st.sampled_from(FLOAT_LITS))
    offset = draw(st.sampled_from(INT_LITS))
    cfg_k = draw(st.sampled_from(FLOAT_LITS))
    # `flavour` makes programs that read a global, or that run no tensor op, on purpose (left to chance,
    # 3 and 6 of 60 were); test_traced_program_matches_eager draws each kind and asserts the coverage.
    gen = _Gen(draw, env, _Gen.OP_FREE if flavour == "op_free" else None)
    defined = []

    def fresh():
        defined.append(f"v{len(defined)}")
        return defined[-1]

    nstmts = draw(st.integers(1, MAX_STATEMENTS))
    lines = []
    computed = []  # lines that compute with their operands (not mere packing)
    for _ in range(nstmts):
        fam, new_lines, new_vars = gen.stmt(fresh)
        lines += new_lines
        if fam == "e_ifexp":
            # `a if cond else b` looks only at cond; a and b are merely moved.
            computed.append(new_lines[0].split(" if ", 1)[1].split(" else ", 1)[0])
        elif fam not in gen.PACKING:
            computed += new_lines
        env.update(new_vars)
    forced = []  # values the program must return
    if flavour == "global":
        # over an input, so that it can stand anywhere; later statements may read it (it joins env)
        src, kind = _Gen(draw, {nm: env[nm] for nm in ("x", "y") if _is_ft(env[nm])}).e_global()
        v = fresh()
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, f"{v} = {src}")
        computed.append(lines[at])
        env[v] = kind
        forced.append(v)
    if not _uses_name(computed, "n"):
        # Always compute with n so it is guarded on (changing it must recompile).
        # Merely packing n into a tuple does not count: Dynamo does not guard
        # on a value it never looks at.
        t = draw(st.sampled_from([nm for nm, k in env.items() if _is_ft(k)]))
        form = draw(st.sampled_from(["n + 1"] if flavour == "op_free" else ["{t} * n", "n + 1", "{t} + n"]))
        v = fresh()
        lines.append(f"{v} = " + form.format(t=t))
        env[v] = ScalarK(int, (n0 + 1, n1 + 1)) if form == "n + 1" else env[t]
    k = draw(st.integers(1, min(3, len(defined))))
    # Bias toward the most recent values, but allow any live value.
    rets = draw(st.lists(st.sampled_from(defined[::-1]), min_size=k, max_size=k))
    rets += [v for v in forced if v not in rets]
    body = "\n".join("    " + ln for ln in lines)
    source = (
        "import torch\n\n"
        f"SCALE = {scale!r}\n"
        f"OFFSET = {offset!r}\n"
        f"CFG = {{'k': {cfg_k!r}}}\n\n\n"
        "def prog(x, y, n):\n"
        f"{body}\n"
        f"    return ({', '.join(rets)},)\n"
    )
    seed = draw(st.integers(0, 2**16))
    return Case(source, xs, ys, n0, n1, seed, x_transposed, flavour)


# How many derandomized programs of each flavour the property test runs.
FLAVOURS = {"tensor": 30, "global": 15, "op_free": 15}


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
    elif isinstance(expected, dict):
        assert type(actual) is type(expected), f"{path}: type {type(actual).__name__} != {type(expected).__name__}"
        assert list(actual) == list(expected), f"{path}: keys {list(actual)} != {list(expected)}"
        for key in expected:
            assert_same(actual[key], expected[key], f"{path}[{key!r}]")
    elif isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected), f"{path}: type {type(actual).__name__} != {type(expected).__name__}"
        assert len(actual) == len(expected), f"{path}: len {len(actual)} != {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{path}[{i}]")
    else:
        assert type(actual) is type(expected), f"{path}: type {type(actual).__name__} != {type(expected).__name__}"
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def _leaves(out):
    if isinstance(out, dict):
        return [leaf for v in out.values() for leaf in _leaves(v)]
    if isinstance(out, (tuple, list)):
        return [leaf for v in out for leaf in _leaves(v)]
    return [out]


def alias_signature(out, *inputs):
    """For each tensor in the output: which input it *is*, or which earlier output it *is*."""
    leaves = [leaf for leaf in _leaves(out) if isinstance(leaf, torch.Tensor)]
    sig = []
    for i, leaf in enumerate(leaves):
        same_input = [k for k, t in enumerate(inputs) if t is leaf]
        same_out = [j for j in range(i) if leaves[j] is leaf]
        sig.append(("input", same_input[0]) if same_input else ("out", same_out[0]) if same_out else "new")
    return sig


def assert_same_aliasing(actual, expected, *inputs):
    got, want = alias_signature(actual, *inputs), alias_signature(expected, *inputs)
    assert got == want, f"output identity differs from eager: traced {got}, eager {want}"


def _kinds(events):
    return [e.kind for e in events]


# A cache hit is "no new event of these kinds" (a "cache_hit" event is allowed, not required).
_MISS_KINDS = {"compile", "recompile", "eager_fallback", "cache_limit"}


def _global_to_mutate(prog):
    """(guard source name, mutator) for one module global the program computes with, or None."""
    names = set(prog.__code__.co_names)
    if "SCALE" in names:
        return "G['SCALE']", lambda g: g.__setitem__("SCALE", g["SCALE"] + 1.0)
    if "CFG" in names:
        return "G['CFG']", lambda g: g["CFG"].__setitem__("k", g["CFG"]["k"] + 1.0)
    if "OFFSET" in names:
        return "G['OFFSET']", lambda g: g.__setitem__("OFFSET", g["OFFSET"] + 1)
    return None


def check_skip_is_op_free(prog, args, reason):
    """A skipped frame must be one that traces fine, to an empty graph, with fullgraph=True."""
    tracer.reset()
    try:
        strict = tracer.compile(prog, backend=CountingBackend(), fullgraph=True, dynamic=False)
        assert_same(strict(*args), prog(*args), "out(fullgraph=True)")
        graphs = [g for e in strict.cache_entries for g in e.graphs]
    except tracer.Unsupported as exc:
        raise AssertionError(f"eager fallback: {reason}") from exc
    finally:
        tracer.reset()
    assert not graphs, f"frame skipped as op-free, but fullgraph=True traced a graph (fallback reason: {reason})"


def check_case(case, prog, coverage=None):
    """Run prog eagerly and traced (4 calls, 5 with a global), asserting results and cache events;
    `coverage` counts which checks ran."""
    coverage = coverage if coverage is not None else collections.Counter()
    g = torch.Generator().manual_seed(case.seed)
    x = make_x(case, g)
    y = torch.randn(case.y_shape, generator=g)
    x2 = make_x(case, g)

    tracer.reset()
    backend = CountingBackend()
    opt = tracer.compile(prog, backend=backend, dynamic=False)  # the expectations are static Dynamo's
    try:
        # 1. first call compiles and matches eager.
        expected = prog(x, y, case.n0)
        actual = opt(x, y, case.n0)
        assert_same(actual, expected)
        assert_same_aliasing(actual, expected, x, y)
        kinds = _kinds(opt.compile_events)
        assert len(opt.cache_entries) == 1, f"first call: {len(opt.cache_entries)} cache entries"
        entry = opt.cache_entries[0]
        assert len(entry.graphs) <= 1, f"straight-line program split into {len(entry.graphs)} graphs"
        assert len(backend.graphs) == len(entry.graphs), (
            f"backend called {len(backend.graphs)}x for {len(entry.graphs)} graphs"
        )
        # Like Dynamo, a frame that traced no tensor op may be skipped for good
        # (an eager entry). Any other eager fallback is a failure: every
        # generated program is one graph under Dynamo. Tell the two apart by
        # tracing again with fullgraph=True, which raises on a real Unsupported.
        skipped = not entry.graphs and entry.eager_reason is not None
        assert skipped or case.flavour != "op_free", "a program with no tensor op traced a graph"
        if skipped:
            assert kinds == ["compile", "eager_fallback"], f"first call events: {kinds}"
        else:
            assert entry.eager_reason is None, f"eager fallback: {entry.eager_reason}"
            assert kinds == ["compile"], f"first call events: {kinds}"

        # 2. fresh x of the same shape: cache hit, still matches eager.
        seen = len(opt.compile_events)
        actual = opt(x2, y, case.n0)
        expected = prog(x2, y, case.n0)
        assert_same(actual, expected)
        assert_same_aliasing(actual, expected, x2, y)
        new = _kinds(opt.compile_events[seen:])
        assert not _MISS_KINDS & set(new), f"fresh x (same shape) should hit the cache; events: {new}"
        assert len(opt.cache_entries) == 1

        # 3. n changed: recompile naming L['n'] (a skipped frame stays skipped), matches eager.
        seen = len(opt.compile_events)
        actual = opt(x, y, case.n1)
        assert_same(actual, prog(x, y, case.n1))
        new_events = opt.compile_events[seen:]
        new = _kinds(new_events)
        if skipped:
            assert not _MISS_KINDS & set(new), f"skipped frame recompiled on n change: {new}"
            # Checked last: it resets the tracer.
            check_skip_is_op_free(prog, (x, y, case.n0), entry.eager_reason)
            coverage["skipped as op-free"] += 1
            return
        assert new == ["recompile"], f"n changed {case.n0}->{case.n1}: events {new}"
        reason = new_events[0].reason or ""
        assert "L['n']" in reason, f"recompile reason does not name L['n']: {reason!r}"
        assert len(opt.cache_entries) == 2
        assert len(backend.graphs) == sum(len(e.graphs) for e in opt.cache_entries)

        # 4. original n again (passed by keyword this time): served from the first entry.
        seen = len(opt.compile_events)
        actual = opt(x2, y, n=case.n0)
        assert_same(actual, prog(x2, y, n=case.n0))
        new = _kinds(opt.compile_events[seen:])
        assert not _MISS_KINDS & set(new), f"back to n={case.n0} should hit the cache; events: {new}"
        assert len(opt.cache_entries) == 2

        # 5. a global the program reads changes: recompile naming it, matches eager.
        target = _global_to_mutate(prog)
        assert target is not None or case.flavour != "global", "a program meant to read a global does not"
        if target is not None:
            source_name, mutate = target
            mutate(prog.__globals__)
            seen = len(opt.compile_events)
            actual = opt(x2, y, case.n0)
            assert_same(actual, prog(x2, y, case.n0))
            new_events = opt.compile_events[seen:]
            new = _kinds(new_events)
            assert new == ["recompile"], f"{source_name} changed: events {new}"
            reason = new_events[0].reason or ""
            assert source_name in reason, f"recompile reason does not name {source_name}: {reason!r}"
            coverage["recompiled on a changed global"] += 1
        coverage["recompiled on a changed n"] += 1
    finally:
        tracer.reset()


@pytest.mark.parametrize("flavour", list(FLAVOURS))
def test_traced_program_matches_eager(flavour):
    """Derandomized programs of one flavour: any families (30), reading a module global (15: a changed
    global must recompile), or running no tensor op (15: the frame is skipped, as Dynamo skips it)."""
    coverage = collections.Counter()

    @settings(
        max_examples=FLAVOURS[flavour],
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    @given(case=programs(flavour))
    def check(case):
        note(
            f"x.shape={case.x_shape}{' (transposed view)' if case.x_transposed else ''} "
            f"y.shape={case.y_shape} n={case.n0} (then n={case.n1}); {case.flavour} program"
        )
        note("source:\n" + case.source)
        prog = load_prog(case.source)
        note("dis:\n" + dis_text(prog))
        coverage["programs"] += 1
        check_case(case, prog, coverage)

    check()
    n = coverage["programs"]
    assert n == FLAVOURS[flavour], coverage
    if flavour == "global":
        assert coverage["recompiled on a changed global"] == n, coverage
    if flavour == "op_free":
        assert coverage["skipped as op-free"] == n, coverage
    else:  # every program went through every check (an op-free one by chance stops at its skip)
        assert coverage["recompiled on a changed n"] + coverage["skipped as op-free"] == n, coverage
