"""The code generator's primitives (`tracer/codegen.py`): how a local, a cell and a free variable
are read and written, graph outputs collected once each, temps numbered apart, and the graph
called with the frame hook off."""
import types

import pytest
import torch
from torch._C._dynamo.eval_frame import set_eval_frame

from tracer.codegen import GraphCallable, NamedCallable, PyCodegen
from tracer.frame_hook import run_as_is


def cells_and_frees():
    own = 1

    def inner():
        return own + free
    return inner


free = 2
INNER = next(c for c in cells_and_frees.__code__.co_consts if isinstance(c, types.CodeType))


def emitted(gen):
    return [(i.name, getattr(i.arg, "name", i.arg)) for i in gen.instructions]


def kinds(gen):
    return [type(i.arg).__name__ for i in gen.instructions]


def test_a_local_a_cell_and_a_free_variable_are_each_read_their_own_way():
    outer = PyCodegen(cells_and_frees.__code__, side_effects=None)
    outer.load_local("own")  # a cell of the outer frame
    outer.load_local("inner")  # a plain local
    assert emitted(outer) == [("LOAD_DEREF", "own"), ("LOAD_FAST", "inner")]
    assert kinds(outer)[0] == "CellVar"
    inner = PyCodegen(INNER, side_effects=None)
    inner.load_local("own")  # a free variable of the inner frame
    inner.load_closure("own")
    inner.store_deref("own")
    assert emitted(inner) == [("LOAD_DEREF", "own"), ("LOAD_CLOSURE", "own"), ("STORE_DEREF", "own")]
    assert kinds(inner) == ["FreeVar"] * 3
    outer.instructions.clear()
    outer.load_closure("own")
    outer.store_deref("own")
    assert kinds(outer) == ["CellVar"] * 2


def test_globals_attributes_and_calls_emit_what_python_would():
    gen = PyCodegen(cells_and_frees.__code__, side_effects=None)
    gen.load_global("free")
    gen.load_attr("real")
    gen.call(len, lambda: gen.load_const((1, 2)), 1)
    assert [name for name, _ in emitted(gen)] == ["LOAD_GLOBAL", "LOAD_ATTR", "PUSH_NULL", "LOAD_CONST", "LOAD_CONST",
                                                  "PRECALL", "CALL"]
    assert [arg for name, arg in emitted(gen) if name != "PUSH_NULL"] == [(False, "free"), "real", len, (1, 2), 1, 1]


def test_temps_are_numbered_apart():
    gen = PyCodegen(cells_and_frees.__code__, side_effects=None)
    assert [gen.new_temp(), gen.new_temp("___obj"), gen.new_temp()] == ["___tmp1", "___obj2", "___tmp3"]
    gen.store("___tmp1")
    gen.load("___tmp1")
    assert emitted(gen) == [("STORE_FAST", "___tmp1"), ("LOAD_FAST", "___tmp1")]


def test_each_graph_output_is_collected_once_and_read_by_index():
    graph = torch.fx.Graph()
    a, b = graph.placeholder("a"), graph.placeholder("b")
    gen = PyCodegen(cells_and_frees.__code__, side_effects=None)
    for node in (a, b, a):
        gen.graph_output(node)
    assert gen.output_nodes == [a, b]
    assert [arg for name, arg in emitted(gen) if name == "LOAD_CONST"] == [0, 1, 0]
    assert [name for name, _ in emitted(gen)][:3] == ["LOAD_FAST", "LOAD_CONST", "BINARY_SUBSCR"]
    assert emitted(gen)[0] == ("LOAD_FAST", "___graph_out")


def test_outputs_fixed_in_advance_refuse_a_new_one():
    graph = torch.fx.Graph()
    a, b = graph.placeholder("a"), graph.placeholder("b")
    gen = PyCodegen(cells_and_frees.__code__, side_effects=None, output_nodes=[a])
    gen.graph_output(a)
    with pytest.raises(AssertionError, match="was not collected"):
        gen.graph_output(b)
    assert gen.output_nodes == [a]
    assert PyCodegen(cells_and_frees.__code__, None, output_nodes=[]).frozen_outputs


def test_a_named_callable_runs_with_the_frame_hook_off_and_shows_its_name():
    seen = []

    def graph(x, y=0):
        prior = set_eval_frame(None)  # what the hook was while the graph ran
        set_eval_frame(prior)
        seen.append(prior)
        return x + y

    offered = []

    def callback(frame, cache_entry, frame_state):
        offered.append(frame.f_code.co_name)
        return run_as_is(frame.f_code, "a test's hook", for_good=False)

    named = NamedCallable("__compiled_fn_7", graph)
    assert repr(named) == "__compiled_fn_7" and named.name == "__compiled_fn_7" and named.fn is graph
    prior = set_eval_frame(callback)
    try:
        assert named(1, y=2) == 3
        after = set_eval_frame(None)
    finally:
        set_eval_frame(prior)
    assert seen == [None] and after is callback  # off inside, restored after
    assert "graph" not in offered


def test_a_graph_callable_runs_its_graph_with_the_hook_off_and_puts_it_back_when_the_graph_raises():
    seen = []

    def graph(x, y):
        prior = set_eval_frame(None)
        set_eval_frame(prior)
        seen.append(prior)
        if y is None:
            raise ValueError("no y")
        return x + y

    def callback(frame, cache_entry, frame_state):
        return run_as_is(frame.f_code, "a test's hook", for_good=False)

    named = GraphCallable("__compiled_fn_8", graph)
    assert isinstance(named, NamedCallable) and repr(named) == "__compiled_fn_8"
    prior = set_eval_frame(callback)
    try:
        assert named(1, 2) == 3
        with pytest.raises(ValueError, match="no y"):
            named(1, None)
        after = set_eval_frame(callback)
    finally:
        set_eval_frame(prior)
    assert seen == [None, None] and after is callback
