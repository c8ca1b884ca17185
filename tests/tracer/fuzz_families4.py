"""More generator families for the three-way fuzzer (see fuzz_families.py for the format).

  comps      list/dict/set comprehensions and generator expressions, some with a graph break inside;
             lists and dicts of tensors mutated in place across breaks
  scalars    int / float / bool arguments that change between calls under dynamic=None; string
             formatting (f-strings, %, str.format, join) into outputs, dict keys and the log
  outputs    dataclass and namedtuple inputs and outputs; in-place changes of views of the inputs;
             outputs that alias the inputs or one another
"""
from __future__ import annotations

from fuzz_writer import BREAKS, FamilyProgram, Writer, calls_source, indent, module_source

# ---- comps: comprehensions, containers of tensors across breaks ------------------------------------------
_COMP_HELPERS = '''\
BANK = [torch.ones(3), torch.zeros(3)]
TABLE = {"a": torch.ones(3), "b": torch.full((3,), 2.0)}


def noisy(v, i):
    print("item", i)
    return v * i


def breaking(v, i):
    torch._dynamo.graph_break()
    return v + i
'''
_COMP_STEPS = [
    "parts = [t * i for i in range(n + 1)]\nt = sum(parts)",
    "parts = [noisy(t, i) for i in range(2)]\nt = t + parts[-1]",
    "parts = [breaking(t, i) for i in range(n + 1)]\nt = torch.stack(parts).sum(0)",
    "d = {{f'k{{i}}': t + i for i in range(n + 1)}}\nt = t + d['k0']",
    "d = {{k: v * 2 for k, v in TABLE.items()}}\nt = t + d['a']",
    "t = t + sum(v.sum() for v in BANK)",
    "t = t * len({{i % 2 for i in range(n + 2)}})",
    "t = t + torch.cat([v[:1] for v in lst]).sum()",
    "lst.append(t * 2)", "lst[0].add_(1)", "lst[-1].mul_(0.5)", "BANK[0].add_(t.detach())",
    "TABLE['a'].mul_(2)", "TABLE['c'] = t.detach() * 1", "t = t + TABLE.get('c', t)",
    "for v in lst:\n    v.add_(0.25)", "lst[:] = [v + 1 for v in lst]",
    "t = t + max(v.sum() for v in lst)", "t = t + [v for v in lst if v.sum() > 0][0] if any(v.sum() > 0 for v in lst) else t",
    "pairs = list(zip(lst, BANK))\nt = t + pairs[0][0] * pairs[0][1]",
    "t = t + sorted([v.sum().item() for v in lst])[0]",
    "t = t + {{i: v for i, v in enumerate(lst)}}[0]",
    "squares = (v * v for v in lst)\nt = t + next(squares)",
    "t = t + [noisy(v, 1) for v in lst][0]",
]
_COMP_MUTATIONS = {
    "bank": "BANK[0] = torch.full((3,), 3.0)",
    "bank_append": "BANK.append(BANK[1])",
    "table_pop": "TABLE.pop('c', None)",
    "table_b": "TABLE['b'] = TABLE['a']",
}


