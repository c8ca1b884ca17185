"""Mutable values made in the trace stay one object across a graph break.

A list, dict or iterator built inside the compiled frame and held in two places
(two locals, a local and the stack, twice inside another list) is rebuilt once
at the break: a mutation through one reference after the break is seen through
the others, as in eager Python and Dynamo.  Also: list.sort() and list.remove()
are traced without a break.
"""
import torch

from differential import T, call
from differential_breaks import break_case, parametrize_breaks

CASES: list = []


class Box:
    def __init__(self):
        self.v = 0


@break_case(CASES, call(T(2)), call(T(2)), compiles="C.")
def two_locals_one_list(x):
    a = [1]
    b = a
    print("break")
    a.append(2)
    return x + len(b), b, a is b


@break_case(CASES, call(T(2)), call(T(2)), compiles="C.")
def two_locals_one_dict(x):
    a = {"k": 1}
    b = a
    print("break")
    a["j"] = 2
    return x + len(b), b, a is b


@break_case(CASES, call(T(2)), call(T(2)), compiles="C.")
def one_list_twice_in_another(x):
    inner = [x]
    outer = [inner, inner]
    print("break")
    outer[0].append(x + 1)
    return len(outer[1]), outer[0] is outer[1]


@break_case(CASES, call(T(2)), call(T(2)), compiles="C.")
def one_object_in_two_locals(x):
    a = Box()
    b = a
    print("break")
    a.v = 5
    return x + b.v


@break_case(CASES, call(T(2)), call(T(2)), compiles="C.")
def one_iterator_in_two_places(x):
    it = iter([1, 2, 3, 4])
    same = it
    first = next(it)
    print("break")
    return x * first, next(same), list(it)


@break_case(CASES, call(T(2)), call(T(2)), compiles="C.")
def one_set_in_two_locals(x):
    a = {1}
    b = a
    print("break")
    a.add(2)
    return x + len(b)


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", breaks=False)
def list_sort_and_remove_in_the_graph(x):
    ks = [3, 1, 2]
    ks.sort()
    ks.remove(2)
    names = ["bb", "a", "ccc"]
    names.sort(key=len, reverse=True)
    return x * ks[0] + ks[-1], ks, names


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", breaks=False)
def list_remove_a_tensor_by_identity(x):
    y = x + 1
    parts = [x, y, x * 2]
    parts.remove(x)  # the first item: found by identity before any tensor comparison
    return torch.stack(parts).sum(0)


test_aliasing = parametrize_breaks(CASES)


# ---- against eager only: Dynamo recompiles on every call of the first (it guards the bound
# method's identity), and an iterator argument is consumed, so one object cannot serve three runs.
def test_a_new_lists_bound_method_on_the_stack_at_a_break_appends_to_the_list():
    import warnings

    import tracer

    def f(x):
        parts = []
        parts.append(float(x.sum()))  # breaks inside the argument list, `parts.append` on the stack
        return x + parts[0], parts

    opt = tracer.compile(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            out, parts = opt(torch.ones(3))
            assert parts == [3.0] and torch.equal(out, torch.full((3,), 4.0))


def test_an_iterator_argument_is_advanced_as_far_as_the_trace_advanced_it():
    import tracer

    def f(x, it):
        first = next(it)
        return x * first + next(it)

    opt = tracer.compile(f)
    it = iter([2, 3, 4, 5])
    assert torch.equal(opt(torch.ones(2), it), torch.full((2,), 5.0))
    assert list(it) == [4, 5]
    assert [e.kind for e in opt.compile_events] == ["compile"], "traced, not run eagerly"
