"""With-blocks Dynamo traces into one graph: autocast, inference mode, user classes, @contextmanager.

Autocast and inference mode put their enter/exit functions in the graph around the
ops (compared op by op with Dynamo's); user context managers and @contextmanager
generators leave nothing in the graph, only their side effects (compared with
`state=`).  Cases that Standin still runs eagerly are pinned at the end.
"""
import contextlib

import torch

import tracer
from differential import T, call, case, parametrize

CASES: list = []
LOG: list = []


def log_state():
    return list(LOG)


# ---- autocast ---------------------------------------------------------------------------------

@case(CASES, call(T(2, 2)), call(T(2, 2)), compiles="C.")
def autocast_bfloat16(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ x.t()
    return y.float(), y.dtype


@case(CASES, call(T(3, 3)))
def autocast_device_type_keyword(x):
    with torch.autocast(device_type="cpu"):
        y = torch.mm(x, x)
    return y + 1


@case(CASES, call(T(3, 3)))
def autocast_disabled(x):
    with torch.autocast("cpu", enabled=False):
        y = x @ x
    return y


@case(CASES, call(T(2, 2)))
def autocast_around_no_grad(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with torch.no_grad():
            y = x @ x
        z = y * 2
    return z, z.requires_grad


def autocast_helper(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return torch.mm(x, x)


@case(CASES, call(T(2, 2)))
def autocast_in_an_inlined_function(x):
    return autocast_helper(x).float() + 1


@case(CASES, call(T(2, 2)))
def autocast_left_through_a_caught_exception(x):
    try:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x @ x
            raise ValueError("out")
    except ValueError:
        y = y.float() + x @ x  # outside autocast again: float32
    return y


# ---- inference mode ---------------------------------------------------------------------------

@case(CASES, call(T(3)))
def inference_mode_block(x):
    with torch.inference_mode():
        y = x * 2
    return y.sum()


@case(CASES, call(T(3)))
def inference_mode_false(x):
    with torch.inference_mode(False):
        y = x * 2
    return y


@torch.inference_mode()
def inference_helper(x):
    return x * 3


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def inference_mode_decorated_helper(x):
    return inference_helper(x) + 1


# ---- user classes with __enter__ / __exit__ ---------------------------------------------------

class Timer:
    def __init__(self, name="t"):
        self.name = name
        self.inside = False

    def __enter__(self):
        LOG.append(("enter", self.name))
        self.inside = True
        return self

    def __exit__(self, *exc):
        LOG.append(("exit", self.name, exc[0] is None))
        self.inside = False
        return False


@case(CASES, call(T(2)), call(T(2)), compiles="CC", state=log_state)  # LOG grew: its length is guarded
def user_class_context(x):
    with Timer():
        y = x * 2
    return y


@case(CASES, call(T(2)), state=log_state)
def user_class_context_as_binding(x):
    with Timer("outer") as t:
        inside = t.inside
        with Timer("inner"):
            y = x + 1
    return y, inside, t.inside, t.name


class Collector:
    def __init__(self):
        self.items = []

    def __enter__(self):
        return self.items

    def __exit__(self, *exc):
        LOG.append(len(self.items))


@case(CASES, call(T(2)), state=log_state)
def user_context_enter_returns_a_list(x):
    with Collector() as items:
        items.append(x * 2)
        items.append(x + 1)
    return items[0] + items[1]


class Suppress:
    def __enter__(self):
        return None

    def __exit__(self, typ, value, tb):
        LOG.append(("suppressed", typ is KeyError, value is not None))  # tb: not modelled, Standin passes None
        return typ is KeyError


@case(CASES, call(T(2)), state=log_state)
def user_exit_swallows_an_exception(x):
    y = x + 1
    with Suppress():
        y = y * 2
        raise KeyError("k")
    return y


@case(CASES, call(T(2)), state=log_state)
def user_exit_sees_the_exception_and_lets_it_go(x):
    try:
        with Timer("raising"):
            y = x * 3
            raise ValueError("v")
    except ValueError:
        y = y + 1
    return y


# ---- @contextlib.contextmanager ---------------------------------------------------------------

@contextlib.contextmanager
def scope(n):
    LOG.append("in")
    yield n * 2
    LOG.append("out")


@case(CASES, call(T(2)), call(T(2)), compiles="CC", state=log_state)
def contextmanager_block(x):
    with scope(3) as v:
        x = x + v
    return x


@contextlib.contextmanager
def scaled(x):
    yield x * 10


@case(CASES, call(T(2)), state=log_state)
def contextmanager_yields_a_tensor(x):
    with scaled(x) as big, scope(1):
        y = big + 1
    return y


@contextlib.contextmanager
def no_grad_scope():
    with torch.no_grad():
        yield


@case(CASES, call(T(2)))
def contextmanager_wrapping_no_grad(x):
    with no_grad_scope():
        y = x * 2
    return y, y.requires_grad


# ---- profiler blocks: ignored, as Dynamo ignores them ---------------------------------------------

@case(CASES, call(T(2)))
def profiler_record_function_block(x):
    with torch.autograd.profiler.record_function("scale") as region:
        y = x * 2
    return y + 1, type(region).__name__


@case(CASES, call(T(2)))
def profiler_record_function_from_torch_profiler(x):
    with torch.profiler.record_function("outer"), torch.profiler.record_function("inner"):
        y = x.sin()
    return y


test_context_managers = parametrize(CASES)


# ---- what stays eager ---------------------------------------------------------------------------

def break_inside_user_context(x):
    with Timer():
        y = x * 2
        print("inside")
    return y + 1


def test_a_break_inside_a_user_block_runs_the_frame_eagerly(capsys):
    """(A break inside autocast or inference mode resumes inside it: test_diff_state_block_breaks.py.)"""
    fn = break_inside_user_context
    LOG.clear()
    opt = tracer.compile(fn)
    torch.testing.assert_close(opt(torch.ones(2, 2)), fn(torch.ones(2, 2)))
    assert "with-block" in (opt.cache_entries[0].eager_reason or "")
    assert not torch.is_autocast_enabled("cpu") and torch.is_grad_enabled()  # the trace left no state behind
    runs = [("enter", "t"), ("exit", "t", True)]
    assert LOG == runs * 2  # the eager call's and the compiled call's: the trace's own never happened


GLOBAL_TIMER = Timer("global")


def with_an_object_made_outside(x):
    with GLOBAL_TIMER:
        y = x * 2
    return y


def test_an_object_made_outside_the_function_runs_the_frame_eagerly_as_in_dynamo():
    opt = tracer.compile(with_an_object_made_outside)
    torch.testing.assert_close(opt(torch.ones(2)), torch.ones(2) * 2)
    assert "with-block" in (opt.cache_entries[0].eager_reason or "")
