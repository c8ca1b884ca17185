"""More generator families for the three-way fuzzer (see fuzz_families.py for the format).

  optim      optimizer-style steps: loops over parameters (or parameter groups) with per-parameter
             state dicts keyed by index or by the tensor, in-place updates, int or tensor step
             counters, hyperparameters in a dict changed between calls
  hf         nn.Module trees built from a dataclass config (Hugging Face style): ModuleList, optional
             submodules, flags read in forward, kwargs with defaults, dataclass / tuple outputs;
             config flags and modes changed between calls
  chains     tensor-method chains: views, slicing assignment, out=, dtype casts, broadcasting
  sizes      int / float / bool arithmetic on sizes mixed with tensors, dynamic=None, three sizes
  globals    globals, closure cells and functions changed between calls (recompiles and reasons)
Mutations only set values (never draw from the generator), and a plan whose mutations a snapshot
cannot undo (closure cells, code objects) starts with a `reset` mutation.
"""
from __future__ import annotations

from fuzz_writer import BREAKS, FamilyProgram, Writer, calls_source, indent, module_source

# ---- optim -----------------------------------------------------------------------------------------
_OPTIM_HP = 'HP = {"lr": 0.1, "momentum": 0.9, "beta1": 0.8, "beta2": 0.95, "weight_decay": 0.0, "eps": 1e-8}'
_OPTIM_RULES = {
    "sgd": ["p.add_(g, alpha=-lr)"],
    "momentum": ["buf = st['buf']", "buf.mul_(HP['momentum']).add_(g)", "p.add_(buf, alpha=-lr)"],
    "nesterov": ["buf = st['buf']", "buf.mul_(HP['momentum']).add_(g)", "g = g.add(buf, alpha=HP['momentum'])",
                 "p.sub_(lr * g)"],
    "adam": ["st['m'].lerp_(g, 1 - HP['beta1'])", "st['v'].mul_(HP['beta2']).addcmul_(g, g, value=1 - HP['beta2'])",
             "bc1 = 1 - HP['beta1'] ** st['step']", "bc2 = 1 - HP['beta2'] ** st['step']",
             "p.sub_(lr * (st['m'] / bc1) / ((st['v'] / bc2).sqrt() + HP['eps']))"],
    "rmsprop": ["st['v'].mul_(HP['beta2']).add_(g * g * (1 - HP['beta2']))",
                "p.addcdiv_(g, st['v'].sqrt().add(HP['eps']), value=-lr)"],
}
_OPTIM_STATE = {
    "not_in": ["if {key} not in STATE:", "    STATE[{key}] = {init}", "st = STATE[{key}]"],
    "setdefault": ["st = STATE.setdefault({key}, {init})"],
    "get": ["st = STATE.get({key})", "if st is None:", "    st = STATE[{key}] = {init}"],
}
_OPTIM_MUTATIONS = {
    "lr": "HP['lr'] = 0.05",
    "momentum": "HP['momentum'] = 0.5",
    "weight_decay": "HP['weight_decay'] = 0.01",
    "clear": "STATE.clear()",
    "grad": "GRADS[0].mul_(2.0)",
    "new_grad": "GRADS[-1] = torch.ones_like(GRADS[-1])",
    "add_param": "PARAMS.append(EXTRA_PARAM)\nGRADS.append(EXTRA_GRAD)",  # the same tensors in every run
}


def _optim_step(w: Writer, key: str) -> list[str]:
    """The body of one parameter's update: state, weight decay, clipping, the rule."""
    rule = w.choice(sorted(_OPTIM_RULES))
    step0 = w.choice(["0", "torch.zeros(())"])
    init = "{" + f"'step': {step0}, 'buf': torch.zeros_like(p), 'm': torch.zeros_like(p), " \
                 "'v': torch.zeros_like(p)" + "}"
    lines = [line.format(key=key, init=init) for line in w.choice(list(_OPTIM_STATE.values()))]
    lines.append(w.choice(["st['step'] += 1", "st['step'] = st['step'] + 1"]))
    if w.rng.random() < 0.5:
        lines += ["if HP['weight_decay'] != 0:", "    g = g.add(p, alpha=HP['weight_decay'])"]
    if w.rng.random() < 0.3:
        lines.append("g = g * coef")
    if w.rng.random() < 0.15:
        lines.append(w.choice(BREAKS).format(k="i", t="p"))
    return lines + _OPTIM_RULES[rule]


