"""`optimizer.step()` inside the compiled function, traced as Dynamo traces it.

Dynamo breaks the graph at the call (the `torch._dynamo.graph_break()` in torch.optim's
grad-mode wrapper), leaves the wrapper frames without ops and compiles the optimizer's own
`step` frame into one graph: `_init_group` (the lazy state creation) runs for real at trace
time and the update's tensor ops are the graph, the parameters, gradients and state read where
they live.  Checked over several steps (the state is created on the first, read after), against
eager (parameters, losses) and Dynamo (graphs, each graph's op list).

Dynamo decomposes `Tensor.addcmul_(a, b, value=v)` into `torch.mul`, `prims.fma`, `Tensor.copy_`,
`_foreach_lerp_` through `_foreach_addcmul_`, and so does Standin (`tracer/variables/decompositions.py`):
the op lists are compared as they are, and Adagrad's tensor `value=` traces instead of breaking.
"""
from __future__ import annotations

import pytest
import torch
import torch._dynamo
from differential import CountingBackend as Recorder, T, call, case, parametrize

import tracer
from tracer.explain import op_name


def _ops(gm) -> list[str]:
    return [op_name(node) for node in gm.graph.nodes if node.op.startswith("call")]


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))


OPTIMIZERS = {
    "sgd": lambda params: torch.optim.SGD(params, lr=0.1),
    "sgd_momentum": lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=0.01),
    "adamw": lambda params: torch.optim.AdamW(params, lr=0.01),
    "rmsprop": lambda params: torch.optim.RMSprop(params, lr=0.01),
    "radam": lambda params: torch.optim.RAdam(params, lr=0.01),
    "adagrad": lambda params: torch.optim.Adagrad(params, lr=0.01),
    "adamw_foreach": lambda params: torch.optim.AdamW(params, lr=0.01, foreach=True),
    "adagrad_foreach": lambda params: torch.optim.Adagrad(params, lr=0.01, foreach=True),
    "nadam_foreach": lambda params: torch.optim.NAdam(params, lr=0.01, foreach=True),
}


def _run(who: str, make_optimizer, whole_step: bool, steps: int = 3):
    """(losses and parameters after each step, graphs) of a training loop whose compiled part is
    the optimizer step alone, or the whole step (zero_grad, forward, loss, backward, step)."""
    model, recorder = _model(), Recorder()
    opt = make_optimizer(model.parameters())
    x, y = torch.randn(5, 4), torch.randn(5, 2)

    def optimizer_step():
        opt.step()

    def train_step(x, y):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    fn = train_step if whole_step else optimizer_step
    if who == "standin":
        tracer.reset()
        fn = tracer.compile(fn, backend=recorder)
    elif who == "dynamo":
        torch._dynamo.reset()
        fn = torch.compile(fn, backend=recorder, dynamic=False)
    seen = []
    for _ in range(steps):
        if whole_step:
            seen.append(fn(x, y).detach())
        else:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            fn()
        seen.extend(p.detach().clone() for p in model.parameters())
    return seen, recorder.graphs


CASES = [(name, False) for name in OPTIMIZERS] + [("adamw", True)]  # AdamW is torch's Adam class


@pytest.mark.parametrize(("name", "whole_step"), CASES,
                         ids=[f"{n}-{'whole_training_step' if w else 'step_alone'}" for n, w in CASES])
def test_optimizer_step_traces_as_dynamo(name, whole_step):
    eager, _ = _run("eager", OPTIMIZERS[name], whole_step)
    ours, our_graphs = _run("standin", OPTIMIZERS[name], whole_step)
    _, their_graphs = _run("dynamo", OPTIMIZERS[name], whole_step)
    for mine, expected in zip(ours, eager, strict=True):
        torch.testing.assert_close(mine, expected)
    assert len(our_graphs) == len(their_graphs), f"{len(our_graphs)} graph(s), Dynamo {len(their_graphs)}"
    for i, (gm, reference) in enumerate(zip(our_graphs, their_graphs)):
        assert _ops(gm) == _ops(reference), f"graph {i}: op list differs from Dynamo's"
    assert any(op in _ops(gm) for gm in our_graphs for op in ("Tensor.add_", "Tensor.copy_", "torch._foreach_add_")), \
        "the update is not in a graph"


