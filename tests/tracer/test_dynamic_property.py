"""Property: over random sequences of batch sizes and of float arguments, automatic dynamic
behaves as Dynamo's.

Each example is a sequence of sizes (or floats) for a few functions that read them in the ways
programs do (a branch, a view, arithmetic); the differential harness checks every call against
eager and against torch.compile(dynamic=None, or True for floats): outputs, which calls
(re)compile, the graphs' op lists and which graph inputs are symbols.
"""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from differential import Case, T, call, check_case


def branch_and_view(x):
    n = x.shape[0]
    y = x.view(n, -1) * n
    if n > 3:
        return y.sum(0)
    return y - 1


def arithmetic_only(x):
    return x * (x.shape[0] * 2 - 1) + x.size(1)


FUNCTIONS = [branch_and_view, arithmetic_only]


@settings(max_examples=6, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.integers(min_value=1, max_value=9), min_size=2, max_size=5),
       which=st.sampled_from(range(len(FUNCTIONS))))
def test_batch_size_sequences_compile_as_dynamo_does(sizes, which):
    fn = FUNCTIONS[which]
    check_case(Case(fn, [call(T(size, 2)) for size in sizes], same_placeholders=True, dynamic=None))


def float_branch_and_scale(x, s):
    y = x * s + s * s
    if s > 0.5:
        return y.clamp(max=s)
    return y - max(s, 0.25)


@settings(max_examples=6, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(scales=st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, -1.5]), min_size=2, max_size=5),
       dynamic=st.sampled_from([None, True]))
def test_float_argument_sequences_compile_as_dynamo_does(scales, dynamic):
    """A float that changes is symbolic from the next compile (with dynamic=True, from the first)."""
    check_case(Case(float_branch_and_scale, [call(T(3), s) for s in scales], same_placeholders=True,
                    dynamic=dynamic))
