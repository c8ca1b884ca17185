"""Differential cases in the style of PyTorch's test/dynamo test_misc and test_repros (small functions,
fullgraph=True, a counting backend): the constructs where Standin broke or answered wrongly."""
import collections.abc
import contextlib
import itertools
import operator
import sys
import threading
import types

import pytest
import torch
import torch._dynamo.exc

import tracer

from differential import T, call, case, mutate_with, parametrize, parametrize_against_eager

CASES: list = []
AGAINST_EAGER: list = []


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


@case(CASES, call(T(2, 3)), call(T(2, 3)), compiles="C.", fullgraph=True)
def iterating_an_ndarray_and_builtin_min_max_over_arrays(x):
    # rows are arrays again; min()/max() reduce with np.minimum/np.maximum, as Dynamo
    n = x.numpy()
    acc = 0
    for row in n:
        acc = acc + row
    return torch.from_numpy(acc), torch.from_numpy(max(n[0]) + n[1]), torch.from_numpy(min(n[1]) * n[0])


@case(CASES, call(T(3)), call(T(4)), compiles="CC", fullgraph=True)
def torch_check_of_a_condition_known_at_trace_time(x):
    # a true condition folds away; a false one raises its error in the trace, as Dynamo
    torch._check(x.shape[0] > 1)
    torch._check(True, lambda: "never")
    try:
        torch._check_value(x.shape[0] == 4, lambda: "needs four")
    except ValueError as error:
        return x + len(str(error))
    return x - 1


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def python_number_types_as_dtypes(x):
    # float, int and bool where torch takes a dtype: float64, int64 and bool in the graph, as Dynamo
    return x.to(float), x.to(int), x.to(bool), torch.zeros(2, dtype=float), x.new_ones(2, dtype=int)


OP_TABLE = {torch.sin: 1, torch.add: 2, torch.ops.aten.mul.Tensor: 3, operator.add: 4}


def _retarget_sin(g):
    g["OP_TABLE"][torch.sin] = 10


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=mutate_with(_retarget_sin, "OP_TABLE[torch.sin] = 10")),
      compiles="C.C", fullgraph=True)
def dicts_keyed_by_torch_functions_and_ops(x):
    # a dispatch table keyed by functions and op overloads: looked up by identity, its keys guarded
    table = {torch.sin: torch.cos, torch.cos: torch.sin}
    op = torch.ops.aten.mul.Tensor
    return table[torch.sin](x) + OP_TABLE[torch.sin] + OP_TABLE[op] + OP_TABLE[operator.add], op(x, x)


class _Settings(collections.abc.MutableMapping):
    """A user mapping over a dict of its own."""

    def __init__(self, **entries):
        self._entries = dict(entries)

    def __getitem__(self, key):
        return self._entries[key]

    def __setitem__(self, key, value):
        self._entries[key] = value

    def __delitem__(self, key):
        del self._entries[key]

    def __iter__(self):
        return iter(self._entries)

    def __len__(self):
        return len(self._entries)


SETTINGS = _Settings(scale=2.0, shift=1)


def _affine(x, scale, shift):
    return x * scale + shift


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def star_star_of_user_mappings(x):
    # read through keys() and __getitem__, as CPython merges any mapping
    local = _Settings(shift=3)
    local["scale"] = 0.5
    return _affine(x, **SETTINGS), _affine(x, **local), {**local, "extra": 1}


@contextlib.contextmanager
def _logged(log, label):
    log.append(label + " in")
    try:
        yield
    except ValueError:
        log.append(label + " swallowed")
    log.append(label + " out")


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def contextmanager_object_as_a_decorator(x):
    # each call enters a fresh copy of the block; an exception the function raises is thrown into
    # the generator, which may swallow it (the call then gives None)
    log = []

    @_logged(log, "a")
    def double(y):
        log.append("body")
        return y * 2

    @_logged(log, "b")
    def fails(y):
        raise ValueError("no")

    return double(x), double(x + 1), fails(x), log


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def fullgraph_frame_returning_a_plain_input_tensor(x):
    # as Dynamo: the input comes back through a graph that has no op (the backend is called)
    scratch = [1]
    scratch.append(len(scratch))
    return x


@case(CASES, call(T(3), T(3)), call(T(3), T(3)), compiles="C.", fullgraph=True)
def fullgraph_frame_returning_an_input_after_ops(x, y):
    y.sin()
    return x


_SETTINGS_MODULE = sys.modules.setdefault("_pt_style3_settings", types.ModuleType("_pt_style3_settings"))


def _module_scale(value):
    def mutate(g):
        _SETTINGS_MODULE.SCALE = value
    return mutate_with(mutate, f"_pt_style3_settings.SCALE = {value}")


@case(CASES, call(T(3), mutate=_module_scale(2)), call(T(3)), call(T(3), mutate=_module_scale(5)), compiles="C.C",
      fullgraph=True)
def imports_inside_the_traced_function_are_sourced(x):
    # the module comes from sys.modules with a source: what is read from it is guarded
    import math
    import _pt_style3_settings
    from _pt_style3_settings import SCALE
    return x * _pt_style3_settings.SCALE + SCALE + math.pi


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def tensor_dunder_iter_called_directly(x):
    it = x.__iter__()
    first = next(it)
    return [first] + [row * 2 for row in it]


