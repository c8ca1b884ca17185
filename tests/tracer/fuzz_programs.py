"""Random programs for the fuzzer: source text whose eager behaviour is deterministic.

`generate(seed)` writes one module: globals, a small class family (a base with a
method, a property, a classmethod, a staticmethod and a class attribute; a child
whose overrides call super()), helpers (recursion, a generator, a closure maker,
a context manager that logs), the function under test `prog(x, n, d, lst)`, the
mutations that may run between calls, and `CALLS`, the call plan.  Whatever the
program does eagerly -- return, print, raise -- is what Standin must do; where
it breaks the graph or runs eagerly is its own business.

The body is a list of blocks (a statement and what it needs), so the reducer can
drop blocks and calls and render again.  Names are typed loosely (tensor, int,
dict, list): a block only reads names of the kind it needs, so most programs run
to their end, and the ones that raise raise the same way on every run.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace

HEADER = '''\
import collections
import dataclasses
import functools

import numpy as np
import torch

SCALE = 2.0
COUNT = 0
LOG = []
TABLE = {"a": 1.0, "b": 2.0}
ITEMS = [1, 2, 3]


class Base:
    k = 1.5

    def __init__(self, v):
        self.v = v

    def apply(self, t):
        return t * self.v + self.k

    @property
    def double(self):
        return self.v * 2

    @classmethod
    def make(cls, v):
        return cls(v)

    @staticmethod
    def shift(t):
        return t + 1

    def __repr__(self):
        return f"{type(self).__name__}({self.v!r})"


class Child(Base):
    def apply(self, t):
        return super().apply(t) - 1

    @property
    def double(self):
        return super().double + 1

    @classmethod
    def make(cls, v):
        return super().make(v + 1)


OBJ = Child(2.0)
ORIGINAL = {name: vars(Base)[name] for name in ("k", "apply", "double", "make", "shift")}
CHILD_APPLY = vars(Child)["apply"]


def rec(depth, t):
    if depth <= 0:
        return t
    return rec(depth - 1, t + 1)


def gen(t, n):
    for i in range(n):
        yield t * i


def make_scaler(k):
    def scale(t):
        return t * k
    return scale


def make_counter():
    count = 0

    def bump():
        nonlocal count
        count += 1
        return count
    return bump


class Net(torch.nn.Module):
    scale = 1.0

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        with torch.no_grad():
            self.lin.weight.copy_(torch.eye(3) * 0.5)
            self.lin.bias.fill_(0.25)
        self.register_buffer("offset", torch.ones(3))
        self.factor = 2.0

    def helper(self, t):
        return t * self.factor

    def forward(self, t):
        return self.helper(self.lin(t)) + self.offset * self.scale


NET = Net()
NET_ORIGINAL = {"scale": vars(Net)["scale"], "helper": vars(Net)["helper"]}
HALVE = functools.partial(rec, 2)


class Logged:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        LOG.append("enter " + self.name)
        return self

    def __exit__(self, kind, value, tb):
        LOG.append("exit " + self.name + (" " + kind.__name__ if kind else ""))
        return False


@dataclasses.dataclass
class Point:
    x: float
    y: float = 2.0

    def norm(self):
        return self.x + self.y


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: float
    b: int = 1


class Dyn:
    """Attributes it lacks come from __getattr__; one set on the instance shadows it."""

    def __init__(self):
        self.known = 3.0

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return float(len(name))


PT = Point(1.0)
DYN = Dyn()
DYN_GETATTR = vars(Dyn)["__getattr__"]
TAGS = {1, 2, 3}
ADD2 = functools.partial(torch.add, alpha=2)
ARR = np.array([1.0, 2.0, 3.0])


def helper(t, k=1.0):
    return t * k + SCALE


HELPER = helper
REC = rec
COUNTER = make_counter()


class Tracked:
    """Every store is logged by a __setattr__ written in Python."""

    def __setattr__(self, name, value):
        LOG.append("set " + name)
        object.__setattr__(self, name, value)


TRK = Tracked()
TRK.val = 1.0


class Plain:
    """Gains attributes and special methods between calls."""


PLAIN = Plain()
ORD = collections.OrderedDict(a=1.0, b=2.0)


class AppError(Exception):
    def __init__(self, code):
        super().__init__(f"code {code}")
        self.code = code
'''

# What may change between calls; each is the body of a function in the program.
MUTATIONS = {
    "scale_up": "global SCALE\nSCALE = SCALE + 1.0",
    "table_add": "TABLE['c'] = 3.0",
    "table_drop": "TABLE.pop('a', None)",
    "items_grow": "ITEMS.append(len(ITEMS) + 1)",
    "items_shrink": "ITEMS[:] = ITEMS[:1]",
    "class_attr": "Base.k = Base.k + 1.0",
    "method": "Base.apply = lambda self, t: t * 3 + self.k",
    "child_method": "Child.apply = lambda self, t: t - self.v",
    "property": "Base.double = property(lambda self: 7.0)",
    "classmethod": "Base.make = classmethod(lambda cls, v: cls(v * 10))",
    "staticmethod": "Base.shift = staticmethod(lambda t: t - 5)",
    "obj_attr": "OBJ.v = OBJ.v + 1.0",
    "obj_shadow": "OBJ.k = 9.0",
    "net_factor": "NET.factor = NET.factor + 1.0",
    "net_class_attr": "Net.scale = 3.0",
    "net_shadow": "NET.scale = 5.0",
    "net_method": "Net.helper = lambda self, t: t - self.factor",
    "net_buffer": "NET.offset = torch.zeros(3)",
    "partial": "global HALVE\nHALVE = functools.partial(rec, 3)",
    "point_x": "PT.x = PT.x + 1.0",
    "point_new": "global PT\nPT = Point(5.0, 1.0)",
    "dyn_shadow": "DYN.extra = 4.0",
    "dyn_getattr": "Dyn.__getattr__ = lambda self, name: 0.5",
    "tags_add": "TAGS.add(len(TAGS) + 1)",
    "add2": "global ADD2\nADD2 = functools.partial(torch.add, alpha=3)",
    "arr": "ARR[0] = ARR[0] + 1.0",
    "defaults": "helper.__defaults__ = (2.0,)",
    "helper": "global helper\nhelper = lambda t, k=1.0: t - k",
    "rec": "global rec\nrec = lambda depth, t: t * 0 + depth",
    "obj_class": "OBJ.__class__ = Base",
    "trk": "TRK.val = TRK.val + 1.0",
    "net_eval": "NET.eval()",
    "no_grad_mode": "torch.set_grad_enabled(False)",
    "default_dtype": "torch.set_default_dtype(torch.float64)",
    "counter": "COUNTER()",
    "ord_move": "ORD.move_to_end('a')",
    "plain_attr": "Plain.zz = 4.0",
    "plain_getattr": "Plain.__getattr__ = lambda self, name: 0.25",
    "plain_format": "Plain.__format__ = lambda self, spec: 'formatted'",
    "plain_str": "Plain.__str__ = lambda self: 'plain!'",
    "restore": "for name, value in ORIGINAL.items():\n    setattr(Base, name, value)\n"
               "Child.apply = CHILD_APPLY\nOBJ.__dict__.pop('k', None)\n"
               "for name, value in NET_ORIGINAL.items():\n    setattr(Net, name, value)\n"
               "NET.__dict__.pop('scale', None)\nNET.offset = torch.ones(3)\n"
               "global PT, ADD2\nPT = Point(1.0)\nDYN.__dict__.pop('extra', None)\nDyn.__getattr__ = DYN_GETATTR\n"
               "TAGS.intersection_update({1, 2, 3})\nADD2 = functools.partial(torch.add, alpha=2)\n"
               "ARR[:] = np.array([1.0, 2.0, 3.0])\n"
               "global helper, rec\nhelper = HELPER\nhelper.__defaults__ = (1.0,)\nrec = REC\n"
               "OBJ.__class__ = Child\nNET.train()\ntorch.set_grad_enabled(True)\n"
               "torch.set_default_dtype(torch.float32)\nORD.move_to_end('b')\n"
               "for name in ('zz', '__getattr__', '__format__', '__str__'):\n"
               "    if name in vars(Plain):\n        delattr(Plain, name)",
}


@dataclass(frozen=True)
class Block:
    """Lines of prog's body (indented by the renderer), the names they define, by kind."""
    lines: tuple[str, ...]
    defines: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Call:
    mutation: str | None
    x_shape: tuple[int, ...]
    n: int
    d: dict
    lst: list