def _loop(compiled: bool, rounds: int, before_step):
    """Parameters after `rounds` steps of `holder['opt'].step()` (compiled or not); `before_step(round,
    holder, model)` runs after backward, before each step."""
    model = _model()
    holder = {"opt": torch.optim.Adam(model.parameters(), lr=0.01)}
    x = torch.randn(5, 4)

    def step():
        holder["opt"].step()

    fn = tracer.compile(step) if compiled else step
    for round_ in range(rounds):
        holder["opt"].zero_grad()
        model(x).sum().backward()
        before_step(round_, holder, model)
        fn()
    return [p.detach().clone() for p in model.parameters()]


def _same_as_eager(rounds: int, before_step) -> None:
    tracer.reset()
    for mine, expected in zip(_loop(True, rounds, before_step), _loop(False, rounds, before_step), strict=True):
        torch.testing.assert_close(mine, expected)


def test_a_fresh_optimizer_does_not_reuse_the_traced_state():
    """A step traced with the state of every parameter; a fresh optimizer (no state yet) over the
    same model must not reuse that graph: it is compiled anew and stays equal to eager."""
    def renew(round_, holder, model):
        if round_ == 2:
            holder["opt"] = torch.optim.Adam(model.parameters(), lr=0.01)
    _same_as_eager(4, renew)


def test_a_parameter_without_a_gradient_is_left_out_and_guarded():
    def drop_one_grad(round_, holder, model):
        if round_ == 0:  # the first step without it; later ones with it
            model[2].bias.grad = None
    _same_as_eager(3, drop_one_grad)


def test_an_error_of_init_group_is_raised_as_eager_raises_it():
    """Adam refuses sparse gradients inside `_init_group`: run for real at trace time, its error must
    reach the caller as eager's does, not be taken for a tracer failure."""
    embedding = torch.nn.Embedding(10, 3, sparse=True)
    opt = torch.optim.Adam(embedding.parameters(), lr=0.01)
    embedding(torch.tensor([1, 2])).sum().backward()

    def step():
        opt.step()

    tracer.reset()
    with pytest.raises(RuntimeError, match="does not support sparse gradients"):
        tracer.compile(step)()


# ---- what training loops call beside the optimizer -----------------------------------------------

def test_clip_grad_norm_traces_as_dynamo():
    """clip_grad_norm_ groups the gradients by device and dtype (torch._C's grouping, answered from
    the fake tensors) and unpacks each `(device, dtype)` key, then one foreach norm and mul."""
    results = {}
    for who in ("eager", "standin", "dynamo"):
        model, recorder = _model(), Recorder()
        model(torch.randn(5, 4)).sum().backward()

        def clip(params):
            return torch.nn.utils.clip_grad_norm_(params, 0.1)

        fn = clip
        if who == "standin":
            tracer.reset()
            fn = tracer.compile(clip, backend=recorder)
        elif who == "dynamo":
            torch._dynamo.reset()
            fn = torch.compile(clip, backend=recorder, dynamic=False)
        results[who] = ([fn(tuple(model.parameters())), *(p.grad.clone() for p in model.parameters())], [_ops(g) for g in recorder.graphs])
    for mine, expected in zip(results["standin"][0], results["eager"][0], strict=True):
        torch.testing.assert_close(mine, expected)
    assert results["standin"][1] == results["dynamo"][1]
    assert len(results["standin"][1]) == 1


TUPLE_KEYS: list = []


@case(TUPLE_KEYS, call(T(3)))
def dict_with_tuple_keys_unpacked_in_a_loop(x):
    table = {(torch.float32, 2): x, (torch.float64, 3): x.double()}
    total = 0
    for (dtype, scale), value in table.items():
        total = total + (value * scale).to(dtype).sum()
    return total


test_tuple_keys = parametrize(TUPLE_KEYS)