@case(CASES, call(T(3)), call(T(4)), compiles="CC", fullgraph=True)
def sym_helpers_on_static_numbers_fold(x):
    # on plain numbers torch.sym_max and friends are arithmetic done at trace time
    n = x.shape[0]
    return x + torch.sym_max(n, 2) + torch.sym_min(3, n), torch.sym_float(n), torch.sym_int(2.5)


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def itertools_cycle_over_an_iterator(x):
    # pulled lazily, the items saved, then round again
    source = iter([x, x + 1, x * 2])
    next(source)
    turns = itertools.cycle(source)
    first = [next(turns) for _ in range(5)]
    paired = [a * b for a, b in zip(itertools.cycle([1, 2]), [x, x, x])]
    return first, paired


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def endless_iterator_in_a_cell_at_the_return(x):
    # the comprehension makes `counter` a cell; the frame's own cells die at the return, so the
    # count object is not rebuilt (it broke: a count object cannot be rebuilt)
    counter = itertools.count(5)
    return [x + next(counter) for _ in range(3)]


_LOCAL = threading.local()
_LOCAL.calls = 0


@case(CASES, call(T(3)), call(T(3)), compiles="CC", fullgraph=True, state=lambda: dict(vars(_LOCAL)))
def threading_local_attributes_set_in_the_trace(x):
    # replayed after the graph with the object's own setattr, in the calling thread
    _LOCAL.calls = _LOCAL.calls + 1
    _LOCAL.last = 3
    return x * _LOCAL.calls + _LOCAL.last


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def complex_and_number_formatting_builtins_fold(x):
    z = complex(1, 2) * complex("1+1j")
    return x + z.imag + len(bin(5)) + len(oct(8)) + len(hex(255)), z


@case(AGAINST_EAGER, call(T(2, 3)), call(T(2, 3)), compiles="C.", fullgraph=True)
def builtin_min_of_two_arrays_of_several_items(x):
    # min() compares the arrays and asks for the truth of the result: ValueError, as eagerly
    # (Dynamo 2.13 answers np.minimum of the two)
    n = x.numpy()
    try:
        min(n[0], n[1])
    except ValueError:
        return x + 1
    return x - 1


class _TruthFrom:
    """__bool__ and/or __len__ answering what they are given."""

    def __init__(self, answer):
        self.answer = answer


class _BoolGives(_TruthFrom):
    def __bool__(self):
        return self.answer


class _LenGives(_TruthFrom):
    def __len__(self):
        return self.answer


def _truth_or_error(obj):
    try:
        return bool(obj)
    except (TypeError, ValueError) as error:
        return type(error).__name__


@case(AGAINST_EAGER, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def truth_checks_the_type_of_bool_and_len_results(x):
    # as CPython: __bool__ must give a bool, __len__ an index >= 0 (Dynamo 2.13 takes any __len__ result)
    answers = (_truth_or_error(_BoolGives(1)), _truth_or_error(_BoolGives(False)),
               _truth_or_error(_LenGives(2.0)), _truth_or_error(_LenGives(-1)),
               _truth_or_error(_LenGives(True)), _truth_or_error(_LenGives(0)))
    return x + 1, answers


test_pt_style3 = parametrize(CASES)
test_pt_style3_against_eager = parametrize_against_eager(AGAINST_EAGER)


def test_unsupported_is_a_runtime_error_as_dynamos():
    # a program that guards a compiled call with `except RuntimeError` catches both engines' error
    def data_dependent(x):
        return x + 1 if x.sum() > 0 else x - 1

    assert issubclass(torch._dynamo.exc.Unsupported, RuntimeError)
    with pytest.raises(RuntimeError, match="data-dependent") as caught:
        tracer.compile(data_dependent, fullgraph=True)(torch.ones(3))
    assert isinstance(caught.value, tracer.Unsupported)


def test_parameter_constructed_in_the_trace_names_the_constructor():
    # Dynamo refuses the nn.Parameter constructor under fullgraph too; the reason names it
    def make_parameter(x):
        with torch.inference_mode():
            p = torch.nn.Parameter(torch.ones(3))
        return x + p

    with pytest.raises(tracer.Unsupported, match=r"Parameter\(\) constructed in the trace"):
        tracer.compile(make_parameter, fullgraph=True)(torch.ones(3))
    assert torch.equal(tracer.compile(make_parameter)(torch.ones(3)), torch.full((3,), 2.0))


class _Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return 2 * a * grad


def test_custom_autograd_function_traces_whole_with_its_backward():
    # one graph under fullgraph (test_diff_autograd_function.py compares the graphs with Dynamo's)
    def square_plus_one(x):
        return _Square.apply(x) + 1

    x = torch.full((3,), 2.0, requires_grad=True)
    out = tracer.compile(square_plus_one, fullgraph=True)(x)
    out.sum().backward()
    assert torch.equal(out, torch.full((3,), 5.0)) and torch.equal(x.grad, torch.full((3,), 4.0))
