"""Differential cases: a module changed after its guards have been passed by dict tags alone.

A leaf module's guard subtree is a tag-safe root in the native tree
(guards/tag_safety.py): from its third check on, torch passes it when the dicts
it read keep their version tags.  Each case calls three times first (compile,
record, fast path), then changes one thing and calls again: the tracer must
recompile exactly where Dynamo does (and run the first entry again once the
change is undone).  Everything the change makes is deterministic, so the three
runs see the same values.
"""
import torch
import torch.nn as nn

from differential import Case, T, call, mutate_with, parametrize

CASES: list = []
WARM = (call(T(2, 3)), call(T(2, 3)), call(T(2, 3)))  # compile, record the dict tags, pass by them


class Affine(nn.Module):
    """A leaf module (no submodule): its guards are one tag-safe root."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.linspace(0.5, 1.5, 3))
        self.scale = 2.0
        self.register_buffer("shift", torch.ones(3))

    def forward(self, x):
        y = x * self.w * self.scale + self.shift
        if self.training:
            y = y + 1
        return y.to(x.dtype)


class Doubled(Affine):
    def forward(self, x):
        return super().forward(x) * 2


class ScaledLinear(nn.Linear):
    def forward(self, x):
        return super().forward(x) * 3


def _ones_linear(cls=nn.Linear) -> nn.Linear:
    layer = cls(3, 3)
    with torch.no_grad():
        layer.weight.copy_(torch.eye(3))
        layer.bias.fill_(0.25)
    return layer


class Net(nn.Module):
    """A user module (its class's forward is guarded on its code: never tag safe) over torch's
    leaf modules (no code guard: each is a tag-safe root)."""

    def __init__(self):
        super().__init__()
        self.affine = Affine()
        self.norm = nn.LayerNorm(3)
        self.bn = nn.BatchNorm1d(3).eval()
        self.drop = nn.Dropout(0.0)
        self.out = _ones_linear()

    def forward(self, x):
        return self.out(self.drop(self.bn(self.norm(torch.relu(self.affine(x))))))


NET = Net()
STASH: dict = {}  # what a change takes away, for its undo (not on the module: that would change it)


def net_forward(x):
    return NET(x)


def changed_and_undone(name: str, change, undo, compiles: str = "C..C.") -> None:
    """A case of net_forward: WARM, change(NET) and a call, undo(NET) and a call."""
    calls = [*WARM, call(T(2, 3), mutate=mutate_with(lambda g: change(g["NET"]), f"{name}: change")),
             call(T(2, 3), mutate=mutate_with(lambda g: undo(g["NET"]), f"{name}: undo"))]
    CASES.append(Case(net_forward, calls, compiles, None, False, name))


def _set_requires_grad(module, name, value):
    def set_(net):
        getattr(getattr(net, module), name).requires_grad_(value)
    return set_


def _data(module, name, make):
    def set_(net):
        with torch.no_grad():
            getattr(getattr(net, module), name).data = make()
    return set_


def _linspace():
    return torch.linspace(0.5, 1.5, 3)


def _parameter(module, name, make):
    return lambda net: setattr(getattr(net, module), name, nn.Parameter(make()))


def _attr(module, name, value):
    return lambda net: setattr(getattr(net, module), name, value)


def _class(module, cls):
    def set_(net):
        getattr(net, module).__class__ = cls
    return set_


def _submodule(module, make):
    def set_(net):
        STASH[module] = getattr(net, module)
        setattr(net, module, make())
    return set_


def _restore(module):
    return lambda net: setattr(net, module, STASH.pop(module))


def _buffer(module, name, make):
    return lambda net: getattr(net, module).register_buffer(name, make())


def _marked(module, name, mark):
    """mark_dynamic and its kin on a tensor of a leaf module: they set attributes on the tensor itself,
    which changes none of the module's dicts."""
    return lambda net: mark(getattr(getattr(net, module), name), 0)


def _unmarked(module, name):
    """The marks taken off again (every attribute the marking functions set lives in the tensor's __dict__)."""
    return lambda net: getattr(getattr(net, module), name).__dict__.clear()


def _set_in_place(module, name, make):
    """The tensor's storage and size replaced in place: the same object, the same dicts, another size."""
    def set_(net):
        with torch.no_grad():
            getattr(getattr(net, module), name).set_(make())
    return set_


# torch's leaf modules: their guards are passed by dict tags once warm
changed_and_undone("requires_grad_false", _set_requires_grad("out", "weight", False),
                   _set_requires_grad("out", "weight", True))
changed_and_undone("data_same_metadata", _data("out", "weight", lambda: torch.full((3, 3), 0.5)),
                   _data("out", "weight", lambda: torch.eye(3)), compiles="C....")
changed_and_undone("data_other_shape", _data("out", "bias", lambda: torch.full((1,), 3.0)),
                   _data("out", "bias", lambda: torch.full((3,), 0.25)))
changed_and_undone("parameter_replaced", _parameter("out", "weight", lambda: torch.full((3, 3), 0.5)),
                   _parameter("out", "weight", lambda: torch.eye(3)), compiles="C....")
changed_and_undone("submodule_replaced", _submodule("out", _ones_linear), _restore("out"), compiles="C....")
changed_and_undone("submodule_class_changed", _class("out", ScaledLinear), _class("out", nn.Linear))
changed_and_undone("float_attribute_changed", _attr("norm", "eps", 1e-2), _attr("norm", "eps", 1e-5))
changed_and_undone("eval_then_train", lambda net: net.drop.eval(), lambda net: net.drop.train())
changed_and_undone("buffer_registered_again", _buffer("bn", "running_mean", lambda: torch.full((3,), 0.5)),
                   _buffer("bn", "running_mean", lambda: torch.zeros(3)), compiles="C....")
changed_and_undone("weight_marked_dynamic", _marked("out", "weight", torch._dynamo.mark_dynamic),
                   _unmarked("out", "weight"))
changed_and_undone("bias_maybe_marked_dynamic", _marked("out", "bias", torch._dynamo.maybe_mark_dynamic),
                   _unmarked("out", "bias"))
changed_and_undone("buffer_marked_static", _marked("bn", "running_var", torch._dynamo.mark_static),
                   _unmarked("bn", "running_var"))
changed_and_undone("bias_set_in_place_other_size", _set_in_place("out", "bias", lambda: torch.full((1,), 3.0)),
                   _set_in_place("out", "bias", lambda: torch.full((3,), 0.25)))
# the user's module around them (never tag safe): the same answers
changed_and_undone("user_module_data_other_dtype", _data("affine", "w", lambda: torch.linspace(0.5, 1.5, 3).double()),
                   _data("affine", "w", _linspace))
changed_and_undone("user_module_class_changed", _class("affine", Doubled), _class("affine", Affine))
changed_and_undone("user_module_attribute_changed", _attr("affine", "scale", 3.0), _attr("affine", "scale", 2.0))
changed_and_undone("whole_net_eval_then_train", lambda net: net.eval(), lambda net: (net.train(), net.bn.eval()))

test_differential = parametrize(CASES)
