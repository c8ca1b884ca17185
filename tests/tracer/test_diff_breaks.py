"""Differential cases with graph breaks: unsupported calls (print, time.time(),
.item(), .tolist(), an opaque C function), data-dependent branches, breaks in
callees, methods and module forwards, breaks inside loops (the frame is skipped),
side effects on both sides of a break, and constructs Dynamo treats specially.

Every case is compared on its outputs, stdout, program state, the number of
backend graphs per call (all frames) and their op lists, and the root frame's
(re)compiles -- see differential_breaks.py.  Callees of a frame that runs eagerly
(a break in a loop) compile as frames of their own: test_diff_frame_hook.py.
"""
import time
import zlib

import torch
import torch.nn as nn

from differential import T, call, set_attr
from differential_breaks import break_case, module_break_case, parametrize_breaks

CASES: list = []

LOG: list = []
COUNTER = 0


class Cfg:
    def __init__(self):
        self.scale = 2.0
        self.verbose = True
        self.w = torch.ones(3)


cfg = Cfg()


class State:
    def __init__(self):
        self.count = 0
        self.last = None


STATE = State()


def POS(*shape):
    return T(*shape).abs() + 0.1


def NEG(*shape):
    return -(T(*shape).abs() + 0.1)


# --------------------------------------------------------------------------
# print
# --------------------------------------------------------------------------


@break_case(CASES, call(T(3)), call(T(3)), call(T(2, 3)), compiles="C.C")
def print_in_the_middle(x):
    y = x.sin() + 1
    print("middle")
    return y * 2


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def print_shape_and_values(x):
    y = x * 2
    print("shape", tuple(y.shape), "dtype", y.dtype, sep="|", end="!\n")
    z = y.cos()
    return z + x


@break_case(CASES, call(T(4)), call(T(4)), compiles="C.")
def print_first_then_ops(x):
    print("start")
    return x.relu() * 3


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def empty_tail_after_break(x):
    y = x * 2
    print("done", y.shape)
    return x


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def two_breaks_in_one_function(x):
    y = x + 1
    print("a")
    z = y * y
    print("b")
    return z - y


@break_case(CASES, call(T(3), 2, "s"), call(T(3), 2, "s"), call(T(3), 3, "s"), compiles="C.C")
def many_live_values_across_break(x, n, s):
    t = x * n
    lst = [n, s, t]
    d = {"k": t + 1, "n": n}
    u = t.exp()
    print("live")
    return u + d["k"] * lst[0], lst[1] + s, d["n"]


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def break_before_mixed_tuple_return(x):
    y = x * 2
    print("returning")
    return (y, 3, "str", [1, y + 1])


@break_case(CASES, call(T(2, 2)), call(T(2, 2)), compiles="C.")
def break_in_const_branch(x):
    y = x @ x
    if cfg.verbose:
        print("verbose")
    return y.sum(0)


# --------------------------------------------------------------------------
# .item() / .tolist() / time.time() / opaque C functions
# --------------------------------------------------------------------------


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def item_used_after_break(x):
    s = x.abs().sum()
    v = s.item()
    return x * v, v > 0


@break_case(CASES, call(T(5)), call(T(5)), call(T(5)))
def item_as_index_after_break(x):
    i = int(x.argmax().item())
    return x[i] * 2 + x


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def tolist_float(x):
    y = x * 2
    values = y.tolist()
    return y + len(values), values


@break_case(CASES, call(torch.tensor([3, 1, 2])), call(torch.tensor([3, 1, 2])), compiles="C.")
def tolist_int_used_as_python_ints(x):
    y = x * 2
    a, b, c = y.tolist()
    return y + (a - b), c


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def time_time_side_computation(x):
    t0 = time.time()
    y = x.sin()
    dt = time.time() - t0
    return y * 2, dt >= 0


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def opaque_c_function(x):
    y = x + 1
    h = zlib.crc32(b"standin") % 7
    return y * h


# --------------------------------------------------------------------------
# data-dependent branches
# --------------------------------------------------------------------------


