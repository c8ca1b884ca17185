"""Differential cases: str formatting of constants, builtins on constants, operator module,
tensor metadata (shape/dtype/ndim/size()/device) folded to constants."""
import operator

import torch

from differential import T, call, case, parametrize, set_attr

CASES: list = []


class Cfg:
    def __init__(self):
        self.scale = 2
        self.name = "blk"


cfg = Cfg()


@case(CASES, call(T(3), 2), call(T(3), 2), call(T(3), 12), compiles="C.C")
def str_fstring_of_constants(x, n):
    name = f"layer{n}_{x.ndim}d_{cfg.name}"
    return x + len(name), name, f"{n:03d}|{2.5:.2f}|{'r'!r}"


@case(CASES, call(T(2, 3)), call(T(2, 3)), call(T(4, 3)), compiles="C.C")
def str_percent_and_format(x):
    s = "%s-%d" % ("a", x.shape[0])
    t = "{}x{}".format(*x.shape)
    u = "{a}/{b}".format(a=x.ndim, b=cfg.scale)
    return x * len(s + t), s, t, u, str(x.shape[1]) + "!"


@case(CASES, call(T(2, 3), 4), call(T(2, 3), 4), compiles="C.")
def builtins_len_isinstance(x, n):
    a = len(x.shape) + len([1, 2, 3]) + len("abcd") + len(x)
    b = isinstance(n, int) and isinstance(x, torch.Tensor) and not isinstance(n, str)
    return x * a, b, isinstance(cfg, Cfg)


@case(CASES, call(T(2, 5), -3), call(T(2, 5), -3), call(T(2, 5), 4), compiles="C.C")
def builtins_min_max_abs(x, n):
    lo = min(x.shape)
    hi = max(n, 3, x.shape[1])
    return x * lo + hi + abs(n), min([4, 2, 9]), max((1.5, -2.0)), abs(-2.5)


@case(CASES, call(T(3), T(3), [T(3), T(3)]), call(T(3), T(3), [T(3), T(3)]), compiles="C.")
def operator_module_functions(x, y, xs):
    a = operator.add(x, y)
    b = operator.mul(a, 2)
    c = operator.getitem(xs, 1)
    d = operator.neg(c)
    e = operator.truediv(operator.sub(b, d), 3)
    return e, operator.lt(x, y), operator.itemgetter(0)(xs), operator.add(2, 3)


@case(CASES, call(T(2, 3)), call(T(2, 3)), call(T(3, 2)), compiles="C.C")
def tensor_metadata_as_constants(x):
    return (x + x.numel(), x.size(), x.size(1), x.shape, x.ndim, x.dim(), x.dtype,
            x.device, x.is_floating_point(), x.requires_grad, x.shape[-1])


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("cfg.name", "xyz")), compiles="C.C")
def str_methods_on_constants(x):
    parts = "a,b,c".split(",")
    up = cfg.name.upper()
    k = 2 if cfg.name.startswith("bl") else 3
    return x * len(parts) + k, up, "-".join(parts), up.lower().replace("b", "B")


@case(CASES, call(T(3), 2), call(T(3), 2), compiles="C.")
def builtins_numeric_conversions(x, n):
    f = float(n) / 4
    i = int(3.7) + round(2.6) + sum([1, 2, 3])
    b = bool(n) + (not n)
    return x * f + i + b, divmod(7, n), pow(n, 3), getattr(cfg, "scale") * 1.0, hasattr(cfg, "nope")


@case(CASES, call(T(2, 3)), call(T(2, 3)), call(T(3, 3)), compiles="C..")
def no_tensor_ops_only_metadata(x):
    # Nothing but constants derived from metadata: the graph is empty, so no backend call.
    # Dynamo converts the frame once, finds no content and skips the code object for good:
    # the shape change on call 2 does NOT recompile (the function just runs eagerly).
    return x.shape[0] * 2, x.ndim, f"{x.shape[1]}"


test_strings_builtins = parametrize(CASES)
