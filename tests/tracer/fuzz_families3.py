"""Generator families for the three-way fuzzer where Dynamo users' code goes (see fuzz_families.py for the format).

  modules    nn.Module subclasses with buffers, parameters and int/float/bool attributes changed in forward
             and between calls; forward and pre-forward hooks registered and removed between calls;
             submodules swapped; train/eval
  wrappers   *args/**kwargs forwarded through decorators (functools.wraps), keyword-only arguments and
             defaults, functions made by factories and called later, partials; breaks inside
  exc        exceptions raised in inlined frames and caught further out, with graph breaks inside the
             try, the handler or finally; custom exceptions with attributes, raise from, re-raise,
             context managers that suppress
A program's `probe()` (named `probe()` in its state) returns what eager and Standin must agree on after
each call.  Mutations only set values; a plan whose mutations a snapshot cannot undo starts with `reset`.
"""
from __future__ import annotations

from fuzz_writer import BREAKS, FamilyProgram, Writer, calls_source, indent, module_source

# ---- modules: buffers, parameters, attributes, hooks -----------------------------------------------------
_MODULES = '''\
from torch import nn

torch.manual_seed({seed})


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.gain = 1.5

    def forward(self, h):
        return self.lin(h) * self.gain


class Other(nn.Module):
    def forward(self, h):
        return h.tanh() - 1


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(3) * 0.5)
        self.register_buffer("running", torch.zeros(3))
        self.register_buffer("count", torch.zeros((), dtype=torch.long))
        self.register_buffer("scratch", torch.ones(3), persistent=False)
        self.inner = Inner()
        self.calls = 0
        self.momentum = 0.1
        self.use_inner = True
        self.cache = {{}}

    def forward(self, x, k=1):
{body}
        return out


MOD = Net()
HOOK_LOG = []
HANDLES = []


def pre_hook(module, args):
    HOOK_LOG.append("pre")
    return (args[0] * 2,) + tuple(args[1:])


def post_hook(module, args, output):
    HOOK_LOG.append("post")
    return output + 1


def inner_hook(module, args, output):
    return output * 0.5


def probe():
    bufs = {{name: b.clone() for name, b in MOD.named_buffers()}}
    return bufs, MOD.calls, MOD.momentum, MOD.use_inner, sorted(MOD.cache), list(HOOK_LOG), MOD.weight.detach().clone()
'''
_MODULE_STEPS = [
    "h = h * self.weight", "h = self.inner(h)", "h = h + self.running",
    "with torch.no_grad():\n    self.running.mul_(1 - self.momentum).add_(h.mean(0) * self.momentum)",
    "self.running.add_(1.0)", "self.count += 1", "self.count.add_(k)", "self.calls += 1", "self.calls = self.calls + k",
    "h = h + self.calls", "h = h * self.count", "if self.training:\n    h = h + 0.5\nelse:\n    h = h - 0.5",
    "if self.use_inner:\n    h = self.inner(h)", "self.scratch.copy_(h[0].detach())", "h = h + self.scratch",
    "self.cache['last'] = h.detach()", "h = h + len(self.cache)", "h = h * self.inner.gain",
    "if self.calls > 2:\n    h = h * 2", "h = h + sum(p.sum() for p in self.inner.parameters())",
    "h = h + len(list(self.named_buffers()))", "h = h + self.momentum * k",
    "self.momentum = self.momentum * 0.5", "h = torch.nn.functional.layer_norm(h, (3,), self.weight)",
    "h = h + self.get_buffer('running')", "h = h.clamp(max=self.count.float() + 1)",
]
_MODULE_MUTATIONS = {
    "eval": "MOD.eval()",
    "train": "MOD.train()",
    "pre_hook": "HANDLES.append(MOD.register_forward_pre_hook(pre_hook))",
    "post_hook": "HANDLES.append(MOD.register_forward_hook(post_hook))",
    "inner_hook": "HANDLES.append(MOD.inner.register_forward_hook(inner_hook))",
    "remove_hooks": "for handle in HANDLES:\n    handle.remove()\nHANDLES.clear()",
    "swap_inner": "MOD.inner = Other()",
    "use_inner": "MOD.use_inner = not MOD.use_inner",
    "momentum": "MOD.momentum = 0.5",
    "calls": "MOD.calls = 10",
    "gain": "MOD.inner.gain = 3",
    "weight": "with torch.no_grad():\n    MOD.weight.fill_(2.0)",
    "frozen": "MOD.weight.requires_grad_(False)",
    "new_buffer": "MOD.running = torch.full((3,), 4.0)",
    "cache": "MOD.cache.clear()",
}
_MODULE_RESET = ["for handle in HANDLES:", "    handle.remove()", "HANDLES.clear()", "MOD.weight.requires_grad_(True)",
                 "MOD.inner = INNER", "MOD.train()"]
_MODULE_CALLS = ["out = MOD(x)", "out = MOD(x, k=n)", "out = MOD(x, n)", "out = MOD(x) + MOD(x * 2, k=n)",
                 "with torch.no_grad():\n    out = MOD(x)", "out = MOD.forward(x, n)"]