@break_case(CASES, call(POS(3)), call(NEG(3)), call(POS(3)), call(NEG(3)), compiles="C...")
def data_dependent_if_both_branches(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


@break_case(CASES, call(POS(3)), call(NEG(3)), call(NEG(3)), compiles="C..")
def data_dependent_if_work_around(x):
    y = x.cos() + x
    if (y * x).mean() > 0:
        z = y * 3
    else:
        z = y.abs()
    return z + x


def _pick(x):
    if x.max() > 0.5:
        return x * 10
    return x


@break_case(CASES, call(POS(3) + 1), call(NEG(3)), compiles="C.")
def data_dependent_if_in_callee(x):
    y = x + 1
    z = _pick(y)
    return z - x


@break_case(CASES, call(POS(3)), call(NEG(3)), compiles="C.")
def data_dependent_bool_and(x):
    ok = bool(x.sum() > 0)
    return x * 2 if ok else x * 3


# --------------------------------------------------------------------------
# breaks in callees, methods, modules, kwargs
# --------------------------------------------------------------------------


def _h(x):
    print("in h")
    return x * 3


def _g(x):
    return _h(x + 1) - 1


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def break_two_calls_deep(x):
    y = x.sin()
    z = _g(y)
    return z + y


def _noisy(x):
    print("noisy", x.shape)
    return x * 2


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def break_in_callee_with_stack_values(x):
    return x + _noisy(x.cos()) * x


def _noisy_kw(x, alpha=1.0, *, tag="t"):
    print("tag", tag, alpha)
    return x * alpha


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def break_in_callee_called_with_kwargs(x):
    y = x + 1
    return _noisy_kw(y, alpha=2.0, tag="kw") + y


@break_case(CASES, call(T(3), scale=2.0, verbose=True), call(T(3), scale=2.0, verbose=True),
            call(T(3), scale=3.0, verbose=True), compiles="C.C")
def kwargs_call_that_breaks(x, *, scale=1.0, verbose=False):
    y = x * scale
    if verbose:
        print("scale", scale)
    return y + 1


class Stepper:
    def __init__(self):
        self.k = 3.0
        self.steps = 0

    def step(self, x):
        y = x * self.k
        print("step", self.steps)
        self.steps += 1
        return y + self.steps


STEPPER = Stepper()


@break_case(CASES, call(T(3)), call(T(3)), state=lambda: STEPPER)
def break_in_method_of_user_object(x):
    return STEPPER.step(x.relu()) * 2


break_case(CASES, call(T(3)), call(T(3)), state=lambda: STEPPER,
           name="bound_method_compiled_directly")(STEPPER.step)


class PrintingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 6)
        self.fc2 = nn.Linear(6, 2)

    def forward(self, x):
        h = self.fc1(x).relu()
        print("hidden", h.shape)
        return self.fc2(h)


def _init(m: nn.Module) -> nn.Module:
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape))
    return m


PNET = _init(PrintingNet())
module_break_case(CASES, "break_in_module_forward", PNET, call(T(2, 4)), call(T(2, 4)),
                  call(T(3, 4)), compiles="C.C")


class Noisy(nn.Module):
    def forward(self, x):
        print("noisy module")
        return x * 2


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.noisy = Noisy()

    def forward(self, x):
        return self.noisy(self.lin(x)) + x


ONET = _init(Outer())
module_break_case(CASES, "break_in_submodule_forward", ONET, call(T(2, 3)), call(T(2, 3)),
                  compiles="C.")


# --------------------------------------------------------------------------
# side effects across a break
# --------------------------------------------------------------------------


@break_case(CASES, call(T(3)), call(T(3)), state=lambda: LOG)
def global_list_appended_both_sides(x):
    LOG.append("before")
    y = x + 1
    LOG.append(y)
    print("between")
    LOG.append(y * 2)
    return y


@break_case(CASES, call(T(3)), call(T(3)), call(T(3)), state=lambda: COUNTER)
def global_rebound_both_sides(x):
    global COUNTER
    COUNTER += 1
    y = x * COUNTER
    print("counter", COUNTER)
    COUNTER += 10
    return y