@dataclass(frozen=True)
class Program:
    seed: int
    blocks: tuple[Block, ...]
    returns: tuple[str, ...]
    calls: tuple[Call, ...]

    def source(self) -> str:
        body = ["    global COUNT, SCALE"]
        for block in self.blocks:
            body.extend("    " + line for line in block.lines)
        body.append(f"    return ({', '.join(self.returns)},)" if self.returns else "    return None")
        muts = []
        for name in sorted({c.mutation for c in self.calls if c.mutation}):
            lines = MUTATIONS[name].splitlines()
            muts.append(f"def mutate_{name}():\n" + "\n".join("    " + line for line in lines) + "\n")
        calls = ",\n    ".join(repr((c.mutation, c.x_shape, c.n, c.d, c.lst)) for c in self.calls)
        parts = [f"# generated by tests/tracer/fuzz_programs.py, seed {self.seed}\n" + HEADER,
                 "def prog(x, n, d, lst):\n" + "\n".join(body) + "\n", *muts,
                 "# (mutation run before the call, x's shape, n, d, lst)\n" + f"CALLS = [\n    {calls},\n]\n"]
        return "\n\n".join(parts)

    def without_block(self, i: int) -> Program:
        return replace(self, blocks=self.blocks[:i] + self.blocks[i + 1:])

    def without_call(self, i: int) -> Program:
        return replace(self, calls=self.calls[:i] + self.calls[i + 1:])

    def without_mutation(self, i: int) -> Program:
        return replace(self, calls=self.calls[:i] + (replace(self.calls[i], mutation=None),) + self.calls[i + 1:])

    def with_returns(self, returns: tuple[str, ...]) -> Program:
        return replace(self, returns=returns)


