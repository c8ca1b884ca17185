"""torch.func's transforms inside the trace, as Dynamo traces them: torch's own functorch Python is
inlined, and the switches of functorch's state (`_vmap_increment_nesting`, `_add_batch_dim`,
`_grad_increment_nesting`, `_wrap_for_grad`, ...) are nodes of the one graph, between the ops the
transformed function runs on functorch's wrapped tensors.
"""
import collections
import functools

import pytest
import torch
import torch.func
import torch.utils._pytree as pytree

import tracer

from differential import T, call, case, parametrize
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
BREAKS: list = []

LAYER = torch.nn.Linear(4, 2)


def scaled_sin(a, b):
    return a.sin() * b


@case(CASES, call(T(3, 4)), fullgraph=True)
def vmap_of_a_torch_function(x):
    return torch.vmap(torch.sin)(x)


@case(CASES, call(T(3, 4), T(3)), call(T(5, 4), T(5)), compiles="CC", fullgraph=True)
def vmap_in_dims_with_an_unbatched_argument(x, w):
    return torch.func.vmap(scaled_sin, in_dims=(1, None))(x, w.sum())


@case(CASES, call(T(3, 4)), fullgraph=True)
def vmap_out_dims_moves_the_batch_dimension(x):
    return torch.vmap(lambda r: r.cos() + 1, out_dims=1)(x)


@case(CASES, call(T(2, 3, 4)), fullgraph=True)
def nested_vmap(x):
    return torch.vmap(torch.vmap(lambda r: r * r.sum()))(x)


@case(CASES, call(T(5, 4)), fullgraph=True)
def vmap_of_a_module_call(x):
    return torch.vmap(LAYER)(x)


@case(CASES, call(T(3, 4), T(4)), fullgraph=True)
def vmap_with_two_results_and_a_tuple_of_inputs(x, y):
    def both(pair):
        a, b = pair
        return a + b, (a * b).sum()
    return torch.vmap(both, in_dims=((0, None),))((x, y))



def loss(w, x):
    return (LAYER(x * w) ** 2).mean()


def loss_and_aux(a, b):
    y = (a * b).sin()
    return y.sum(), y.detach() * 2


@case(CASES, call(T(4)), fullgraph=True)
def grad_of_a_function(x):
    return torch.func.grad(lambda a: (a.sin() * a).sum())(x)


@case(CASES, call(T(4), T(3, 4)), fullgraph=True)
def grad_through_a_module_call_argnums(w, x):
    return torch.func.grad(loss, argnums=(0, 1))(w, x)


@case(CASES, call(T(4), T(4)), fullgraph=True)
def grad_and_value_with_aux(a, b):
    g, (value, aux) = torch.func.grad_and_value(loss_and_aux, has_aux=True)(a, b)
    return g, value, aux


@case(CASES, call(T(4)), fullgraph=True)
def grad_of_grad(x):
    return torch.func.grad(torch.func.grad(lambda a: a.sin().sum() if a.dim() == 0 else a.sin()))(x.sum())


@case(CASES, call(T(4), T(5, 4)), fullgraph=True)
def per_sample_grads_vmap_of_grad(w, xs):
    return torch.vmap(torch.func.grad(loss), in_dims=(None, 0))(w, xs)


@case(CASES, call(T(4), T(4)), call(T(4), T(4)), compiles="C.", fullgraph=True)
def vjp_then_its_function_called_with_cotangents(x, v):
    out, vjp_fn = torch.func.vjp(lambda a: a.sin() * a, x)
    (g,) = vjp_fn(v)
    return out, g


@case(CASES, call(T(3), T(3, 4)), fullgraph=True)
def vjp_of_a_module_call_two_primals(w, x):
    out, vjp_fn = torch.func.vjp(lambda a, b: LAYER(b * a.sum()), w, x)
    return vjp_fn(torch.ones_like(out))


@case(CASES, call(T(3, 4)), fullgraph=True)
def vmap_with_out_dims_per_output(x):
    return torch.vmap(lambda a: (a * 2, a.sum()), out_dims=(1, 0))(x)


@case(CASES, call(T(5, 4)), fullgraph=True)
def vmap_in_chunks(x):
    return torch.vmap(lambda a: a.cos() * a.sum(), chunk_size=2)(x)


@case(CASES, call(T(3, 4), T(3, 4)), fullgraph=True)
def vmap_over_a_dict_with_a_keyword_argument(a, b):
    return torch.vmap(lambda d, scale=1.0: d["a"] * d["b"] * scale)({"a": a, "b": b}, scale=3.0)


def keyword_func(x, func=None):
    return func(x)