@break_case(CASES, call(T(3)), call(T(3)), state=lambda: STATE)
def object_attrs_mutated_both_sides(x):
    STATE.count += 1
    y = x.exp()
    v = y.sum().item()
    STATE.last = y * v
    return y


@break_case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("cfg.scale", 5.0)),
            compiles="C..")
def global_config_read_after_break(x):
    y = x + 1
    print("cfg")
    return y * cfg.scale + cfg.w


@break_case(CASES, call(T(3)), call(T(3)), state=lambda: LOG)
def inplace_on_input_across_break(x):
    x.mul_(2)
    print("mutated")
    x.add_(1)
    LOG.append(x.sum())
    return x


# --------------------------------------------------------------------------
# breaks inside loops: Dynamo skips the whole frame (0 graphs)
# --------------------------------------------------------------------------


@break_case(CASES, call(T(3)), call(T(3)))
def print_inside_for_loop(x):
    for i in range(3):
        x = x + i
        print("iter", i)
    return x


@break_case(CASES, call(T(3)), call(T(3)))
def item_inside_loop(x):
    total = 0.0
    for i in range(2):
        total += (x * i).sum().item()
    return x + total


@break_case(CASES, call(POS(3)), call(POS(3)))
def data_dependent_while(x):
    while x.sum() > 0:
        x = x - 1
    return x


@break_case(CASES, call(T(3)), call(T(3) + 20))
def data_dependent_early_return_in_loop(x):
    # Dynamo's backedge scan stops at the first RETURN_VALUE after the break, so this
    # break in a loop is *not* detected as one: partial graph + resume function
    for i in range(3):
        if x.sum() > 10:
            return x * 2
        x = x + 1
    return x


@break_case(CASES, call(T(3)), call(T(3)))
def print_in_loop_before_early_return(x):
    for i in range(3):
        print("i", i)
        if i == 1:
            return x
        x = x * 2
    return x


# --------------------------------------------------------------------------
# constructs Dynamo treats specially
# --------------------------------------------------------------------------


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", breaks=False)
def import_inside_function(x):
    import math
    from math import e

    return x * math.pi + e


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def break_under_no_grad(x):
    with torch.no_grad():
        y = x * 2
        print("no grad")
        z = y + 1
    return z * x


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", state=lambda: torch.is_grad_enabled())
def break_in_nested_grad_blocks(x):
    with torch.no_grad():
        y = x * 2
        with torch.enable_grad():
            print("inner", torch.is_grad_enabled())
            z = y + 1
        w = z * 3
    return w - x


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", state=lambda: torch.is_grad_enabled())
def break_under_set_grad_enabled_block(x):
    with torch.set_grad_enabled(False):
        y = x.sin()
        print("mode", torch.is_grad_enabled())
    return y + x


@break_case(CASES, call(T(3)), call(-T(3)), compiles="C.", state=lambda: torch.is_grad_enabled())
def data_dependent_branch_under_no_grad(x):
    with torch.no_grad():
        y = x * 2
        if y.sum() > 0:
            y = y + 1
        else:
            y = y - 1
    return y * x


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", state=lambda: torch.is_grad_enabled())
def break_after_leaving_no_grad(x):
    with torch.no_grad():
        y = x * 2
    print("after")
    return y + x


@break_case(CASES, call(T(3)), call(T(3)))
def break_inside_try_finally(x):
    y = x + 1
    try:
        print("try")
        y = y * 2
    finally:
        LOG.append(1)
    return y


class Ctx:
    def __init__(self):
        self.depth = 0

    def __enter__(self):
        self.depth += 1
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        return False


CTX = Ctx()


@break_case(CASES, call(T(3)), call(T(3)), state=lambda: CTX)
def with_user_context_manager(x):
    y = x * 2
    with CTX:
        y = y + CTX.depth
    return y.sin()


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def closure_cell_with_break(x):
    k = x.sum()
    f = lambda t: t * k  # noqa: E731
    print("closure")
    return f(x)


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def nonlocal_written_on_both_sides_of_a_break(x):
    total = x.sum()

    def add(t):
        nonlocal total
        total = total + t.sum()

    add(x)
    print("between")
    add(x * 2)
    return x * total


test_breaks = parametrize_breaks(CASES)
