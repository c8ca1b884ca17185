"""Differential cases: the standard library Dynamo traces -- itertools (islice, count, repeat,
combinations, permutations, zip_longest, pairwise, starmap, takewhile, chain.from_iterable),
collections (deque, Counter's methods, the dicts' fromkeys), contextlib (suppress, nullcontext),
sys.intern, dict.update with pairs, int/float methods, str()/repr()/callable() on user objects,
slice attributes and torch.device(...) built in the trace."""
import collections
import contextlib
import itertools
import sys
from collections import Counter, deque

import torch

from differential import T, call, case, mutate_with, parametrize

CASES: list = []


# ---- itertools -------------------------------------------------------------------------------
@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def itertools_islice_and_count(x):
    a = [x * i for i in itertools.islice(range(10), 2, 8, 2)]
    b = [x + i for i in itertools.islice(itertools.count(3, 2), 4)]
    c = list(itertools.islice(map(lambda i: x * i, itertools.count()), 3))
    return a, b, c


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def itertools_count_and_repeat_in_zip(x):
    scaled = [v * i for i, v in zip(itertools.count(5), [x, x + 1])]
    return scaled, [a + b for a, b in zip([x, x], itertools.repeat(2))], list(itertools.repeat(x, 2))


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def itertools_combinatorics(x):
    pairs = [a * b for a, b in itertools.combinations([x, x + 1, x + 2], 2)]
    ordered = [a - b for a, b in itertools.permutations([x, x + 1], 2)]
    longest = [(a, b) for a, b in itertools.zip_longest([1, 2, 3], [x], fillvalue=0)]
    return pairs, ordered, longest


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def itertools_pairwise_starmap_takewhile(x):
    steps = [b - a for a, b in itertools.pairwise([x, x * 2, x * 4])]
    products = list(itertools.starmap(lambda a, b: a * b, [(x, 2), (x, 3)]))
    return steps, products, list(itertools.takewhile(lambda i: i < 3, [1, 2, 3, 1])), \
        list(itertools.dropwhile(lambda i: i < 2, [1, 2, 3]))


NESTED = [[1, 2], [3]]


@case(CASES, call(T(3)), call(T(3)), call(T(3)), compiles="C..")
def chain_from_iterable_does_not_recompile(x):
    # the classmethod is bound afresh on every read: its identity must not be the guard
    return x + sum(itertools.chain.from_iterable(NESTED)), list(itertools.chain.from_iterable([[x], [x + 1]]))


# ---- collections ---------------------------------------------------------------------------------
@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def deque_made_in_trace(x):
    d = deque([1, 2, 3], maxlen=3)
    d.append(4)
    d.appendleft(0)
    v = d.pop() + d.popleft()
    t = deque()
    t.append(x)
    t.append(x + 1)
    t.extendleft([x * 3])
    return x + v, list(d), len(d), d.maxlen, t.popleft() * t[0] + t[-1]


QUEUE = deque([1, 2], maxlen=3)


def deque_global_mutated(x):
    QUEUE.append(len(QUEUE))
    return x + QUEUE[0] + len(QUEUE)


def deque_argument(x, d):
    d.appendleft(x)
    return d.pop() * d[0], len(d)


def deque_alive_at_break(x):
    d = deque([x], maxlen=2)
    print("break")
    d.append(x + 1)
    d.append(x + 2)
    return list(d), d.maxlen


