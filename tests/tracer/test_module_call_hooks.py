"""A compiled module's every call asks nn.Module.__call__'s question (is any hook to run, the module's own
or a global one?) and, when one is, runs the module through __call__ so that the hook runs outside the
graphs; hooks_of, which a trace reads, answers the same for each kind of hook."""
import pytest
import torch
from torch.nn.modules import module as module_py

import tracer
from tracer.eval_frame import CompiledFunction, CompiledModule
from tracer.variables.nn_module import hooks_of

RAN: list[str] = []


def _forward_hook(module, args, output):
    RAN.append("forward")
    return output


def _pre_hook(module, args):
    RAN.append("forward_pre")


def _backward_hook(module, grad_in, grad_out):
    RAN.append("backward")


def _backward_pre_hook(module, grad_out):
    RAN.append("backward_pre")


REGISTRATIONS = {
    "forward": (lambda m: m.register_forward_hook(_forward_hook), "forward"),
    "forward_pre": (lambda m: m.register_forward_pre_hook(_pre_hook), "forward_pre"),
    "full_backward": (lambda m: m.register_full_backward_hook(_backward_hook), "backward"),
    "full_backward_pre": (lambda m: m.register_full_backward_pre_hook(_backward_pre_hook), "backward_pre"),
    "global_forward": (lambda m: module_py.register_module_forward_hook(_forward_hook), "forward"),
    "global_forward_pre": (lambda m: module_py.register_module_forward_pre_hook(_pre_hook), "forward_pre"),
    "global_full_backward": (lambda m: module_py.register_module_full_backward_hook(_backward_hook), "backward"),
    "global_full_backward_pre": (lambda m: module_py.register_module_full_backward_pre_hook(_backward_pre_hook),
                                 "backward_pre"),
}


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)

    def forward(self, x):
        return self.fc(x) * 2


@pytest.mark.parametrize("kind", list(REGISTRATIONS))
def test_a_hook_registered_after_the_compile_runs_on_the_next_call_and_not_after_removal(kind):
    register, ran = REGISTRATIONS[kind]
    module = Scaled()
    opt = tracer.compile(module)
    x = torch.randn(3, 2, requires_grad=True)
    opt(x).sum().backward()
    assert hooks_of(module) == []
    RAN.clear()
    handle = register(module)
    try:
        assert len(hooks_of(module)) == 1
        out = opt(x)
        out.sum().backward()
        assert ran in RAN
        assert torch.equal(out, module.fc(x) * 2)
    finally:
        handle.remove()
    RAN.clear()
    opt(x).sum().backward()
    assert RAN == [] and hooks_of(module) == []


def test_a_compiled_module_answers_as_the_module_and_a_compiled_function_does_not():
    module = Scaled()
    opt = tracer.compile(module)
    assert type(opt) is CompiledModule and isinstance(opt, CompiledFunction)
    assert opt.fc is module.fc and len(list(opt.parameters())) == 2
    fn = tracer.compile(lambda x: x + 1)
    assert type(fn) is CompiledFunction
    with pytest.raises(AttributeError):
        fn.parameters  # a plain compiled function has no module to answer for it


def test_a_module_without_nn_module_init_fails_as_its_eager_call_does():
    class Bare(torch.nn.Module):
        def __init__(self):  # no super().__init__(): nn.Module.__call__ itself cannot run it
            pass

        def forward(self, x):
            return x + 1

    bare = Bare()
    with pytest.raises(AttributeError) as eager:
        bare(torch.ones(1))
    with pytest.raises(AttributeError) as compiled:
        tracer.compile(bare)(torch.ones(1))
    assert str(compiled.value) == str(eager.value)
