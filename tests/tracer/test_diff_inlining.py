"""Differential cases: inlining user functions -- nested helpers, closures, lambdas,
comprehensions, argument binding, recursion, functools.partial, and helpers that
change between calls."""
import functools

import torch

from differential import T, call, case, mutate_with, parametrize, set_global

CASES: list = []


# ---- helpers three deep ----------------------------------------------------------


def _leaf(t):
    return t.sin() + 1


def _middle(t, k):
    return _leaf(t) * k


def _outer(t, k):
    return _middle(t, k) - _leaf(t)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def helpers_three_deep(x):
    return _outer(x, 2) + _outer(x.cos(), 3)


@case(CASES, call(T(4)), call(T(2, 2)), compiles="CC")
def helper_defined_inside(x):
    def norm(t):
        return t / (t.abs().sum() + 1)

    def twice(t):
        return norm(norm(t))

    return twice(x)


# ---- closures ---------------------------------------------------------------------


@case(CASES, call(T(3), 2), call(T(3), 2), call(T(3), 5), compiles="C.C")
def closure_over_locals(x, n):
    bias = x.mean()
    scale = n * 2

    def inner(t):
        return t * scale + bias

    return inner(x) + inner(x.flip(0))


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def closure_nonlocal_counter(x):
    count = 0

    def bump(t):
        nonlocal count
        count += 1
        return t + count

    y = bump(x)
    y = bump(y)
    return y * count, count


def _make_scaler(k):
    def scaler(t):
        return t * k

    return scaler


SCALER = _make_scaler(2)


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_global("SCALER", _make_scaler(3))),
      compiles="C.C")
def closure_global_rebound(x):
    # a new closure object (same code, other cell contents) must not reuse the entry
    return SCALER(x) + 1


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def closure_made_in_trace(x):
    f2 = _make_scaler(2)
    f3 = _make_scaler(x.sum())
    return f2(x) + f3(x)


def _make_stepper():
    steps = 0

    def step():
        nonlocal steps
        steps += 1

    def stepped(x):
        # the compiled function is itself a closure; the helper it inlines writes their shared cell
        nonlocal steps
        steps = 0
        step()
        step()
        return x + steps

    return stepped


case(CASES, call(T(3)), call(T(3)), call(T(3)))(_make_stepper())


def _make_counter():
    n = 0

    def inc():
        nonlocal n
        n += 1
        return n

    return inc


COUNTER = _make_counter()


@case(CASES, call(T(3), mutate=mutate_with(lambda g: g.update(COUNTER=_make_counter()), "COUNTER = a new counter")),
      call(T(3)), compiles="CC",
      state=lambda: COUNTER.__closure__[0].cell_contents)
def closure_of_a_global_helper_is_written_back(x):
    return x * COUNTER()


ESCAPED: list = []


@case(CASES, call(T(3)), call(T(3)), compiles="CC",  # the list's length is guarded
      state=lambda: [f(torch.ones(3)) for f in ESCAPED])
def closure_escapes_with_its_cell(x):
    k = x.sum()
    ESCAPED.append(lambda t: t * k)
    k = k + 1  # the escaped lambda sees the value the cell holds at the return
    return x + 1


WEIGHT = torch.ones(3, requires_grad=True)


@torch.no_grad()
def _frozen_scale(t):
    return t * WEIGHT


@torch.enable_grad()
def _graded(t):
    return (t * WEIGHT).sin()


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def grad_mode_decorated_helpers(x):
    # as Dynamo: the decorated helpers are traced inside their grad-mode block, with no break
    y = _frozen_scale(x)
    with torch.no_grad():
        z = _graded(x)
    return y + z.detach(), y.requires_grad, z.requires_grad


