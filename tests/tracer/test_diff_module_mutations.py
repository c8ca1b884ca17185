"""Differential cases: nn.Modules changed between calls or during the call --
containers appended to and parameters registered after the first compile (the
old graph must not keep running), classes that override __call__, and plain
attributes a forward assigns (`self.steps += 1`)."""
import torch
import torch.nn as nn

from differential import T, call, case, module_case, mutate_with, parametrize

CASES: list = []


class Scale(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = s

    def forward(self, x):
        return x * self.s


def _append(path: str, layer_scale: float):
    """A mutation appending Scale(layer_scale) to the container at G[path]."""
    return mutate_with(lambda g: g[path].append(Scale(layer_scale)), f"{path}.append(Scale({layer_scale}))")


# ---- containers that grow after the first compile ----------------------------------------


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Scale(2.0)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


STACK = Stack()
STACK_LAYERS = STACK.layers
module_case(CASES, "modulelist_appended_after_compile", STACK, call(T(3)), call(T(3)),
            call(T(3), mutate=_append("STACK_LAYERS", 10.0)), call(T(3)), compiles="C.C.")


SEQ = nn.Sequential(Scale(2.0))


@case(CASES, call(T(3)), call(T(3), mutate=_append("SEQ", 3.0)), call(T(3)), compiles="CC.")
def sequential_appended_after_compile(x):
    return SEQ(x)


class Indexed(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Scale(2.0)])

    def forward(self, x):
        for i in range(len(self.layers)):
            x = self.layers[i](x)
        return x + self.layers[-1].s


INDEXED = Indexed()
INDEXED_LAYERS = INDEXED.layers
module_case(CASES, "modulelist_len_and_index_after_append", INDEXED, call(T(3)),
            call(T(3), mutate=_append("INDEXED_LAYERS", 5.0)), call(T(3)), compiles="CC.")


HEADS = nn.ModuleDict({"a": Scale(2.0)})


@case(CASES, call(T(3)),
      call(T(3), mutate=mutate_with(lambda g: g["HEADS"].update({"b": Scale(3.0)}), "HEADS['b'] = Scale(3.0)")),
      call(T(3)), compiles="CC.")
def moduledict_key_added(x):
    y = HEADS["a"](x)
    return y * 2 if "b" in HEADS else y + 1


class Registered(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(T(3))

    def forward(self, x):
        total = x
        for p in self.parameters():
            total = total + p
        return total, len(list(self.children()))


def _register_b(g):
    g["REGISTERED"].register_parameter("b", nn.Parameter(torch.full((3,), 10.0)))


def _add_child(g):
    g["REGISTERED"].child = Scale(1.0)


REGISTERED = Registered()
module_case(CASES, "parameters_after_register_parameter", REGISTERED, call(T(3)),
            call(T(3), mutate=mutate_with(_register_b, "REGISTERED.register_parameter('b', ...)")),
            call(T(3)), call(T(3), mutate=mutate_with(_add_child, "REGISTERED.child = Scale(1.0)")),
            compiles="CC.C")


class Tree(nn.Module):
    def __init__(self):
        super().__init__()
        self.left = nn.Linear(3, 3)
        self.right = nn.Sequential(nn.Linear(3, 3))

    def forward(self, x):
        for _, p in self.named_parameters():
            x = x + p.sum()
        return x, [n for n, _ in self.named_children()]


def _ones_linear() -> nn.Linear:
    """A Linear with the same values in every run (the harness cannot restore a new module)."""
    layer = nn.Linear(3, 3)
    with torch.no_grad():
        layer.weight.fill_(1.0)
        layer.bias.fill_(0.5)
    return layer


TREE = Tree()
TREE_RIGHT = TREE.right
module_case(CASES, "named_parameters_of_a_grown_submodule", TREE, call(T(3)),
            call(T(3), mutate=mutate_with(lambda g: g["TREE_RIGHT"].append(_ones_linear()),
                                          "TREE.right.append(nn.Linear(3, 3))")),
            call(T(3)), compiles="CC.")


class Biases(nn.Module):
    def __init__(self):
        super().__init__()
        self.ps = nn.ParameterList([nn.Parameter(T(3)), nn.Parameter(T(3))])

    def forward(self, x):
        for p in self.ps:
            x = x + p
        return x * self.ps[-1] + len(self.ps)


BIASES = Biases()
BIASES_PS = BIASES.ps
module_case(CASES, "parameterlist_iterated_indexed_and_appended", BIASES, call(T(3)), call(T(3)),
            call(T(3), mutate=mutate_with(lambda g: g["BIASES_PS"].append(nn.Parameter(torch.full((3,), 2.0))),
                                          "BIASES.ps.append(...)")),
            call(T(3)), compiles="C.C.", same_placeholders=True)


# ---- classes overriding __call__ ------------------------------------------------------


class PlusOne(nn.Module):
    def __call__(self, x):
        return super().__call__(x) + 1

    def forward(self, x):
        return x * 2


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = PlusOne()

    def forward(self, x):
        return self.inner(x) * 3


OUTER = Outer()
module_case(CASES, "submodule_overrides_call", OUTER, call(T(3)), call(T(3)), compiles="C.")

PLUS_ONE = PlusOne()


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def function_calls_module_overriding_call(x):
    return PLUS_ONE(x) - PLUS_ONE.forward(x)


class NoSuper(nn.Module):
    """A __call__ that never reaches forward."""

    def __call__(self, x, scale=2):
        return x - scale

    def forward(self, x):
        return x * 100


NO_SUPER = NoSuper()


@case(CASES, call(T(3)), compiles="C")
def module_call_without_super(x):
    return NO_SUPER(x) + NO_SUPER(x, scale=5)


@case(CASES, call(T(3)), compiles="C")
def explicit_call_impl(x):
    return PLUS_ONE._call_impl(x) + OUTER.inner.__call__(x)


class OwnCallImpl(nn.Module):
    """Overrides _call_impl (which nn.Module.__call__ calls) and parameters()."""

    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(T(3))

    def parameters(self, recurse=True):
        return iter([self.a, self.a])

    def _call_impl(self, x):
        return self.forward(x) * 10

    def forward(self, x):
        for p in self.parameters():
            x = x + p
        return x


OWN_CALL_IMPL = OwnCallImpl()


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def module_overriding_call_impl_and_parameters(x):
    return OWN_CALL_IMPL(x), OWN_CALL_IMPL._call_impl(x) - 1


# ---- plain attributes assigned in forward ---------------------------------------------------


class Steps(nn.Module):
    def __init__(self):
        super().__init__()
        self.steps = 0
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        self.steps += 1
        return self.lin(x) + self.steps


STEPS = Steps()
module_case(CASES, "int_attribute_incremented_in_forward", STEPS, call(T(3)), call(T(3)), call(T(3)),
            compiles="CCC", state=lambda: STEPS.steps)


class Remember(nn.Module):
    def __init__(self):
        super().__init__()
        self.last = None
        self.mode = "a"

    def forward(self, x):
        y = x * 2
        self.last = y
        self.mode = "b"
        return y + 1, self.mode


REMEMBER = Remember()
module_case(CASES, "tensor_and_str_attributes_stored_in_forward", REMEMBER, call(T(3)), call(T(3)),
            compiles="C.", state=lambda: (REMEMBER.last, REMEMBER.mode))


test_module_mutations = parametrize(CASES)
