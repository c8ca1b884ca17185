"""Differential cases: constructs real models use on symbolic sizes (dynamic=None with a second
length, dynamic=True), each the small form of what a zoo model does, against Dynamo's graphs.
"""
import collections
import copy

import torch
import torch.nn.functional as F
from differential import T, call, case, parametrize

import tracer

CASES: list = []
Pair = collections.namedtuple("Pair", "a b")


# ---- torch.Size joined with a tuple: GPT-2's Conv1D `x.size()[:-1] + (nf,)`, then view --------------
@case(CASES, call(T(2, 3, 4)), call(T(2, 5, 4)), call(T(2, 7, 4)), compiles="CC.", dynamic=None,
      same_placeholders=True)
def size_slice_plus_tuple_into_view(x):
    size_out = x.size()[:-1] + (8,)
    return x.repeat(1, 1, 2).view(size_out)


@case(CASES, call(T(3, 4)), call(T(5, 4)), compiles="C.", dynamic=True, same_placeholders=True)
def tuple_plus_size_into_new_zeros(x):
    return x.new_zeros((2,) + x.shape[:1]), torch.zeros(x.shape[:1] + x.shape[1:])


@case(CASES, call(T(3, 4), T(6)), call(T(5, 4), T(6)), compiles="C.", dynamic=True)
def constant_size_plus_symbolic_tuple(x, y):
    return y.new_ones(y.shape + (x.shape[0],)), (y.shape + (x.shape[0],))[1]


@case(CASES, call(T(3, 4)), call(T(5, 4)), compiles="CC", dynamic=None)
def joined_tuple_types_as_python(x):
    joined = (x.shape + Pair(1, 2), Pair(1, 2) + (3,), (1,) + x.shape)
    return x + 1, [type(t).__name__ for t in joined], joined[0][0] * 2


# ---- an op whose C++ kernel reads plain sizes: MobileBERT's trigram embedding pads shifted copies --------
@case(CASES, call(T(2, 8, 4)), call(T(2, 12, 4)), call(T(2, 5, 4)), compiles="CC.", dynamic=None,
      same_placeholders=True)
def pad_keeps_a_size_symbolic(x):
    e = x * 2
    return torch.cat([F.pad(e[:, 1:], [0, 0, 0, 1, 0, 0], value=0.0), e,
                      F.pad(e[:, :-1], [0, 0, 1, 0, 0, 0], value=0.0)], dim=2)


# ---- an int default of a function reached through a local stays a constant: GPT-2's `logits_to_keep=0`,
# read through transformers' wrapper (`L['func'].__defaults__`), then negated --------------------------------
def _head(h, keep=2):
    return h[:, slice(-keep, None)] * 2


@case(CASES, call(T(3, 4), _head), call(T(5, 4), _head), compiles="C.", dynamic=True, same_placeholders=True)
def int_default_of_a_function_argument(x, head):
    return head(x + 1)


