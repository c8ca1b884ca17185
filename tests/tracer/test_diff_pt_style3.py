"""Differential cases in the style of PyTorch's test/dynamo test_misc and test_repros (small functions,
fullgraph=True, a counting backend): the constructs where Standin broke or answered wrongly."""
import torch

from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(3)), call(T(3).long()), call(T(3).double()), compiles="CCC", fullgraph=True)
def isinstance_of_legacy_tensor_types(x):
    # torch.FloatTensor and kin check the tensor's dtype and device, not its class
    floaty = isinstance(x, torch.FloatTensor)
    either = isinstance(x, (torch.LongTensor, torch.DoubleTensor))
    return (x + 1 if floaty else x - 1), floaty, either, isinstance(x, torch.IntTensor)


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def legacy_tensor_constructors(x):
    # a list of 0-d tensors is stacked first, as Dynamo does; a size makes an uninitialised tensor
    a, b = x.sum(), x.max()
    return torch.LongTensor([a.long(), b.long()]), torch.FloatTensor([a, b]) + 1, torch.FloatTensor(3).shape


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def tensor_of_a_list_holding_tensors(x):
    # torch's reference tensor() reads the items in the graph (torch.tensor cannot read fake data)
    a, b = x.sum(), x.max()
    return torch.tensor([a, b]) * 2, torch.tensor([x[0], 2.0, x[1]])


test_pt_style3 = parametrize(CASES)
