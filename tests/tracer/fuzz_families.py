"""Generator families for the three-way fuzzer (fuzz_families_run.py): eager / Standin / real Dynamo.

Where fuzz_programs.py writes one big program compared with eager only, each family here writes a
small module in the style of a kind of test PyTorch's own suite has, and the runner compares it
with real Dynamo as well: outputs, stdout, exceptions and state with eager; graphs, compiles and
recompiles with Dynamo.  `generate(family, seed)` returns a `FamilyProgram`: the module's source
(a function `fn`, what it needs, `mutate_*` functions and `CALLS`, the call plan as
`(mutation or None, args)`), and how to compile it (`dynamic=`, fullgraph).

Families (FAMILIES):
  torch_ops    PyTorch-test style: tensor methods, in-place ops, views and their mutation, torch.*
               with kwargs, dtype/device queries; one graph, also run with fullgraph=True
  nested       graph breaks in nested calls, closures and generators
  classes      properties, __call__, dataclasses, class attributes; some changed between calls
  containers   global and argument dicts/lists mutated across graph breaks
  dynamic      sizes that change between calls, sizes used as ints, dynamic=None and True
  bad          programs that raise (raise, wrong types, missing keys, recursion): the exception
               must be eager's (type and message)
  optim, hf, chains, sizes, globals: see fuzz_families2.py
  modules, wrappers, exc: see fuzz_families3.py; comps, scalars, outputs: fuzz_families4.py
  frames, dyn_shapes, generators_ctx: fuzz_families5.py
  views, hierarchy, cells, outside, torch_state, module_attrs: fuzz_families6.py
Eager behaviour is deterministic: tensors come from a generator seeded with the program's seed.
"""
from __future__ import annotations

import random

from fuzz_families2 import MORE_FAMILIES
from fuzz_families3 import FAMILIES3
from fuzz_families4 import FAMILIES4
from fuzz_families5 import FAMILIES5
from fuzz_families6 import FAMILIES6
from fuzz_writer import BREAKS as _BREAKS
from fuzz_writer import FamilyProgram
from fuzz_writer import Writer as _Writer
from fuzz_writer import calls_source as _calls
from fuzz_writer import indent as _indent
from fuzz_writer import module_source as _module


# ---- torch_ops ---------------------------------------------------------------------------------
_UNARY = ["{a}.sin()", "{a}.abs().sqrt()", "{a}.clamp(min=-0.5, max=0.5)", "torch.relu({a})",
          "torch.nn.functional.gelu({a})", "{a}.exp().log1p()", "torch.softmax({a}, dim=-1)",
          "{a}.cumsum(dim=-1)", "{a}.flip(-1)", "{a}.roll(1, -1)", "{a}.masked_fill({a} > 0, 0.5)",
          "torch.where({a} > 0, {a}, -{a})", "{a}.sum(dim=0, keepdim=True) + {a}",
          "{a}.mean(dim=-1, keepdim=True) - {a}", "{a}.max(dim=-1, keepdim=True).values * {a}",
          "{a}.t().contiguous().t()", "{a}.reshape(-1).reshape({a}.shape)", "{a}.unsqueeze(0).squeeze(0)",
          "torch.full_like({a}, 2.0) * {a}", "{a}.new_ones({a}.shape) + {a}", "{a}.float() * 2",
          "({a} * 2 if {a}.dtype == torch.float32 else {a})", "({a} + 1 if {a}.is_floating_point() else {a})",
          "({a} - 1 if {a}.device.type == 'cpu' else {a})", "{a} * {a}.shape[-1]", "{a} + {a}.dim()",
          "{a} + {a}.size(0)", "{a}.norm(p=2) + {a}", "torch.linalg.vector_norm({a}, dim=-1, keepdim=True) + {a}",
          "{a}.type(torch.float64).float()", "{a}.to(dtype=torch.float32)", "torch.tanh({a}).neg()",
          "{a}.argmax(dim=-1, keepdim=True).float() + {a}", "torch.sort({a}, dim=-1, descending=True).values",
          "torch.topk({a}, 1, dim=-1).values + {a}", "{a}.detach() + {a}", "{a}.clone().fill_(3.0) + {a}",
          "torch.nn.functional.normalize({a}, dim=-1)", "torch.nn.functional.dropout({a}, p=0.0)",
          "{a}.pow(2).rsqrt().nan_to_num(0.0)", "torch.clamp({a}, max=0.25)", "{a}.transpose(0, 1).t()",
          "torch.sum({a}, dim=(0, 1), keepdim=True) + {a}", "{a}.numel() * {a}", "{a}[..., :1] + {a}",
          "{a}[:, ::2].sum() + {a}", "{a}.expand(2, *{a}.shape).sum(0)"]