class _Gen:
    """One program's body: blocks drawn from the families below, over the names made so far."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.names = {"tensor": ["x"], "int": ["n"], "dict": ["d"], "list": ["lst"]}
        self.counter = 0

    def fresh(self, kind: str) -> str:
        self.counter += 1
        return f"{kind[0]}{self.counter}"

    def pick(self, kind: str) -> str:
        return self.rng.choice(self.names[kind])

    def t(self) -> str:
        return self.pick("tensor")

    def i(self) -> str:
        return self.rng.choice(self.names["int"] + ["1", "2", "len(lst)", "len(d)"])

    def block(self, lines, defines=()) -> Block:
        for name, kind in defines:
            self.names[kind].append(name)
        return Block(tuple(lines), tuple(defines))

    # ---- families: each returns one Block ------------------------------------------------
    def arith(self):
        t = self.fresh("tensor")
        expr = self.rng.choice([f"{self.t()} + {self.t()}", f"{self.t()} * {self.i()}", f"{self.t()} - SCALE",
                                f"torch.relu({self.t()}) + 1", f"{self.t()}.sin() * 2", f"{self.t()} / 2"])
        return self.block([f"{t} = {expr}"], [(t, "tensor")])

    def ints(self):
        i = self.fresh("int")
        expr = self.rng.choice([f"{self.i()} + {self.i()}", f"len(d) * {self.i()}", f"sum(lst) + {self.i()}",
                                f"{self.i()} % 3", f"max({self.i()}, 1)", "COUNT + n", f"len(ITEMS) - {self.i()}"])
        return self.block([f"{i} = {expr}"], [(i, "int")])

    def dicts(self):
        c, t = self.fresh("dict"), self.fresh("tensor")
        src = self.rng.choice(["d", "TABLE"] + self.names["dict"])
        copy = self.rng.choice([f"dict({src})", f"{src}.copy()", f"{{**{src}}}", f"{{**{src}, 'z': 1.0}}",
                                f"{{k: v * 2 for k, v in {src}.items()}}"])
        use = self.rng.choice([f"{self.t()} + len({c})", f"{self.t()} * {c}.get('a', 0.5)",
                               f"{self.t()} + len(f'{{{c}}}')", f"{self.t()} + ('b' in {c})",
                               f"{self.t()} * {c}.setdefault('b', 4.0)", f"{self.t()} + sum({c}.values())",
                               f"{self.t()} + len(str({c}))", f"{self.t()} + len(list({c}))"])
        return self.block([f"{c} = {copy}", f"{t} = {use}"], [(c, "dict"), (t, "tensor")])

    def dict_mutation(self):
        target = self.rng.choice(["d"] + self.names["dict"])
        line = self.rng.choice([f"{target}['k{self.counter}'] = float({self.i()})", f"{target}.pop('a', None)",
                                f"{target}.update({{'u': 1.0}})", f"{target}.setdefault('s', 2.0)",
                                f"del {target}['b']", f"{target} |= {{'o': 4.0}}"])
        return self.block([line])

    def lists(self):
        s, t = self.fresh("list"), self.fresh("tensor")
        build = self.rng.choice(["[1, *lst]", f"[*lst, {self.i()}]", "list(ITEMS)", "lst + ITEMS",
                                 f"[v * 2 for v in lst if v != {self.i()}]", "sorted(lst, reverse=True)",
                                 f"[*lst, *[int({self.t()}.sum())]]", "list({1, *lst})",
                                 f"[{self.i()}, *(v + 1 for v in ITEMS)]"])
        use = self.rng.choice([f"{self.t()} + len({s})", f"{self.t()} * sum({s})", f"{self.t()} + {s}[-1]",
                               f"{self.t()} + {s}[0]"])
        return self.block([f"{s} = {build}", f"{t} = {use}"], [(s, "list"), (t, "tensor")])

    def list_mutation(self):
        target = self.rng.choice(["lst"] + self.names["list"])
        line = self.rng.choice([f"{target}.append({self.i()})", f"{target}.pop()", f"{target}.extend(ITEMS)",
                                f"{target}[0] = {self.i()}", f"{target}.insert(0, 7)", "LOG.append(len(lst))",
                                f"{target} *= 2", f"{target} += [{self.i()}]"])
        return self.block([line])

    def objects(self):
        t = self.fresh("tensor")
        expr = self.rng.choice([f"OBJ.apply({self.t()})", f"{self.t()} * OBJ.double", f"Base.shift({self.t()})",
                                f"OBJ.shift({self.t()})", f"Base.make({self.i()}).apply({self.t()})",
                                f"Child.make(2.0).apply({self.t()})", f"{self.t()} * type(OBJ).k",
                                f"{self.t()} * OBJ.k", f"Base({self.i()}).apply({self.t()})",
                                f"{self.t()} + Child(1.0).double", f"{self.t()} * getattr(OBJ, 'extra', 0.5)",
                                f"{self.t()} + len(repr(OBJ))"])
        return self.block([f"{t} = {expr}"], [(t, "tensor")])

    def modules(self):
        t = self.fresh("tensor")
        expr = self.rng.choice([f"NET({self.t()})", f"NET.helper({self.t()})", f"{self.t()} * NET.scale",
                                f"{self.t()} + NET.offset", f"NET.lin({self.t()})", f"{self.t()} * NET.factor",
                                f"{self.t()} + sum(p.sum() for p in NET.parameters())",
                                f"{self.t()} + len(list(NET.named_buffers()))", f"HALVE({self.t()})"])
        return self.block([f"{t} = {expr}"], [(t, "tensor")])

    def more_dicts(self):
        c, t = self.fresh("dict"), self.fresh("tensor")
        build = self.rng.choice(["collections.OrderedDict(d)", "collections.defaultdict(float, d)",
                                 "collections.Counter(lst)", "{i: v for i, v in enumerate(lst)}",
                                 "dict(zip(lst, ITEMS))", "dict.fromkeys(d, 0.5)", "d | TABLE",
                                 "{'in': dict(d)}", "vars(OBJ).copy()"])
        use = self.rng.choice([f"{self.t()} + len({c})", f"{self.t()} + len(repr({c}))",
                               f"{self.t()} + sum(1 for _ in {c})", f"{self.t()} + (len({c}) > 1)",
                               f"{self.t()} + len(sorted({c}, key=str))"])
        return self.block([f"{c} = {build}", f"{t} = {use}"], [(c, "dict"), (t, "tensor")])

    def asserts(self):
        return self.block([self.rng.choice([f"assert {self.i()} < 3, f'n is {{n}}'", "assert 'a' in d, d",
                                            f"assert len(lst) > {self.rng.choice([0, 1, 2])}"])])

    def across_breaks(self):
        """Values alive across a graph break: a generator, a cell written after it, a display being built."""
        t = self.fresh("tensor")
        kind = self.rng.choice(["generator", "cell", "dict_display", "loop"])
        if kind == "generator":
            lines = [f"g = gen({self.t()}, 3)", "next(g)", f"print('gen', {self.i()})", f"{t} = next(g) + next(g)"]
        elif kind == "cell":
            lines = [f"box = {self.t()}", "def read():", "    return box * 2", f"print('cell', {self.i()})",
                     "box = box + 1", f"{t} = read()"]
        elif kind == "dict_display":
            lines = [f"dd = {{'a': 1, **{{'b': int({self.t()}.sum())}}, **d}}", f"{t} = {self.t()} + len(dd)"]
        else:
            lines = [f"{t} = {self.t()} * 1", "for v in range(2):", "    try:",
                     f"        {t} = {t} + {t}.sum().item()", "        if v == n:", "            raise KeyError(v)",
                     "    except KeyError:", f"        {t} = {t} - 1"]
        return self.block(lines, [(t, "tensor")])

    def object_store(self):
        line = self.rng.choice([f"OBJ.extra = float({self.i()})", "OBJ.v = OBJ.v * 2",
                                f"o{self.counter} = Base({self.i()}); o{self.counter}.v = 3.0"])
        return self.block([line])

    def globals_(self):
        line = self.rng.choice(["COUNT += 1", f"COUNT = COUNT + {self.i()}", "SCALE = SCALE * 2",
                                f"LOG.append({self.i()})", "TABLE['g'] = SCALE"])
        return self.block([line])

    def breaks(self):
        t = self.fresh("tensor")
        line = self.rng.choice([f"print('at', {self.i()}, {self.t()})", f"{t} = {self.t()} + {self.t()}.sum().item()",
                                f"{t} = {self.t()} * int({self.t()}.sum() > 0)",
                                f"print(f'{{{self.t()}.sum():.3f}}')"])
        defines = [(t, "tensor")] if line.startswith(t) else []
        return self.block([line], defines)

    def with_block(self):
        t = self.fresh("tensor")
        manager = self.rng.choice(["torch.no_grad()", "torch.enable_grad()", "torch.set_grad_enabled(False)",
                                   "Logged('w')"])
        inner = self.rng.choice(["print('in with')", f"{t} = {t} + {self.t()}.sum().item()", f"{t} = {t} * 2"])
        raises = self.rng.choice(["", "", f"{t} = {t} + (n - 'a')", "raise ValueError(f'in with {n}')"])
        lines = [f"{t} = {self.t()} + 1", f"with {manager}:", f"    {inner}", f"    {t} = {t} * 2"]
        if raises:
            lines += [f"    if n > {self.rng.choice([0, 1, 2])}:", f"        {raises}"]
        return self.block(lines, [(t, "tensor")])

    def try_block(self):
        t = self.fresh("tensor")
        body = self.rng.choice(["print('in try')", f"{t} = {t} + {self.t()}.sum().item()", f"{t} = {t} - 1"])
        raises = self.rng.choice(["raise ValueError('v' + str(n))", "TABLE['missing']", "lst[100]",
                                  f"{t} = {t} + (n - 'a')", "pass"])
        handler = self.rng.choice(["except ValueError as e:", "except (KeyError, IndexError) as e:",
                                   "except Exception as e:", "except TypeError as e:"])
        lines = [f"{t} = {self.t()} * 1", "try:", f"    {body}", f"    {raises}", handler,
                 f"    {t} = {t} + len(str(e))"]
        if self.rng.random() < 0.4:
            lines += ["finally:", "    LOG.append('finally')"]
        return self.block(lines, [(t, "tensor")])

    def control(self):
        t = self.fresh("tensor")
        kind = self.rng.choice(["for", "if", "while"])
        if kind == "for":
            lines = [f"{t} = {self.t()} * 1", f"for v in {self.rng.choice(['range(n)', 'lst', 'ITEMS', 'd'])}:",
                     f"    {t} = {t} + 1"]
        elif kind == "if":
            lines = [f"if {self.i()} > {self.rng.choice([0, 1, 2])} and 'a' in d:", f"    {t} = {self.t()} + 1",
                     "else:", f"    {t} = {self.t()} - 1"]
        else:
            lines = [f"{t} = {self.t()} * 1", "k = 0", "while k < min(n, 3):", f"    {t} = {t} * 2", "    k += 1"]
        return self.block(lines, [(t, "tensor")])

    def functions(self):
        t = self.fresh("tensor")
        expr = self.rng.choice([f"rec({self.rng.choice([1, 3, 10])}, {self.t()})", f"sum(gen({self.t()}, 3))",
                                f"make_scaler({self.i()})({self.t()})", f"(lambda u: u * SCALE)({self.t()})",
                                f"{self.t()} + make_counter()()", f"{self.t()} + next(gen(1, 2))",
                                f"torch.stack(list(gen({self.t()}, 2))).sum(0)"])
        return self.block([f"{t} = {expr}"], [(t, "tensor")])

    def closure(self):
        t = self.fresh("tensor")
        lines = [f"acc = [{self.t()}]", "def add(u):", "    acc[0] = acc[0] + u", "    return acc[0]",
                 f"{t} = add({self.t()}) + add(1)"]
        return self.block(lines, [(t, "tensor")])

    def deep_recursion(self):
        t = self.fresh("tensor")
        return self.block([f"{t} = rec({self.rng.choice([100, 400])}, {self.t()})"], [(t, "tensor")])

    def starred_call(self):
        t = self.fresh("tensor")
        expr = self.rng.choice([f"torch.stack([{self.t()}, *[{self.t()}]]).sum(0)", f"max(*lst, {self.i()})",
                                "dict(**d, zz=1.0)", "(lambda *a, **k: len(a) + len(k))(*lst, **d)"])
        if expr.startswith("torch"):
            return self.block([f"{t} = {expr}"], [(t, "tensor")])
        i = self.fresh("int")
        return self.block([f"{i} = len(str({expr}))"], [(i, "int")])

    def getattr_objects(self):
        t = self.fresh("tensor")
        expr = self.rng.choice([f"{self.t()} * DYN.known", f"{self.t()} + DYN.abc", f"{self.t()} + DYN.extra",
                                f"{self.t()} * getattr(DYN, 'wxyz')", f"{self.t()} + hasattr(DYN, 'extra')",
                                f"{self.t()} + getattr(DYN, '_hidden', 1.5)", f"{self.t()} + len(vars(DYN))"])
        return self.block([f"{t} = {expr}"], [(t, "tensor")])

    def dataclasses_(self):
        t = self.fresh("tensor")
        expr = self.rng.choice([f"{self.t()} * Point(float({self.i()})).norm()", f"{self.t()} * PT.x",
                                f"{self.t()} + dataclasses.replace(PT, y=3.0).norm()",
                                f"{self.t()} + len(dataclasses.asdict(PT))", f"{self.t()} + (PT == Point(1.0))",
                                f"{self.t()} * Frozen(2.0).a", f"{self.t()} + len(dataclasses.fields(PT))",
                                f"{self.t()} + sum(dataclasses.astuple(PT))", f"{self.t()} + PT.norm()",
                                f"{self.t()} + hash(Frozen(1.0, {self.i()})) % 7",
                                f"{self.t()} + len(repr(Point({self.i()}, 0.5)))"])
        lines = [f"{t} = {expr}"]
        if self.rng.random() < 0.2:
            lines.append(self.rng.choice(["PT.y = PT.y + 1.0", "p = Point(1.0); p.x = 4.0; PT.x = p.x"]))
        return self.block(lines, [(t, "tensor")])

    def partials(self):
        t = self.fresh("tensor")
        expr = self.rng.choice([f"ADD2({self.t()}, {self.t()})", f"functools.partial(make_scaler(2.0))({self.t()})",
                                f"functools.partial(torch.mul, other={self.i()})({self.t()})",
                                f"HALVE.func(1, {self.t()})", f"{self.t()} + len(HALVE.args)",
                                f"functools.partial(rec, 1)({self.t()})",
                                f"functools.partial(ADD2, {self.t()})({self.t()})",
                                f"{self.t()} + functools.reduce(lambda a, b: a + b, lst, 0)",
                                f"{self.t()} + ADD2.keywords['alpha']"])
        return self.block([f"{t} = {expr}"], [(t, "tensor")])

    def numpy_(self):
        t = self.fresh("tensor")
        expr = self.rng.choice([f"torch.from_numpy(ARR).float() + {self.t()}", f"{self.t()} + float(np.sum(ARR))",
                                f"{self.t()} + torch.as_tensor(np.array(lst)).sum()",
                                f"torch.from_numpy({self.t()}.detach().numpy() * 2)", f"{self.t()} + np.float32(2.0)",
                                f"{self.t()} * np.pi", f"{self.t()} + len(np.arange({self.i()}))",
                                f"{self.t()} + np.mean(np.array(lst, dtype=np.float64))",
                                f"{self.t()} + int(np.argmax(ARR))"])
        return self.block([f"{t} = {expr}"], [(t, "tensor")])

    def sets(self):
        t = self.fresh("tensor")
        a, b = self.t(), self.t()
        expr = self.rng.choice([f"{a} + len({{{a}, {b}}})", f"{a} + ({a} in {{{a}, {b}}})",
                                f"{a} + len(set(lst) | TAGS)", f"{a} + len(TAGS & set(lst))",
                                f"{a} + sorted(TAGS)[-1]", f"{a} + len(frozenset(lst))",
                                f"{a} + len({{u.shape for u in ({a}, {b})}})", f"{a} + ({self.i()} in TAGS)",
                                f"{a} + len(TAGS - {{{self.i()}}})"])
        lines = [f"{t} = {expr}"]
        if self.rng.random() < 0.2:
            lines.append(self.rng.choice(["TAGS.add(n + 10)", "TAGS.discard(1)", "s = {x}; s.add(x); LOG.append(len(s))"]))
        return self.block(lines, [(t, "tensor")])

    def in_place_args(self):
        """Mutations of the arguments themselves (eager leaves them changed; so must Standin)."""
        line = self.rng.choice([f"{self.t()}.add_(1)", "x.mul_(2)", f"x[0] = float({self.i()})", "x += 1",
                                "x.clamp_(min=0)", "x.view(-1)[0].zero_()", "lst.sort()", "lst.reverse()",
                                "d.clear()", "d.update(TABLE)", "torch.add(x, 1, out=x)",
                                "x.copy_(x * 2)", "lst[:] = [v + 1 for v in lst]", "d['a'] = d.get('a', 0) + 1"])
        return self.block([line])

    def globals_fns(self):
        """Global functions, their defaults and cells: each may be replaced between calls."""
        t = self.fresh("tensor")
        expr = self.rng.choice([f"helper({self.t()})", f"helper({self.t()}, k={self.i()})",
                                f"{self.t()} + COUNTER()", f"rec(2, {self.t()})", f"{self.t()} * len(helper.__defaults__)",
                                f"{self.t()} + helper.__defaults__[0]", f"{self.t()} * TRK.val",
                                f"{self.t()} + isinstance(OBJ, Child)", f"{self.t()} + (type(OBJ) is Base)",
                                f"{self.t()} + len(type(OBJ).__name__)"])
        lines = [f"{t} = {expr}"]
        if self.rng.random() < 0.25:
            lines.append(self.rng.choice(["TRK.val = float(n)", "TRK.other = 2.0", "COUNTER()"]))
        return self.block(lines, [(t, "tensor")])

    def global_state(self):
        """Torch's global state (grad mode, default dtype, a module's training flag) read in the trace."""
        t = self.fresh("tensor")
        expr = self.rng.choice([f"{self.t()} * (2 if NET.training else 3)", f"torch.ones(3) + {self.t()}",
                                f"{self.t()} + torch.is_grad_enabled()", f"{self.t()} + (torch.get_default_dtype() is torch.float64)",
                                f"NET({self.t()}) * 1", f"{self.t()} + NET.lin.weight.requires_grad",
                                f"{self.t()} + torch.zeros(2, 3).sum()", f"{self.t()} + torch.tensor(1.5)",
                                f"{self.t()}.to(torch.get_default_dtype())"])
        return self.block([f"{t} = {expr}"], [(t, "tensor")])

    def shapes(self):
        t = self.fresh("tensor")
        a = self.t()
        expr = self.rng.choice([f"{a} + {a}.ndim", f"{a} * {a}.shape[-1]", f"{a}.reshape(-1)[:2].sum() + {a}",
                                f"{a} + torch.zeros_like({a})", f"{a}.new_ones({a}.shape[-1]) + {a}",
                                f"{a} + ({a}.size(0) if {a}.ndim > 1 else 0)", f"{a}.flatten().flip(0)[0] + {a}",
                                f"{a} + len({a})", f"{a}.t().contiguous().t() + 1", f"{a} + {a}.numel()"])
        return self.block([f"{t} = {expr}"], [(t, "tensor")])

    def aliasing(self):
        """Views of an argument changed in place: the argument changes too."""
        t = self.fresh("tensor")
        lines = self.rng.choice([["y = x.view(-1)", "y.mul_(2)", f"{t} = x + 1"],
                                 ["y = x[..., :1]", "y.add_(n)", f"{t} = x * 1"],
                                 ["y = x.reshape(-1)", "y[0] = 5.0", f"{t} = y + x.sum()"],
                                 ["y = x.detach()", "y.sub_(1)", f"{t} = x.clone()"],
                                 ["y = x", "y += 2", f"{t} = x - y"]])
        return self.block(lines, [(t, "tensor")])

    def app_errors(self):
        t = self.fresh("tensor")
        lines = [f"{t} = {self.t()} * 1", "try:", f"    if n {self.rng.choice(['>', '<', '=='])} 1:",
                 f"        raise AppError(n) {self.rng.choice(['', 'from KeyError(n)', 'from None'])}",
                 f"    {t} = {t} + 1", "except AppError as e:",
                 f"    {t} = {t} + e.code + len(e.args) + (e.__cause__ is None)"]
        return self.block(lines, [(t, "tensor")])

    def comprehensions(self):
        i = self.fresh("int")
        expr = self.rng.choice(["sum([(w := v * 2) for v in lst]) + w if lst else 0", "len(f'{n:03d}')",
                                "len('-'.join(map(str, lst)))", "max(d, key=d.get) == 'a' if d else -1",
                                "min(lst, key=lambda v: -v) if lst else 0", "1 if 0 < n <= 2 else 2",
                                "sum(v for v in lst if v % 2)", "len([k for k in d if k in TABLE])",
                                "sum(a * b for a, b in zip(lst, ITEMS))", "len({v: k for k, v in d.items()})",
                                "next((v for v in lst if v > 1), -1)", "sum(sorted(lst)[1:])"])
        return self.block([f"{i} = int({expr})"], [(i, "int")])

    def generators_more(self):
        t = self.fresh("tensor")
        expr = self.rng.choice([f"sum(x for _, x in zip(lst, gen({self.t()}, 3)))",
                                f"list(gen({self.t()}, {self.i()} % 3 + 1))[-1]",
                                f"{self.t()} + sum(1 for _ in gen(0, len(lst)))",
                                f"torch.stack([*gen({self.t()}, 2)]).sum(0)",
                                f"{self.t()} + len(list(enumerate(gen(1, n))))"])
        return self.block([f"{t} = {expr}"], [(t, "tensor")])

    def missing_attrs(self):
        """Attributes a class lacks (and may gain), an OrderedDict's order (which may change)."""
        t = self.fresh("tensor")
        expr = self.rng.choice([f"{self.t()} * getattr(PLAIN, 'zz', 1.0)", f"{self.t()} + hasattr(PLAIN, 'zz')",
                                f"{self.t()} + hasattr(Plain, 'zz')", f"{self.t()} + f'{{PLAIN}}'.startswith('<')",
                                f"{self.t()} + str(PLAIN).startswith('<')", f"{self.t()} + (list(ORD)[0] == 'a')",
                                f"{self.t()} * next(iter(ORD.values()))", f"{self.t()} + len(ORD)",
                                f"{self.t()} * getattr(PLAIN, 'other', 2.0)"])
        return self.block([f"{t} = {expr}"], [(t, "tensor")])

    FAMILIES = (("arith", 6), ("ints", 3), ("dicts", 5), ("dict_mutation", 2), ("lists", 4), ("list_mutation", 2),
                ("objects", 5), ("object_store", 1), ("globals_", 2), ("breaks", 3), ("with_block", 2),
                ("try_block", 2), ("control", 3), ("functions", 3), ("closure", 1), ("deep_recursion", 0.15),
                ("starred_call", 2), ("modules", 3), ("more_dicts", 3), ("asserts", 1),
                ("across_breaks", 2), ("getattr_objects", 2), ("dataclasses_", 2), ("partials", 2),
                ("numpy_", 2), ("sets", 2), ("in_place_args", 2), ("globals_fns", 2), ("global_state", 2),
                ("shapes", 2), ("aliasing", 1), ("app_errors", 1), ("comprehensions", 2),
                ("generators_more", 1), ("missing_attrs", 2))

    def body(self, size: int) -> tuple[Block, ...]:
        names, weights = zip(*self.FAMILIES)
        return tuple(getattr(self, self.rng.choices(names, weights)[0])() for _ in range(size))


