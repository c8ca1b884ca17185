"""Differential cases: single constructs of issue #17, each checked against Dynamo first --
frozenset of a set, torch.tensor of a range (a range literal in the graph, as Dynamo's),
object's default str()/repr() of a user object from outside (folded, guarded by identity) and a
class's own __repr__, @torch.no_grad() / @torch.enable_grad() on an inner function, a
collections.abc.MutableMapping passed to dict(), torch.distributions.Normal basics, and
torch.func.hessian (its functools.wraps of the function it makes traced, as Dynamo traces it).

Where Dynamo is not the oracle: it breaks at str() of an object with its own __repr__ (Standin
traces the method), and it bakes in a stale address for the default repr of an object made in
the function (Standin breaks there): those are compared with eager only."""
import collections.abc

import torch

from differential import T, call, case, parametrize, parametrize_against_eager

CASES: list = []
AGAINST_EAGER: list = []
S = {1, 2, 3}


class Plain:
    def __init__(self, v):
        self.v = v


class Own:
    def __init__(self, v):
        self.v = v

    def __repr__(self):
        return f"Own({self.v})"


OUTSIDE = Plain(1)


@torch.no_grad()
def inner_no_grad(x):
    return x * 2


@torch.enable_grad()
def inner_enable_grad(x):
    return x * 3


class Store(collections.abc.MutableMapping):
    def __init__(self):
        self.d = {}

    def __getitem__(self, k):
        return self.d[k]

    def __setitem__(self, k, v):
        self.d[k] = v

    def __delitem__(self, k):
        del self.d[k]

    def __iter__(self):
        return iter(self.d)

    def __len__(self):
        return len(self.d)


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def frozenset_of_a_set(x):
    s = {1, 2}
    f = frozenset(s)
    g = frozenset(S)
    return x + len(f) + len(g), 1 in f, f == frozenset({1, 2}), sorted(g)


@case(CASES, call(T(3), 4), call(T(3), 4), compiles="C.", fullgraph=True)
def tensor_of_a_range(x, n):
    return x.sum() + torch.tensor(range(n)), torch.tensor(range(2, 8, 2), dtype=torch.float32)


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def default_str_and_repr_of_an_object_from_outside(x):
    return x + 1, str(OUTSIDE), repr(OUTSIDE), f"{OUTSIDE!r}"


@case(AGAINST_EAGER, call(T(3)), call(T(3)), compiles="C.")
def str_and_repr_of_a_class_with_its_own_repr(x):
    o = Own(3)
    return x + 1, str(o), repr(o), f"{o!r} {o!s} {o}"


@case(AGAINST_EAGER, call(T(3)), call(T(3)))
def default_repr_of_an_object_made_in_the_function(x):
    o = Plain(2)
    return x + 1, repr(o).split(" at ")[0], str(o) == repr(o)


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def no_grad_and_enable_grad_on_inner_functions(x):
    return inner_no_grad(x) + inner_enable_grad(x), torch.is_grad_enabled()


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def mutable_mapping_passed_to_dict(x):
    s = Store()
    s["a"] = x
    s["b"] = 2
    d = dict(s)
    return d["a"] * d["b"], sorted(d)


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def normal_distribution_basics(x):
    n = torch.distributions.Normal(x, torch.ones(3), validate_args=False)
    return n.mean, n.stddev, n.variance, n.log_prob(x + 0.5), n.entropy(), n.cdf(x)


@case(CASES, call(T(3, 2)), fullgraph=True)
def hessian_of_a_lambda_over_a_matrix(x):
    return torch.func.hessian(lambda r: (r.sin() * 2).sum())(x)


test_singles = parametrize(CASES)
test_singles_against_eager = parametrize_against_eager(AGAINST_EAGER)
