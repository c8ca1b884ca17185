"""Differential cases: dynamic shapes, against torch.compile(dynamic=None) (automatic dynamic)
and dynamic=True -- sizes that change between calls, branches on sizes, sizes used as Python
ints, int and float arguments that change, mark_dynamic, a module over a variable sequence length.

Each case compares the graphs of every call (op lists, and which graph inputs are symbols),
the recompiles and the outputs with Dynamo's on the same run.
"""
import math

import torch
from differential import T, call, case, module_case, parametrize, set_attr, set_global
from differential_breaks import break_case, parametrize_breaks
from torch import nn

CASES: list = []
BATCHES = (4, 8, 16, 5, 1)


def _batches(*rest):
    return [call(T(b, *rest)) for b in BATCHES]


# ---- a batch size that changes: static, then one dynamic graph, then 0/1 specialisation -------
@case(CASES, *_batches(3), compiles="CC..C", dynamic=None, same_placeholders=True)
def batch_size_changes(x):
    return torch.relu(x) * 2 + x.sum(dim=1, keepdim=True)


@case(CASES, *_batches(3), compiles="C...C", dynamic=True, same_placeholders=True,
      name="batch_size_changes_dynamic_true")
def batch_size_changes_true(x):
    return torch.relu(x) * 2 + x.sum(dim=1, keepdim=True)


@case(CASES, call(T(4, 3), T(4, 3)), call(T(8, 3), T(8, 3)), call(T(6, 3), T(6, 3)), compiles="CC.",
      dynamic=None, same_placeholders=True)
def two_inputs_one_batch(x, y):
    return x @ y.t() + y.shape[0]


# ---- a branch on a size: the example --------------------------------------------------
@case(CASES, call(T(3, 2)), call(T(2, 2)), call(T(3, 2)), call(T(6, 2)), call(T(9, 2)), compiles="CC.C.",
      dynamic=None, same_placeholders=True)
def branch_on_size(x):
    if x.shape[0] > 4:
        return x * 2
    return x - 1


@case(CASES, call(T(4, 3)), call(T(5, 3)), call(T(6, 3)), call(T(5, 3)), compiles="CCC.", dynamic=None)
def branch_on_size_equality(x):
    n = x.shape[0]
    y = x * n
    if n == 5:
        return y + 1
    return y


# ---- sizes used as Python ints -----------------------------------------------------------------
@case(CASES, call(T(4, 3)), call(T(5, 3)), call(T(6, 3)), compiles="CC.", dynamic=None, same_placeholders=True)
def size_in_view_and_arithmetic(x):
    n = x.size(0)
    return x.view(n, -1) * x.numel(), n + 1, n * 2 - 3


@case(CASES, call(T(4, 3)), call(T(8, 3)), call(T(5, 3)), compiles="CCC", dynamic=None)
def size_in_range_specialises(x):
    n = x.shape[0]
    y = x.view(n, -1)
    s = 0
    for i in range(n):
        s = s + i
    return y * n + s, n * 2


@case(CASES, call(T(4, 6)), call(T(8, 6)), call(T(2, 6)), compiles="CC.", dynamic=None, same_placeholders=True)
def size_in_reshape_and_new_tensor(x):
    b, d = x.shape
    half = d // 2
    return x.reshape(b * 2, half) + torch.ones(b * 2, half), torch.zeros(b).shape[0]


@case(CASES, call(T(4, 3)), call(T(5, 3)), call(T(7, 3)), compiles="CC.", dynamic=None)
def size_returned_and_compared(x):
    n = x.shape[0]
    return x + 1, n, n > 2, len(x), x.shape


# ---- an int argument that changes -----------------------------------------------------------------
@case(CASES, call(T(3), 2), call(T(3), 3), call(T(3), 4), call(T(3), 2), compiles="CC..", dynamic=None,
      same_placeholders=True)
def int_argument_changes(x, k):
    return x * k + k


@case(CASES, call(T(3), 2), call(T(3), 3), call(T(3), 7), compiles="C..", dynamic=True, same_placeholders=True,
      name="int_argument_dynamic_true")
def int_argument_true(x, k):
    return x * k + k


