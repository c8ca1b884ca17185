"""Hugging Face architectures, each traced in eval and in a training step, against eager and Dynamo.

For every architecture of the zoo (decoder-only, encoder-only, encoder-decoder, vision, audio):
the compiled model's outputs equal eager's; in training, the loss, every gradient after
`backward()` and every parameter after an AdamW step equal eager's too (dropout is on: the
graph draws the same random numbers in the same order); and Standin makes as many graphs
as `torch.compile(backend=..., dynamic=False)` on the same call, each with Dynamo's op list.
"""
from __future__ import annotations

import numpy
import pytest
import torch
import torch._dynamo

import tracer
from tracer.explain import op_name
from zoo import ARCHS, build


def ops_of(gm: torch.fx.GraphModule) -> list[str]:
    return [op_name(node) for node in gm.graph.nodes if node.op.startswith("call")]


class Recorder:
    """A backend that keeps every graph it is given and runs it as it is."""

    def __init__(self):
        self.graphs: list[torch.fx.GraphModule] = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward


def tensors_of(out) -> list[torch.Tensor]:
    """The tensors of a model output (a ModelOutput, a tuple), in order, nested ones included."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (list, tuple)):
        return [t for item in out for t in tensors_of(item)]
    return []


def _run(name: str, compiler, *, train: bool, prepare=None):
    """One call (and, in training, its backward and an AdamW step) of a fresh model: what it gave."""
    model, args, train_kwargs = build(name, train=train)
    if prepare is not None:
        prepare(model)
    call = compiler(model) if compiler is not None else model
    torch.manual_seed(1)  # dropout draws the same numbers in every run
    numpy.random.seed(1)  # and Wav2Vec2's SpecAugment masks (drawn with NumPy) are the same
    out = call(*args, **(train_kwargs if train else {}))
    result = {"out": [t.detach() for t in tensors_of(out)]}
    if train:
        out.loss.backward()
        result["grads"] = {k: p.grad.clone() for k, p in model.named_parameters() if p.grad is not None}
        torch.optim.AdamW(model.parameters(), lr=1e-2).step()
        result["params"] = {k: p.detach().clone() for k, p in model.named_parameters()}
    return result


def _standin(recorder):
    tracer.reset()
    return lambda model: tracer.compile(model, backend=recorder)


def _dynamo(recorder):
    torch._dynamo.reset()
    return lambda model: torch.compile(model, backend=recorder, dynamic=False)


def assert_same(actual: dict, expected: dict, who: str) -> None:
    assert len(actual["out"]) == len(expected["out"]), f"{who}: outputs differ in number"
    for i, (a, e) in enumerate(zip(actual["out"], expected["out"])):
        torch.testing.assert_close(a, e, msg=lambda m, i=i: f"{who} output {i}: {m}")
    for part in ("grads", "params"):
        if part in expected:
            assert actual[part].keys() == expected[part].keys(), f"{who}: {part} differ in which parameters"
            for key, value in expected[part].items():
                torch.testing.assert_close(actual[part][key], value, msg=lambda m, k=key: f"{who} {part} {k}: {m}")


RUNS = [(arch, train) for arch in ARCHS if arch.suite for train in (False, True) if arch.train or not train]


@pytest.mark.parametrize("arch,train", RUNS, ids=[f"{a.name}-{'train' if t else 'eval'}" for a, t in RUNS])
def test_traces_as_dynamo(arch, train):
    _assert_traces_as_dynamo(arch.name, train=train)


def _assert_traces_as_dynamo(name: str, *, train: bool, prepare=None) -> list:
    eager = _run(name, None, train=train, prepare=prepare)
    ours, theirs = Recorder(), Recorder()
    assert_same(_run(name, _standin(ours), train=train, prepare=prepare), eager, "Standin")
    assert_same(_run(name, _dynamo(theirs), train=train, prepare=prepare), eager, "Dynamo")
    assert len(ours.graphs) == len(theirs.graphs), \
        f"{len(ours.graphs)} graph(s), Dynamo {len(theirs.graphs)}"
    for i, (gm, reference) in enumerate(zip(ours.graphs, theirs.graphs)):
        assert ops_of(gm) == ops_of(reference), f"graph {i}: op list differs from Dynamo's"
    return ours.graphs


def _checkpointed(model) -> None:
    """Checkpointing on, dropout at p=0: under the higher-order op a layer's recompute in backward
    draws other dropout masks than eager's checkpoint does, in Dynamo's graphs as in ours."""
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0


@pytest.mark.parametrize("name", ["gpt2", "llama", "bert"])
def test_training_with_gradient_checkpointing_traces_as_dynamo(name):
    """Each layer a tag_activation_checkpoint op, the embeddings' requires_grad_ hook traced through."""
    graphs = _assert_traces_as_dynamo(name, train=True, prepare=_checkpointed)
    assert any("tag_activation_checkpoint" in op for gm in graphs for op in ops_of(gm)), [ops_of(gm) for gm in graphs]