# ---- min() of a tuple of sizes stays symbolic: Swin clamps its window to `min(input_resolution)` ----------
class WindowClamp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.window_size = 4

    def forward(self, x):
        resolution = (x.shape[-2] // 2, x.shape[-1] // 2)
        if min(resolution) <= self.window_size:
            self.window_size = min(resolution)
        pad = (self.window_size - resolution[1] % self.window_size) % self.window_size
        return F.pad(x, (0, pad)) * max(resolution[0], 1, resolution[1])


window = WindowClamp()


@case(CASES, call(T(2, 8, 8)), call(T(2, 6, 6)), compiles="C.", dynamic=True, same_placeholders=True)
def min_of_a_tuple_of_sizes(x):
    return window(x), window.window_size


# ---- copy.deepcopy of a config whose float attribute is symbolic: BART's cache reads get_text_config() ------
class Config:
    def __init__(self):
        self.dropout = 0.1
        self.layers = 2
        self.name = "tiny"


cfg = Config()


@case(CASES, call(T(3, 4)), call(T(5, 4)), compiles="C.", dynamic=True, same_placeholders=True)
def deepcopy_of_a_config_with_a_symbolic_float(x):
    copied = copy.deepcopy(cfg)
    return x * copied.dropout + copied.layers, copied.name, copied is not cfg


@case(CASES, call(T(3, 4)), call(T(5, 4)), compiles="C.", dynamic=True, same_placeholders=True)
def deepcopy_of_containers_holding_a_symbolic_float(x):
    """BART's `get_text_config()` copies the config, then `to_dict()` copies its `__dict__`: the float stays
    symbolic through both (it was specialised, a constant in the graph, where Dynamo keeps it)."""
    copied = copy.deepcopy(cfg)
    attributes = copy.deepcopy(copied.__dict__)
    nested = copy.deepcopy({"p": [cfg.dropout, 2], "q": (cfg.dropout,)})
    return x * attributes["dropout"] + nested["p"][0] * nested["q"][0], nested["p"][1], attributes["name"]


def test_deepcopy_keeps_a_symbolic_float_without_a_break():
    """The copy is one graph with the float symbolic (and, as Dynamo's, copy's memo check of it, `is_not`
    of the float with itself, an op with no use: the case above compares the op lists)."""
    x = torch.randn(3, 4)
    tracer.reset()
    explained = tracer.explain(deepcopy_of_a_config_with_a_symbolic_float, dynamic=True)(x)
    assert explained.graph_break_count == 0 and explained.graph_count == 1, explained
    assert "SymFloat" in str(explained.graphs[0].code) or any(
        isinstance(n.meta.get("example_value"), torch.SymFloat) for n in explained.graphs[0].graph.nodes)
    out, expected = explained.result, deepcopy_of_a_config_with_a_symbolic_float(x)
    torch.testing.assert_close(out[0], expected[0])
    assert out[1:] == expected[1:]


# ---- torch.func.vmap over a symbolic batch size: functorch's switches take the size symbol, as Dynamo's ----
@case(CASES, call(T(3, 4), T(4)), call(T(5, 4), T(4)), compiles="C.", dynamic=True, fullgraph=True,
      same_placeholders=True)
def vmap_over_a_symbolic_batch_size(x, w):
    return torch.func.vmap(lambda r: (r * w).sum())(x)


@case(CASES, call(T(3, 4), T(3)), call(T(5, 4), T(5)), call(T(6, 4), T(6)), compiles="CC.", dynamic=None,
      fullgraph=True, same_placeholders=True)
def vmap_of_two_batched_arguments_after_a_recompile(x, y):
    return torch.func.vmap(lambda a, b: a.sin() * b, in_dims=(0, 0))(x, y)


# ---- all()/any() of symbolic bools decide each with a guard, as an `if` does (Dynamo's polyfill) ---------
@case(CASES, call(T(3, 4)), call(T(5, 6)), call(T(1, 4)), compiles="C.C", dynamic=True)
def any_and_all_over_symbolic_sizes(x):
    big = all(d > 1 for d in x.shape)
    return (x * 2 if big else x - 1), any([x.shape[0] == 1, x.shape[1] > 100]), all(())


# ---- a lazy argument a closure holds is realized (a graph input) where Dynamo realizes it: when a function
# made in the trace is called (Dynamo rebuilds it, reading its cells), or its cell is read -------------------
@case(CASES, call(T(3, 4), T(4)), call(T(5, 6), T(6)), compiles="C.", dynamic=True, same_placeholders=True)
def closure_argument_realized_at_the_call(x, w):
    scale = lambda r: (r + 1) * w  # noqa: E731
    return scale(x)


@case(CASES, call(T(3, 4), T(4)), call(T(5, 6), T(6)), compiles="C.", dynamic=True, same_placeholders=True)
def own_cell_realized_where_it_is_read(x, w):
    keep = lambda: w  # noqa: E731
    y = w
    return x * y, keep() is w


# ---- a number argument returned as it is: Dynamo's check of the returned value's kind realizes it (a value
# guard, so automatic dynamic makes it symbolic at the second value); a str or bool keeps a type guard -------
def _add_one_and_return(x, n):
    x.add_(1)
    return n


for _dynamic, _compiles in ((None, "CC.."), (False, "CCCC")):
    for _values in ((1, 2, 3, 4), (1.5, 2.5, 3.5, 4.5)):
        case(CASES, *(call(T(3), v) for v in _values), compiles=_compiles, dynamic=_dynamic,
             name=f"returned_{type(_values[0]).__name__}_dynamic_{_dynamic}")(_add_one_and_return)


for _values in (("a", "b", "c"), (True, False, True)):
    case(CASES, *(call(T(3), v) for v in _values), compiles="C..", dynamic=False,
         name=f"returned_{type(_values[0]).__name__}_keeps_a_type_guard")(_add_one_and_return)


# ---- a tensor attribute of an object from outside is a graph input where an op first uses it (Dynamo's lazy
# attribute): Wav2Vec2's resume function reads `outputs.last_hidden_state`, and its projector's parameters
# are lifted before it -------------------------------------------------------------------------------------
class Outputs:
    def __init__(self, hidden):
        self.last_hidden_state = hidden


projector = torch.nn.Linear(4, 2)


@case(CASES, call(Outputs(T(3, 4))), call(Outputs(T(5, 4))), compiles="C.", dynamic=True, same_placeholders=True)
def tensor_attribute_realized_where_an_op_uses_it(outputs):
    hidden = outputs.last_hidden_state
    return projector(hidden).mean(dim=1)


# ---- `is` / `is not` of two symbolic numbers: answered by identity, and an op with no use as in Dynamo ------
@case(CASES, call(T(3)), call(T(5)), compiles="C.", dynamic=True, same_placeholders=True)
def identity_of_symbolic_numbers(x):
    d, e = cfg.dropout, cfg.dropout
    n = x.shape[0]
    return x * d, d is not e, d is d, n is n, n is None


test_dynamic_model_constructs = parametrize(CASES)
