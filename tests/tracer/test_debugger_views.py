"""What the graph panel shows of one FX node: its target in the graph code's words, its arguments (clipped),
the example value's shape and dtype (a symbolic size as itself, never guarded), and the nodes it reads."""
import operator

import torch
import torch.fx
from torch.fx.experimental.symbolic_shapes import ShapeEnv

from tracer.debug import GraphNodeView
from tracer.debug.views import node_view


def graph_of(fn):
    return {node.name: node for node in torch.fx.symbolic_trace(fn).graph.nodes}


def body(x, y):
    s = torch.softmax(x, dim=-1)
    return operator.mul(s, 2).relu() + y


def test_a_node_shows_its_target_arguments_shape_dtype_and_inputs():
    nodes = graph_of(body)
    nodes["softmax"].meta.update(example_value=torch.ones(2, 3), stack_trace="  File x, line 1")
    assert node_view(nodes["softmax"]) == GraphNodeView("softmax", "call_function", "torch.softmax", "x, dim=-1",
                                                        "2x3", "float32", "  File x, line 1", ("x",))
    nodes["mul"].meta["example_value"] = torch.ones((), dtype=torch.float64)
    assert node_view(nodes["mul"]) == GraphNodeView("mul", "call_function", "operator.mul", "softmax, 2",
                                                    "scalar", "float64", "", ("softmax",))
    relu = node_view(nodes["relu"])
    assert (relu.op, relu.target, relu.args, relu.shape, relu.dtype) == ("call_method", "relu", "mul", None, None)
    assert node_view(nodes["add"]).inputs == ("relu", "y")
    assert node_view(nodes["x"]) == GraphNodeView("x", "placeholder", "x", "", None, None, "", ())


def test_a_symbolic_size_is_shown_as_itself():
    env = ShapeEnv()
    size = env.create_unbacked_symint()
    nodes = graph_of(body)
    nodes["softmax"].meta["example_value"] = size
    view = node_view(nodes["softmax"])
    assert (view.shape, view.dtype) == (str(size), "SymInt")
    nodes["softmax"].meta["example_value"] = torch.empty(0, 4)
    assert node_view(nodes["softmax"]).shape == "0x4"


def test_long_arguments_are_clipped_to_160_characters():
    def many(x):
        return torch.cat([x] * 60)

    (cat,) = [n for n in graph_of(many).values() if n.op == "call_function"]
    full = ", ".join(str(a) for a in cat.args)
    assert len(full) > 160
    args = node_view(cat).args
    assert len(args) == 160 and args == full[:159] + "…"

    def exactly(x):
        return torch.cat([x] * 51, dim=0)  # "[x, x, ..., x], dim=0": 3 * 51 + 7 characters

    (cat,) = [n for n in graph_of(exactly).values() if n.op == "call_function"]
    fits = ", ".join([str(a) for a in cat.args] + [f"{k}={v}" for k, v in cat.kwargs.items()])
    assert len(fits) == 160 and node_view(cat).args == fits  # at the limit: whole


class Scale:
    """A callable graph target with no __name__ and no __module__ of its own instance."""

    def __call__(self, x):
        return x * 2

    def __repr__(self):
        return "Scale()"


def nameless(x):
    return x


nameless.__module__ = None


def test_a_target_without_a_name_or_a_module_is_shown_by_what_it_has():
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    by_repr = node_view(graph.create_node("call_function", Scale(), (x,), name="scale"))
    assert by_repr.target == f"{__name__}.Scale()"  # an instance: its class's module, then its repr
    assert node_view(graph.call_function(nameless, (x,))).target == ".nameless"  # a module of None: none shown
    assert node_view(graph.call_function(operator.add, (x, 1))).target == "operator.add"  # _operator's own name


def test_a_symbolic_bool_or_float_is_shown_as_itself_with_its_type():
    env = ShapeEnv()
    nodes = graph_of(body)
    size = env.create_unbacked_symint()
    for value in (size > 2, size * 0.5):
        nodes["softmax"].meta["example_value"] = value
        view = node_view(nodes["softmax"])
        assert (view.shape, view.dtype) == (str(value), type(value).__name__) and view.dtype in ("SymBool", "SymFloat")


def test_a_snapshot_is_where_its_last_frame_is():
    from tracer.debug.views import FrameView, Snapshot
    outer = FrameView("f", "a.py", 1, 0, 0, "LOAD_FAST", "x", 1, (0, 1), 0)
    inner = FrameView("g", "a.py", 5, 2, 1, "RETURN_VALUE", "", 6, (4, 5), 1)
    snap = Snapshot(3, (outer, inner), 0, 0)
    assert snap.frame is inner and snap.depth == 1
    assert (snap.event, snap.event_kinds, inner.stack, inner.locals, inner.code_key) == (None, (), (), (), 0)
