"""Hooks on a module called inside compiled code run, as nn.Module.__call__ runs them.

Forward pre-hooks and forward hooks are traced inline (one graph, as Dynamo); a
module whose hooks are not traced (a backward hook) is called whole at a graph
break, so its hooks still run.  Before, the call went straight to forward and the
hooks were skipped: a wrong answer.
"""
import torch
import torch.nn as nn

from differential import T, call, case, module_case, parametrize
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
SEEN: list = []


class AddOne(nn.Module):
    def forward(self, x):
        return x + 1


def doubling_pre_hook(module, args):
    return (args[0] * 2,)


def single_value_pre_hook(module, args):
    return args[0] - 1


def noting_pre_hook(module, args):
    SEEN.append("pre")  # returns None: the arguments stay


def scaling_hook(module, args, output):
    return output * 100 + args[0]


WITH_HOOKS = AddOne()
WITH_HOOKS.register_forward_pre_hook(doubling_pre_hook)
WITH_HOOKS.register_forward_pre_hook(noting_pre_hook)
WITH_HOOKS.register_forward_hook(scaling_hook)
SINGLE = AddOne()
SINGLE.register_forward_pre_hook(single_value_pre_hook)


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = AddOne()
        self.inner.register_forward_hook(lambda module, args, output: output * 3)

    def forward(self, x):
        return self.inner(x) * 10


OUTER = Outer()


@case(CASES, call(T(3)), call(T(3)), compiles="CC", state=lambda: list(SEEN))  # len(SEEN) is guarded
def pre_hooks_and_a_forward_hook(x):
    return WITH_HOOKS(x) * 10


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def a_pre_hook_returning_one_value(x):
    return SINGLE(x)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def a_hooked_child_of_a_compiled_module(x):
    return OUTER(x) + 1


test_module_hooks = parametrize(CASES)


def test_a_module_with_a_backward_hook_is_called_whole_so_its_hooks_run():
    """Backward hooks are not traced: the call is a graph break that runs __call__ for real, as in
    Dynamo 2.13 without compiled autograd (test_diff_backward_hooks compares the graphs)."""
    import warnings

    import tracer

    fired = []
    module = AddOne()
    module.register_full_backward_hook(lambda mod, grad_in, grad_out: fired.append(grad_out[0].sum().item()))
    module.register_forward_hook(lambda mod, args, output: output * 3)

    def f(x):
        return module(x) * 10

    opt = tracer.compile(f)
    x = torch.ones(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = opt(x)
    assert torch.equal(out, torch.full((3,), 60.0))
    out.sum().backward()
    assert fired == [30.0] and torch.equal(x.grad, torch.full((3,), 30.0))


# ---- a module compiled directly while it has hooks ---------------------------------------------------
# As Dynamo: a module of the user's runs its hooks in nn.Module.__call__, outside the graphs, each hook
# a frame compiled on its own; a module whose forward is torch's (nn.Linear) is called from a frame
# of its own that inlines nn.Module.__call__, hooks included: one graph.
DIRECT: list = []


class Doubled(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 3)

    def forward(self, x):
        return self.linear(x).relu() * 2


HOOKED_DIRECTLY = Doubled()
HOOKED_DIRECTLY.register_forward_pre_hook(doubling_pre_hook)
HOOKED_DIRECTLY.register_forward_hook(scaling_hook)
HOOKED_TORCH_MODULE = nn.Linear(3, 3)
HOOKED_TORCH_MODULE.register_forward_pre_hook(doubling_pre_hook)
HOOKED_TORCH_MODULE.register_forward_hook(scaling_hook)
PLAIN_SEQUENTIAL = nn.Sequential(nn.Linear(3, 3), nn.ReLU())

DIRECT_FRAMES: list = []
break_case(DIRECT_FRAMES, call(T(3)), call(T(3)), compiles="C.", breaks=False, all_frames=True,
           name="a_user_module_compiled_with_hooks")(HOOKED_DIRECTLY)
DIRECT_FRAMES[-1].globals = globals()  # a module has none of its own: mutations and restoring use this file's
module_case(DIRECT, "a_torch_module_compiled_with_hooks", HOOKED_TORCH_MODULE, call(T(3)), call(T(3)),
            compiles="C.")
module_case(DIRECT, "a_sequential_compiled_as_dynamo_wraps_it", PLAIN_SEQUENTIAL, call(T(2, 3)), call(T(2, 3)),
            compiles="C.", same_placeholders=True)

test_modules_compiled_with_hooks = parametrize(DIRECT)
test_user_modules_compiled_with_hooks = parametrize_breaks(DIRECT_FRAMES)
