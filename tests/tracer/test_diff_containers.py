"""Differential cases: tuples/lists/dicts built, indexed, sliced, unpacked; tensor slicing."""
import torch

from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(3)), call(T(3)), call(T(5)), compiles="C.C")
def cont_tuple_build_index(x):
    t = (x, x + 1, x * 2)
    lst = [t[0], t[-1]]
    return t[1] + t[-1] - lst[0] * lst[1], len(t)


@case(CASES, call([T(3), T(3)]), call([T(3), T(3)]), call([T(3), T(3), T(3)]), compiles="C.C")
def cont_list_arg_length_guard(xs):
    return xs[0] + xs[1]


@case(CASES, call({"a": T(2), "b": T(2)}), call({"a": T(2), "b": T(2)}),
      call({"a": T(2), "b": T(2), "c": 1}), compiles="C.C")
def cont_dict_arg(d):
    return d["a"] * d["b"], len(d)


@case(CASES, call((T(2), T(2), T(2), T(2))), call((T(2), T(2), T(2), T(2))), compiles="C.")
def cont_unpacking(xs):
    a, b, *rest = xs
    p, (q, r) = a, (b, rest[0])
    first, *_, last = rest
    return a + b + len(rest), p * q - r, first + last


@case(CASES, call(T(4, 6)), call(T(4, 6)), call(T(5, 6)), compiles="C.C")
def cont_tensor_slicing(x):
    return x[1:], x[:, 0], x[..., ::2], x[None].shape, x[0, 1:3], x[-1], x[1:3, 2:]


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def cont_list_slicing_and_reverse(x):
    ys = [x, x + 1, x + 2, x + 3]
    mid = ys[1:3]
    rev = ys[::-1]
    return mid[0] + mid[1] - rev[0], tuple(ys[2:]), rev[-1]


@case(CASES, call(T(2, 2)), call(T(2, 2)), compiles="C.")
def cont_return_nested(x):
    d = {"s": x.sum(), "m": x.mean(), "n": 3}
    return [x, (x + 1, {"k": x * 2, "d": d}), None, "tag"]


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def cont_list_methods(x):
    lst = []
    lst.append(x)
    lst.extend([x + 1, x + 2])
    lst.insert(0, x * 0)
    last = lst.pop()
    lst[1] = lst[1] * 3
    return tuple(lst), last, len(lst)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def cont_dict_methods(x):
    d = {"a": x}
    d["b"] = x + 1
    d.update({"c": x * 2})
    got = d.get("z", x - 1)
    keys = list(d.keys())
    return d["c"] + got, keys, "b" in d, d.pop("a")


@case(CASES, call([T(2, 3), T(2, 3)]), call([T(2, 3), T(2, 3)]),
      call([T(2, 3), T(3, 3)]), compiles="C.C")
def cont_list_of_tensors_into_cat(xs):
    return torch.cat(xs, dim=0), torch.stack(xs[:1])


@case(CASES, call(T(2, 3), T(2, 3)), call(T(2, 3), T(2, 3)), call(T(2, 3), T(3, 2)), compiles="C.C")
def cont_shape_unpack_and_compare(x, y):
    b, c = x.shape
    same = x.shape == y.shape
    if same and x.shape == (2, 3):
        z = x + y
    else:
        z = x.view(c, b) + y.reshape(c, b)
    return z, same, tuple(y.shape) + (b * c,)


@case(CASES, call(T(4, 2)), call(T(4, 2)), compiles="C.")
def cont_split_chunk_unbind_results(x):
    a, b = torch.split(x, 2)
    parts = x.chunk(2, dim=1)
    first, *others = x.unbind(0)
    return a + b, parts[0] * parts[1], first - others[-1], len(others)


test_containers = parametrize(CASES)
