"""Laziness of guards: only what the function reads is guarded.

Like Dynamo's lazy VariableTrackers, reading one attribute of a big config object
or one item of a big list / dict must not install guards on the other attributes
or items, and an argument the function never uses installs no guard at all.
(For a list, Dynamo also guards its type and length: TYPE_MATCH / LENGTH_CHECK
on the list itself.)
"""
import torch
import torch.nn as nn

import tracer

N_ATTRS = 50


class BigConfig:
    def __init__(self, seed: int = 0):
        for i in range(N_ATTRS):
            # ints, floats, strings and bools: all kinds Dynamo would EQUALS_MATCH
            value = [i + seed, float(i) + seed, f"s{i}", bool(i % 2)][i % 4]
            setattr(self, f"a{i}", value)
        self.sub = Sub()


class Sub:
    def __init__(self):
        for i in range(N_ATTRS):
            setattr(self, f"b{i}", i)


def _tensors(n, shape=(3,)):
    return [torch.randn(*shape) for _ in range(n)]


def _guards(opt, entry=0):
    return [(g.kind, g.source_name) for g in opt.cache_entries[entry].guards]


def _sources(opt, entry=0):
    """Every source a guard reads: a relational guard (NO_TENSOR_ALIASING) reads each of its members."""
    names = set()
    for guard in opt.cache_entries[entry].guards:
        members = getattr(guard.source, "members", None)
        if members:
            names.update(member.name() for member in members)
        else:
            names.add(guard.source_name)
    return {name for name in names if name}


def _events(opt):
    """Compile events, without cache hits (which may or may not be recorded)."""
    return [e.kind for e in opt.compile_events if e.kind != "cache_hit"]


def setup_function(_):
    tracer.reset()


def teardown_function(_):
    tracer.reset()


def reads_one_of_each(x, cfg, xs, d, unused_tensor, unused_cfg, unused_list):
    return x * cfg.a5 + xs[3] + d["k7"]


def _args(**over):
    args = dict(x=torch.randn(3), cfg=BigConfig(), xs=_tensors(10),
                d={f"k{i}": torch.randn(3) for i in range(10)}, unused_tensor=torch.randn(4),
                unused_cfg=BigConfig(), unused_list=_tensors(5))
    args.update(over)
    return args


def test_guards_mention_only_what_is_read():
    opt = tracer.compile(reads_one_of_each)
    opt(**_args())
    assert len(opt.cache_entries) == 1
    allowed = {"L['x']", "L['cfg']", "L['cfg'].a5", "L['xs']", "L['xs'][3]", "L['d']", "L['d']['k7']"}
    extra = _sources(opt) - allowed
    assert not extra, f"guards on sources the function never read: {sorted(extra)}\n{_guards(opt)}"
    guards = set(_guards(opt))
    for needed in [("EQUALS_MATCH", "L['cfg'].a5"), ("TENSOR_MATCH", "L['x']"),
                   ("TENSOR_MATCH", "L['xs'][3]"), ("TENSOR_MATCH", "L['d']['k7']"),
                   ("TYPE_MATCH", "L['xs']"), ("LENGTH_CHECK", "L['xs']")]:
        assert needed in guards, f"missing guard {needed}: {sorted(guards)}"


def test_unused_arguments_install_no_guard():
    opt = tracer.compile(reads_one_of_each)
    opt(**_args())
    unused = [s for s in _sources(opt) if s.startswith(("L['unused_tensor']", "L['unused_cfg']",
                                                          "L['unused_list']"))]
    assert unused == [], f"guards on unused arguments: {unused}"


def test_changing_unread_parts_does_not_recompile():
    opt = tracer.compile(reads_one_of_each)
    base = _args()
    opt(**base)
    cfg = BigConfig(seed=100)  # every attribute different ...
    cfg.a5 = base["cfg"].a5  # ... except the one read
    xs = _tensors(10, shape=(2, 2))  # other items: other shapes
    xs[3] = torch.randn(3)
    d = {f"k{i}": torch.randn(5) for i in range(12)}  # other items and more keys
    d["k7"] = torch.randn(3)
    out = opt(**_args(x=base["x"], cfg=cfg, xs=xs, d=d, unused_tensor=torch.randn(7, 7),
                      unused_cfg=None, unused_list="anything"))
    assert _events(opt) == ["compile"], _events(opt)  # a cache hit
    torch.testing.assert_close(out, base["x"] * cfg.a5 + xs[3] + d["k7"])


def test_changing_the_read_parts_recompiles():
    opt = tracer.compile(reads_one_of_each)
    base = _args()
    opt(**base)
    cfg = BigConfig()
    cfg.a5 = 99.0  # the attribute read
    opt(**_args(cfg=cfg))
    assert _events(opt)[-1] == "recompile"
    opt(**_args(xs=_tensors(11)))  # length of the list read from
    assert _events(opt)[-1] == "recompile"


def test_nested_attribute_guards_only_the_path():
    def f(x, cfg):
        return x + cfg.sub.b17

    opt = tracer.compile(f)
    opt(torch.randn(3), BigConfig())
    extra = _sources(opt) - {"L['x']", "L['cfg']", "L['cfg'].sub", "L['cfg'].sub.b17"}
    assert not extra, f"guards off the read path: {sorted(extra)}\n{_guards(opt)}"
    assert ("EQUALS_MATCH", "L['cfg'].sub.b17") in set(_guards(opt))


GCFG = BigConfig()
GLIST = _tensors(20)
GDICT = {f"w{i}": torch.randn(3) for i in range(20)}


def reads_globals(x):
    return x * GCFG.a9 + GLIST[-1] + GDICT["w4"]


def test_global_containers_guard_only_the_read_items():
    opt = tracer.compile(reads_globals)
    opt(torch.randn(3))
    allowed = {"L['x']", "G['GCFG']", "G['GCFG'].a9", "G['GLIST']", "G['GLIST'][-1]", "G['GLIST'][19]",
               "G['GDICT']", "G['GDICT']['w4']"}
    extra = _sources(opt) - allowed
    assert not extra, f"guards on globals' parts never read: {sorted(extra)}\n{_guards(opt)}"
    assert not any("GCFG'].sub" in s or "GCFG'].a1" in s for s in _sources(opt))


class ManyLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleDict({f"l{i}": nn.Linear(3, 3) for i in range(20)})
        self.pick = "l4"
        for i in range(30):
            setattr(self, f"flag{i}", i)

    def forward(self, x):
        return self.layers[self.pick](x) * self.flag3


def test_module_guards_only_the_used_submodule_and_flag():
    net = ManyLayers()
    opt = tracer.compile(net)
    x = torch.randn(2, 3)
    torch.testing.assert_close(opt(x), net(x))
    sources = _sources(opt)
    other_layers = [s for s in sources if any(f"l{i}" in s.replace("'l4'", "").replace(".l4", "")
                                              for i in range(20) if i != 4)]
    assert not other_layers, f"guards on layers never called: {other_layers}"
    other_flags = [s for s in sources if "flag" in s and not s.endswith(".flag3")]
    assert not other_flags, f"guards on module attributes never read: {other_flags}"
    net.flag7 = -1
    opt(x)
    assert _events(opt) == ["compile"], _events(opt)  # a cache hit
    net.flag3 = 2
    opt(x)
    assert _events(opt)[-1] == "recompile", _events(opt)
