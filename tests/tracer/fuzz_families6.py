"""More generator families for the three-way fuzzer (see fuzz_families.py for the format).

  views         views, slices, transposes and in-place ops on views (of locals and of the arguments), also
                under dynamic=True
  hierarchy     class hierarchies: super() (zero-argument and explicit), properties, classmethods and
                staticmethods, methods rewritten on a class between calls, breaks inside methods
  cells         closures, nonlocal, cells passed around (a closure returned, called later, made in a loop)
  outside       objects, dicts, lists and sets from outside mutated in the trace (through attributes,
                `__dict__`, containers that hold each other), breaks between the writes
  torch_state   torch's global state: grad mode, default dtype, deterministic flags, set and restored in the
                trace or between calls
  module_attrs  nn.Module attributes: buffers registered or replaced in forward, plain attributes, `__dict__`
                access, member listings after a change
"""
from __future__ import annotations

from fuzz_writer import BREAKS, FamilyProgram, Writer, calls_source, indent, module_source

# ---- views: views and in-place ops on them ---------------------------------------------------------------------
_VIEW_STEPS = [
    "v = t.view(-1)\nv.mul_(2)", "v = t[0]\nv.add_(1)", "v = t[:, :1]\nv.fill_(0.5)", "v = t.t()\nv.sub_(0.25)",
    "v = t.transpose(0, 1)[0]\nv.zero_()", "v = t.unsqueeze(0)\nv[0, 0] = 3.0", "v = t.narrow(1, 0, 2)\nv *= 2",
    "v = t.reshape(-1)\nv[0] = -1.0", "v = t.diagonal()\nv.add_(5)", "v = t[1:]\nv.clamp_(min=0)",
    "v = t.select(1, 0)\nv.copy_(t[:, 1])", "v = t.expand(2, *t.shape)\nt = t + v.sum(0)", "t = t.contiguous()",
    "t = t.t().contiguous().t()", "t = t + t.view(t.shape).sum()", "t = t[::2] * 2 if t.shape[0] > 1 else t",
    "a, b = t.chunk(2, dim=1)\na.mul_(3)", "a, b = t.split(1, dim=0)[:2] if t.shape[0] > 1 else (t, t)\nb.add_(1)",
    "t = t.clone()", "t = torch.cat([t, t.flip(0)], dim=1)[:, : t.shape[1]]", "t = t + t.mT",
    "t = t.as_strided((t.shape[0], 1), (t.stride(0), 1)) + t", "t = t.unflatten(1, (1, -1)).squeeze(1)",
    "t.view(-1)[-1] = float(t.shape[0])", "t = t * t.is_contiguous()", "t = t + t.storage_offset()",
]
_VIEW_ARG_STEPS = ["x.add_(1)", "x[0].mul_(2)", "x.view(-1)[0] = 7.0", "y.copy_(x)", "x.t_()",
                   "v = x[:, 0]\nv.fill_(1.5)", "y.unsqueeze(0).sub_(1)"]


