"""Dynamic shapes on real models: a second call at another sequence length or batch, under
`dynamic=None` (automatic dynamic: the second size recompiles to one graph with symbolic sizes) and
`dynamic=True` (one graph serves both), against eager and Dynamo: outputs, graphs, each graph's
op list and which of its inputs are symbols.
"""
from __future__ import annotations

import pytest
import torch
import torch._dynamo

import tracer
from test_hf_zoo import Recorder, assert_same, ops_of, tensors_of
from zoo import build


def _resized(args: tuple, dim: int) -> tuple:
    """The same inputs at another size along `dim` (the sequence length of token ids, else the batch)."""
    grown = []
    for a in args:
        if isinstance(a, torch.Tensor):
            shape = list(a.shape)
            shape[dim] += 4 if dim else 1
            a = torch.randint(0, int(a.max()) + 1, shape) if a.dtype == torch.long else torch.randn(shape)
        grown.append(a)
    return tuple(grown)


# An architecture per code path that met symbolic sizes differently (torch.Size arithmetic in GPT-2's
# Conv1D, MobileBERT's pad, DeBERTa's relative positions, T5's position buckets), with the dimension that
# changes between the calls: 1 the sequence length, 0 the batch (the rest of the zoo under dynamic=True was
# measured equal once, README). BART under dynamic=True: config deepcopies on symbolic floats; Wav2Vec2: its
# resume function's graph inputs in order.
DYNAMIC = [("gpt2", 1, None), ("llama", 1, None), ("mobilebert", 1, None), ("deberta_v2", 1, None),
           ("t5", 1, None), ("vit", 0, None), ("bert", 1, True), ("mobilebert", 1, True), ("deberta_v2", 1, True),
           ("vit", 0, True), ("bart", 1, True), ("wav2vec2", 0, True)]


def _run_dynamic(name: str, compiler, dim: int) -> list[list[torch.Tensor]]:
    """Two eval calls of one fresh model, the second at another size: each call's outputs."""
    model, args, _ = build(name)
    call = compiler(model) if compiler is not None else model
    outs = []
    for inputs in (args, _resized(args, dim)):
        torch.manual_seed(1)
        outs.append([t.detach() for t in tensors_of(call(*inputs))])
    return outs


@pytest.mark.parametrize("name,dim,dynamic", DYNAMIC,
                         ids=[f"{n}-dynamic_{'true' if d else 'none'}" for n, _, d in DYNAMIC])
def test_dynamic_shapes_as_dynamo(name, dim, dynamic):
    """dynamic=None: the second size recompiles to one graph with symbolic sizes; dynamic=True: one
    graph serves both. Both ways the graphs, their op lists and graph inputs equal Dynamo's."""
    eager = _run_dynamic(name, None, dim)
    ours, theirs = Recorder(), Recorder()
    tracer.reset()
    mine = _run_dynamic(name, lambda m: tracer.compile(m, backend=ours, dynamic=dynamic), dim)
    torch._dynamo.reset()
    _run_dynamic(name, lambda m: torch.compile(m, backend=theirs, dynamic=dynamic), dim)
    for call, (outs, expected) in enumerate(zip(mine, eager)):
        assert_same({"out": outs}, {"out": expected}, f"Standin call {call}")
    assert len(ours.graphs) == len(theirs.graphs), f"{len(ours.graphs)} graph(s), Dynamo {len(theirs.graphs)}"
    for i, (gm, reference) in enumerate(zip(ours.graphs, theirs.graphs)):
        assert ops_of(gm) == ops_of(reference), f"graph {i}: op list differs from Dynamo's"
        assert _inputs(gm) == _inputs(reference), f"graph {i}: graph inputs differ from Dynamo's"


def _inputs(gm: torch.fx.GraphModule) -> list[str]:
    """Which graph inputs are symbols and which tensors, in order."""
    return ["SymInt" if isinstance(node.meta.get("example_value"), torch.SymInt) else "Tensor"
            for node in gm.graph.nodes if node.op == "placeholder"]
