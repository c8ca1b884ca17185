"""Hand-written models for what cannot be installed here (torchvision's wheel does not load beside
the CPU torch): ResNet-style blocks, nn.TransformerEncoder and nn.MultiheadAttention, LSTM and
GRU (which Dynamo leaves to run as they are: no graph, on either side), and a training loop
with torch.optim whose losses and parameters stay equal to eager's."""
from __future__ import annotations

import pytest
import torch
import torch._dynamo
from torch import nn

import tracer
from test_hf_zoo import Recorder, ops_of


class BasicBlock(nn.Module):
    """torchvision's ResNet basic block: conv-bn-relu-conv-bn, a projected shortcut, relu."""

    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + identity)


class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True))
        self.layers = nn.Sequential(BasicBlock(8, 8), BasicBlock(8, 16, stride=2))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.layers(self.stem(x))), 1))


class LossInForward(nn.Module):
    """Modules built inside forward: an activation and the loss, as HF heads do."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)

    def forward(self, x, y):
        logits = nn.GELU()(self.fc(x))
        return nn.CrossEntropyLoss()(logits, y), logits


def _models():
    torch.manual_seed(0)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True), 2)
    q = torch.randn(2, 5, 16)
    return {
        "resnet_blocks": (TinyResNet(), (torch.randn(2, 3, 16, 16),)),
        "transformer_encoder": (encoder, (torch.randn(2, 5, 16),)),
        "multihead_attention": (nn.MultiheadAttention(16, 2, batch_first=True), (q, q, q)),
        "lstm": (nn.LSTM(8, 16, batch_first=True), (torch.randn(2, 5, 8),)),
        "gru": (nn.GRU(8, 16, num_layers=2), (torch.randn(5, 2, 8),)),
    }


def _leaves(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in _leaves(item)]
    return []


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("name", list(_models()))
def test_handwritten_model_traces_as_dynamo(name, train):
    graphs = {}
    outs = {}
    for who, compile_ in (("eager", None), ("standin", tracer.compile), ("dynamo", torch.compile)):
        model, args = _models()[name]
        model.train(train)
        recorder = Recorder()
        if who == "standin":
            tracer.reset()
            model = tracer.compile(model, backend=recorder)
        elif who == "dynamo":
            torch._dynamo.reset()
            model = torch.compile(model, backend=recorder, dynamic=False)
        outs[who] = [t.detach() for t in _leaves(model(*args))]
        graphs[who] = recorder.graphs
    for ours, expected in zip(outs["standin"], outs["eager"], strict=True):
        torch.testing.assert_close(ours, expected)
    assert [ops_of(g) for g in graphs["standin"]] == [ops_of(g) for g in graphs["dynamo"]]


def test_rnn_modules_run_as_they_are_with_the_reason():
    lstm = nn.LSTM(4, 4)
    explained = tracer.explain(lstm)(torch.randn(3, 1, 4))
    # as Dynamo: the frame calling the module (torch's own) breaks at the call, and nothing is left to compile
    reasons = [*explained.eager_frames, *(b.reason for b in explained.graph_breaks)]
    assert explained.graph_count == 0 and any("RNN module" in reason for reason in reasons), reasons


def test_modules_built_in_forward_trace_as_dynamo():
    x, y = torch.randn(4, 8), torch.tensor([0, 1, 2, 1])
    results = {}
    for who in ("standin", "dynamo"):
        torch.manual_seed(0)
        model, recorder = LossInForward(), Recorder()
        tracer.reset()
        torch._dynamo.reset()
        compiled = tracer.compile(model, backend=recorder) if who == "standin" else \
            torch.compile(model, backend=recorder, dynamic=False)
        results[who] = (compiled(x, y), [ops_of(g) for g in recorder.graphs])
    torch.testing.assert_close(results["standin"][0], results["dynamo"][0])
    assert results["standin"][1] == results["dynamo"][1]


@pytest.mark.parametrize("optimizer", [torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW])
def test_training_loop_with_torch_optim_stays_equal_to_eager(optimizer):
    """Three steps: the compiled forward and loss, then backward() and the optimizer's step
    (run as they are); losses and parameters equal eager's after every step."""
    def train(compile_):
        torch.manual_seed(0)
        model = TinyResNet()
        opt = optimizer(model.parameters(), lr=1e-2)
        forward = compile_(model) if compile_ else model
        x, y = torch.randn(4, 3, 16, 16), torch.tensor([0, 1, 2, 3])
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(forward(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        return losses, [p.detach() for p in model.parameters()]

    tracer.reset()
    (ours, our_params), (eager, eager_params) = train(tracer.compile), train(None)
    for a, b in zip(ours + our_params, eager + eager_params, strict=True):
        torch.testing.assert_close(a, b)
