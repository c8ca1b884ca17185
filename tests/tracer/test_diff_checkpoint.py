"""Activation checkpointing inside the trace, as Dynamo: `torch.utils.checkpoint.checkpoint(fn, ...)`
is one `tag_activation_checkpoint` op over a body graph of its own, the tensor arguments, then the
parameters the body reads, and checkpoint's keyword arguments; the results are the op's items.
"""
import contextlib

import torch
from torch.utils.checkpoint import checkpoint

import tracer
from differential import T, call, case, parametrize

CASES: list = []

LAYER = torch.nn.Linear(3, 3)
BLOCK = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.GELU(), torch.nn.Linear(4, 3))
SCALE = torch.randn(3)


def two_outputs(x, factor, square=False):
    y = LAYER(x) * factor
    return (y * y if square else y.relu()), y.sum()


def reads_a_global_tensor(x):
    return (x * SCALE).tanh()


def grad_input(shape):
    return T(*shape).requires_grad_()


def handles_an_exception_raised_while_handling_another(x):
    """A library's try/except inside the layer (transformers' checks): the raise chains the second
    exception to the first, a record of exceptions made in the body, not a side effect of it."""
    try:
        raise ValueError("first")
    except ValueError:
        try:
            raise KeyError("second")
        except KeyError as error:
            scale = 2.0 if isinstance(error.__context__, ValueError) else 3.0
    return LAYER(x).sin() * scale


@case(CASES, call(grad_input((2, 3))))
def checkpointed_function_that_handles_exceptions(x):
    return checkpoint(handles_an_exception_raised_while_handling_another, x, use_reentrant=False) * 2


@case(CASES, call(grad_input((2, 3))))
def checkpointed_module_not_reentrant(x):
    return checkpoint(LAYER, x, use_reentrant=False).sin()


@case(CASES, call(grad_input((2, 3))))
def checkpointed_module_reentrant(x):
    return checkpoint(BLOCK, x, use_reentrant=True)


@case(CASES, call(grad_input((2, 3))), call(grad_input((2, 3))))
def checkpointed_function_with_constants_and_two_results(x):
    a, b = checkpoint(two_outputs, x, 2.0, use_reentrant=False, square=True)
    return a + b


@case(CASES, call(grad_input((2, 3)), T(2, 3)))
def checkpointed_function_reading_tensors_from_outside(x, y):
    z = x + y
    return checkpoint(reads_a_global_tensor, z, use_reentrant=False) * y


def tensor_and_constants(x, y):
    return [x.sin(), (2, None, "s"), y.cos()], 3


def only_a_constant(x):
    return 3


def reads_only_its_second_argument(x, y):
    return y.sin()


@case(CASES, call(grad_input((2, 3)), T(2, 3)), call(grad_input((2, 3)), T(2, 3)), fullgraph=True)
def checkpointed_function_returning_constants_among_tensors(x, y):
    (a, (two, nothing, text), b), three = checkpoint(tensor_and_constants, x, y, use_reentrant=False)
    return a * two + b * three, nothing, text


@case(CASES, call(grad_input((2, 3))), fullgraph=True)
def checkpointed_function_returning_only_a_constant(x):
    return x * checkpoint(only_a_constant, x, use_reentrant=False)


@case(CASES, call(grad_input((2, 3)), grad_input((2, 3))), fullgraph=True)
def checkpointed_function_ignoring_a_tensor_argument(x, y):
    return checkpoint(reads_only_its_second_argument, x, y, use_reentrant=False) + 1


test_checkpoint = parametrize(CASES)


def test_gradients_through_a_checkpointed_block_equal_eager():
    def step(x):
        return checkpoint(BLOCK, x * 2, use_reentrant=False).pow(2).sum()

    x = T(4, 3).requires_grad_()
    step(x).backward()
    expected = [x.grad.clone()] + [p.grad.clone() for p in BLOCK.parameters()]
    x.grad = None
    BLOCK.zero_grad()
    compiled = tracer.compile(step)
    compiled(x).backward()
    got = [x.grad] + [p.grad for p in BLOCK.parameters()]
    assert [len(e.graphs) for e in compiled.cache_entries] == [1]
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e)


def test_a_context_fn_is_refused_with_its_name():
    def fn(x):
        return checkpoint(LAYER, x, use_reentrant=False, context_fn=lambda: (contextlib.nullcontext(), contextlib.nullcontext()))

    compiled = tracer.compile(fn)
    x = T(2, 3)
    torch.testing.assert_close(compiled(x), LAYER(x))
    breaks = [e.reason for e in compiled.compile_events if e.kind == "graph_break"]
    assert len(breaks) == 1 and "checkpoint() with a context_fn" in breaks[0], compiled.compile_events
