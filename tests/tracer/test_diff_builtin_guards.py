"""Builtins are guarded as Dynamo guards them: `G['__builtins_dict___0']['divmod']` is the builtin it
was, so replacing one in `builtins` between calls recompiles.  A module global of the same name
shadows a builtin, and Standin also guards that none appeared (Dynamo 2.13 does not, and keeps
calling the builtin its graph was traced with): those cases are compared with eager only.
"""
import builtins

import pytest
from differential import (
    T,
    call,
    case,
    mutate_with,
    parametrize,
    parametrize_against_eager,
    set_global,
)

CASES: list = []
EAGER_ONLY: list = []
ORIGINAL_DIVMOD = builtins.divmod


@pytest.fixture(autouse=True)
def _builtins_restored():
    yield
    builtins.divmod = ORIGINAL_DIVMOD  # a failing run must not leave the replacement behind


def _replace_divmod(g):
    builtins.divmod = lambda a, b: (a * 10, 0)


def _restore_divmod(g):
    builtins.divmod = ORIGINAL_DIVMOD


def _unshadow_divmod(g):
    g.pop("divmod", None)


REPLACED = mutate_with(_replace_divmod, "builtins.divmod = a function multiplying by 10")
RESTORED = mutate_with(_restore_divmod, "builtins.divmod restored")


@case(CASES, call(T(3)), call(T(3), mutate=REPLACED), call(T(3), mutate=RESTORED), compiles="CC.")
def a_builtin_replaced_between_calls(x):
    return x * divmod(7, 2)[0]


@case(CASES, call(T(3)), call(T(3), mutate=REPLACED), call(T(3), mutate=RESTORED), compiles="CC.")
def a_builtin_replaced_in_an_inlined_helper(x):
    return helper_calling_divmod(x) + 1


def helper_calling_divmod(x):
    return x * divmod(7, 2)[0]


test_builtin_guards = parametrize(CASES)


@case(EAGER_ONLY, call(T(3)), call(T(3), mutate=set_global("divmod", lambda a, b: (-a, 0))),
      call(T(3), mutate=mutate_with(_unshadow_divmod, "del divmod")), compiles="CC.")
def a_global_shadowing_a_builtin_between_calls(x):
    return x * divmod(7, 2)[0]


test_builtin_shadowing = parametrize_against_eager(EAGER_ONLY)