_BINARY = ["{a} + {b}", "{a} * {b} - 1", "torch.add({a}, {b}, alpha=0.5)", "torch.sub({a}, {b}, alpha=2)",
           "torch.maximum({a}, {b})", "torch.stack([{a}, {b}]).sum(0)", "torch.cat([{a}, {b}], dim=0)[:{a}.shape[0]]",
           "torch.lerp({a}, {b}, 0.25)", "{a} @ {b}.t() @ {b}", "torch.einsum('ij,ij->ij', {a}, {b})",
           "torch.mul({a}, other={b})", "torch.div({a}, {b}.abs() + 1, rounding_mode=None)",
           "{a}.addcmul({b}, {b}, value=0.5)", "torch.atan2({a}, {b})", "{a}.type_as({b}) + {b}",
           "torch.where({a} > {b}, {a}, {b})", "torch.min({a}, {b})", "{a}.chunk(2, dim=-1)[0].sum() + {b}"]
# statements that change a tensor made in the function (never an argument: kept to `aliasing`)
_IN_PLACE = ["{c}.add_({b}, alpha=2)", "{c}.mul_(2)", "{c}[0] = 1.0", "{c}[:, 0].fill_(0.5)", "{c}.clamp_(min=-1)",
             "{c}.view(-1)[0] = 3.0", "{c}.t().mul_(0.5)", "{c}.unsqueeze(0).add_(1)", "{c}[..., -1:].zero_()",
             "{c}.copy_({b})", "{c}.sub_(1).div_(2)", "{c} += {b}", "{c} *= 3", "{c}.masked_fill_({c} < 0, 0.0)",
             "{c}.index_fill_(1, torch.tensor([0]), -1.0)", "{c}.diagonal().zero_()"]
# mutation of an argument, or of a view of one: eager leaves the argument changed
_ALIASING = [["v = x.view(-1)", "v.mul_(2)"], ["x.add_(1)"], ["x[0] = 0.0"], ["v = x[:, :1]", "v.fill_(2.0)"],
             ["y.copy_(x)"], ["torch.add(x, 1, out=x)"], ["v = y.reshape(-1)", "v[0] = 9.0"]]


def _torch_ops(w: _Writer, seed: int) -> FamilyProgram:
    names, lines, touches_args = ["x", "y"], [], False
    for _ in range(w.rng.randint(2, 6)):
        kind = w.rng.random()
        t = w.fresh()
        if kind < 0.45:
            lines.append(f"{t} = " + w.choice(_UNARY).format(a=w.choice(names)))
            names.append(t)
        elif kind < 0.8:
            lines.append(f"{t} = " + w.choice(_BINARY).format(a=w.choice(names), b=w.choice(names)))
            names.append(t)
        elif kind < 0.93:
            lines.append(f"{t} = {w.choice(names)}.clone()")
            lines.append(w.choice(_IN_PLACE).format(c=t, b=w.choice(names)))
            names.append(t)
        else:
            lines.extend(w.choice(_ALIASING))
            touches_args = True
    rows, cols = w.choice([(3, 4), (4, 4), (2, 3)])
    if rows == cols and w.rng.random() < 0.2:  # an argument's strides changed in place
        lines.insert(w.rng.randint(0, len(lines)), "x.t_()")
    outs = w.rng.sample(names[2:] or ["x"], min(len(names[2:] or ["x"]), w.rng.randint(1, 3)))
    if w.rng.random() < 0.2:
        outs.append(w.choice(["x", "y"]))
    plan = [(None, f"T({rows}, {cols}), T({rows}, {cols})"), (None, f"T({rows}, {cols}), T({rows}, {cols})")]
    change = w.choice(["none", "dtype", "shape"] + ([] if touches_args else ["grad"]))
    if change == "dtype":
        plan.append((None, f"T({rows}, {cols}, dtype=torch.float64), T({rows}, {cols}, dtype=torch.float64)"))
    elif change == "shape":
        plan.append((None, f"T({rows + 1}, {cols}), T({rows + 1}, {cols})"))
    elif change == "grad":
        plan.append((None, f"T({rows}, {cols}).requires_grad_(), T({rows}, {cols})"))
    src = _module(seed, "def fn(x, y):\n" + _indent(lines + [f"return {', '.join(outs)},"]), _calls(plan))
    return FamilyProgram("torch_ops", seed, src, fullgraph=True)