def _optim(w: Writer, seed: int) -> FamilyProgram:
    shapes = w.rng.sample(["3", "2, 3", "4", "1", "3, 1"], w.rng.randint(1, 3))
    setup = [f"PARAMS = [{', '.join(f'T({s})' for s in shapes)}]", f"GRADS = [{', '.join(f'T({s})' for s in shapes)}]",
             "EXTRA_PARAM = torch.ones(2)", "EXTRA_GRAD = torch.full((2,), 0.5)", "STATE = {}", _OPTIM_HP]
    grouped = w.rng.random() < 0.3
    if grouped:
        setup.append("GROUPS = [{'params': PARAMS, 'grads': GRADS, 'lr': 0.1}]")
    body = []
    if w.rng.random() < 0.3:
        body += ["total = torch.stack([g.norm() for g in GRADS]).norm()",
                 "coef = (1.0 / (total + 1e-6)).clamp(max=1.0)"]
    else:
        body.append("coef = 1.0")
    body.append(w.choice(["lr = HP['lr']", "lr = HP['lr'] * (0.5 ** (step // 2))", "lr = HP['lr'] / (1 + step)"]))
    key = "p" if grouped else w.choice(["i", "p"])
    inner = _optim_step(w, key)
    if grouped:
        loop = ["for group in GROUPS:", "    lr = group['lr']",
                "    for i, (p, g) in enumerate(zip(group['params'], group['grads'])):"] + \
            ["        " + line for line in inner]
    else:
        loop = ["for i, (p, g) in enumerate(zip(PARAMS, GRADS)):"] + ["    " + line for line in inner]
    if w.rng.random() < 0.4:
        loop = ["with torch.no_grad():"] + ["    " + line for line in loop]
    body += loop
    if w.rng.random() < 0.2:
        body.append("torch._foreach_mul_(PARAMS, 1 - 0.01 * HP['lr'])")
    body.append(w.choice(["return x * sum(p.sum() for p in PARAMS)", "return x + len(STATE)",
                          "return [p * 1 for p in PARAMS], x", "return x * PARAMS[0].sum(), step"]))
    muts = sorted(w.rng.sample(sorted(_OPTIM_MUTATIONS), 2))
    plan = [(None, "T(3), 0"), (None, "T(3), 1"), (muts[0], "T(3), 2"), (w.choice([None, muts[1]]), "T(3), 3")]
    parts = ["\n".join(setup), "def fn(x, step):\n" + indent(body)]
    parts += [f"def mutate_{m}():\n" + indent(["global PARAMS, GRADS"] + _OPTIM_MUTATIONS[m].splitlines())
              for m in muts]
    return FamilyProgram("optim", seed, module_source(seed, *parts, calls_source(plan)),
                         dynamic=w.choice([False, None]), state=("PARAMS", "STATE", "HP"))


# ---- hf: module trees from a config ------------------------------------------------------------------
_HF_MODULES = '''\
import torch.nn.functional as F
from torch import nn

torch.manual_seed({seed})


@dataclasses.dataclass
class Config:
    hidden: int = {hidden}
    layers: int = {layers}
    act: str = "{act}"
    residual: bool = {residual}
    norm: bool = {norm}
    bias: bool = {bias}
    output_hidden_states: bool = {hidden_states}
    use_return_dict: bool = {return_dict}
    scale: float = {scale}


@dataclasses.dataclass
class ModelOutput:
    logits: torch.Tensor
    hidden_states: tuple = None
    extra: dict = None


ACTS = {{"relu": F.relu, "gelu": F.gelu, "tanh": torch.tanh, "silu": nn.SiLU()}}


class Block(nn.Module):
    def __init__(self, config, index):
        super().__init__()
        self.config = config
        self.index = index
        self.dense = nn.Linear(config.hidden, config.hidden, bias=config.bias)
        self.norm = nn.LayerNorm(config.hidden) if config.norm else {no_norm}
        self.act = ACTS[config.act]

    def forward(self, h, mask=None, scale=None):
        y = self.act(self.dense(h))
{block_extra}
        if mask is not None:
            y = y * mask
        if self.config.residual:
            y = y + h
        if self.norm is not None:
            y = self.norm(y)
        return y * (scale if scale is not None else self.config.scale)


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.blocks = nn.ModuleList([Block(config, i) for i in range(config.layers)])
        self.head = nn.Linear(config.hidden, 2)

    def forward(self, x, mask=None, output_hidden_states=None, return_dict=None, **kwargs):
        if output_hidden_states is None:
            output_hidden_states = self.config.output_hidden_states
        return_dict = return_dict if return_dict is not None else self.config.use_return_dict
        hidden = () if output_hidden_states else None
        h = x
{loop}
        logits = self.head(h)
        if not return_dict:
            return (logits,) + ((hidden,) if hidden is not None else ())
        return ModelOutput(logits=logits, hidden_states=hidden, extra={{"n": len(self.blocks)}})


CONFIG = Config()
MODEL = Model(CONFIG)
'''
_HF_BLOCK_EXTRA = ["", "y = F.dropout(y, p=0.0, training=self.training)", "y = y + self.index",
                   "if self.index == 0:\n    y = y * 2", "if self.training:\n    y = y + 0.1",
                   "if self.config.act == 'relu':\n    y = y - 0.5", "y = y.clamp(min=-{lim}, max={lim})"]