def _modules(w: Writer, seed: int) -> FamilyProgram:
    forward = ["h = x * 1"]
    for _ in range(w.rng.randint(2, 5)):
        forward += w.choice(_MODULE_STEPS).splitlines()
        if w.rng.random() < 0.12:
            forward.append(w.choice(BREAKS).format(k="k", t="h"))
    forward.append(w.choice(["out = h", "out = h.sum(-1)", "out = h + self.running.sum()"]))
    source = _MODULES.format(seed=seed, body=indent(forward, " " * 8))
    body = w.choice(_MODULE_CALLS).splitlines()
    if w.rng.random() < 0.15:
        body.append(w.choice(BREAKS).format(k="n", t="out"))
    body.append(w.choice(["return out", "return out, MOD.calls", "return out, MOD.count.clone()"]))
    muts = sorted(w.rng.sample(sorted(_MODULE_MUTATIONS), 2))
    plan = [("reset", "T(2, 3), 1"), (None, "T(2, 3), 1"), (muts[0], "T(2, 3), 1"),
            (w.choice([None, muts[1]]), "T(2, 3), 1"), (None, f"T(2, 3), {w.choice([1, 2])}")]
    parts = [source, "INNER = MOD.inner", "def fn(x, n):\n" + indent(body), "def mutate_reset():\n" + indent(_MODULE_RESET)]
    parts += [f"def mutate_{m}():\n" + indent(_MODULE_MUTATIONS[m].splitlines()) for m in muts]
    return FamilyProgram("modules", seed, module_source(seed, *parts, calls_source(plan)), state=("probe()",))


# ---- wrappers: decorators, *args/**kwargs, factories -------------------------------------------------------
_WRAPPERS = '''\
import functools

CALLED = []


def logged(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        CALLED.append(func.__name__)
        return func(*args, **kwargs)
    return wrapper


def scaled(factor):
    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs) * factor
        return wrapper
    return decorate


def forward_all(func, *args, **kwargs):
    return func(*args, **kwargs)


def make_adder(k):
    def add(t, extra=0.0):
        return t + k + extra
    return add


def make_counter():
    count = 0

    def step(t):
        nonlocal count
        count += 1
        return t * count
    return step


COUNTER = make_counter()
'''
_WRAPPED = [  # (definition, a call of it with t, n)
    ("@logged\ndef g{i}(t, n, *, scale=1.0):\n    return t * scale + n", "g{i}(t, n, scale=0.5)"),
    ("@scaled(2.0)\ndef g{i}(t, *rest):\n    return t + len(rest)", "g{i}(t, n, n)"),
    ("@logged\n@scaled(0.5)\ndef g{i}(t, n=2, **kw):\n    return t - n + kw.get('bias', 0.0)", "g{i}(t, n=n, bias=1.0)"),
    ("def g{i}(*args, **kwargs):\n    return forward_all(torch.add, *args, **kwargs)", "g{i}(t, t, alpha=n)"),
    ("def g{i}(t, n):\n    add = make_adder(n)\n    return add(t, extra=1.0)", "g{i}(t, n)"),
    ("def g{i}(t, n):\n    fns = [make_adder(j) for j in range(n + 1)]\n    return fns[-1](t)", "g{i}(t, n)"),
    ("@logged\ndef g{i}(t, n):\n    {brk}\n    return t.sin() + n", "g{i}(t, n)"),
    ("def g{i}(t, n):\n    return COUNTER(t)", "g{i}(t, n)"),
    ("def g{i}(t, n):\n    part = functools.partial(forward_all, torch.mul)\n    return part(t, n + 1)", "g{i}(t, n)"),
    ("def g{i}(t, n, *args, key=None, **kw):\n    return t + len(args) + len(kw) + (key or 0)",
     "g{i}(t, n, 1, 2, key=n, other=3)"),
    ("def g{i}(t, n):\n    args = (t, n)\n    kwargs = {{'scale': 2.0}}\n    return forward_all(G_SCALE, *args, **kwargs)",
     "g{i}(t, n)"),
    ("@scaled(3)\n@logged\ndef g{i}(t, n):\n    {brk}\n    return t * n", "g{i}(t, n)"),
    ("def g{i}(t, n):\n    def inner(*a, **k):\n        return a[0] * k['m']\n    return forward_all(inner, t, m=n)",
     "g{i}(t, n)"),
    ("@logged\ndef g{i}(t, n):\n    return g{i}.__name__ == 'g{i}' and t + 1 or t", "g{i}(t, n)"),
]
_WRAPPER_MUTATIONS = {
    "counter": "global COUNTER\nCOUNTER = make_counter()",
    "scale_default": "G_SCALE.__kwdefaults__ = {'scale': 4.0}",
    "called": "CALLED.clear()",
}