def test_deques_from_outside_and_across_a_break_match_eager(capsys):
    """Dynamo 2.13 loses a deque's maxlen at a graph break and keeps appending to a global deque
    past it, so these are checked against eager alone: a global deque and an argument are mutated in
    place (trimmed to maxlen), and one alive at a break is rebuilt with its maxlen."""
    import tracer
    x = T(3)
    QUEUE.clear()
    QUEUE.extend([1, 2])
    compiled = tracer.compile(deque_global_mutated)
    outs = [compiled(x) for _ in range(3)]
    assert list(QUEUE) == [2, 3, 3] and QUEUE.maxlen == 3
    torch.testing.assert_close(outs[-1], x + 2 + 3)
    arg = deque([x * 3])
    out, n = tracer.compile(deque_argument, fullgraph=True)(x, arg)
    torch.testing.assert_close(out, x * 3 * x)
    assert n == 1 and len(arg) == 1 and arg[0] is x
    broken = tracer.compile(deque_alive_at_break)
    for _ in range(2):
        items, maxlen = broken(x)
        assert maxlen == 2 and len(items) == 2
        torch.testing.assert_close(items[0], x + 1)
        torch.testing.assert_close(items[1], x + 2)
    assert any(e.kind == "graph_break" for e in broken.compile_events)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def counter_methods(x):
    c = Counter("ab")
    c.update("aa")
    c.update({"b": 2})
    c.subtract({"a": 1})
    return x + c["a"] + c["b"] + c.total(), sorted(c.elements()), dict(c)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def counter_arithmetic(x):
    plus = Counter(a=3, b=1) + Counter(a=1)
    minus = Counter(a=3, b=1) - Counter(a=1, b=5)
    scaled = [x * k * v for k, v in Counter([1, 1, 2]).items()]
    return x + plus["a"], dict(minus), dict(Counter(a=2) | Counter(a=3)), scaled


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def dict_classes_fromkeys(x):
    d = collections.defaultdict.fromkeys(["a", "b"], 1)
    o = collections.OrderedDict.fromkeys("xy", 2)
    return x + d["a"] + o["y"], type(d) is collections.defaultdict, list(o)


# ---- contextlib --------------------------------------------------------------------------------
@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def suppress_swallows_listed_exceptions(x):
    def lookup():
        return {}["k"]

    with contextlib.suppress(KeyError):
        x = x + 1
        {}["a"]
        x = x + 100
    with contextlib.suppress(IndexError, KeyError):
        x = x * 2
        lookup()
    return x


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def suppress_lets_other_exceptions_through(x):
    try:
        with contextlib.suppress(KeyError):
            raise ValueError("not suppressed")
    except ValueError:
        return x - 1
    return x


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def nullcontext_blocks(x):
    with contextlib.nullcontext():
        y = x + 1
    with contextlib.nullcontext(5) as five:
        y = y + five
    with contextlib.nullcontext() as nothing:
        return y, nothing


# ---- builtins and methods of constants ---------------------------------------------------------
class Pretty:
    def __init__(self):
        self.a = 1

    def __repr__(self):
        return f"Pretty({self.a})"


class Loud(Pretty):
    def __str__(self):
        return "LOUD"


class Invokable:
    def __call__(self):
        return 1


PRETTY, LOUD = Pretty(), Loud()


@case(CASES, call(T(3)), call(T(3)),
      call(T(3), mutate=mutate_with(lambda g: setattr(g["PRETTY"], "a", 2), "PRETTY.a = 2")), compiles="C.C")
def str_repr_of_user_objects(x):
    return x + 1, str(PRETTY), repr(PRETTY), str(LOUD), repr(LOUD), f"{LOUD}"


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def callable_on_everything(x):
    return (x + 1, callable(PRETTY), callable(Invokable()), callable(x), callable(lambda: 1), callable(Pretty),
            callable(len), callable(3))


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def dict_update_with_pairs_and_keywords(x):
    d = {"a": 1}
    d.update([("b", 2), ("c", x)])
    d.update(e=x + 1)
    d.update((k, v) for k, v in [("f", 3)])
    return d


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def int_float_methods_and_intern(x):
    n, d = (3).as_integer_ratio()
    key = sys.intern("scale")
    return x * n / d, (2.5).as_integer_ratio(), (5).bit_count(), {key: 1}[sys.intern("sca" + "le")]


@case(CASES, call(T(4)), call(T(4)), compiles="C.")
def slice_attributes(x):
    s = slice(1, None)
    t = slice(3)
    return x[s], s.start, s.stop, s.step, t.stop


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def torch_device_made_in_trace(x):
    d = torch.device("cpu")
    return x.to(d) + 1, d.type, torch.device("cpu", 0).index, torch.device(x.device.type) == x.device


test_stdlib = parametrize(CASES)