_HF_LOOPS = [
    ["for block in self.blocks:", "    if hidden is not None:", "        hidden = hidden + (h,)",
     "    h = block(h, mask=mask, scale=kwargs.get('scale'))"],
    ["for i, block in enumerate(self.blocks):", "    if kwargs.get('skip_odd', False) and i % 2 == 1:",
     "        continue", "    h = block(h, mask, **({'scale': kwargs['scale']} if 'scale' in kwargs else {}))",
     "    if output_hidden_states:", "        hidden = hidden + (h,)"],
    ["for i in range(len(self.blocks)):", "    h = self.blocks[i](h)", "    if hidden is not None:",
     "        hidden += (h.sum(-1),)"],
]
_HF_CALLS = ["out = MODEL(x)", "out = MODEL(x, mask=(x > 0).float())", "out = MODEL(x, return_dict=flag)",
             "out = MODEL(x, output_hidden_states=flag, scale=0.5)", "out = MODEL(x, skip_odd=flag)",
             "out = MODEL(x=x, return_dict=True)", "out = MODEL(x, None, flag, True, scale=2.0)"]
_HF_RETURNS = ["return out", "return out.logits if isinstance(out, ModelOutput) else out[0]",
               "return out[0] if isinstance(out, tuple) else (out.logits, out.hidden_states)",
               "return dataclasses.asdict(out) if dataclasses.is_dataclass(out) else out"]
_HF_MUTATIONS = {
    "residual": "CONFIG.residual = not CONFIG.residual",
    "hidden_states": "CONFIG.output_hidden_states = True",
    "return_dict": "CONFIG.use_return_dict = False",
    "scale": "CONFIG.scale = 2.0",
    "eval": "MODEL.eval()",
    "index": "MODEL.blocks[0].index = 5",
    "weight": "with torch.no_grad():\n    MODEL.head.weight.mul_(2.0)",
    "frozen": "MODEL.head.weight.requires_grad_(False)",
    "drop_norm": "MODEL.blocks[-1].norm = None",
}


def _hf(w: Writer, seed: int) -> FamilyProgram:
    hidden = w.choice([3, 4])
    extra = w.choice(_HF_BLOCK_EXTRA).format(lim=w.choice([1, 2]))
    source = _HF_MODULES.format(
        seed=seed, hidden=hidden, layers=w.choice([1, 2, 3]), act=w.choice(["relu", "gelu", "tanh", "silu"]),
        residual=w.rng.random() < 0.5, norm=w.rng.random() < 0.5, bias=w.rng.random() < 0.7,
        hidden_states=w.rng.random() < 0.4, return_dict=w.rng.random() < 0.7, scale=w.choice([1.0, 0.5]),
        no_norm=w.choice(["None", "nn.Identity()"]),
        block_extra=indent(extra.splitlines(), " " * 8) if extra else "",
        loop=indent(w.choice(_HF_LOOPS), " " * 8))
    body = []
    if w.rng.random() < 0.2:
        body.append("x = x.unsqueeze(0)")
    body.append(w.choice(_HF_CALLS))
    if w.rng.random() < 0.2:
        body = ["with torch.no_grad():"] + ["    " + line for line in body]
    body.append(w.choice(_HF_RETURNS))
    muts = sorted(w.rng.sample(sorted(_HF_MUTATIONS), 2))
    plan = [(None, f"T(2, {hidden}), True"), (None, f"T(2, {hidden}), True"), (muts[0], f"T(2, {hidden}), True"),
            (w.choice([None, muts[1]]), f"T(2, {hidden}), {w.choice([True, False])}")]
    parts = [source, "def fn(x, flag):\n" + indent(body)]
    parts += [f"def mutate_{m}():\n" + indent(_HF_MUTATIONS[m].splitlines()) for m in muts]
    return FamilyProgram("hf", seed, module_source(seed, *parts, calls_source(plan)), state=("CONFIG",))


