"""Differential cases: programs that made the tracer fail inside itself (issue #14).

Each ran right before, but only because an internal error sent the frame to eager
(an InternalTracerWarning): the suite now fails on any such warning, so each case
below checks that the frame is traced and breaks where Dynamo breaks, with eager's
answer and output.
"""
import warnings

import numpy as np
import pytest
import torch

import tracer
from tracer.exc import InternalTracerWarning
from differential_breaks import T, break_case, call, parametrize_breaks

CASES: list = []


# ---- a graph break inside a starred display: the display under construction becomes an
# argument of the resume function, and LIST_EXTEND / SET_UPDATE / DICT_MERGE met it lazy

@break_case(CASES, call(T(2), torch.tensor(3.0)))
def break_inside_list_display(x, t):
    xs = [1, *[int(t)], 2]
    return x + sum(xs)


@break_case(CASES, call(T(2), torch.tensor(3.0)))
def break_inside_tuple_display(x, t):
    xs = (1, *(int(t),))
    return x * len(xs) + xs[1]


@break_case(CASES, call(T(2), [1, 2], torch.tensor(3.0)))
def break_after_a_starred_tuple(x, xs, t):
    ys = (1, *xs, int(t))
    return x + sum(ys)


@break_case(CASES, call(T(2), torch.tensor(3.0)))
def break_inside_set_display(x, t):
    s = {1, *{int(t)}, 5}
    return x + len(s) + max(s)


@break_case(CASES, call(T(2), torch.tensor(3.0)))
def break_inside_dict_display(x, t):
    d = {'a': 1, **{'b': int(t)}}
    return x + d['a'] + d['b']


@break_case(CASES, call(T(2), torch.tensor(3.0), {'a': 1, 'b': 2}))
def break_inside_dict_display_after_a_merge(x, t, d):
    merged = {**d, 'z': int(t)}
    return x + sum(merged.values()) + len(merged)


@break_case(CASES, call(T(2), torch.tensor(2.0)))
def break_inside_a_list_comprehension_display(x, t):
    xs = [*[i * 2 for i in range(3)], int(t)]
    return x + sum(xs)


# ---- exceptions escaping from the tracer's own code

@break_case(CASES, call(T(2)), call(T(3).to(torch.int64)), breaks=False)
def torch_queries_given_by_keyword(y):
    if torch.is_floating_point(input=y) and not torch.is_complex(input=y):
        return y * torch.numel(input=y)
    return y + 1


@break_case(CASES, call(T(2), T(3)), breaks=False)
def in_place_operators_on_a_number_and_a_tensor(x, y):
    total = 0
    total += y.sum()  # a number has no in-place add: `0 + sum`, not `0 += sum` in the graph's code
    scale = 2.0
    scale *= y.mean()
    z = x.clone()
    z += 1  # a tensor's own in-place add stays one
    return x + total * scale, z


@break_case(CASES, call(T(2)), breaks=False)
def in_place_add_on_a_number_in_a_loop(x):
    total = 0
    for i in range(3):
        total += x.sum() * i
    return total


# a frozenset was traced as a set: a dict keyed by it could not be rebuilt ("unhashable type: 'set'")

@break_case(CASES, call(T(2)))
def frozenset_as_a_dict_key_across_a_break(x):
    key = frozenset({1, 2})
    table = {key: 3}
    print("break")
    return x + table[key], table


@break_case(CASES, call(T(2), {frozenset({1}): 3}), call(T(2), {frozenset({1}): 4}))
def frozenset_key_of_an_argument_dict(x, d):
    print("break")
    return x + d[frozenset({1})]


@break_case(CASES, call(T(2), frozenset({1, 3})), call(T(2), frozenset({1, 3})), call(T(2), frozenset({2})),
            breaks=False)
def frozenset_argument_iterated_and_combined(x, fs):
    total = 0
    for v in sorted(fs):
        total += v
    return x * total + len(fs | {9}), fs.union({7})


class ScaledBase(torch.nn.Module):
    @classmethod
    def factor(cls):
        return 2.0

    def offset(self):
        return 0.5


class Scaled(ScaledBase):
    @classmethod
    def factor(cls):
        return super().factor() + 1  # super() in a classmethod: its second argument is the class

    def forward(self, x):
        return x * self.factor() + super().factor() + super().offset()


SCALED = Scaled()


@break_case(CASES, call(T(2)), call(T(2)), breaks=False)
def super_reaches_a_classmethod_of_a_module_base(x):
    return SCALED(x)


test_internal_errors = parametrize_breaks(CASES)


# ---- numpy scalars as operands of graph operations.  FX writes a constant argument by its repr, and
# a numpy float64 (a float) printed as np.float64(0.5): a NameError when the graph ran.  Dynamo makes
# them graph inputs (its numpy support), so its graphs differ: these compare with eager only.

NUMPY_SCALARS = [np.float64(0.5), np.int64(2), np.bool_(True)]
NUMPY_TABLE = {"scale": np.float64(2.0)}


def numpy_scalars_from_a_global_list(x):
    return x * NUMPY_SCALARS[0] + 1


def numpy_scalar_from_a_global_dict(x):
    return x * NUMPY_TABLE["scale"]


def numpy_scalars_as_factory_and_keyword_arguments(x):
    return torch.full((2,), NUMPY_SCALARS[0]) * x, torch.add(x, x, alpha=NUMPY_SCALARS[1])


def numpy_scalar_in_a_list_argument(x, xs):
    return torch.add(x, xs[0]) * 2


@pytest.mark.parametrize("fn, args", [
    (numpy_scalars_from_a_global_list, (torch.ones(2),)),
    (numpy_scalar_from_a_global_dict, (torch.ones(2),)),
    (numpy_scalars_as_factory_and_keyword_arguments, (torch.ones(2),)),
    (numpy_scalar_in_a_list_argument, (torch.ones(2, dtype=torch.int32), [np.float64(2.0)])),
], ids=lambda v: getattr(v, "__name__", ""))
def test_numpy_scalars_reach_graph_operations(fn, args):
    graphs = []
    opt = tracer.compile(fn, backend=lambda gm, example_inputs: graphs.append(gm) or gm.forward)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InternalTracerWarning)
        result = opt(*args)
    expected = fn(*args)
    for got, want in zip(result if isinstance(result, tuple) else (result,),
                         expected if isinstance(expected, tuple) else (expected,)):
        assert got.dtype == want.dtype
        torch.testing.assert_close(got, want)
    assert len(graphs) == 1 and not opt.cache_entries[0].eager_reason


NUMPY_KEY = np.float64(1.0)


def item_under_a_numpy_key(x, table):
    return x * table[NUMPY_KEY]


def item_under_a_frozenset_key(x, table):
    return x * table[frozenset({1})]


@pytest.mark.parametrize("fn, key", [(item_under_a_numpy_key, NUMPY_KEY), (item_under_a_frozenset_key, frozenset({1}))],
                         ids=["numpy_key", "frozenset_key"])
def test_a_guard_through_a_key_no_literal_writes_holds_on_the_next_call(fn, key):
    """The guard's code wrote the key by its repr (np.float64(1.0)): a NameError, so the guard
    failed on every call and each call recompiled."""
    opt = tracer.compile(fn)
    for size in (2, 2, 1):
        table = {key: torch.full((size,), 2.0)}
        torch.testing.assert_close(opt(torch.ones(2), table), fn(torch.ones(2), table))
    assert [e.kind for e in opt.compile_events] == ["compile", "recompile"]  # only the new shape recompiles
    assert "size mismatch" in opt.compile_events[1].reason
