"""A graph break where no resume function can take over: the graph stops at the last checkpoint.

Inside a try block (or a with-block nested in one, or the block of a context manager that
cannot be entered again) Dynamo cannot hand the frame to a resume function.  It compiles the
graph up to its last checkpoint -- an instruction met with an empty stack, outside every
block, once the graph holds more than one operation -- and runs the rest of the frame from
there as it is.  Without a checkpoint the whole frame runs eagerly.  Either way what the rest
of the frame does is plain Python: an exception raised after the break reaches its handler,
a `finally` runs once, and the mode a with-block set is restored.
"""
import torch

from differential import T, call, case, parametrize_against_eager
from differential_breaks import break_case, parametrize_breaks

CASES: list = []


def helper(t):
    return t * 3 + 1


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def break_in_try_after_two_ops(x):
    y = x + 1
    z = y.cos()
    try:
        y = y * 2
        print("break")
        y = y - 1
    except ValueError:
        y = y + 100
    return y.sin() + z


@break_case(CASES, call(T(3), 1), call(T(3), 0), call(T(3), 1), compiles="C..")
def raise_after_the_break_reaches_its_handler(x, n):
    y = x.exp()
    z = y.cos()
    try:
        y = y * 2
        print("break")
        if n:
            raise ValueError("boom")
        y = y - 1
    except ValueError as e:
        print("caught", e)
        y = y + 100
    finally:
        print("finally")
    return y.sin() + z


@break_case(CASES, call(T(3), 2), call(T(3), 0), compiles="C.", raises=True)
def an_exception_leaving_the_frame_runs_finally_once(x, n):
    y = x.exp()
    z = y * y
    try:
        print("break")
        y = y / n
        if n == 0:
            raise ZeroDivisionError("n is zero")
    finally:
        print("finally")
    return y + z


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def a_grad_block_inside_a_try(x):
    y = x.sin()
    y = y.cos()
    try:
        with torch.no_grad():
            z = y * 2
            print("break")
            z = z + 1
    except RuntimeError:
        z = y
    return z, torch.is_grad_enabled()


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.", all_frames=True)
def the_rest_calls_a_function_compiled_on_its_own(x):
    y = x + 1
    y = y * 2
    try:
        print("break")
        y = helper(y)
    except KeyError:
        pass
    return y


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def a_loop_after_the_checkpoint(x):
    y = x + 1
    y = y * 2
    for i in range(3):
        try:
            print("break", i)
            y = y + i
        except ValueError:
            pass
    return y


@break_case(CASES, call(T(3)), call(T(3)), compiles="C.")
def only_one_op_before_the_try_runs_eagerly(x):
    y = x + 1
    try:
        print("break")
        y = y * 2
    except ValueError:
        pass
    return y


test_try_breaks = parametrize_breaks(CASES)


# ---- where Dynamo 2.13 itself goes wrong: compared with eager only -------------------------------
EAGER_ONLY: list = []


@case(EAGER_ONLY, call(T(3), [1]), call(T(3), [2]), compiles="C.")
def an_argument_deleted_before_the_checkpoint_stays_deleted(x, extra):
    """Dynamo's rest-of-the-frame code finds `extra` bound again (it restores only the locals it
    has), so `len(extra)` works there; in Python the name is unbound."""
    y = x + 1
    y = y * 2
    del extra
    try:
        print("break")
        return y + len(extra)
    except NameError:
        return y


test_try_breaks_against_eager = parametrize_against_eager(EAGER_ONLY)
