"""More generator families for the three-way fuzzer (see fuzz_families.py for the format).

  frames          helpers reached through frames that run eagerly or are skipped: torch._dynamo.disable'd
                  helpers (recursive or not), a torch.compile'd function called from the compiled one, a graph
                  break in a loop, recursion; which frames got cache entries is compared per call too
  dyn_shapes      sizes that change between calls under dynamic=None/True: size arithmetic, view / reshape /
                  expand / cat / split with symbolic sizes, `x.shape[i]` in Python control flow, torch.Size as
                  a tuple
  generators_ctx  user @contextmanager and __enter__/__exit__ classes around breaks, generators consumed in part,
                  `yield from`, try/finally around breaks
"""
from __future__ import annotations

from fuzz_writer import BREAKS, FamilyProgram, Writer, calls_source, indent, module_source

# ---- frames: eager frames, skipped frames, compiled-in-compiled, recursion -----------------------------------
_FRAME_HELPERS = '''\
SCALE = {"k": 2.0}


@torch._dynamo.disable
def off(t, n):
    LOG.append(f"off {n}")
    return t.cos() + n


def plain(t, n):
    return t * SCALE["k"] + n


@torch.compiler.disable(recursive=False)
def shallow(t, n):
    return plain(t, n) - 1


@torch._dynamo.disable(recursive=True)
def deep_off(t, n):
    return plain(t, n).sin()


def looped(t, n):
    for i in range(n + 1):
        t = t + i
        print("loop", i)
    return t


def rec(t, k):
    if k <= 0:
        return t
    return rec(t * 0.5, k - 1) + 1


def rec_break(t, k):
    if k <= 0:
        torch._dynamo.graph_break()
        return t
    return rec_break(t + 1, k - 1) * 2


def inner_body(t, n):
    return t.sin() * (n + 1)


INNER = torch.compile(inner_body, backend="eager")


def via_inner(t, n):
    return INNER(t, n) + plain(t, n)


class Stepper:
    def __init__(self, k):
        self.k = k

    @torch._dynamo.disable
    def eager_step(self, t):
        return t + self.k

    def step(self, t):
        return t * self.k


STEPPER = Stepper(3)
'''
_FRAME_STEPS = [
    "t = off(t, n)", "t = plain(t, n)", "t = shallow(t, n)", "t = deep_off(t, n)", "t = looped(t, n)",
    "t = rec(t, n + 1)", "t = rec_break(t, n)", "t = INNER(t, n)", "t = via_inner(t, n)",
    "t = STEPPER.eager_step(t)", "t = STEPPER.step(t)", "t = off(plain(t, n), n) * 2",
    "for i in range(2):\n    t = off(t, i)", "for i in range(2):\n    t = plain(t, i)",
    "for i in range(n + 1):\n    t = t + i\n    LOG.append(str(i))", "t = torch._dynamo.disable(plain)(t, n)",
    "t = INNER(off(t, n), n)", "t = (lambda v: off(v, n))(t)", "t = t + rec(t, 2).sum()",
    "t = [off(v, n) for v in (t, t * 2)][1]", "t = t + looped(t, 0)",
]
_FRAME_MUTATIONS = {
    "scale": "SCALE['k'] = 3.0",
    "plain": "global plain\n_old = plain\nplain = lambda t, n: _old(t, n) + 10",
    "stepper": "STEPPER.k = 5",
    "inner": "global INNER\nINNER = torch.compile(lambda t, n: t.cos() - n, backend='eager')",
}


