"""A script that raises under one engine only: it fails when torch.compile handed it Dynamo's function."""
import torch


@torch.compile(backend="eager")
def f(x):
    return x.cos() + 1


print(f(torch.ones(2)))
if not type(f).__module__.startswith("tracer"):  # Standin hands back a tracer.CompiledFunction
    raise RuntimeError("this script refuses to run under real Dynamo")
print("done")
