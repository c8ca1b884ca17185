"""Differential cases: loops that unroll and ifs on constants (no data-dependent control)."""
import torch

from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def ctl_for_range(x):
    for i in range(3):
        x = x * 2 + i
    return x


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def ctl_for_over_constant_list(x):
    for s in [1, 2.5, -3]:
        x = x + s
    for t in (x.sin(), x.cos()):
        x = x * t
    return x


@case(CASES, call((T(2), T(2))), call((T(2), T(2))), call((T(2), T(2), T(2))), compiles="C.C")
def ctl_for_over_tuple_arg(xs):
    acc = xs[0] * 0
    for t in xs:
        acc = acc + t
    return acc


@case(CASES, call({"ab": T(2), "c": T(2)}), call({"ab": T(2), "c": T(2)}), compiles="C.")
def ctl_for_dict_items(d):
    out = torch.zeros(2)
    for k, v in d.items():
        out = out + v * len(k)
    for k in d:
        out = out - d[k]
    return out


@case(CASES, call([T(3), T(3), T(3)], [T(3), T(3), T(3)]), call([T(3), T(3), T(3)], [T(3), T(3), T(3)]),
      compiles="C.")
def ctl_enumerate_zip(xs, ys):
    acc = torch.ones(3)
    for i, t in enumerate(xs):
        acc = acc + t * i
    for a, b in zip(xs, ys):
        acc = acc + a * b
    for i, (a, b) in enumerate(zip(xs, ys), start=1):
        acc = acc - (a - b) / i
    return acc


@case(CASES, call(T(3), 1), call(T(3), 5), call(T(3), 1), call(T(3), 3), compiles="CC.C")
def ctl_if_on_int_arg(x, n):
    if n > 2:
        y = x * n
    else:
        y = x - n
    return y.relu()


@case(CASES, call(T(3)), call(T(2, 3)), call(T(4)), call(T(2, 3)), compiles="CCC.")
def ctl_if_on_ndim_and_shape(x):
    if x.ndim == 2:
        return x.sum(0)
    elif x.shape[0] > 3:
        return x[:3] * 2
    return x + 1


@case(CASES, call(T(3), 2), call(T(3), 2), call(T(3), 3), compiles="C.C")
def ctl_nested_loops_range_arg(x, n):
    for i in range(n):
        for j in range(2):
            x = x + i * j
    return x


@case(CASES, call(T(4)), call(T(4)), compiles="C.")
def ctl_while_break_continue(x):
    i = 0
    while i < 5:
        i += 1
        if i == 2:
            continue
        if i == 4:
            break
        x = x.cos() + i
    return x, i


@case(CASES, call(T(3)), call(T(3, dtype=torch.float64)), call(T(3, dtype=torch.float16)), compiles="CCC")
def ctl_if_on_dtype_and_ternary(x):
    if x.dtype == torch.float32:
        y = x * 2
    elif x.dtype is torch.float64:
        y = x * 3
    else:
        y = x.float()
    return y if x.is_floating_point() else -y, 1 if x.dtype == torch.float16 else 0


@case(CASES, call(T(3)), call(T(3), bias=T(3)), call(T(3)), call(T(3), scale=3), call(T(3), scale=3),
      compiles="CC.C.")
def ctl_default_args_and_kwargs(x, bias=None, scale=2):
    y = x * scale
    if bias is not None:
        y = y + bias
    return y


@case(CASES, call(T(3, 2)), call(T(3, 2)), call(T(2, 2)), compiles="C.C")
def ctl_for_over_tensor_rows_and_chunks(x):
    acc = torch.zeros(2)
    for row in x:
        acc = acc + row
    a, b = x.t().chunk(2)
    for r in x.unbind(1):
        acc = acc + r.sum()
    return acc, a - b


@case(CASES, call(T(3), 3), call(T(3), 3), call(T(3), 9), compiles="C.C")
def ctl_range_variants_in_and_chained_compare(x, n):
    for i in reversed(range(3)):
        x = x - i
    for i in range(0, 6, 2):
        x = x * (i + 1)
    if n in (1, 2, 3) and 0 < n <= 5:
        x = x + 100
    if n not in [7, 8]:
        x = x.neg()
    return x, len(range(1, n, 2))


test_control = parametrize(CASES)
