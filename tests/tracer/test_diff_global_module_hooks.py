"""Global module hooks (`nn.modules.module.register_module_forward_hook` / `_pre_hook`) are traced
inline, as Dynamo traces them: the global ones before the module's own, as nn.Module.__call__
runs them, and removing one recompiles.  The global hook dicts are guarded even when empty, so
a hook registered after the compile recompiles and runs; Dynamo 2.13 keeps its old graph there
and skips the hook, so that case is compared with eager only.
"""
import pytest
import torch.nn as nn
from torch.nn.modules import module as module_py

from differential import T, call, case, mutate_with, parametrize, parametrize_against_eager

CASES: list = []
EAGER_ONLY: list = []
HANDLES: list = []
LINEAR = nn.Linear(3, 3)


@pytest.fixture(autouse=True)
def _hooks_removed():
    yield
    while HANDLES:  # a failing run must not leave a global hook behind for other tests
        HANDLES.pop().remove()


def tripling_pre_hook(module, args):
    return (args[0] * 3,)


def doubling_hook(module, args, output):
    return output * 2


def own_hook(module, args, output):
    return output + 100


def _register(g):
    HANDLES.append(module_py.register_module_forward_pre_hook(tripling_pre_hook))
    HANDLES.append(module_py.register_module_forward_hook(doubling_hook))


def _remove(g):
    while HANDLES:
        HANDLES.pop().remove()


REGISTER = mutate_with(_register, "global forward pre-hook and forward hook registered")
REMOVE = mutate_with(_remove, "global hooks removed")


@case(CASES, call(T(2, 3), mutate=REGISTER), call(T(2, 3)), call(T(2, 3), mutate=REMOVE), compiles="C.C")
def global_hooks_around_a_linear(x):
    return LINEAR(x) + 1


WITH_OWN_HOOK = nn.Linear(3, 3)
WITH_OWN_HOOK.register_forward_hook(own_hook)


@case(CASES, call(T(2, 3), mutate=REGISTER), call(T(2, 3), mutate=REMOVE), compiles="CC")
def global_hooks_run_before_the_module_s_own(x):
    return WITH_OWN_HOOK(x)


test_global_module_hooks = parametrize(CASES)


@case(EAGER_ONLY, call(T(2, 3)), call(T(2, 3), mutate=REGISTER), call(T(2, 3), mutate=REMOVE), compiles="CC.")
def a_global_hook_registered_after_the_compile(x):
    return LINEAR(x) + 1


test_global_hooks_registered_later = parametrize_against_eager(EAGER_ONLY)
