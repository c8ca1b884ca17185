"""Differential cases: trace rules.  What is constant at trace time folds (guarded where it can
change), Python helpers of torch that return Python values are inlined, and only real tensor
operators become graph nodes -- as in Dynamo, whose graphs these are compared with."""
import torch
import torch.nn.functional as F
from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def compiling_and_scripting_queries_fold(x):
    if torch.compiler.is_compiling() and not torch.jit.is_scripting() and not torch.jit.is_tracing():
        return x + 1
    return (x + 2) - 1  # eager: the same value


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def mha_fastpath_query_is_inlined(x):
    return x * 2 if torch.backends.mha.get_fastpath_enabled() else x


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def private_functional_helper_returning_none_is_inlined(x):
    dtype = F._none_or_dtype(None)
    return x.softmax(-1, dtype=dtype)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def assert_on_a_constant_condition(x):
    torch._assert(x.dim() == 1, "one dimension")
    return x + 1


@case(CASES, call(T(3)), call(T(3, dtype=torch.int64)), compiles="CC")
def dtype_queries_fold(x):
    kind = (torch.is_floating_point(x), torch.is_complex(x), x.is_floating_point())
    wide = torch.promote_types(x.dtype, torch.float64)
    return x.to(wide) + 1, kind, torch.get_default_dtype()


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def finfo_and_iinfo_are_constants(x):
    return x.clamp(min=torch.finfo(x.dtype).min, max=torch.iinfo(torch.int8).max) * torch.finfo(x.dtype).eps


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def distributed_and_onnx_queries_fold(x):
    if torch.distributed.is_available() and not torch.onnx.is_in_onnx_export():
        return x + 1
    return x


@case(CASES, call(T(2, 3)), call(T(3, 2).t()), compiles="CC")
def is_contiguous_folds_on_the_guarded_strides(x):
    return x + 1 if x.is_contiguous() else x.contiguous() - 1


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def grad_mode_query_folds(x):
    with torch.no_grad():
        inside = torch.is_grad_enabled()
    return x * 2 if torch.is_grad_enabled() and not inside else x


@case(CASES, call(T(4, 2)), call(T(4, 2)), compiles="C.")
def public_python_operators_are_one_node(x):
    a, b = torch.split(x, 2)
    return F.dropout(a, 0.0, training=False) + F.layer_norm(b, (2,)) + torch.einsum("ij->ij", a)


@case(CASES, call(T(1, 2, 3)), call(T(1, 2, 3)), compiles="C.")
def thin_functional_wrappers_are_traced_through(x):
    return F.pad(x, (1, 1)), F.rms_norm(x, (3,))


test_trace_rules = parametrize(CASES)