def _views(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1" if w.rng.random() < 0.7 else "t = x.clone()"]
    for _ in range(w.rng.randint(2, 5)):
        if w.rng.random() < 0.15:
            body += w.choice(_VIEW_ARG_STEPS).splitlines()
        else:
            body += w.choice(_VIEW_STEPS).splitlines()
        if w.rng.random() < 0.1:
            body.append(w.choice(BREAKS).format(k="t.shape[0]", t="t"))
    body.append(w.choice(["return t", "return t, x", "return t.sum(), y", "return t, t.stride()"]))
    n = w.choice([3, 4])
    sizes = [n, n, n + 1] if w.rng.random() < 0.5 else [n, n, n]
    plan = [(None, f"T({s}, {s}), T({s}, {s})") for s in sizes]
    src = module_source(seed, "def fn(x, y):\n" + indent(body), calls_source(plan))
    return FamilyProgram("views", seed, src, dynamic=w.choice([False, False, True]))


# ---- hierarchy: super(), properties, classmethods, rewritten methods ------------------------------------------
_HIERARCHY = '''\
class Base:
    scale = 2.0

    def __init__(self, bias):
        self.bias = bias

    def step(self, t):
        return t * self.scale + self.bias

    @property
    def total(self):
        return self.scale + self.bias

    @classmethod
    def make(cls, bias):
        return cls(bias + 1)

    @staticmethod
    def helper(t):
        return t - 1


class Mid(Base):
    def step(self, t):
        u = super().step(t)
        return u + 1

    @property
    def total(self):
        return super().total * 2


class Leaf(Mid):
    scale = 3.0

    def step(self, t):
        LOG.append(type(self).__name__)
        return super(Leaf, self).step(t) - self.helper(t)

    def broken(self, t):
        u = super().step(t)
        {brk}
        return u * self.total


class Side(Base):
    def step(self, t):
        return Base.step(self, t) * 0.5


LEAF = Leaf(0.5)
MID = Mid(1.0)
SIDE = Side(2.0)
'''
_HIERARCHY_EXPRS = ["LEAF.step(t)", "MID.step(t)", "SIDE.step(t)", "t * LEAF.total", "t + MID.total",
                    "Leaf.make(n).step(t)", "Mid(float(n)).step(t)", "LEAF.broken(t)", "t + Base.helper(t)",
                    "t * type(LEAF).scale", "t + isinstance(LEAF, Mid)", "t + issubclass(Leaf, Base)",
                    "super(Mid, MID).step(t)", "t + len(Leaf.__mro__)", "Leaf(n).broken(t)",
                    "t * getattr(LEAF, 'bias')", "t + Side.make(n).total"]
_HIERARCHY_MUTATIONS = {
    "base_step": "Base.step = lambda self, t: t + self.bias",
    "mid_step": "def step(self, t):\n    return t * 4\nMid.step = step",
    "scale": "Base.scale = 5.0",
    "leaf_scale": "Leaf.scale = 1.5",
    "bias": "LEAF.bias = 9.0",
    "total": "Base.total = property(lambda self: 7.0)",
    "helper": "Base.helper = staticmethod(lambda t: t * 3)",
    "shadow": "LEAF.step = lambda t: t * 0",
}


def _hierarchy(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"]
    for _ in range(w.rng.randint(1, 4)):
        body.append(f"t = {w.choice(_HIERARCHY_EXPRS)}")
        if w.rng.random() < 0.1:
            body.append(w.choice(BREAKS).format(k="n", t="t"))
    body.append(w.choice(["return t", "return t, n", "return t, list(LOG)"]))
    brk = w.choice(BREAKS).format(k="'m'", t="u") if w.rng.random() < 0.7 else "pass"
    muts = sorted(w.rng.sample(sorted(_HIERARCHY_MUTATIONS), 2))
    plan = [(None, "T(3), 1"), (None, "T(3), 1"), (muts[0], "T(3), 1"), (w.choice([None, muts[1]]), "T(3), 1"),
            (None, f"T(3), {w.choice([1, 2])}")]
    parts = [_HIERARCHY.format(brk=brk), "def fn(x, n):\n" + indent(body)]
    parts += [f"def mutate_{m}():\n" + indent(_HIERARCHY_MUTATIONS[m].splitlines()) for m in muts]
    return FamilyProgram("hierarchy", seed, module_source(seed, *parts, calls_source(plan)), state=("LOG",))


# ---- cells: closures, nonlocal, cells passed around ---------------------------------------------------------
_CELL_HELPERS = '''\
def counter(start):
    count = start

    def bump(k):
        nonlocal count
        count += k
        return count

    return bump


def adder(v):
    return lambda t: t + v


BUMP = counter(0)
ADD = adder(2.0)


def apply(f, t):
    return f(t)
'''
_CELL_STEPS = [
    "t = t + BUMP(1)", "t = ADD(t)", "f = adder(n)\nt = f(t)", "t = apply(ADD, t)",
    "acc = 0\ndef inc(k):\n    nonlocal acc\n    acc += k\n    return acc\ninc(n)\ninc(2)\nt = t + acc",
    "scale = n + 1\ndef mul(v):\n    return v * scale\nscale = scale * 2\nt = mul(t)",
    "fs = [adder(i) for i in range(3)]\nt = fs[n % 3](t)", "fs = [lambda v, i=i: v + i for i in range(2)]\nt = fs[1](t)",
    "fs = [lambda v: v + i for i in range(2)]\nt = fs[0](t)", "c = counter(n)\nc(1)\nt = t + c(2)",
    "box = [t]\ndef put(v):\n    box[0] = box[0] + v\nput(t)\nt = box[0]",
    "def outer(v):\n    w = v * 2\n    def inner():\n        return w + n\n    return inner\nt = outer(t)()",
    "g = adder(t.sum())\nt = g(t)", "t = t + BUMP.__closure__[0].cell_contents",
    "state = {'k': 1}\ndef upd():\n    state['k'] += n\nupd()\nt = t * state['k']",
    "h = (lambda: t * 2)\nt = h() + 1", "def rec(k):\n    return 0 if k == 0 else k + rec(k - 1)\nt = t + rec(n)",
    "def mk():\n    q = t\n    def get():\n        return q\n    def set_(v):\n        nonlocal q\n        q = v\n    return get, set_\ng, s = mk()\ns(t + 5)\nt = g()",
]
_CELLS_PROBE = "def probe():\n    return BUMP(0), ADD(torch.zeros(1)).item()"
_CELL_MUTATIONS = {
    "bump": "global BUMP\nBUMP = counter(10)",
    "add_cell": "ADD.__closure__[0].cell_contents = 5.0",
    "add": "global ADD\nADD = adder(-1.0)",
    "bump_cell": "BUMP.__closure__[0].cell_contents = 100",
}


def _cells(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"]
    for _ in range(w.rng.randint(1, 4)):
        body += w.choice(_CELL_STEPS).splitlines()
        if w.rng.random() < 0.15:
            body.append(w.choice(BREAKS).format(k="n", t="t"))
    body.append(w.choice(["return t", "return t, BUMP(0)", "return t, n"]))
    mut = w.choice(sorted(_CELL_MUTATIONS))
    # the cells' contents are no globals a snapshot restores: each run starts from fresh closures
    plan = [("reset", "T(3), 1"), (None, "T(3), 1"), (mut, "T(3), 1"), (None, f"T(3), {w.choice([1, 2])}")]
    parts = [_CELL_HELPERS, _CELLS_PROBE, "def fn(x, n):\n" + indent(body),
             "def mutate_reset():\n    global BUMP, ADD\n    BUMP = counter(0)\n    ADD = adder(2.0)",
             f"def mutate_{mut}():\n" + indent(_CELL_MUTATIONS[mut].splitlines())]
    return FamilyProgram("cells", seed, module_source(seed, *parts, calls_source(plan)), state=("LOG", "probe()"))


# ---- outside: objects and containers from outside mutated in the trace ------------------------------------------
_OUTSIDE = '''\
class Node:
    def __init__(self, v):
        self.v = v
        self.child = None


ROOT = Node(1)
ROOT.child = Node(2)
OTHER = Node(3)
TABLE = {"a": 1.0, "node": OTHER}
ITEMS = [Node(4), Node(5)]
TAGS = {"x"}
NESTED = {"inner": [1, 2], "d": {"k": 1}}


def probe():
    return (ROOT.v, ROOT.child.v, sorted(vars(ROOT.child)), OTHER.v, ROOT.child is OTHER, sorted(TABLE),
            [n.v for n in ITEMS], sorted(TAGS), NESTED["inner"], dict(NESTED["d"]), sorted(vars(ROOT)))
'''
_OUTSIDE_STEPS = [
    "old = ROOT.child\nROOT.child = OTHER\nold.v = old.v + 10", "ROOT.child.v = ROOT.child.v + n",
    "ROOT.__dict__['v'] = ROOT.v + 1", "t = t + ROOT.v", "ROOT.__dict__.update(v=n)", "t = t + ROOT.child.v",
    "first = ITEMS[0]\nITEMS.reverse()\nfirst.v += 1", "ITEMS.append(Node(n))", "ITEMS[0].v = len(ITEMS)",
    "TABLE['a'] = TABLE['a'] + 1", "TABLE['node'].v = 7", "TABLE.pop('a', None)", "TABLE['new'] = ROOT.child",
    "TAGS.add('y')", "TAGS.discard('x')", "t = t + len(TAGS)", "NESTED['inner'].append(n)",
    "NESTED['d']['k'] += 1", "t = t + sum(NESTED['inner'])", "t = t + NESTED['d']['k']",
    "ROOT.extra = t.sum().item() > 0", "t = t + getattr(ROOT, 'extra', 0)", "t = t + len(vars(ROOT))",
    "t = t + ('extra' in ROOT.__dict__)", "OTHER.child = ROOT.child", "ROOT.child = Node(n)",
    "t = t * len(ITEMS)", "t = t + ITEMS[-1].v", "lst = NESTED['inner']\nNESTED['inner'] = [0]\nlst.append(9)",
]


def _outside(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"]
    for _ in range(w.rng.randint(2, 6)):
        body += w.choice(_OUTSIDE_STEPS).splitlines()
        if w.rng.random() < 0.15:
            body.append(w.choice(BREAKS).format(k="n", t="t"))
    body.append(w.choice(["return t", "return t, ROOT.v", "return t, len(ITEMS)"]))
    plan = [(None, "T(3), 1"), (None, "T(3), 1"), (None, f"T(3), {w.choice([1, 2])}")]
    src = module_source(seed, _OUTSIDE, "def fn(x, n):\n" + indent(body), calls_source(plan))
    return FamilyProgram("outside", seed, src, state=("probe()",))


# ---- torch_state: grad mode, default dtype, flags ---------------------------------------------------------------
_STATE_STEPS = [
    "with torch.no_grad():\n    t = t * 2", "with torch.enable_grad():\n    t = t + 1",
    "torch.set_grad_enabled(False)\nt = t * 3\ntorch.set_grad_enabled(True)", "t = t + torch.is_grad_enabled()",
    "with torch.set_grad_enabled(n > 1):\n    t = t - 1", "t = t * (2 if torch.is_grad_enabled() else 3)",
    "old = torch.get_default_dtype()\ntorch.set_default_dtype(torch.float64)\nt = t + torch.ones(3)\n"
    "torch.set_default_dtype(old)", "t = t + torch.zeros(3).dtype.is_floating_point",
    "t = t + (torch.get_default_dtype() == torch.float32)", "with torch.inference_mode(False):\n    t = t + 1",
    "t = t + torch.are_deterministic_algorithms_enabled()", "t = t.to(torch.get_default_dtype())",
    "with torch.no_grad():\n    {brk}\n    t = t * 2", "t = t + t.requires_grad",
    "with torch.autocast('cpu', enabled=False):\n    t = t @ torch.eye(3)", "t = t.detach() + 1",
]
_STATE_MUTATIONS = {
    "no_grad": "torch.set_grad_enabled(False)",
    "grad": "torch.set_grad_enabled(True)",
    "dtype": "torch.set_default_dtype(torch.float64)",
    "dtype_back": "torch.set_default_dtype(torch.float32)",
}


def _torch_state(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"]
    for _ in range(w.rng.randint(1, 4)):
        brk = w.choice(BREAKS).format(k="n", t="t")
        body += w.choice(_STATE_STEPS).format(brk=brk).splitlines()
    body.append(w.choice(["return t", "return t, torch.is_grad_enabled()", "return t, t.requires_grad"]))
    mut = w.choice(sorted(_STATE_MUTATIONS))
    grad = w.choice(["T(3)", "T(3).requires_grad_()"])
    plan = [("grad", f"{grad}, 1"), (None, f"{grad}, 1"), (mut, f"{grad}, 1"), (None, f"{grad}, 2"),
            ("dtype_back", f"{grad}, 1")]
    muts = sorted({"grad", "dtype_back", mut})
    parts = ["def fn(x, n):\n" + indent(body)]
    parts += [f"def mutate_{m}():\n" + indent(_STATE_MUTATIONS[m].splitlines()) for m in muts]
    parts.append("def probe():\n    return torch.is_grad_enabled(), torch.get_default_dtype()")
    return FamilyProgram("torch_state", seed, module_source(seed, *parts, calls_source(plan)), state=("probe()",))


# ---- module_attrs: buffers registered in forward, attributes, __dict__ -----------------------------------------
_MODULE_ATTRS = '''\
from torch import nn

torch.manual_seed({seed})


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.register_buffer("old", torch.zeros(3))
        self.steps = 0
        self.tag = "a"

    def forward(self, x, k=1):
{body}
        return h


MOD = Net()


def probe():
    return ({{n: b.clone() for n, b in MOD.named_buffers()}}, MOD.steps, MOD.tag, sorted(MOD._buffers),
            sorted(k for k in vars(MOD) if not k.startswith("_")))
'''
_MODULE_ATTR_STEPS = [
    "self.register_buffer('old', h.detach() * 2)", "h = h + self.old", "self.old = h.detach() + 1",
    "h = h + self._buffers['old']", "self.register_buffer('fresh', h.detach().clone())",
    "h = h + getattr(self, 'fresh', torch.zeros(3))", "h = h + sum(b.sum() for b in self.buffers())",
    "h = h + len(list(self.named_buffers()))", "self.steps += 1", "h = h * self.steps",
    "self.__dict__['tag'] = 'b'", "h = h + len(self.tag)", "h = h + len(self.__dict__['_buffers'])",
    "h = self.lin(h)", "h = h + sum(p.sum() for p in self.parameters())", "self.old.add_(1.0)",
    "h = h + ('fresh' in self._buffers)", "h = h + hasattr(self, 'fresh')", "self.extra = k * 2",
    "h = h + getattr(self, 'extra', 0)", "h = h + len(dict(self.named_children()))",
    "h = h + self.get_buffer('old')", "h = h + len(self.state_dict())",
]
_MODULE_ATTR_MUTATIONS = {
    "reset": "global MOD\ntorch.manual_seed(0)\nMOD = Net()",  # the same weights in every run
    "old": "MOD.old = torch.full((3,), 2.0)",
    "steps": "MOD.steps = 5",
    "eval": "MOD.eval()",
}


def _module_attrs(w: Writer, seed: int) -> FamilyProgram:
    forward = ["h = x * 1"]
    for _ in range(w.rng.randint(2, 5)):
        forward += w.choice(_MODULE_ATTR_STEPS).splitlines()
        if w.rng.random() < 0.12:
            forward.append(w.choice(BREAKS).format(k="k", t="h"))
    source = _MODULE_ATTRS.format(seed=seed, body=indent(forward, " " * 8))
    body = [w.choice(["h = MOD(x)", "h = MOD(x, k=n)", "with torch.no_grad():\n    h = MOD(x)"])]
    body = body[0].splitlines() + [w.choice(["return h", "return h, MOD.steps", "return h, len(MOD._buffers)"])]
    mut = w.choice(sorted(m for m in _MODULE_ATTR_MUTATIONS if m != "reset"))
    plan = [("reset", "T(3), 1"), (None, "T(3), 1"), (mut, "T(3), 1"), (None, f"T(3), {w.choice([1, 2])}")]
    parts = [source, "def fn(x, n):\n" + indent(body)]
    parts += [f"def mutate_{m}():\n" + indent(_MODULE_ATTR_MUTATIONS[m].splitlines()) for m in ("reset", mut)]
    return FamilyProgram("module_attrs", seed, module_source(seed, *parts, calls_source(plan)), state=("probe()",))


FAMILIES6 = {"views": _views, "hierarchy": _hierarchy, "cells": _cells, "outside": _outside,
             "torch_state": _torch_state, "module_attrs": _module_attrs}
