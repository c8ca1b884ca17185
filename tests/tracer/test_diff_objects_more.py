"""Differential cases: class attributes written in the trace, user classes' operator dunders,
and the builtins model code leans on (setattr, map/filter/reduce, itertools, collections dicts,
Tensor.data, obj.__dict__)."""
import collections
import functools
import itertools

import torch

from differential import T, call, case, parametrize, set_attr

CASES: list = []


# ---- class attributes written in the trace ------------------------------------------------
class Counted:
    calls = 0
    scale = 2.0

    def __init__(self):
        self.k = 1


COUNTED = Counted()


@case(CASES, call(T(2)), call(T(2)), call(T(2)), compiles="CCC", state=lambda: Counted.calls)
def class_counter_through_type(x):
    type(COUNTED).calls += 1
    return x + Counted.calls


@case(CASES, call(T(2)), call(T(2)), compiles="C.", state=lambda: Counted.scale)
def class_attr_assigned_then_read(x):
    Counted.scale = 3.0  # (read back through the instance, Dynamo returns the stale 2.0; we return 3.0)
    return x * Counted.scale


@case(CASES, call(T(2)), call(T(2)), compiles="C.", state=lambda: getattr(Counted, "fresh", None))
def class_attr_created_on_class(x):
    Counted.fresh = 5
    return x + Counted.fresh


# ---- user classes with operator dunders --------------------------------------------------------
class Vec:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        if isinstance(other, Vec):
            return Vec(self.v + other.v)
        return NotImplemented

    def __radd__(self, other):
        return Vec(self.v + other)

    def __mul__(self, k):
        return Vec(self.v * k)

    def __eq__(self, other):
        return isinstance(other, Vec) and self.v.shape == other.v.shape

    def __neg__(self):
        return Vec(-self.v)

    def __getitem__(self, i):
        return self.v[i]

    def __len__(self):
        return self.v.shape[0]

    def __contains__(self, k):
        return k == 1

    def __iter__(self):
        return iter([self.v, self.v * 2])


class Plain:
    pass


@case(CASES, call(T(3)), call(T(3)))
def user_binary_ops(x):
    a, b = Vec(x), Vec(x + 1)
    return (a + b).v, (a * 2).v, (3 + a).v, (-a).v


@case(CASES, call(T(3)))
def user_compare_index_len_contains(x):
    a, b = Vec(x), Vec(x * 2)
    p = Plain()
    return a == b, a != b, a[0], len(a), 1 in a, 2 in a, p == p, p == Plain(), p != None  # noqa: E711


@case(CASES, call(T(3)))
def user_iter_and_truth(x):
    total = x
    for t in Vec(x):
        total = total + t
    return total if Vec(x) else x


@case(CASES, call(T(3)))
def user_iadd_falls_back_to_add(x):
    a = Vec(x)
    a += Vec(x)
    return a.v


# ---- builtins ---------------------------------------------------------------------------------
class Holder:
    def __init__(self, v):
        self.v = v


CFG = Holder(4)


@case(CASES, call(T(3)))
def setattr_getattr_delattr(x):
    h = Holder(x)
    setattr(h, "w", 2)
    h.tmp = 1
    delattr(h, "tmp")
    return h.v * getattr(h, "w"), hasattr(h, "tmp")


@case(CASES, call(T(3)))
def del_statement_on_an_object_made_here(x):
    h = Holder(x)
    h.tmp = 1
    del h.tmp
    return h.v * 2, hasattr(h, "tmp")


@case(CASES, call(T(3)), call(T(3), mutate=set_attr("CFG.v", 5)), compiles="CC")
def instance_dict_read(x):
    return x * CFG.__dict__["v"]


@case(CASES, call(T(3)))
def reduce_map_filter(x):
    s = functools.reduce(lambda a, b: a + b, [x, x * 2, x * 3])
    m = sum(map(lambda t: t * 2, [x, x + 1]))
    f = list(filter(lambda n: n % 2, range(5)))
    z = list(map(lambda a, b: a * b, [1, 2, 3], (4, 5)))
    return s, m, f, z, list(filter(None, [0, 1, 2]))


@case(CASES, call(T(3)))
def itertools_on_known_sequences(x):
    ch = list(itertools.chain([x], (x * 2,)))
    flat = list(itertools.chain.from_iterable([[1, 2], [3]]))
    pr = list(itertools.product([1, 2], [3, 4]))
    ac = list(itertools.accumulate([x, x, x]))
    return ch, flat, pr, ac


@case(CASES, call(T(3)))
def collections_dicts_in_trace(x):
    d = collections.defaultdict(int)
    d["a"] += 1
    d["b"] += 2
    groups = collections.defaultdict(list)
    groups["t"].append(x)
    o = collections.OrderedDict()
    o["z"] = x
    o["a"] = x + 1
    total = x
    for _, v in o.items():
        total = total + v
    c = collections.Counter(["a", "b", "a"])
    return total * d["a"], c["a"], c["missing"], d, groups, o, c


@case(CASES, call(T(3)))
def isinstance_tuple_of_classes(x):
    h = Holder(1)
    return x * isinstance(h, (int, Holder)), isinstance(x, (list, torch.Tensor)), isinstance(h, (int, str))


@case(CASES, call(T(3)))
def tensor_data(x):
    return x.data * 2


@case(CASES, call(T(2, 3)))
def a_structseq_is_not_a_namedtuple(x):
    r = x.max(dim=1)
    return r.values + hasattr(r, "_fields"), r.n_fields, r.indices


test_objects_more = parametrize(CASES)