# ---- nested: graph breaks in nested calls, closures, generators ---------------------------------
def _nested(w: _Writer, seed: int) -> FamilyProgram:
    helpers, body = [], ["t = x * 1"]
    depth = w.rng.randint(1, 3)
    prev = None
    for level in range(depth):  # f0 calls f1 calls ... ; any may break
        name = f"f{level}"
        lines = [f"u = t + {level + 1}"]
        if w.rng.random() < 0.6:
            lines.append(w.choice(_BREAKS).format(k=level, t="u"))
        if prev is not None:
            lines.append(f"u = {prev}(u, k) * 0.5")
        lines.append(w.choice(["return u * k", "return u - k", "return u.sin() + k"]))
        helpers.append(f"def {name}(t, k):\n" + _indent(lines))
        prev = name
    for _ in range(w.rng.randint(1, 4)):
        kind = w.choice(["call", "closure", "generator", "break", "loop", "lambda"])
        if kind == "call":
            body.append(f"t = {prev}(t, n + 1)")
        elif kind == "closure":
            brk = w.choice(_BREAKS).format(k="'c'", t="v") if w.rng.random() < 0.5 else "pass"
            body += ["scale = n + 2", "def inner(v):", f"    {brk}", "    return v * scale + t.mean()",
                     "t = inner(t)" if w.rng.random() < 0.5 else "t = inner(inner(t))"]
        elif kind == "generator":
            brk = w.choice(_BREAKS).format(k="i", t="v") if w.rng.random() < 0.5 else "pass"
            body += ["def steps(v):", "    for i in range(n + 1):", f"        {brk}", "        yield v * i",
                     w.choice(["t = t + sum(steps(t))", "t = torch.stack(list(steps(t))).sum(0)",
                               "t = t + next(steps(t))"])]
        elif kind == "break":
            body.append(w.choice(_BREAKS).format(k="n", t="t"))
            body.append("t = t * 2")
        elif kind == "loop":
            body += ["for i in range(2):", f"    t = {prev}(t, i)"]
        else:
            body.append("t = (lambda v: v + n)(t)")
    body.append(w.choice(["return t", "return t, n", "return {'t': t, 'n': n}"]))
    n0 = w.choice([0, 1, 2])
    plan = [(None, f"T(3), {n0}"), (None, f"T(3), {n0}"), (None, f"T(3), {w.choice([n0, n0 + 1])}")]
    src = _module(seed, *helpers, "def fn(x, n):\n" + _indent(body), _calls(plan))
    return FamilyProgram("nested", seed, src, state=("LOG",))


# ---- classes: properties, __call__, dataclasses ----------------------------------------------------
_CLASSES = '''\
class Scaler:
    factor = 2.0

    def __init__(self, bias):
        self.bias = bias

    @property
    def total(self):
        return self.factor + self.bias

    def __call__(self, t):
        return t * self.factor + self.bias

    def apply(self, t):
        return self(t) - self.total


class Shifted(Scaler):
    @property
    def total(self):
        return self.bias * 2 + self.factor

    def __call__(self, t):
        return super().__call__(t) + 1


@dataclasses.dataclass
class Config:
    width: int = 3
    gain: float = 0.5
    tags: tuple = ("a",)

    def scaled(self, t):
        return t * self.gain


@dataclasses.dataclass(frozen=True)
class Key:
    name: str
    level: int = 1


SCALER = Scaler(0.5)
SHIFTED = Shifted(1.0)
CFG = Config()
'''
_CLASS_EXPRS = ["SCALER(t)", "SHIFTED(t)", "SCALER.apply(t)", "SHIFTED.apply(t)", "t * SCALER.total",
                "t + SHIFTED.total", "CFG.scaled(t)", "t * CFG.width", "t + len(CFG.tags)",
                "Scaler(n)(t)", "Shifted(float(n)).apply(t)", "Config(width=n + 1).scaled(t) * 2",
                "t + dataclasses.replace(CFG, gain=2.0).gain", "t + (Key('k', n) == Key('k', 1))",
                "t + Key('z').level", "t * type(SHIFTED).factor", "t + isinstance(SHIFTED, Scaler)",
                "t + len(dataclasses.fields(CFG))", "t + sum(dataclasses.astuple(Config(1, 1.0, ())))",
                "t + (CFG == Config())", "t * getattr(SCALER, 'bias')", "t + callable(SCALER)"]
