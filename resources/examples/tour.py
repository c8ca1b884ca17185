"""A few minutes with Standin: the seed's story in one script.

1. `scale` is read from a global config object: it is baked into the graph as a
   constant, and a guard `G['cfg'].scale == 2` remembers the premise.
2. `normalize` is a helper you wrote: the call is an entrance, not a break — the
   tracer dives in and the graph stays one piece.
3. `Block` is an nn.Module: its parameters become graph inputs named after their
   Source, `L['self']._modules['fc']._parameters['weight']`.
4. `report` prints: print() cannot go into a graph, so the graph breaks at the
   call; `report` runs as a frame of its own and the rest of `step` continues in
   a resume function that is compiled on its first call.
5. After `cfg.scale = 3`, the next call fails its guard and recompiles; open the
   guard editor to try another value and see, before calling, what would happen.
"""
import torch


class Config:
    def __init__(self):
        self.scale = 2
        self.eps = 1e-5


cfg = Config()


def normalize(x):
    return (x - x.mean()) / (x.std() + cfg.eps)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(normalize(x))) * cfg.scale


block = Block()


def report(y):
    print("activations:", tuple(y.shape))


@torch.compile(backend="eager")
def step(x, n):
    y = block(x) + n
    report(y)          # a graph break: print() cannot go into a graph
    return y.sum(dim=-1)


torch.manual_seed(0)
x = torch.randn(4, 8)
step(x, 1)
step(torch.randn(4, 8), 1)   # the same guards hold: a cache hit
cfg.scale = 3                # the premise G['cfg'].scale == 2 breaks ...
step(x, 1)                   # ... so this call recompiles
