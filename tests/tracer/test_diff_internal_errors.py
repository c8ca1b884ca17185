"""Differential cases: programs that made the tracer fail inside itself (issue #14).

Each ran right before, but only because an internal error sent the frame to eager
(an InternalTracerWarning): the suite now fails on any such warning, so each case
below checks that the frame is traced and breaks where Dynamo breaks, with eager's
answer and output.
"""
import torch

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


test_internal_errors = parametrize_breaks(CASES)
