"""A script that never compiles anything: eager torch only."""
import torch

x = torch.arange(4.0)
print((x * 2).sum().item())