@case(CASES, call(T(3)), fullgraph=True)
def partial_with_a_func_keyword(x):
    # vmap's out_dims check makes partial(check, func=f, ...): `func=` is a keyword, not partial's own
    return functools.partial(keyword_func, func=torch.sin)(x)


NET = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
NORM = torch.nn.BatchNorm1d(3).eval()


@case(CASES, call(T(5, 3), T(4, 3)), call(T(5, 3), T(4, 3)), compiles="C.", fullgraph=True)
def functional_call_replacing_one_parameter(x, w):
    return torch.func.functional_call(NET, {"0.weight": w}, (x,)) * 2


@case(CASES, call(T(5, 3)), fullgraph=True)
def functional_call_with_a_dict_made_in_the_trace(x):
    params = {name: p * 0.5 for name, p in NET.named_parameters()}
    return torch.func.functional_call(NET, params, x)


@case(CASES, call(T(5, 3), T(3)), fullgraph=True)
def functional_call_with_a_tuple_of_dicts_and_a_buffer(x, mean):
    return torch.func.functional_call(NORM, ({"running_mean": mean}, {"weight": mean.abs()}), (x,))


@case(CASES, call(T(5, 3)), fullgraph=True)
def grad_of_a_loss_through_functional_call(x):
    params = dict(NET.named_parameters())
    return torch.func.grad(lambda p: torch.func.functional_call(NET, p, (x,)).pow(2).mean())(params)


@case(CASES, call(T(2, 4, 3), T(5, 3)), fullgraph=True)
def vmap_of_functional_call_over_stacked_weights(ws, x):
    return torch.vmap(lambda w: torch.func.functional_call(NET, {"0.weight": w}, (x,)))(ws)


Pair = collections.namedtuple("Pair", "a b")


@case(CASES, call(T(3)), fullgraph=True)
def pytree_flatten_unflatten_and_map_on_traced_values(x):
    # what torch.func's transforms do with their inputs and outputs, on the trace's own trackers
    leaves, spec = pytree.tree_flatten((x, [x * 2, None], {"k": x + 1}, Pair(x, 3), x.max(0)))
    rebuilt = pytree.tree_unflatten([leaf * 2 if isinstance(leaf, torch.Tensor) else leaf for leaf in leaves], spec)
    mapped = pytree.tree_map(lambda t: t + 1 if isinstance(t, torch.Tensor) else t, [x, (x, 2)])
    return rebuilt, len(leaves), mapped, pytree.tree_leaves({"a": (x, None)})


@case(CASES, call(T(4), T(4)), call(T(4), T(4)), compiles="C.", fullgraph=True)
def jvp_of_a_function(x, t):
    return torch.func.jvp(lambda a: a.sin() * a, (x,), (t,))


@case(CASES, call(T(4), T(3, 4)), fullgraph=True)
def jvp_with_two_primals_and_aux(w, x):
    def f(a, b):
        y = LAYER(b * a)
        return y.sum(0), y.detach()
    return torch.func.jvp(f, (w, x), (torch.ones_like(w), torch.zeros_like(x)), has_aux=True)


test_functorch = parametrize(CASES)


def prints_then_sins(r):
    print("in the transformed function")
    return r.sin()


@break_case(BREAKS, call(T(3, 4)), call(T(3, 4)), compiles="C.")
def graph_break_inside_vmap(x):
    # as Dynamo: the vmap call runs eagerly (the graph breaks before it), and the function it
    # calls under the eager transform is not compiled on its own; functorch's state is left as found
    y = x * 2
    return torch.vmap(prints_then_sins)(y) + 1


test_functorch_breaks = parametrize_breaks(BREAKS)


def branches_on_data(r):
    return r.sin() if r.sum() > 0 else r


@pytest.mark.parametrize("transform", ["vmap", "grad", "jvp"])
def test_a_trace_stopped_inside_a_transform_leaves_functorchs_state_as_it_found_it(transform):
    def f(x):
        if transform == "jvp":
            return torch.func.jvp(branches_on_data, (x,), (x,))
        if transform == "grad":
            return torch.func.grad(lambda r: branches_on_data(r).sum())(x)
        return torch.vmap(branches_on_data)(x)

    tracer.reset()
    with pytest.raises(tracer.Unsupported, match="data-dependent branch"):
        tracer.compile(f, fullgraph=True)(T(3, 4))
    assert torch._C._functorch.get_dynamic_layer_stack_depth() == 0
    assert torch._C._functorch.get_inplace_requires_grad_allowed() is False
    assert torch._C._autograd._saved_tensors_hooks_is_enabled()
    assert torch.func.jvp.__globals__["JVP_NESTING"] == 0
    assert torch.autograd.forward_ad._current_level == -1