def _frames(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"]
    for _ in range(w.rng.randint(1, 4)):
        body += w.choice(_FRAME_STEPS).splitlines()
        if w.rng.random() < 0.15:
            body.append(w.choice(BREAKS).format(k="n", t="t"))
    body.append(w.choice(["return t", "return t, n", "return {'t': t, 'log': len(LOG)}"]))
    mut = w.choice(sorted(_FRAME_MUTATIONS))
    n0 = w.choice([0, 1])
    plan = [(None, f"T(3), {n0}"), (None, f"T(3), {n0}"), (None, f"T(3), {n0 + 1}"), (mut, f"T(3), {n0}"),
            (None, f"T(3), {n0}")]
    src = module_source(seed, _FRAME_HELPERS, "def fn(x, n):\n" + indent(body),
                        f"def mutate_{mut}():\n" + indent(_FRAME_MUTATIONS[mut].splitlines()), calls_source(plan))
    return FamilyProgram("frames", seed, src, state=("LOG", "SCALE"), all_frames=True)


# ---- dyn_shapes: symbolic sizes in views, cats, splits and Python control flow --------------------------------
_SHAPE_STEPS = [  # each keeps `t` two-dimensional with an even number of columns
    "b, c = t.shape\nt = t.view(b * c).view(b, c)", "t = t.reshape(-1, t.shape[-1]) * 2",
    "b, c = t.shape\nt = t.view(b, c // 2, 2).sum(-1).repeat(1, 2)", "t = t.expand(2, *t.shape).sum(0)",
    "t = torch.cat([t, t[:1]], dim=0)", "t = torch.cat([t, t], dim=1)[:, : t.shape[1]].contiguous()",
    "parts = t.split(1, dim=0)\nt = torch.cat(parts[::-1], dim=0)", "a, b = t.chunk(2, dim=-1)\nt = torch.cat([b, a], -1)",
    "if t.shape[0] > 3:\n    t = t[:3]\nelse:\n    t = t * t.shape[0]", "t = t + t.shape[0] * t.shape[1]",
    "s = t.shape\nt = t.new_zeros(s) + t + len(s)", "s = tuple(t.size())\nt = t.view(*s) + s[-1]",
    "t = t + (t.shape == torch.Size([4, 4]))", "t = t * (t.numel() // t.shape[0])",
    "t = t + torch.arange(t.shape[0]).unsqueeze(1)", "t = torch.ones(t.shape[0], 1) * t",
    "t = t[t.shape[0] // 2:] if t.shape[0] > 2 else t", "t = t.narrow(0, 0, max(t.shape[0] - 1, 1))",
    "t = t.unflatten(-1, (2, t.shape[-1] // 2)).flatten(-2)", "t = t.permute(1, 0).contiguous().view(t.shape)",
    "t = t.unsqueeze(-1).expand(*t.shape, 2).mean(-1)", "acc = t[0]\nfor i in range(1, t.shape[0]):\n    acc = acc + t[i]\nt = t + acc",
    "size = list(t.shape)\nsize[0] += 1\nt = t.new_ones(size)[1:] * t", "t = t.reshape(t.shape[0], 2, -1).transpose(1, 2).reshape(t.shape)",
    "t = torch.zeros(t.size()[0], t.size()[1]) + t", "LOG.append(f'rows {t.shape[0]}')",
    "t = t + math.prod(t.shape) / 8", "t = t.flatten()[: t.shape[1]].reshape(1, -1) + t",
    "t = t + y[: t.shape[0]].sum() if y.shape[0] >= t.shape[0] else t", "t = torch.stack([t, t.flip(0)]).sum(0)",
    "t = t @ torch.eye(t.shape[1])", "t = t + (t.shape[1] - 2) * 0.5", "n = t.shape[0] % 3\nt = t * (n + 1)",
]
_SHAPE_RETURNS = ["return t", "return t, t.shape[0]", "return t.sum(), tuple(t.shape)", "return t, t.size()",
                  "return {'t': t, 'rows': t.shape[0] * 2}", "return t.shape[-1] + t.shape[0], t"]


def _dyn_shapes(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"]
    for _ in range(w.rng.randint(2, 5)):
        body += w.choice(_SHAPE_STEPS).splitlines()
        if w.rng.random() < 0.12:
            body.append(w.choice(BREAKS).format(k="t.shape[0]", t="t"))
    body.append(w.choice(_SHAPE_RETURNS))
    rows = w.rng.sample([2, 3, 4, 5, 6, 7], 3)
    cols = w.choice([[4, 4, 4], [4, 6, 8], [2, 4, 2], [6, 6, 4]])
    plan = [(None, f"T({r}, {c}), T({r + 1}, {c})") for r, c in zip(rows, cols)]
    plan.append((None, f"T({rows[0]}, {cols[0]}), T({rows[0] + 1}, {cols[0]})"))
    src = module_source(seed, "import math", "def fn(x, y):\n" + indent(body), calls_source(plan))
    return FamilyProgram("dyn_shapes", seed, src, dynamic=w.choice([None, True]), state=("LOG",))


# ---- generators_ctx: user context managers and generators around breaks --------------------------------------
_GEN_HELPERS = '''\
import contextlib
import itertools

STATE = {"depth": 0}


@contextlib.contextmanager
def tagged(name):
    LOG.append(f"enter {name}")
    STATE["depth"] += 1
    try:
        yield STATE["depth"]
    finally:
        STATE["depth"] -= 1
        LOG.append(f"exit {name}")


@contextlib.contextmanager
def swallow():
    try:
        yield
    except ValueError as e:
        LOG.append(f"swallowed {e}")


class Scope:
    def __init__(self, gain):
        self.gain = gain

    def __enter__(self):
        STATE["depth"] += 1
        return self.gain

    def __exit__(self, kind, value, tb):
        STATE["depth"] -= 1
        LOG.append(f"scope {kind is not None}")
        return kind is KeyError


def counting(t, n):
    for i in range(n + 2):
        LOG.append(f"yield {i}")
        yield t * i


def chained(t, n):
    yield from counting(t, n)
    yield t.sum() * 0 + 7


def breaking_gen(t):
    for i in range(3):
        torch._dynamo.graph_break()
        yield t + i


SCOPE = Scope(2.0)
'''
_GEN_STEPS = [
    "with tagged('a') as d:\n    t = t * d", "with tagged('b'):\n    {brk}\n    t = t + 1",
    "with swallow():\n    t = t + 1\n    if n > 0:\n        raise ValueError(n)", "with Scope(n + 1) as g:\n    t = t * g",
    "with Scope(0.5) as g:\n    {brk}\n    t = t + g", "with Scope(1.0):\n    t = t + {{'a': 1}}['a' if n else 'b']",
    "with SCOPE as g:\n    t = t - g", "with tagged('c'), Scope(2) as g:\n    t = t * g",
    "g = counting(t, n)\nt = t + next(g)\nt = t + next(g)", "for v in counting(t, n):\n    if v.sum() > 1:\n        break\n    t = t + v",
    "t = t + sum(itertools.islice(chained(t, n), 2))", "t = torch.stack(list(chained(t, n))).sum(0)",
    "for i, v in zip(range(2), counting(t, n)):\n    t = t + v * i", "t = t + next(breaking_gen(t))",
    "g = chained(t, n)\nfirst = next(g)\ng.close()\nt = t + first", "t = t + max(v.sum() for v in counting(t, n))",
    "try:\n    {brk}\n    t = t + 1\nfinally:\n    LOG.append('finally')",
    "try:\n    t = t * 2\n    if n > 1:\n        raise KeyError(n)\nexcept KeyError:\n    {brk}\n    t = t - 1\nfinally:\n    STATE['depth'] += 0",
    "with tagged('d'):\n    with Scope(3) as g:\n        {brk}\n        t = t + g", "gen = (v * 2 for v in counting(t, n))\nt = t + next(gen)",
    "t = t + len(list(counting(t, n)))", "with tagged('e') as d:\n    t = t + sum(counting(t, d))",
]


def _generators_ctx(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"]
    for _ in range(w.rng.randint(1, 4)):
        brk = w.choice(BREAKS).format(k="n", t="t") if w.rng.random() < 0.6 else "pass"
        body += w.choice(_GEN_STEPS).format(brk=brk).splitlines()
    body.append(w.choice(["return t", "return t, STATE['depth']", "return t, list(LOG)"]))
    n0 = w.choice([0, 1])
    plan = [(None, f"T(3), {n0}"), (None, f"T(3), {n0}"), (None, f"T(3), {n0 + 1}"), (None, f"T(3), {n0 + 2}")]
    src = module_source(seed, _GEN_HELPERS, "def fn(x, n):\n" + indent(body), calls_source(plan))
    return FamilyProgram("generators_ctx", seed, src, state=("LOG", "STATE"))


FAMILIES5 = {"frames": _frames, "dyn_shapes": _dyn_shapes, "generators_ctx": _generators_ctx}
