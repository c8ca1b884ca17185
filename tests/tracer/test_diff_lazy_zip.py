"""zip is lazy, as Python's: a row is pulled when the consumer asks for it (so a generator beside a
list runs only as far as the rows taken, an endless iterator is fine), a zip alive at a graph break
is rebuilt as `zip(*iterators)` over what its iterators have left (strict=True kept), and strict=True
raises CPython's own ValueError texts (Dynamo 2.13 words them its own way: compared with eager).
"""
import itertools


from differential import T, call, case, parametrize, parametrize_against_eager
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
AGAINST_EAGER: list = []
BREAKS: list = []


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def zip_of_lists_tuples_strings_and_count(x):
    return ([a * b for a, b in zip([x, x + 1], (2, 3, 4))], dict(zip("ab", [1, 2])),
            list(zip(itertools.count(), [x, x])), type(zip()) is zip)


def _numbers(log):
    log.append("a")
    yield 1
    log.append("b")
    yield 2
    log.append("c")
    yield 3


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def a_generator_beside_a_shorter_list_runs_as_far_as_zip_pulls(x):
    log = []
    rows = list(zip(_numbers(log), [x, x * 2]))
    return rows, log


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def rows_pulled_one_at_a_time(x):
    z = zip([1, 2, 3], [x, x * 2, x * 3])
    first = next(z)
    second = next(z)
    return first, second, list(z), list(z)


@case(AGAINST_EAGER, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def strict_zip_raises_cpythons_value_errors(x):
    messages = []
    for args in (([1, 2], [1]), ([1], [1, 2], [3]), ([1, 2], [1, 2], [3]), ([1], [2], [3, 4])):
        try:
            list(zip(*args, strict=True))
        except ValueError as error:
            messages.append(str(error))
    return x + 1, messages, list(zip([x], [1], strict=True))


test_lazy_zip = parametrize(CASES)
test_lazy_zip_against_eager = parametrize_against_eager(AGAINST_EAGER)


@break_case(BREAKS, call(T(3)), call(T(3)), compiles="C.")
def a_zip_alive_at_a_break_goes_on_where_it_was(x):
    z = zip([1, 2, 3], [x, x * 2, x * 3])
    first = next(z)
    print("break")
    return first, list(z)


@break_case(BREAKS, call(T(3)), call(T(3)), compiles="C.")
def a_strict_zip_alive_at_a_break(x):
    z = zip([1, 2], [x, x + 1], strict=True)
    print("break")
    return list(z), type(z) is zip


test_lazy_zip_breaks = parametrize_breaks(BREAKS)


def strict_zip_across_a_break_that_is_too_short(x):
    z = zip([1, 2], [x], strict=True)
    print("break")
    try:
        list(z)
    except ValueError as error:
        return str(error)
    return ""


def test_a_strict_zip_rebuilt_at_a_break_still_checks_lengths():
    import tracer
    assert tracer.compile(strict_zip_across_a_break_that_is_too_short)(T(3)) == \
        "zip() argument 2 is shorter than argument 1"