def _plus_one(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + 1
    return wrapper


@_plus_one
def wrapped_by_a_functools_wraps_decorator(x, y):
    # compiled directly: its frame's parameters are the wrapper's (*args, **kwargs), not (x, y)
    return x * y


case(CASES, call(T(3), T(3)), call(T(3), T(3)), compiles="C.")(wrapped_by_a_functools_wraps_decorator)


# ---- lambdas and comprehensions -----------------------------------------------------


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def lambda_local(x):
    sq = lambda t: t * t  # noqa: E731
    add = lambda a, b=1: a + b  # noqa: E731
    return add(sq(x)), add(x, b=3)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def lambda_passed_to_helper(x):
    def apply_twice(f, t):
        return f(f(t))

    return apply_twice(lambda t: t.cos() * 2, x)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def lambdas_capture_loop_variable_via_default(x):
    fs = [lambda t, i=i: t * i for i in range(1, 4)]
    return [f(x) for f in fs]


@case(CASES, call(T(3), 3), call(T(3), 3), call(T(3), 4), compiles="C.C")
def list_comprehension_over_range(x, n):
    parts = [x * i for i in range(n)]
    return torch.stack(parts).sum(0), len(parts)


TABLE = {"a": 1.5, "b": -2.0, "c": 0.5}


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def dict_comprehension(x):
    d = {k: x * v for k, v in TABLE.items() if v > 0}
    return d


@case(CASES, call([T(2), T(2), T(2)]), call([T(2), T(2), T(2)]), compiles="C.")
def nested_comprehension_with_condition(xs):
    return [[a * b for b in xs if b is not a] for a in xs]


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def set_and_tuple_from_comprehension(x):
    keys = {i % 2 for i in range(5)}
    return tuple(x + k for k in sorted(keys))


# ---- argument binding ---------------------------------------------------------------


def _affine(t, scale=2, shift=0.5, *, clamp=None):
    y = t * scale + shift
    if clamp is not None:
        y = y.clamp(-clamp, clamp)
    return y


@case(CASES, call(T(4)), call(T(4)), compiles="C.")
def defaults_and_kwonly(x):
    return (_affine(x), _affine(x, 3), _affine(x, shift=-1.0), _affine(x, clamp=0.5),
            _affine(t=x, scale=1, clamp=1.0))


def _total(first, *rest, scale=1):
    out = first
    for r in rest:
        out = out + r
    return out * scale, len(rest)


@case(CASES, call(T(3), T(3)), call(T(3), T(3)), compiles="C.")
def star_args(x, y):
    ts = [x, y, x]
    return _total(x), _total(x, y, scale=2), _total(*ts), _total(*(y, x), scale=-1)


def _kw_combine(t, **kw):
    out = t
    for name in sorted(kw):
        out = out * kw[name] if name.startswith("m") else out + kw[name]
    return out, sorted(kw)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def star_kwargs(x):
    opts = {"add": 1.0, "mul": 3}
    return _kw_combine(x), _kw_combine(x, mul=2), _kw_combine(x, **opts), _kw_combine(t=x, **{"a2": x})


@case(CASES, call(T(3), T(3)), call(T(3), T(3)), compiles="C.")
def keyword_arguments_reordered(x, y):
    def sub(a, b):
        return a - b

    return sub(b=x, a=y), sub(x, b=y)


@case(CASES, call(T(3), scale=2), call(T(3), scale=2), call(T(3), scale=3), call(T(3)),
      compiles="C.CC")
def function_under_test_has_defaults(x, scale=1, *args, bias=0.5, **kw):
    return x * scale + bias, len(args), len(kw)


# ---- recursion --------------------------------------------------------------------


def _power_tower(t, depth):
    if depth == 0:
        return t
    return _power_tower(t * 0.5 + t.tanh(), depth - 1)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def recursion_constant_depth(x):
    return _power_tower(x, 3)


def _fib(n):
    return n if n < 2 else _fib(n - 1) + _fib(n - 2)


@case(CASES, call(T(3), 6), call(T(3), 6), call(T(3), 7), compiles="C.C")
def recursion_on_int_argument(x, n):
    return x * _fib(n)


# ---- functools.partial ------------------------------------------------------------

SCALED = functools.partial(_affine, scale=3)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def partial_global(x):
    return SCALED(x), SCALED(x, shift=2.0)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def partial_made_in_trace(x):
    p = functools.partial(_affine, shift=x.mean())
    q = functools.partial(p, clamp=0.1)
    return p(x), q(x, 4)


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_global("SCALED", functools.partial(_affine, scale=5))),
      compiles="C.C")
def partial_global_rebound(x):
    return SCALED(x)


# ---- helpers that change between calls ---------------------------------------------


def _act_relu(t):
    return t.relu()


def _act_tanh(t):
    return t.tanh()


ACT = _act_relu


@case(CASES, call(T(4)), call(T(4)), call(T(4), mutate=set_global("ACT", _act_tanh)), call(T(4)),
      call(T(4), mutate=set_global("ACT", _act_relu)), compiles="C.C..")
def global_helper_swapped(x):
    return ACT(x * 2) + 1


def _with_default(t, k=2):
    return t * k


def _set_default(g):
    g["_with_default"].__defaults__ = (5,)


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=mutate_with(_set_default, "_with_default.__defaults__ = (5,)")),
      call(T(3)), compiles="C.C.")
def helper_default_changed(x):
    return _with_default(x) + 1


OFFSET = 1.0


def _uses_global(t):
    return t + OFFSET


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_global("OFFSET", 2.0)), compiles="C.C")
def helper_reads_global_that_changes(x):
    return _uses_global(x) * 2


@case(CASES, call(T(3)), call(T(3), mutate=set_global("_leaf", lambda t: t * 10)), compiles="CC")
def deep_helper_rebound(x):
    # _outer -> _middle -> _leaf: the innermost helper is looked up in globals
    return _outer(x, 1)


@case(CASES, call(T(2, 3)), call(T(2, 3)), compiles="C.")
def helper_returns_tuple_unpacked(x):
    def stats(t):
        return t.mean(0), t.std(0), t.shape[0]

    m, s, n = stats(x)
    return (x - m) / (s + 1) * n


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def helper_mutates_local_list(x):
    def push(acc, t):
        acc.append(t * len(acc))
        return acc

    acc = []
    push(acc, x)
    push(acc, x + 1)
    push(acc, x.exp())
    return acc, len(acc)


test_inlining = parametrize(CASES)