# ---- chains: views, slicing assignment, out=, casts, broadcasting -------------------------------------
# {a}, {b}: (R, C) tensors; y: (C,); z: (R, 1)
_CHAIN_EXPRS = [
    "{a}.view(-1).view({R}, {C})", "{a}.t().contiguous().t()", "{a}.unsqueeze(-1).squeeze(-1) * 2",
    "{a}.reshape({C}, {R}).reshape({R}, {C}) + 1", "{a}.transpose(0, 1).contiguous().transpose(0, 1).abs()",
    "{a}.expand(2, {R}, {C})[1]", "{a}.narrow(1, 0, {C}) - 1", "{a}.unflatten(1, ({C}, 1)).squeeze(-1)",
    "{a} * y", "{a} + z", "{a} - y[None, :]", "z * y + {a}", "{a} / (y.abs() + 1)", "torch.where(z > 0, {a}, y)",
    "{a} + y.unsqueeze(0).expand({R}, -1)", "{a}.double().sum(-1, keepdim=True).float() + {a}",
    "({a} * 10).int().float() / 10", "{a}.half().float()", "({a} > 0).float() * {a}",
    "{a}.to(torch.bfloat16).to(torch.float32)", "({a} > 0).sum(-1, keepdim=True) + {a}", "{a} * (z > 0)",
    "{a}.to(torch.float64) * 2", "{a}.abs().add(1).log().mul(0.5).exp()", "{a}.clamp(-1, 1).mul_(2)",
    "{a}.flatten().view_as({a}) * {b}", "{a}.permute(1, 0)[..., :1].t().expand_as({a}) + {b}",
    "{a}.new_empty({a}.shape).fill_(1.0) + {b}", "{a}.mT.mT * {b}.flip(0)", "{a}.select(0, 0) + {b}",
    "{a}[:, None, :].squeeze(1) @ {b}.t()[:, :1]", "({a}.long() + 1).to({b}.dtype) * {b}",
    "{a}.type_as({b}).masked_fill({b} < 0, 0.0)", "{a}.sum(0) + {b}", "({a} + {b}).diagonal().sum() * z",
]
_CHAIN_STORES = [
    "{c}[0] = y", "{c}[:, 0] = z[:, 0]", "{c}[1:, ::2] = 0.5", "{c}[{c} > 0] = 0.0", "{c}[..., -1] += 1",
    "{c}[torch.tensor([0])] = {b}[:1]", "{c}[:, :1] = z", "{c}.view(-1)[::3] = 2.0", "{c}.t()[0] = z.flatten()",
    "{c}.narrow(0, 0, 1).copy_(y[None])", "{c}[-1].mul_(y)", "{c}[:, 1:] = {b}[:, :-1]",
    "{c}.masked_scatter_({c} < 0, {b})", "{c}[0, 0] = {b}.sum()",
]
_CHAIN_OUTS = [
    "torch.add({a}, {b}, out={o})", "torch.mul({a}, y, out={o})", "torch.sub({a}, z, alpha=2, out={o})",
    "torch.clamp({a}, min=0.0, out={o})", "torch.where({a} > {b}, {a}, {b}, out={o})", "torch.exp({a}, out={o})",
]


