"""Generators made in the trace run one yield at a time, interleaved with their consumer.

Each case would differ from eager Python if the generator's body ran to its end
before the loop's body: it reads state the loop writes, writes state the loop
reads, is left early by `break`, is advanced by next() and then by a loop, or
is resumed from another function than the one that made it.
"""
from differential import T, call
from differential_breaks import break_case, parametrize_breaks

CASES: list = []


def counting(state):
    for _ in range(3):
        yield state[0]


@break_case(CASES, call(T(2)), call(T(2)), compiles="C.", breaks=False)
def body_reads_what_the_loop_writes(x):
    state = [0]
    seen = []
    for v in counting(state):
        state[0] += 1
        seen.append(v)
    return x + sum(seen), seen


def logging_gen(log, x):
    for i in range(3):
        log.append(i)
        yield x * i


@break_case(CASES, call(T(2)), call(T(2)), compiles="C.", breaks=False)
def loop_reads_what_the_body_writes(x):
    log = []
    acc = x
    for v in logging_gen(log, x):
        acc = acc + v * len(log)
    return acc, log


@break_case(CASES, call(T(2)), call(T(2)), compiles="C.", breaks=False)
def left_early_the_rest_never_runs(x):
    log = []
    for v in logging_gen(log, x):
        if len(log) == 2:
            break
    return v, log


@break_case(CASES, call(T(2)), call(T(2)), compiles="C.", breaks=False)
def next_then_a_loop_over_the_rest(x):
    log = []
    g = logging_gen(log, x)
    first = next(g)
    rest = [v + first for v in g]
    return rest, log, next(g, "done")


def drain(items):
    total = 0
    for item in items:
        total = total + item
    return total


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", breaks=False)
def resumed_from_a_helper(x):
    log = []
    return drain(logging_gen(log, x)), log


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", breaks=False)
def consumed_whole_by_builtins(x):
    squares = list(t * t for t in (x, x + 1))
    return sum(v.sum() for v in squares), tuple(i for i in range(3)), max(i * 2 for i in range(4))


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", breaks=False)
def all_and_any_stop_at_the_first_decisive_item(x):
    log = []

    def checked(values):
        for v in values:
            log.append(v)
            yield v > 1

    return x + any(checked([0, 2, 5])), all(checked([3, 0, 4])), log


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", breaks=False)
def a_string_joined_from_a_generator(x):
    s = ",".join(str(i) for i in range(3))
    return x + len(s), s


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", breaks=False)
def tensors_sorted_by_a_key(x):
    parts = [x * 3, x[:1], x[:2] * 2]
    ordered = sorted(parts, key=lambda t: t.shape[0], reverse=True)
    return ordered[0] + 1, ordered[-1]


test_generators = parametrize_breaks(CASES)
