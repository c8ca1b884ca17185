"""Bugs the generator families of fuzz_families3.py / fuzz_families4.py found, one small case each.

Each case is the reduced program, rewritten by hand where that made it clearer.  Where Dynamo 2.13
itself differs from eager the case is compared with eager alone.
"""
import torch
from differential import T, call, case, mutate_with, parametrize, parametrize_against_eager
from torch import nn

AGAINST_EAGER: list = []
CASES: list = []
HANDLES: list = []


# ---- a module's own hook dicts guarded even when empty: a hook registered after the compile runs ----
# (Dynamo's skip_nnmodule_hook_guards keeps the old graph there and skips the hook)

class Plain(nn.Module):
    def forward(self, x):
        return x * 2


PLAIN = Plain()
INNER_OF = nn.Sequential(nn.Linear(3, 3))


def _register(g):
    HANDLES.append(PLAIN.register_forward_pre_hook(lambda module, args: (args[0] + 10,)))
    HANDLES.append(PLAIN.register_forward_hook(lambda module, args, output: output * 3))


def _register_inner(g):
    HANDLES.append(INNER_OF[0].register_forward_hook(lambda module, args, output: output - 100))


def _remove(g):
    while HANDLES:
        HANDLES.pop().remove()


@case(AGAINST_EAGER, call(T(3)), call(T(3), mutate=mutate_with(_register, "forward pre-hook and hook registered")),
      call(T(3), mutate=mutate_with(_remove, "hooks removed")), compiles="CC.")
def a_hook_registered_on_a_module_after_the_compile_runs(x):
    return PLAIN(x) + 1


@case(AGAINST_EAGER, call(T(2, 3)), call(T(2, 3)),
      call(T(2, 3), mutate=mutate_with(_register_inner, "a submodule's hook registered")),
      call(T(2, 3), mutate=mutate_with(_remove, "hook removed")), compiles="C.C.")
def a_hook_registered_on_a_tag_safe_submodule_after_warm_calls_runs(x):
    """The Linear is a tag-safe root checked by dict tags alone once warm: its hook dict's tag changes."""
    return INNER_OF(x).sum(-1)


test_fuzz5_found_against_eager = parametrize_against_eager(AGAINST_EAGER)


# ---- a str repeated a symbolic number of times: the number specialised, as Dynamo (no graph break) ----

@case(CASES, call(T(3), 3), call(T(3), 4), call(T(3), 3), compiles="CC.", dynamic=True)
def a_str_repeated_by_a_symbolic_int_specialises_it(x, n):
    s = "x" * n
    return x * len(s), s


@case(CASES, call(T(3), 1), call(T(3), 2), call(T(3), 5), compiles="CCC", dynamic=None)
def a_str_repeated_by_an_int_that_became_dynamic(x, n):
    return x * ("ab" * n).count("a") + n


# ---- str.format of a symbolic number: its value specialised, as Dynamo (no graph break) ----

NOTES: list = []


@case(CASES, call(T(3), 1), call(T(3), 2), call(T(3), 3), compiles="CCC", dynamic=None,
      state=lambda: list(NOTES))
def str_format_of_an_int_that_became_dynamic(x, n):
    NOTES.append("{}:{}".format(n, x.shape))
    return x * n


# ---- str methods all fold: nn.Module.get_buffer's "a.b".rpartition(".") no longer breaks the graph ----

class Buffered(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.ones(3))
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return x + self.get_buffer("running") + self.get_parameter("lin.bias") + self.get_submodule("lin")(x)


BUFFERED = Buffered()


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def get_buffer_get_parameter_and_get_submodule_trace_whole(x):
    return BUFFERED(x)


@case(CASES, call(T(3), "a.b.c"), call(T(3), "x.y"), compiles="CC")
def str_methods_fold(x, path):
    head, _, tail = path.rpartition(".")
    return x * len(head.center(7, "*")) + path.rsplit(".", 1)[-1].isalpha() + len(tail.ljust(3))


# ---- an attribute only returned is read lazily, as Dynamo: changing it does not recompile ----

class Counted(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.name = "a"


COUNTED = Counted()


def _count(g):
    COUNTED.calls = 7
    COUNTED.name = "b"


@case(CASES, call(T(3)), call(T(3), mutate=mutate_with(_count, "calls and name changed")), compiles="C.")
def an_attribute_only_returned_is_not_guarded(x):
    return x + 1, COUNTED.calls, COUNTED.name


@case(CASES, call(T(3)), call(T(3), mutate=mutate_with(_count, "calls and name changed")), compiles="CC")
def an_attribute_used_is_guarded(x):
    return x + COUNTED.calls, COUNTED.name


test_fuzz5_found = parametrize(CASES)