_DICTS = ({"a": 1.0, "b": 2.0}, {"a": 1.0}, {"b": 2.0, "a": 0.5}, {"a": 1.0, "b": 2.0, "c": 3.0}, {})
_LISTS = ([1, 2], [1, 2, 3], [3], [2, 5, 1])


def _calls(rng: random.Random) -> tuple[Call, ...]:
    """3-6 calls; each may change an argument (a key added or gone, a list longer, n, x's shape) and may
    run a mutation first."""
    calls = []
    shape, n, d, lst = (3,), rng.choice([0, 1, 2]), dict(_DICTS[0]), list(_LISTS[0])
    for index in range(rng.randint(3, 6)):
        mutation = rng.choice(list(MUTATIONS)) if index and rng.random() < 0.5 else None
        change = rng.choice(["same", "same", "n", "d", "lst", "shape"]) if index else "same"
        if change == "n":
            n = rng.choice([0, 1, 2, 3])
        elif change == "d":
            d = dict(rng.choice(_DICTS))
        elif change == "lst":
            lst = list(rng.choice(_LISTS))
        elif change == "shape":
            shape = rng.choice([(3,), (2, 3)])
        calls.append(Call(mutation, shape, n, dict(d), list(lst)))
    return tuple(calls)


def generate(seed: int) -> Program:
    rng = random.Random(seed)
    gen = _Gen(rng)
    blocks = gen.body(rng.randint(2, 9))
    candidates = gen.names["tensor"][1:] + gen.names["int"][1:] + gen.names["dict"][1:] + gen.names["list"][1:]
    returns = tuple(rng.sample(candidates, min(len(candidates), rng.randint(1, 3)))) if candidates else ("x",)
    return Program(seed, blocks, returns, _calls(rng))