def _chains(w: Writer, seed: int) -> FamilyProgram:
    rows, cols = w.choice([(3, 4), (2, 3), (4, 2)])
    names, lines = ["x"], []
    for _ in range(w.rng.randint(2, 6)):
        t, kind = w.fresh(), w.rng.random()
        a, b = w.choice(names), w.choice(names)
        if kind < 0.5:
            expr = w.choice(_CHAIN_EXPRS).format(a=a, b=b, R=rows, C=cols)
            if ".sum(0) +" in expr or ".select(0, 0) +" in expr or "@ " in expr or "diagonal" in expr:
                expr = f"({expr}).expand({rows}, {cols}).contiguous()"
            lines.append(f"{t} = {expr}")
        elif kind < 0.8:
            lines += [f"{t} = {a}.clone()", w.choice(_CHAIN_STORES).format(c=t, b=b)]
        else:
            lines += [f"{t} = torch.empty({rows}, {cols})",
                      w.choice(_CHAIN_OUTS).format(a=a, b=b, o=t)]
        names.append(t)
    outs = w.rng.sample(names[1:], min(len(names) - 1, w.rng.randint(1, 3)))
    args = f"T({rows}, {cols}), T({cols}), T({rows}, 1)"
    plan = [(None, args), (None, args)]
    change = w.choice(["none", "dtype", "noncontiguous"])
    if change == "dtype":
        plan.append((None, f"T({rows}, {cols}, dtype=torch.float64), T({cols}), T({rows}, 1)"))
    elif change == "noncontiguous":
        plan.append((None, f"T({cols}, {rows}).t(), T({cols}), T({rows}, 1)"))
    src = module_source(seed, "def fn(x, y, z):\n" + indent(lines + [f"return {', '.join(outs)},"]),
                        calls_source(plan))
    return FamilyProgram("chains", seed, src, fullgraph=True)


# ---- sizes: arithmetic on sizes, dynamic=None ------------------------------------------------------------
_SIZE_SOURCES = ["s0, s1 = x.shape", "s0, s1 = x.size()", "s0 = x.size(0)\ns1 = x.shape[-1]",
                 "s0 = len(x)\ns1 = x.numel() // len(x)"]
_SIZE_VALUES = ["k = s0 * 2 + n", "k = s0 // 2", "k = s0 % 3", "k = s0 - s1", "k = max(s0, s1)",
                "k = min(s0, n + 1)", "k = abs(s1 - s0)", "k = s0 ** 2", "f = s0 / 2", "f = float(s1) * 0.5",
                "f = math.sqrt(s0)", "b = s0 > 3", "b = s0 == s1", "b = bool(s0 % 2)", "k = int(s0 / 3)",
                "k = round(s1 * 0.7)", "k = x.dim() + s0", "k = s0 * True", "f = s0 * 1.5 + n", "k = -s0",
                "f = s1 / s0", "k = math.floor(s0 / 2)", "b = s0 * s1 > 10", "k = sum([s0, s1, n])",
                "k = s0 << 1", "k = s0 & 3", "b = not s0 % 2"]
_SIZE_USES = ["t = t * k", "t = t + f", "t = t - b", "t = t[:k]", "t = torch.full((s0, s1), f) + t",
              "t = t + torch.arange(s1) * k", "t = t * (1 if b else -1)", "if b:\n    t = t + 1",
              "t = t + x.new_full((s1,), k)", "t = torch.ones(s0, 1) * f + t", "t = t * torch.tensor(k)",
              "t = t.view(s0 * s1).view(s0, s1) / (abs(k) + 1)", "t = t.expand(s0, s1) * f",
              "t = t + (k if k > 2 else 0)", "t = t.sum(0, keepdim=True).expand(s0, s1) / s0",
              "t = t + torch.zeros(k if k > 0 else 1, 1)[:1]", "t = t * min(f, 2.0)", "t = t ** 2 if b else t"]


