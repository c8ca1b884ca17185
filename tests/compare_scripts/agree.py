"""Both engines agree: one frame, one graph, no break; the second call hits the cache."""
import torch


@torch.compile(backend="eager")
def f(x, y):
    z = torch.sin(x) * y
    return z.relu() + 1


x = torch.linspace(-1, 1, 6)
print(f(x, 2.0))
print(f(x + 1, 2.0))