@case(CASES, call(T(6), 2), call(T(6), 3), call(T(6), 4), call(T(6), 1), compiles="CC.C", dynamic=None)
def int_argument_in_branch(x, k):
    if k > 2:
        return x + k
    return x - k


# ---- a float argument that changes: a 0-d float64 graph input read back with item(), as Dynamo's --------
FLOATS = (0.5, 0.55, 0.9, 0.8, 0.3)


@case(CASES, *[call(T(3), s) for s in FLOATS], compiles="CCC..", dynamic=None, same_placeholders=True)
def float_argument_changes(x, s):
    if s > 0.6:
        return x * s + 1
    return x * s


@case(CASES, *[call(T(3), s) for s in FLOATS], compiles="CCC..", dynamic=None, same_placeholders=True)
def float_argument_only_in_a_branch(x, s):
    if s > 0.6:  # the float leaves the graph: only its guards read it
        return x * 2
    return x + 1


@case(CASES, *[call(T(3), s) for s in FLOATS[:3]], compiles="C..", dynamic=True, same_placeholders=True,
      name="float_argument_dynamic_true")
def float_argument_true(x, s):
    return x * (s * 2 + 1), s * 3, int(s * 10), -s, abs(s)


@case(CASES, *[call(T(4), s) for s in FLOATS], compiles="CC...", dynamic=None, same_placeholders=True)
def float_in_math_and_factories(x, s):
    y = x * math.sqrt(s) + torch.tensor([s, 2.0])[:1].sum() + torch.full((4,), s)
    return y.clamp(min=s), x.new_full((2,), s), x * (1 - s) / (s + 1), x[:int(s * 4)]


@case(CASES, *[call(T(4), s) for s in (1.5, 2.5, 3.25)], compiles="CC.", dynamic=None, same_placeholders=True)
def float_floor_ceil_and_int_ops(x, s):
    return x * math.floor(s), x + math.ceil(s), x[: int(s)], s // 1, s % 1.0


SCALE = 0.5


class Config:
    def __init__(self, s):
        self.s = s


@case(CASES, *[call(T(3), mutate=set_global("SCALE", s)) for s in FLOATS[:3]], compiles="CC.", dynamic=None,
      same_placeholders=True)
def float_global_changes(x):
    return x * SCALE


@case(CASES, *[call(T(3), Config(s), [s]) for s in FLOATS[:3]], compiles="CC.", dynamic=None,
      same_placeholders=True)
def float_attribute_and_item_change(x, cfg, xs):
    return x * cfg.s + xs[0]


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.s = 0.5

    def forward(self, x):
        return x * self.s


SCALED = Scaled()
module_case(CASES, "float_module_attribute_changes", SCALED,
            *[call(T(3), mutate=set_attr("SCALED.s", s)) for s in FLOATS[:3]], compiles="CC.", dynamic=None,
            same_placeholders=True)


@case(CASES, *[call(T(4), s) for s in FLOATS[:3]], compiles="CC.", dynamic=None, same_placeholders=True)
def float_returned_and_kept(x, s):
    t = s
    return x * t, t, [s, 1.0]


@case(CASES, *[call(T(4), s) for s in FLOATS], compiles="CC...", dynamic=None, same_placeholders=True)
def float_rounded_and_compared(x, s):
    return x * round(s, 1), x * max(s, 0.1) + s ** 2, s == 0.55


