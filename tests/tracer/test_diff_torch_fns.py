"""Differential cases: torch.* functions, torch.nn.functional.*, tensor methods."""
import torch
import torch.nn.functional as F

from differential import T, call, case, parametrize, set_global

CASES: list = []

LIN_W = T(5, 4)
LIN_B = T(5)


@case(CASES, call(T(3, 4)), call(T(3, 4)), call(T(3, 4, dtype=torch.float64)), compiles="C.C")
def torch_unary_chain(x):
    return torch.tanh(torch.exp(torch.sin(x)) - torch.cos(x)) + torch.abs(x).sqrt()


@case(CASES, call(T(2, 3), T(2, 3)), call(T(2, 3), T(2, 3)), call(T(4, 3), T(4, 3)), compiles="C.C")
def torch_cat_stack_kwargs(x, y):
    a = torch.cat([x, y], dim=0)
    b = torch.stack((x, y), dim=1)
    return a.sum(dim=0), b, torch.cat((x, y), -1)


@case(CASES, call(T(3, 4)), call(T(3, 4)), call(T(2, 4)), compiles="C.C")
def torch_nn_functional(x):
    h = F.linear(x, LIN_W, LIN_B)
    h = F.relu(h)
    return F.softmax(h, dim=-1) + F.gelu(h) - F.sigmoid(h)


@case(CASES, call(T(6)), call(T(6)), compiles="C.")
def torch_where_clamp_kwargs(x):
    y = torch.where(x > 0, x, torch.zeros_like(x))
    return torch.clamp(x, min=-0.5, max=0.5) + y.clamp(max=1.0), torch.maximum(x, y)


@case(CASES, call(T(2, 3, 4)), call(T(2, 3, 4)), call(T(3, 3, 4)), compiles="C.C")
def tensor_methods(x):
    a = x.sum(dim=1, keepdim=True)
    b = x.view(-1).mean()
    c = x.transpose(0, 1).reshape(3, -1).relu()
    d = x.permute(2, 0, 1).contiguous().flatten(1)
    return a * b, c.t(), d.unsqueeze(0).squeeze(0), x.max(), x.abs().pow(2).exp()


@case(CASES, call(T(4, 2)), call(T(4, 2)), call(T(4, 2, dtype=torch.float64)), compiles="C.C")
def torch_factories_from_metadata(x):
    z = torch.zeros(x.shape[0], 2, dtype=x.dtype)
    o = torch.ones(x.size(), dtype=x.dtype)
    r = torch.arange(x.shape[1]).to(x.dtype)
    return x + z + o * 2 + r, torch.full((2,), 7.0, dtype=x.dtype)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def tensor_dtype_conversions(x):
    a = x.to(torch.float64) * 2
    b = x.double() + a
    c = (x > 0).int().sum()
    return b, c, x.float().type(torch.float16).float()


@case(CASES, call(T(2, 6), T(2, 6)), call(T(2, 6), T(2, 6)), compiles="C.")
def star_args_into_torch_fns(x, y):
    pair = (x, y)
    shape = (3, -1)
    kw = {"dim": 0}
    return torch.add(*pair), x.view(*shape), torch.cat(pair, **kw), torch.stack([*pair, x]).sum(0)


@case(CASES, call(T(3, 4), T(4, 5)), call(T(3, 4), T(4, 5)), call(T(2, 4), T(4, 5)), compiles="C.C")
def torch_matmul_family(x, w):
    b = torch.ones(5)
    return torch.mm(x, w), torch.matmul(x, w) + b, torch.addmm(b, x, w, beta=0.5), x @ w


@case(CASES, call(T(2, 4)), call(T(2, 4)), call(T(2, 4), mutate=set_global("LIN_W", T(5, 4))),
      call(T(2, 4), mutate=set_global("LIN_W", T(3, 4))), compiles="C..C")
def torch_layer_norm_global_weight(x):
    y = F.layer_norm(x, (4,))
    return F.linear(y, LIN_W).sum(-1)


@case(CASES, call(T(2, 3)), call(T(2, 3)), call(T(3, 3)), compiles="C.C")
def tensor_properties_and_new_factories(x):
    z = x.new_zeros(3) + x.new_ones((2, 3)).sum(0)
    return x.T @ x, x.mT.shape, z, F.dropout(x, p=0.5, training=False), x.dtype.is_floating_point


test_torch_fns = parametrize(CASES)