def _sizes(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"] + w.choice(_SIZE_SOURCES).splitlines()
    have = {"k": "k = s0", "f": "f = s1 * 1.0", "b": "b = s0 > 2"}
    body += list(have.values())
    for _ in range(w.rng.randint(2, 5)):
        body += w.choice(_SIZE_VALUES).splitlines()
        use = w.choice(_SIZE_USES)
        if use == "t = t[:k]":  # keep t's shape: a slice is only added
            use = "t = t + t[:k].sum()"
        body += use.splitlines()
    if w.rng.random() < 0.2:  # a break between statements, never into an if's block
        spots = [i for i in range(2, len(body) + 1) if not body[i - 1].startswith("if ")]
        body.insert(w.choice(spots), w.choice(BREAKS).format(k="s0", t="t"))
    body.append(w.choice(["return t", "return t, k, f, b", "return t.sum(), k", "return {'t': t, 'f': f}"]))
    cols = w.choice([3, 4, None])
    sizes = w.rng.sample([2, 3, 4, 5, 6, 8], 4)
    plan = [(None, f"T({s}, {cols or s + 1}), {n}") for s, n in zip(sizes[:3], [1, 1, w.choice([1, 2])])]
    plan.append((None, f"T({sizes[0]}, {cols or sizes[0] + 1}), 1"))
    src = module_source(seed, "import math", "def fn(x, n):\n" + indent(body), calls_source(plan))
    return FamilyProgram("sizes", seed, src, dynamic=None)


# ---- globals and closures changed between calls -------------------------------------------------------------
_GLOBALS = '''\
SCALE = 2.0
MODE = "add"
FLAGS = {"on": True, "k": 2}
OFFSET = torch.ones(3)
STEPS = []


def helper_a(t):
    return t + 1


def helper_b(t):
    return t * 3


HELPER = helper_a
HELPER_A_CODE = helper_a.__code__


def make(k):
    state = {"calls": 0}

    def inner(t):
        state["calls"] += 1
        return t * k + state["calls"]

    def set_k(v):
        nonlocal k
        k = v
    return inner, set_k, state


INNER, SET_K, INNER_STATE = make(2)
'''
_GLOBAL_USES = ["t = t * SCALE", "t = HELPER(t)", "t = t + base", "t = INNER(t)",
                "if MODE == 'add':\n    t = t + 1\nelse:\n    t = t - 1", "if FLAGS['on']:\n    t = t * FLAGS['k']",
                "t = t + OFFSET", "t = t * FLAGS.get('k', 1)", "STEPS.append(n)", "t = helper_a(t) * base",
                "t = t + len(STEPS)", "t = (lambda v: v * SCALE + base)(t)", "t = t + INNER_STATE['calls']",
                "t = t + (SCALE if MODE == 'add' else base)", "t = t * globals()['SCALE']"]
_GLOBAL_MUTATIONS = {
    "scale": "global SCALE\nSCALE = 3.0",
    "mode": "global MODE\nMODE = 'sub'",
    "flag_on": "FLAGS['on'] = not FLAGS['on']",
    "flag_k": "FLAGS['k'] = 5",
    "flag_pop": "FLAGS.pop('k', None)",
    "helper": "global HELPER\nHELPER = helper_b",
    "helper_code": "helper_a.__code__ = helper_b.__code__",
    "k": "SET_K(5)",
    "base": "SET_BASE(0.5)",
    "offset": "global OFFSET\nOFFSET = torch.full((3,), 2.0)",
    "offset_shape": "global OFFSET\nOFFSET = torch.ones(1)",
    "inner_state": "INNER_STATE['calls'] = 10",
}
_GLOBAL_RESET = ["SET_K(2)", "SET_BASE(1.5)", "helper_a.__code__ = HELPER_A_CODE"]


def _globals(w: Writer, seed: int) -> FamilyProgram:
    body = ["t = x * 1"]
    for _ in range(w.rng.randint(1, 4)):
        body += w.choice(_GLOBAL_USES).splitlines()
        if w.rng.random() < 0.1:
            body.append(w.choice(BREAKS).format(k="n", t="t"))
    body.append(w.choice(["return t", "return t, n", "return t, SCALE"]))
    maker = "def make_fn(base):\n    def fn(x, n):\n" + indent(body, " " * 8) + \
        "\n\n    def set_base(v):\n        nonlocal base\n        base = v\n    return fn, set_base"
    muts = sorted(w.rng.sample(sorted(_GLOBAL_MUTATIONS), 2))
    plan = [("reset", "T(3), 1"), (None, "T(3), 1"), (muts[0], "T(3), 1"), (w.choice([None, muts[1]]), "T(3), 1"),
            (None, f"T(3), {w.choice([1, 2])}")]
    parts = [_GLOBALS, maker, "fn, SET_BASE = make_fn(1.5)", "def mutate_reset():\n" + indent(_GLOBAL_RESET)]
    parts += [f"def mutate_{m}():\n" + indent(_GLOBAL_MUTATIONS[m].splitlines()) for m in muts]
    return FamilyProgram("globals", seed, module_source(seed, *parts, calls_source(plan)),
                         dynamic=w.choice([False, None]), state=("SCALE", "FLAGS", "STEPS", "INNER_STATE"))


MORE_FAMILIES = {"optim": _optim, "hf": _hf, "chains": _chains, "sizes": _sizes, "globals": _globals}
