"""The seed's story in a few lines: a global config baked in as a constant.

Run it through Standin (`make run`) to see the graph, the guards, and the
recompile after `cfg.scale` changes.
"""
import torch


class Config:
    def __init__(self):
        self.scale = 2
        self.shift = 0.5


cfg = Config()


@torch.compile(backend="eager")
def f(x, n):
    y = x * cfg.scale + n
    return torch.relu(y - cfg.shift), y.shape[0]


x = torch.randn(4)
print(f(x, 3))
print(f(torch.randn(4), 3))   # same guards: a cache hit
cfg.scale = 3                 # the premise `G['cfg'].scale == 2` breaks
print(f(x, 3))                # ... so this call recompiles
