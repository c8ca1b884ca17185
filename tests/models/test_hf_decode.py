"""Generation-style decode steps: one new token through a decoder with a KV cache filled by an eager
prefill, against eager and Dynamo.

The compiled step reads the cache (a DynamicCache grows by `torch.cat`, a StaticCache writes in place
at `cache_position`) and must leave it as eager does; Standin makes Dynamo's graphs, each with
Dynamo's op list (OPT under a StaticCache breaks where Dynamo does: `torch.ones` of a data-dependent
length, then a slice bound from a tensor).
"""
from __future__ import annotations

import pytest
import torch
import torch._dynamo

import tracer
from test_hf_zoo import Recorder, ops_of, tensors_of
from zoo import build

DECODERS = ["gpt2", "llama", "mistral", "qwen2", "gemma", "phi", "opt", "gpt_neox", "falcon", "gptj"]
RUNS = [(name, kind) for kind in ("dynamic", "static") for name in DECODERS]


def _prefilled(name: str, kind: str):
    """A fresh model, the next token after an eager prefill of 8, and the cache that prefill filled."""
    import transformers
    model, (ids,), _ = build(name)
    if kind == "dynamic":
        cache = transformers.DynamicCache(config=model.config)
    else:
        cache = transformers.StaticCache(config=model.config, max_cache_len=16)
    with torch.no_grad():
        out = model(ids, cache=cache, use_cache=True)
    return model, out.logits[:, -1:].argmax(-1), cache, ids.shape[1]


def _step(name: str, kind: str, compiler) -> list[torch.Tensor]:
    """The logits of one decode step and every key and value in the cache after it."""
    model, token, cache, seen = _prefilled(name, kind)
    call = compiler(model) if compiler is not None else model
    kwargs = {"cache": cache, "use_cache": True}
    if kind == "static":
        kwargs["cache_position"] = torch.tensor([seen])
    with torch.no_grad():
        out = call(token, **kwargs)
    cached = [t for layer in cache.layers for t in (layer.keys, layer.values)]
    return [t.detach().clone() for t in tensors_of(out.logits) + cached]


def _standin(recorder):
    tracer.reset()
    return lambda model: tracer.compile(model, backend=recorder)


def _dynamo(recorder):
    torch._dynamo.reset()
    return lambda model: torch.compile(model, backend=recorder, dynamic=False)


@pytest.mark.parametrize("name,kind", RUNS, ids=[f"{n}-{k}" for n, k in RUNS])
def test_decode_step_traces_as_dynamo(name, kind):
    eager = _step(name, kind, None)
    ours, theirs = Recorder(), Recorder()
    for who, compiler in (("Standin", _standin(ours)), ("Dynamo", _dynamo(theirs))):
        got = _step(name, kind, compiler)
        assert len(got) == len(eager), f"{who}: outputs differ in number"
        for i, (a, e) in enumerate(zip(got, eager)):
            torch.testing.assert_close(a, e, msg=lambda m, i=i, who=who: f"{who} tensor {i}: {m}")
    assert [ops_of(gm) for gm in ours.graphs] == [ops_of(gm) for gm in theirs.graphs], \
        f"{len(ours.graphs)} graph(s), Dynamo {len(theirs.graphs)}, or their op lists differ"
