"""A script that never seeds: random weights and inputs. Both engines' runs must draw the same ones."""
import torch

layer = torch.nn.Linear(4, 3)


@torch.compile(backend="eager")
def f(x):
    return torch.relu(layer(x))


print(f(torch.randn(2, 4)))