def test_linearize_which_dynamo_does_not_trace_breaks_naming_it_and_runs_as_eager():
    """linearize asks torch._dynamo.disallow_in_graph first: Dynamo breaks there, and so does Standin."""
    def f(x):
        out, jvp_fn = torch.func.linearize(torch.sin, x)
        return out, jvp_fn(torch.ones_like(x))

    tracer.reset()
    x = T(4)
    with pytest.raises(tracer.Unsupported, match=r"torch\.func\.linearize\(\): a functorch transform Dynamo "
                                                 r"does not trace either"):
        tracer.compile(f, fullgraph=True)(x)
    for got, want in zip(tracer.compile(f)(x), f(x)):
        torch.testing.assert_close(got, want)


@pytest.mark.parametrize("how", ["strict", "unknown name"])
def test_functional_call_not_modelled_breaks_naming_it_and_equals_eager(how):
    def f(x):
        if how == "strict":
            return torch.func.functional_call(LAYER, dict(LAYER.named_parameters()), (x,), strict=True)
        return torch.func.functional_call(LAYER, {"scale": x}, (x,))

    tracer.reset()
    x = T(4)
    with pytest.raises(tracer.Unsupported, match=r"torch\.func\.functional_call\(\)"):
        tracer.compile(f, fullgraph=True)(x)
    torch.testing.assert_close(tracer.compile(f)(x), f(x))


class SumsItsParameters(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        return x * sum(p.sum() for p in self.parameters()) + self.w


SUMS = SumsItsParameters()


def test_functional_call_of_a_module_listing_its_parameters_breaks_rather_than_reading_the_old_ones():
    """parameters() inside the call would list the module's own tensors, not the swapped-in one."""
    def f(x, w):
        return torch.func.functional_call(SUMS, {"w": w}, (x,))

    tracer.reset()
    x, w = T(3), T(3)
    with pytest.raises(tracer.Unsupported, match=r"parameters inside torch\.func\.functional_call"):
        tracer.compile(f, fullgraph=True)(x, w)
    torch.testing.assert_close(tracer.compile(f)(x, w), f(x, w))


def test_a_compiled_transform_called_under_an_eager_vmap_runs_eagerly_and_equals_eager():
    """Its graph holds functorch levels of a trace outside any transform: under an eager vmap the tensor
    guards fail (the dispatch keys differ), and the frame is not compiled there, as in Dynamo."""
    def f(x):
        return torch.func.grad(lambda a: (a.sin() * a).sum())(x)

    tracer.reset()
    compiled = tracer.compile(f)
    x, xs = T(4), T(2, 4)
    torch.testing.assert_close(compiled(x), f(x))
    torch.testing.assert_close(torch.vmap(lambda b: compiled(x) * b)(xs), torch.vmap(lambda b: f(x) * b)(xs))
    assert [event.kind for event in compiled.compile_events][-2:] == ["recompile", "eager_fallback"]
    assert "torch.func.vmap running eagerly" in compiled.compile_events[-1].reason


# ---- jacrev, jacfwd, hessian: their `functools.wraps` of the function they make is traced -------------

JACOBIANS: list = []


@case(JACOBIANS, call(T(4)), call(T(4)), compiles="C.", fullgraph=True)
def jacrev_of_a_torch_function(x):
    return torch.func.jacrev(torch.sin)(x)


@case(JACOBIANS, call(T(3), T(3)), fullgraph=True)
def jacrev_two_argnums_with_aux(a, b):
    jac, aux = torch.func.jacrev(lambda p, q: ((p * q).sin(), p.sum()), argnums=(0, 1), has_aux=True)(a, b)
    return jac, aux


@case(JACOBIANS, call(T(4)), fullgraph=True)
def jacfwd_of_a_module_call(x):
    return torch.func.jacfwd(LAYER)(x)


@case(JACOBIANS, call(T(3)), fullgraph=True)
def jacfwd_of_a_nested_function_with_its_name(x):
    def cubed(r):
        return r ** 3
    jac_fn = torch.func.jacfwd(cubed)
    return jac_fn(x), jac_fn.__name__, jac_fn.__wrapped__ is not None


@case(JACOBIANS, call(T(3)), fullgraph=True)
def hessian_of_a_function(x):
    return torch.func.hessian(lambda r: (r.sin() * r).sum())(x)


@case(JACOBIANS, call(T(2, 3)), fullgraph=True)
def vmap_of_jacrev_per_sample(xs):
    return torch.vmap(torch.func.jacrev(lambda r: r.cos() * r.sum()))(xs)


test_jacobians = parametrize(JACOBIANS)