def _wrappers(w: Writer, seed: int) -> FamilyProgram:
    defs, body = [], ["t = x * 1"]
    for i in range(w.rng.randint(1, 4)):
        definition, use = w.choice(_WRAPPED)
        brk = w.choice(BREAKS).format(k="n", t="t") if w.rng.random() < 0.5 else "pass"
        defs.append(definition.format(i=i, brk=brk))
        body.append(f"t = {use.format(i=i)}")
        if w.rng.random() < 0.1:
            body.append(w.choice(BREAKS).format(k="n", t="t"))
    body.append(w.choice(["return t", "return t, list(CALLED)", "return t, n"]))
    muts = sorted(w.rng.sample(sorted(_WRAPPER_MUTATIONS), 2))
    plan = [("reset", "T(3), 1"), (None, "T(3), 1"), (muts[0], "T(3), 1"), (w.choice([None, muts[1]]), "T(3), 2")]
    parts = [_WRAPPERS, "def G_SCALE(t, n, *, scale=1.0):\n    return t * n * scale", *defs,
             "def fn(x, n):\n" + indent(body),
             "def mutate_reset():\n    global COUNTER\n    COUNTER = make_counter()\n"
             "    G_SCALE.__kwdefaults__ = {'scale': 1.0}"]
    parts += [f"def mutate_{m}():\n" + indent(_WRAPPER_MUTATIONS[m].splitlines()) for m in muts]
    return FamilyProgram("wrappers", seed, module_source(seed, *parts, calls_source(plan)),
                         dynamic=w.choice([False, None]), state=("CALLED", "LOG"))


# ---- exc: exceptions across inlined frames, with breaks ---------------------------------------------------------
_EXC = '''\
import contextlib


class StepError(Exception):
    def __init__(self, msg, value):
        super().__init__(msg)
        self.value = value


class Quiet:
    def __init__(self, kinds):
        self.kinds = kinds
        self.seen = None

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        self.seen = kind
        return kind is not None and issubclass(kind, self.kinds)
'''
_EXC_RAISES = ["raise StepError('step', n)", "raise ValueError(f'v{{n}}')", "raise KeyError('k')",
               "return {{'a': t}}['b']", "return t + [t][n + 3]", "raise TypeError('t', n)",
               "raise StepError('wrapped', n) from ValueError('cause')", "return t.view(7, 11)"]
_EXC_HANDLERS = ["except StepError as e:\n    t = t + e.value", "except (ValueError, TypeError) as e:\n    t = t - len(e.args)",
                 "except KeyError:\n    t = t * 2", "except LookupError as e:\n    t = t + len(str(e))",
                 "except Exception as e:\n    t = t + (type(e).__name__ == 'StepError')",
                 "except RuntimeError:\n    t = t + 7"]


def _exc_helper(w: Writer, i: int) -> str:
    """h{i}(t, n): maybe raises (under a condition on n or the tensor), maybe breaks first."""
    lines = [f"u = t + {i}"]
    if w.rng.random() < 0.4:
        lines.append(w.choice(BREAKS).format(k="n", t="u"))
    cond = w.choice(["n > 1", "n == 1", "True", "u.sum() > 0", "n % 2 == 0"])
    lines += [f"if {cond}:", "    t = u", "    " + w.choice(_EXC_RAISES).format()]
    if i > 0 and w.rng.random() < 0.5:
        lines.append(f"u = h{i - 1}(u, n)")
    lines.append("return u * 2")
    return f"def h{i}(t, n):\n" + indent(lines)


def _exc_block(w: Writer, depth: int) -> list[str]:
    call = f"t = h{w.rng.randrange(depth)}(t, n)"
    kind = w.rng.random()
    if kind < 0.5:
        brk = [w.choice(BREAKS).format(k="n", t="t")] if w.rng.random() < 0.4 else []
        lines = ["try:", *indent(brk + [call]).splitlines(), *w.choice(_EXC_HANDLERS).splitlines()]
        if w.rng.random() < 0.3:
            lines += ["    " + w.choice(BREAKS).format(k="'h'", t="t")]
        if w.rng.random() < 0.2:
            lines += ["else:", "    t = t + 0.5"]
        if w.rng.random() < 0.3:
            lines += ["finally:", "    LOG.append('finally')"]
        return lines
    if kind < 0.7:
        return ["with Quiet((StepError, KeyError)) as q:", "    " + call, "t = t + (q.seen is not None)"]
    if kind < 0.85:
        return ["with contextlib.suppress(ValueError, StepError):", "    " + call]
    return ["try:", "    " + call, "except Exception as e:", "    LOG.append(type(e).__name__)",
            "    if n > 5:", "        raise", "    t = t - 1"]


def _exc(w: Writer, seed: int) -> FamilyProgram:
    depth = w.rng.randint(1, 3)
    helpers = [_exc_helper(w, i) for i in range(depth)]
    body = ["t = x * 1"]
    for _ in range(w.rng.randint(1, 3)):
        body += _exc_block(w, depth)
    body.append(w.choice(["return t", "return t, n", "return {'t': t}"]))
    plan = [(None, "T(3), 0"), (None, "T(3), 1"), (None, "T(3), 1"), (None, "T(3), 2"), (None, "T(3), 1")]
    src = module_source(seed, _EXC, *helpers, "def fn(x, n):\n" + indent(body), calls_source(plan))
    return FamilyProgram("exc", seed, src, state=("LOG",))


FAMILIES3 = {"modules": _modules, "wrappers": _wrappers, "exc": _exc}
