"""Bugs the generator families of fuzz_families5.py (frames, dyn_shapes, generators_ctx) found, one small
case each, against eager and real Dynamo.  Each case is the reduced program, rewritten by hand where that
made it clearer."""
import itertools
import math

import torch
from differential import T, call, case, parametrize
from differential_breaks import break_case, parametrize_breaks

import tracer

CASES: list = []
BREAK_CASES: list = []


# ---- a torch.compile'd function called by the compiled one: what it compiles is inlined, as Dynamo does ----

def _inner_body(t, n):
    return t.sin() * (n + 1)


INNER = torch.compile(_inner_body, backend="eager")


@torch._dynamo.disable
def _off(t, n):
    return t.cos() + n


@case(CASES, call(T(3), 1), call(T(3), 1), call(T(3), 2), compiles="C.C")
def a_torch_compiled_function_called_inside_is_inlined_into_one_graph(x, n):
    return INNER(x * 2, n) + 1


@break_case(BREAK_CASES, call(T(3), 1), call(T(3), 1), call(T(3), 2), compiles="C.C", all_frames=True)
def a_disabled_function_breaks_the_graph_at_its_call(x, n):
    return _off(x * 2, n) + 1


@break_case(BREAK_CASES, call(T(3), 1), call(T(3), 1), compiles="C.", all_frames=True)
def a_torch_compiled_function_left_to_run_at_a_break_is_compiled_by_torch_compile(x, n):
    """The frame after the break runs eagerly (a break in a loop): INNER, on its stack, is called as the
    wrapper it is, so torch.compile compiles `_inner_body` (no Standin entry for it)."""
    t = INNER(_off(x * 1, n), n)
    for i in range(2):
        t = _off(t, i)
    return t


@break_case(BREAK_CASES, call(T(3), 1), call(T(3), 1), call(T(3), 2), compiles="C.C", all_frames=True)
def a_closure_over_a_resumed_frames_cell_rebuilt_at_a_break_guards_the_cell(x, n):
    """The resume function after the first comprehension gets `n` as a free variable; rebuilding the
    second comprehension (its closure holds that cell) at its break guards `n`, so n=2 recompiles it."""
    t = [_off(v, n) for v in (x, x * 2)][1]
    t = t * 3
    return [_off(v, n) for v in (t, t * 2)][1]


def test_the_break_at_a_disabled_function_names_it():
    opt = tracer.compile(a_disabled_function_breaks_the_graph_at_its_call, backend="eager")
    opt(T(3), 1)
    reasons = [e.reason for e in opt.compile_events if e.kind == "graph_break"]
    assert len(reasons) == 1 and "_off" in reasons[0] and "torch.compiler.disable" in reasons[0], reasons


# ---- symbolic sizes: torch.Size built in the trace and compared, math.prod of a shape --------------------------

@case(CASES, call(T(4, 4)), call(T(2, 6)), call(T(7, 8)), compiles="CC.", dynamic=True)
def a_shape_compared_with_a_torch_size_is_a_symbolic_bool(x):
    return x + (x.shape == torch.Size([4, 4]))


@case(CASES, call(T(4, 4)), call(T(2, 6)), call(T(7, 8)), compiles="CCC", dynamic=True)
def a_shape_unequal_to_a_tuple_is_decided_with_a_guard_as_dynamo_decides_it(x):
    """`not` of the symbolic `==` is a plain bool at trace time (a guard), in Dynamo as here."""
    return x + (x.shape != (2, x.shape[1]))


@case(CASES, call(T(4, 4)), call(T(2, 6)), call(T(7, 8)), compiles="CC.", dynamic=True)
def a_torch_size_built_from_symbolic_sizes_makes_a_tensor(x):
    size = torch.Size([x.shape[0], 2])
    return x.new_zeros(size).sum() + x.sum(), size


@case(CASES, call(T(4, 4)), call(T(2, 6)), call(T(7, 8)), compiles="CC.", dynamic=True)
def math_prod_of_a_symbolic_shape_is_one_node(x):
    return x + math.prod(x.shape) / 8 + math.prod([x.shape[0], 3])


# ---- generators and context managers ------------------------------------------------------------------------

LOG: list = []
STATE = {"depth": 0}


class _Scope:
    def __enter__(self):
        STATE["depth"] += 1
        return 2.0

    def __exit__(self, kind, value, tb):
        STATE["depth"] -= 1
        return False


SCOPE = _Scope()


def _counting(t, n):
    for i in range(n + 2):
        LOG.append(i)
        yield t * i


@break_case(BREAK_CASES, call(T(3), 1), call(T(3), 1), compiles="C.", state=lambda: (list(LOG), dict(STATE)))
def a_with_block_on_a_manager_from_outside_compiles_up_to_the_last_checkpoint(x, n):
    """Dynamo cannot enter SCOPE (made outside): the graph stops at the last checkpoint before the with,
    the rest of the frame runs as it is (Standin ran the whole frame eagerly)."""
    t = x * 2
    t = t + 1
    with SCOPE as g:
        t = t - g
    return t


@case(CASES, call(T(3), 1), call(T(3), 1), compiles="CC", state=lambda: list(LOG))
def sum_of_an_islice_of_a_generator_pulls_one_item_at_a_time(x, n):
    """The generator's ops interleave with sum's additions, as in Python (Standin made both items first)."""
    return x + sum(itertools.islice(_counting(x, n), 2))


test_fuzz6_found = parametrize(CASES)
test_fuzz6_found_breaks = parametrize_breaks(BREAK_CASES)