# ---- more constructs over symbolic sizes --------------------------------------------------------------
@case(CASES, call(T(4, 3)), call(T(6, 3)), call(T(8, 3)), compiles="CC.", dynamic=None, same_placeholders=True)
def factories_slices_and_builtins(x):
    n = x.shape[0]
    half = x[: n // 2]
    ramp = torch.arange(n).float().view(n, 1)
    return half.sum(0), x + ramp, x.new_zeros(n), max(n, 3), float(n) * 0.5


@case(CASES, call(T(4, 3)), call(T(6, 3)), call(T(9, 3)), compiles="CC.", dynamic=None, same_placeholders=True)
def concat_expand_and_unpack(x):
    rows, cols = x.size()
    doubled = torch.cat([x, x], dim=0)
    wide = x[:1].expand(rows, cols)
    return doubled.reshape(rows * 2, cols), wide * 2, doubled.shape[0] == 2 * rows


@case(CASES, call(T(4, 3), T(6, 3)), call(T(5, 3), T(7, 3)), call(T(2, 3), T(9, 3)), compiles="CC.",
      dynamic=None, same_placeholders=True)
def two_inputs_two_sizes(x, y):
    return torch.cat([x, y]) * 2, x.shape[0] + y.shape[0]


@case(CASES, call(T(3, 2)), call(T(4, 2)), call(T(5, 2)), compiles="CCC", dynamic=None)
def loop_over_rows_specialises(x):
    total = x[0] * 0
    for row in x:
        total = total + row
    return total


@case(CASES, call(T(3), 4), call(T(3), 5), call(T(3), 6), compiles="CC.", dynamic=None, same_placeholders=True)
def int_argument_sizes_a_tensor(x, k):
    return torch.ones(k) * 2, x.repeat(k) + 1


@case(CASES, call(T(2, 3, 4)), call(T(3, 5, 4)), call(T(4, 6, 4)), compiles="CC.", dynamic=None,
      same_placeholders=True)
def three_dims_reshape_and_permute(x):
    b, t, d = x.shape
    y = x.reshape(b * t, d).relu()
    return y.view(b, t, d).permute(0, 2, 1).contiguous(), y.numel()


@case(CASES, call(T(4, 3)), call(T(5, 6)), compiles="C.", dynamic=True, same_placeholders=True)
def strides_are_symbolic_too(x):
    return x * x.stride()[0], x.stride(), x.t().contiguous().stride(1)


@case(CASES, call(T(3, 2)), call(T(4, 2)), compiles="C.", dynamic=True, same_placeholders=True)
def only_a_size_leaves_the_graph(x):
    return x.shape[0], x


# ---- mark_dynamic ----------------------------------------------------------------------------------
def _marked(*shape, dim=0):
    t = T(*shape)
    torch._dynamo.mark_dynamic(t, dim)
    return t


def _maybe_marked(*shape, dim=0):
    t = T(*shape)
    torch._dynamo.maybe_mark_dynamic(t, dim)
    return t


@case(CASES, call(_marked(4, 3)), call(T(5, 3)), call(T(7, 3)), compiles="C..", dynamic=None,
      same_placeholders=True)
def mark_dynamic_first_call(x):
    return x * 2


@case(CASES, call(_marked(4, 3)), call(T(5, 3)), compiles="C.", dynamic=False, same_placeholders=True,
      name="mark_dynamic_with_dynamic_false")
def mark_dynamic_static_mode(x):
    return x.sin()


@case(CASES, call([_marked(4, 3), T(2)]), call([T(5, 3), T(2)]), compiles="C.", dynamic=False,
      same_placeholders=True, name="mark_dynamic_in_a_list_with_dynamic_false")
def mark_dynamic_in_a_list(xs):
    return xs[0] * 2 + xs[1].sum()


MARKED_WEIGHT = _marked(4, 3)


@case(CASES, call(T(3)), call(T(3), mutate=set_global("MARKED_WEIGHT", T(6, 3))), compiles="C.", dynamic=False,
      same_placeholders=True, name="mark_dynamic_on_a_global_with_dynamic_false")
def mark_dynamic_on_a_global(x):
    return MARKED_WEIGHT * x + MARKED_WEIGHT.shape[0]


@case(CASES, call(_maybe_marked(4, 3, dim=1)), call(T(4, 5)), compiles="C.", dynamic=None, same_placeholders=True)
def maybe_mark_dynamic_second_dim(x):
    return x.cos() + 1


def _static_marked(*shape, dim=0):
    t = T(*shape)
    torch._dynamo.mark_static(t, dim)
    return t


@case(CASES, call(_static_marked(4, 3)), call(_static_marked(4, 5)), call(_static_marked(5, 3)), compiles="C.C",
      dynamic=True, same_placeholders=True)
def mark_static_under_dynamic_true(x):
    return x * x.shape[1]


# marking a tensor after a compile recompiles, as Dynamo's DIMENSION_DYNAMIC_MARKING guards make it
@case(CASES, call(T(4, 3)), call(T(4, 3)), call(_marked(4, 3)), call(T(4, 3)), compiles="C.C.", dynamic=None,
      same_placeholders=True)
def marked_after_a_compile(x):
    return x * 2


# ---- a module over a variable sequence length ---------------------------------------------------------
class SeqEncoder(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, tokens):
        _b, t, _d = tokens.shape
        h = self.norm(self.proj(tokens))
        pos = torch.arange(t).float().view(1, t, 1)
        return (h + pos).mean(dim=1), t


ENCODER = SeqEncoder()
with torch.no_grad():
    for _p in ENCODER.parameters():
        _p.copy_(T(*_p.shape))
module_case(CASES, "module_variable_sequence_length", ENCODER, call(T(2, 5, 8)), call(T(2, 7, 8)),
            call(T(2, 11, 8)), call(T(2, 5, 8)), compiles="CC..", dynamic=None, same_placeholders=True)


class SeqMixer(nn.Module):

    def __init__(self, d=8):
        super().__init__()
        self.proj = nn.Linear(d, d)

    def forward(self, tokens):
        b, t, d = tokens.shape
        h = self.proj(tokens).relu()
        return h.reshape(b * t, d).sum(0), h[:, : t // 2].mean(dim=1)


MIXER = SeqMixer()
with torch.no_grad():
    for _p in MIXER.parameters():
        _p.copy_(T(*_p.shape))
module_case(CASES, "module_variable_sequence_length_dynamic_true", MIXER, call(T(2, 5, 8)), call(T(3, 7, 8)),
            call(T(1, 4, 8)), compiles="C.C", dynamic=True, same_placeholders=True)

module_case(CASES, "module_with_a_layer_norm_dynamic_true", ENCODER, call(T(2, 5, 8)), call(T(3, 7, 8)),
            call(T(1, 4, 8)), compiles="C.C", dynamic=True, same_placeholders=True)

test_dynamic = parametrize(CASES)


# ---- a graph break with a symbolic size live across it: the resume function gets it as an int ------------
BREAK_CASES: list = []


@break_case(BREAK_CASES, call(T(3, 2)), call(T(4, 2)), call(T(5, 2)), compiles="CC.", dynamic=None)
def size_live_across_a_break(x):
    n = x.shape[0]
    y = x * n
    print("between", n)
    return y + n


@break_case(BREAK_CASES, call(T(3, 2)), call(T(4, 2)), compiles="C.", dynamic=True,
            name="size_live_across_a_break_dynamic_true")
def size_live_across_a_break_true(x):
    n = x.shape[0]
    y = x * n
    print("between", n)
    return y + n



@break_case(BREAK_CASES, call(T(3, 2)), call(T(4, 2)), compiles="C.", dynamic=True,
            name="a_graph_of_sizes_only_before_a_break")
def sizes_only_before_a_break(x):
    n = x.shape[0]
    print("n", n)
    return x + n

@break_case(BREAK_CASES, call(T(3, 2), 0.5), call(T(3, 2), 0.75), call(T(3, 2), 0.25), compiles="CC.",
            dynamic=None)
def float_live_across_a_break(x, s):
    y = x * s
    print("between", s)  # the float is staged for the resume function: itself, reloaded
    return y + s


@break_case(BREAK_CASES, call(T(4), 1.5), call(T(4), 2.5), call(T(4), 3.25), compiles="CC.", dynamic=None)
def float_on_the_stack_at_a_break(x, s):
    return x * abs(s), print("s", s)


LOG: list = []


# Two breaks on one line (item(), then str() of the symbolic float once the resume function recompiles
# it dynamic) make two resume functions named alike.  As Dynamo's per-code memory (file, first line,
# name), the second starts from the sizes the first saw: its first compile takes `t` symbolic.
@break_case(BREAK_CASES, call(T(8, 4), 1), call(T(6, 4), 1), call(T(4, 4), 1), compiles="CCC",
            dynamic=None, all_frames=True, same_placeholders=True, state=lambda: list(LOG))
def resume_after_root_recompiles_dynamic(x, n):
    t = x * 1
    LOG.append(str(t.sum().item() > 0))
    return t.sum(), n


test_dynamic_breaks = parametrize_breaks(BREAK_CASES)