_CLASS_MUTATIONS = {
    "bias": "SCALER.bias = SCALER.bias + 1.0",
    "factor": "Scaler.factor = 3.0",
    "child_factor": "Shifted.factor = 5.0",
    "width": "CFG.width = CFG.width + 1",
    "gain": "CFG.gain = 0.25",
    "new_cfg": "global CFG\nCFG = Config(width=5)",
    "property": "Scaler.total = property(lambda self: 10.0)",
    "call": "Shifted.__call__ = lambda self, t: t - 1",
    "instance_shadow": "SCALER.factor = 7.0",
}


def _classes(w: _Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"]
    for _ in range(w.rng.randint(1, 4)):
        body.append(f"t = {w.choice(_CLASS_EXPRS)}")
        if w.rng.random() < 0.15:
            body.append(w.choice(["SCALER.bias = float(n)", "CFG.width = n + 2", "print(SHIFTED.total)"]))
    body.append("return t")
    muts = sorted(w.rng.sample(list(_CLASS_MUTATIONS), 2))
    plan = [(None, "T(3), 1"), (None, "T(3), 1"), (muts[0], "T(3), 1"), (w.choice([None, muts[1]]), "T(3), 1"),
            (None, f"T(3), {w.choice([1, 2])}")]
    parts = [_CLASSES, "def fn(x, n):\n" + _indent(body)]
    parts += [f"def mutate_{m}():\n" + _indent(_CLASS_MUTATIONS[m].splitlines()) for m in muts]
    return FamilyProgram("classes", seed, _module(seed, *parts, _calls(plan)), state=("SCALER", "CFG"))


# ---- containers mutated across graph breaks --------------------------------------------------------
_CONTAINERS = '''\
STORE = {"a": 1.0, "b": 2.0}
STACK = [1, 2]
'''
_CONTAINER_OPS = ["STORE['k{i}'] = float(n)", "STORE.pop('a', None)", "STORE.update(d)", "STACK.append(n)",
                  "STACK.pop()", "STACK.extend(lst)", "STACK.insert(0, len(STORE))", "d['n{i}'] = n",
                  "d.pop('a', None)", "d.setdefault('s', 2.0)", "lst.append(len(d))", "lst.reverse()",
                  "lst[:] = lst[:1]", "del STACK[0]", "STORE.clear()", "d.update(STORE)",
                  "STACK.sort(reverse=True)", "lst += STACK"]
_CONTAINER_READS = ["t = t + len(STORE)", "t = t * sum(STACK)", "t = t + sum(d.values())", "t = t + len(lst)",
                    "t = t + STORE.get('a', 0.5)", "t = t + ('b' in d)", "t = t + (lst[-1] if lst else 0)",
                    "t = t + max(STACK, default=0)", "t = t + len(list(d.items()))", "t = t * len({**d, **STORE})"]


def _containers(w: _Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"]
    for i in range(w.rng.randint(2, 6)):
        kind = w.rng.random()
        if kind < 0.4:
            body.append(w.choice(_CONTAINER_OPS).format(i=i))
        elif kind < 0.75:
            body.append(w.choice(_CONTAINER_READS))
        else:
            body.append(w.choice(_BREAKS).format(k="len(STACK)", t="t"))
    body.append(w.choice(["return t", "return t, dict(d), list(lst)", "return t, len(STORE)"]))
    d0 = w.choice(["{'a': 1.0}", "{'a': 1.0, 'b': 2.0}", "{}"])
    l0 = w.choice(["[1]", "[1, 2, 3]", "[]"])
    plan = [(None, f"T(3), 1, {d0}, {l0}"), (None, f"T(3), 1, {d0}, {l0}"),
            (None, f"T(3), {w.choice([1, 2])}, {w.choice([d0, '{}'])}, {w.choice([l0, '[5]'])}")]
    src = _module(seed, _CONTAINERS, "def fn(x, n, d, lst):\n" + _indent(body), _calls(plan))
    return FamilyProgram("containers", seed, src, state=("STORE", "STACK", "LOG"))


# ---- dynamic shapes ---------------------------------------------------------------------------------
_DYNAMIC_EXPRS = ["t = t * 2 + t.sum(dim=0, keepdim=True)", "t = t.view(t.shape[0], -1)", "t = t + t.shape[0]",
                  "t = t * t.size(-1)", "t = t[: max(t.shape[0] - 1, 1)]", "t = torch.cat([t, t], dim=0)",
                  "t = t + torch.ones(t.shape[-1])", "t = t.reshape(-1, t.shape[-1]) * n",
                  "t = t + (1 if t.shape[0] > 3 else -1)", "t = t.new_zeros(t.shape[0], 1) + t",
                  "t = t + t.numel()", "t = torch.nn.functional.pad(t, (1, 0))[:, 1:]",
                  "t = t[: n + 1] if t.shape[0] > n else t", "t = t + float(n) / 2",
                  "t = t.flatten()[: t.shape[-1]].reshape(1, -1) + t", "t = t.expand(t.shape[0], t.shape[1]) + 0",
                  "t = t + torch.arange(t.shape[-1])", "t = t.mean(dim=0) + t",
                  "t = t * (t.shape[0] // 2 + 1)"]


def _dynamic(w: _Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"] + [w.choice(_DYNAMIC_EXPRS) for _ in range(w.rng.randint(1, 4))]
    if w.rng.random() < 0.3:
        body.insert(w.rng.randint(1, len(body)), w.choice(_BREAKS).format(k="n", t="t"))
    body.append(w.choice(["return t", "return t, t.shape[0]", "return t.sum(), n"]))
    cols = w.choice([3, 4])
    sizes = w.rng.sample([2, 3, 4, 5, 6, 8], 3)
    ns = [1, 1, w.choice([1, 2, 3])]
    plan = [(None, f"T({sizes[0]}, {cols}), {ns[0]}"), (None, f"T({sizes[1]}, {cols}), {ns[1]}"),
            (None, f"T({sizes[2]}, {cols}), {ns[2]}"), (None, f"T({sizes[0]}, {cols}), {ns[0]}")]
    src = _module(seed, "def fn(x, n):\n" + _indent(body), _calls(plan))
    return FamilyProgram("dynamic", seed, src, dynamic=w.choice([None, True]))


# ---- bad scripts: the exception must be eager's ------------------------------------------------------
_BAD_HELPERS = '''\
def deep(k, t):
    if k <= 0:
        return t
    return deep(k - 1, t + 1)


def forever(t):
    return forever(t + 1)


class Box:
    def __init__(self, v):
        self.v = v
'''
_RAISES = ["raise ValueError(f'bad n {n}')", "t = t + 'a'", "t = TABLE[n]", "t = t + [1, 2][n + 5]",
           "t = t.view(7, 5)", "t = t + int('abc')", "t = t / (n - n)", "t = t + 1 // (n - n)",
           "assert n > 100, f'n is {n}'", "t = t + Box(1).missing", "t = t + len(n)", "t = torch.cat(t)",
           "t = t @ torch.ones(5)", "t = t.sum(dim=3)", "t = deep(50, t)", "t = forever(t)",
           "raise KeyError(n)", "t = t + None", "t = t.reshape(n + 100)", "raise RuntimeError('stop', n)",
           "t = t + {'a': 1}['b']", "t = t + float('x')", "t = sum(t, 'a')", "raise NotImplementedError"]
_BAD_GUARDS = ["if n == 1:", "if n > 0:", "if t.sum() > 100:", "if n:", "if True:"]


def _bad(w: _Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 2"]
    for _ in range(w.rng.randint(1, 3)):
        kind = w.rng.random()
        raising = w.choice(_RAISES)
        if kind < 0.4:
            body += [w.choice(_BAD_GUARDS), f"    {raising}"]
        elif kind < 0.7:
            handler = w.choice(["except Exception as e:", "except (TypeError, ValueError) as e:",
                                "except RuntimeError as e:", "except KeyError as e:"])
            body += ["try:", f"    {raising}", handler, "    t = t + len(str(e))"]
            if w.rng.random() < 0.3:
                body += ["finally:", "    LOG.append('finally')"]
        elif kind < 0.85:
            body.append(w.choice(_BREAKS).format(k="n", t="t"))
            body.append(raising)
        else:
            body.append(raising)
        body.append("t = t + 1")
    body.append("return t")
    plan = [(None, "T(3), 0"), (None, "T(3), 1"), (None, "T(3), 1"), (None, "T(3), 2")]
    src = _module(seed, _BAD_HELPERS, "TABLE = {0: 1.0}", "def fn(x, n):\n" + _indent(body), _calls(plan))
    return FamilyProgram("bad", seed, src, state=("LOG",))


FAMILIES = {"torch_ops": _torch_ops, "nested": _nested, "classes": _classes, "containers": _containers,
            "dynamic": _dynamic, "bad": _bad, **MORE_FAMILIES, **FAMILIES3,
            **FAMILIES4, **FAMILIES5, **FAMILIES6}


def generate(family: str, seed: int) -> FamilyProgram:
    return FAMILIES[family](_Writer(random.Random(f"{family}:{seed}")), seed)