def _comps(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"]
    for _ in range(w.rng.randint(2, 5)):
        body += w.choice(_COMP_STEPS).format().splitlines()
        if w.rng.random() < 0.15:
            body.append(w.choice(BREAKS).format(k="n", t="t"))
    body.append(w.choice(["return t", "return t, lst", "return t, len(lst), dict(TABLE)"]))
    mut = w.choice(sorted(_COMP_MUTATIONS))
    plan = [(None, "T(3), 1, [T(3), T(3)]"), (None, "T(3), 1, [T(3), T(3)]"), (mut, "T(3), 1, [T(3), T(3)]"),
            (None, f"T(3), {w.choice([1, 2])}, [T(3), T(3), T(3)]")]
    src = module_source(seed, _COMP_HELPERS, "def fn(x, n, lst):\n" + indent(body),
                        f"def mutate_{mut}():\n" + indent(_COMP_MUTATIONS[mut].splitlines()), calls_source(plan))
    return FamilyProgram("comps", seed, src, state=("BANK", "TABLE", "LOG"))


# ---- scalars: int/float/bool arguments under dynamic=None, string formatting ---------------------------------
_SCALAR_STEPS = [
    "t = t * n", "t = t + f", "t = t * (2 if b else 3)", "t = t + n * f", "t = t[: n + 1].sum() + t",
    "t = t + torch.arange(3) * n", "t = t.pow(n % 3 + 1)", "t = t + (n > 2)", "t = t * float(n) / 4",
    "t = t + int(f * 10)", "if b:\n    t = t - f", "if n > 2:\n    t = t * 2\nelse:\n    t = t / 2",
    "t = t + abs(n - 3) + round(f, 1)", "t = t * max(n, f)", "t = t + torch.tensor(n) * f",
    "t = torch.full((3,), f) + t", "t = t + n // 2 + n % 2", "t = t * (not b)", "k = n + 1\nt = t.roll(k, 0)",
    "t = t + sum(range(n))", "t = t.clamp(min=-f, max=f)", "t = t + math.sin(f) * n",
    "LOG.append(f'n={n} f={f:.2f} b={b}')", "LOG.append('%d-%s' % (n, b))", "LOG.append('{}:{}'.format(n, t.shape))",
    "key = f'k{n % 2}'\nt = t + OFFSETS.get(key, 0.0)", "LOG.append(' '.join(str(i) for i in range(n)))",
    "name = 'v' + str(n)\nLOG.append(name.upper())", "LOG.append(f'{t.dtype}|{t.dim()}|{tuple(t.shape)}')",
    "t = t + len(f'{n}{b}')", "LOG.append(repr(b) + str(f))", "t = t * ('x' * n).count('x')",
]


def _scalars(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"]
    for _ in range(w.rng.randint(2, 5)):
        body += w.choice(_SCALAR_STEPS).splitlines()
        if w.rng.random() < 0.12:
            body.append(w.choice(BREAKS).format(k="n", t="t"))
    body.append(w.choice(["return t", "return t, n, f", "return t, f'{n}/{b}'", "return {'t': t, 'n': n * 2}"]))
    ns = w.choice([[1, 2, 3, 4], [3, 3, 4, 5], [2, 5, 2, 7], [0, 1, 1, 2]])
    fs = w.choice([[0.5, 0.5, 1.5, 2.5], [1.0, 2.0, 3.0, 1.0], [0.25, 0.25, 0.25, 0.75]])
    bs = w.choice([[True, True, False, True], [False] * 4, [True, False, True, False]])
    plan = [(None, f"T(3), {n}, {f}, {b}") for n, f, b in zip(ns, fs, bs)]
    src = module_source(seed, "import math", "OFFSETS = {'k0': 1.0, 'k1': -1.0}", "def fn(x, n, f, b):\n" + indent(body),
                        calls_source(plan))
    return FamilyProgram("scalars", seed, src, dynamic=None, state=("LOG",))


# ---- outputs: dataclasses, namedtuples, views of the inputs -----------------------------------------------
_OUTPUTS = '''\
import collections
import typing

Pair = collections.namedtuple("Pair", ["left", "right"])


class Stats(typing.NamedTuple):
    mean: torch.Tensor
    count: int = 1


@dataclasses.dataclass
class Result:
    value: torch.Tensor
    aux: dict = dataclasses.field(default_factory=dict)
    note: str = ""
'''
_OUTPUT_STEPS = [
    "x[0].mul_(2)", "x[:, 0].add_(1)", "x.t()[0].zero_()", "x.view(-1)[1] = 5.0", "x.diagonal().fill_(0.5)",
    "x.unsqueeze(0)[0, 0].sub_(1)", "x[1:].clamp_(max=0.0)", "x.narrow(1, 0, 1).mul_(3)",
    "v = x[0]\nv += p.left[0]", "p.left.add_(p.right)", "p.right[0] = 0.0", "x.copy_(x * 2)",
    "v = x.view(-1)\nv.mul_(2)\nt = v.sum()", "t = x.sum() + p.left.sum()", "t = (x * p.right).sum()",
    "x.masked_fill_(x > 1, 1.0)", "t = p.right.mean()", "p.left.mul_(p.left.detach())",
]
_OUTPUT_RETURNS = [
    "return Result(value=x * 1, aux={'t': t}, note=f'{x.shape[0]}')", "return Pair(x, t)",
    "return Stats(mean=x.mean(0), count=x.shape[0])", "return Pair(left=x[0], right=x.t())",
    "return x, x[0], x.view(-1)", "return Result(x.view(-1))", "return p._replace(left=t * p.right)",
    "return Stats(x.sum(0))._asdict()", "return dataclasses.asdict(Result(t))", "return x[:1], p",
    "return Pair(*p), x.diagonal()", "return p.left, p.left, t",
]


def _outputs(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x.sum()"]
    for _ in range(w.rng.randint(1, 4)):
        body += w.choice(_OUTPUT_STEPS).splitlines()
        if w.rng.random() < 0.15:
            body.append(w.choice(BREAKS).format(k="x.shape[0]", t="x"))
    body.append(w.choice(_OUTPUT_RETURNS))
    rows = w.choice([2, 3])
    args = f"T({rows}, {rows}), Pair(T({rows}), T({rows}))"
    plan = [(None, args), (None, args), (None, w.choice([args, f"T({rows}, {rows}).t(), Pair(T({rows}), T({rows}))"]))]
    src = module_source(seed, _OUTPUTS, "def fn(x, p):\n" + indent(body), calls_source(plan))
    return FamilyProgram("outputs", seed, src, state=("LOG",))


FAMILIES4 = {"comps": _comps, "scalars": _scalars, "outputs": _outputs}
