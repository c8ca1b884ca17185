"""has_call_hooks, the question a compiled module's every call asks (are nn.Module.__call__'s hooks to run
outside the graphs?), answers as hooks_of does for each kind of hook, the module's own and the global ones."""
import pytest
import torch
from torch.nn.modules import module as module_py
from tracer.variables.nn_module import has_call_hooks, hooks_of


def _forward_hook(module, args, output):
    return output


def _pre_hook(module, args):
    return None


def _backward_hook(module, grad_in, grad_out):
    return None


def _backward_pre_hook(module, grad_out):
    return None


REGISTRATIONS = {
    "forward": lambda m: m.register_forward_hook(_forward_hook),
    "forward_pre": lambda m: m.register_forward_pre_hook(_pre_hook),
    "full_backward": lambda m: m.register_full_backward_hook(_backward_hook),
    "full_backward_pre": lambda m: m.register_full_backward_pre_hook(_backward_pre_hook),
    "global_forward": lambda m: module_py.register_module_forward_hook(_forward_hook),
    "global_forward_pre": lambda m: module_py.register_module_forward_pre_hook(_pre_hook),
    "global_full_backward": lambda m: module_py.register_module_full_backward_hook(_backward_hook),
    "global_full_backward_pre": lambda m: module_py.register_module_full_backward_pre_hook(_backward_pre_hook),
}


@pytest.mark.parametrize("kind", list(REGISTRATIONS))
def test_has_call_hooks_sees_each_kind_of_hook_as_hooks_of(kind):
    module = torch.nn.Linear(2, 2)
    assert not has_call_hooks(module) and hooks_of(module) == []
    handle = REGISTRATIONS[kind](module)
    try:
        assert has_call_hooks(module) and len(hooks_of(module)) == 1
    finally:
        handle.remove()
    assert not has_call_hooks(module) and hooks_of(module) == []
