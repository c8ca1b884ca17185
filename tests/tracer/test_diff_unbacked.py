"""Differential cases: data-dependent numbers as Dynamo's unbacked symbols.

Under fullgraph=True (and with torch._dynamo.config.capture_scalar_outputs, which Standin reads
too) `.item()`, `int(t)`, `float(t)` and an integer tensor's `tolist()` are `item()` nodes whose
values are unbacked symbols (`u0`, `zuf0`): arithmetic on them stays in the graph, a size made
from one gets Dynamo's runtime asserts (`u0 >= 0`), `torch._check` tells the ShapeEnv a fact, and
a second call with other data hits the cache (nothing is guarded on the value).  A branch on one
breaks the graph, or under fullgraph=True is Dynamo's UserError asking for torch._check.
"""
import pytest
import torch
import torch._dynamo

import tracer
from differential import call, case, check_case
from differential_breaks import break_case, check_break_case

pytestmark = pytest.mark.filterwarnings("ignore:_check_is_size will be removed")  # torch's deprecation notice

FULLGRAPH: list = []  # fullgraph=True: capture is on whatever the config says
CAPTURED: list = []  # capture_scalar_outputs=True, fullgraph=False
CAPTURED_BREAKS: list = []  # capture_scalar_outputs=True: a data-dependent branch breaks the graph


def ints(*values):
    return torch.tensor(values)


def floats(*values):
    return torch.tensor(values, dtype=torch.float32)


def both(*calls, **kwargs):
    """Register a case under fullgraph=True and again under capture_scalar_outputs alone."""
    def deco(fn):
        case(FULLGRAPH, *calls, fullgraph=True, name=f"{fn.__name__}_fullgraph", **kwargs)(fn)
        case(CAPTURED, *calls, name=f"{fn.__name__}_captured", **kwargs)(fn)
        return fn
    return deco


@both(call(floats(1, 2, 3)), call(floats(4, 5, 6)), compiles="C.")
def item_times_tensor(x):
    return x * x.sum().item()


@both(call(ints(1, 2, 3)), call(ints(2, 2, 2)), compiles="C.")
def item_of_an_int_tensor(x):
    return x + x.max().item()


@both(call(floats(1.5, 2, 3)), call(ints(1, 2, 3)), compiles="CC")
def int_of_a_tensor(x):
    return x * int(x.sum())  # a float tensor's: a sym_int node; an int tensor's: the item itself


@both(call(ints(1, 2, 3)), call(floats(1, 2, 3)), compiles="CC")
def float_of_a_tensor(x):
    return x * float(x.sum())  # an int tensor's: a sym_float node; a float tensor's: the item itself


@both(call(ints(1, 2, 3)), call(ints(0, 1, 1)), compiles="C.")
def item_as_a_size(x):
    n = x.sum().int().item()
    return torch.ones(n)  # u0 >= 0 is asserted in the graph


@both(call(ints(3, 1, 2)), call(ints(1, 1, 0)), compiles="C.")
def item_as_a_size_of_new_zeros(x):
    return x.new_zeros(x.max().item(), 2)


@both(call(floats(1, 2, 3)), call(floats(0, 0, 1)), compiles="C.")
def arithmetic_on_an_item_returned(x):
    n = x.sum().item()
    return n * 2 + 1  # a symbolic float leaves the graph as a 0-d float64 tensor


@both(call(ints(1, 2, 3)), call(ints(5, 5, 5)), compiles="C.")
def item_returned(x):
    return x.sum().item(), x.max().item() + 1


@both(call(ints(1, 2, 3)), call(ints(0, 0, 0)), compiles="C.")
def bool_of_an_item(x):
    return bool(x.sum().item())


@both(call(ints(1, 2, 3)), call(ints(4, 0, 9)), compiles="C.")
def tolist_of_an_int_tensor(x):
    return [v * 2 for v in x.tolist()]


@both(call(ints(1, 2, 3)), call(ints(7, 8, 9)), compiles="C.")
def tolist_unpacked(x):
    a, b, c = x.tolist()
    return x + a + b


@both(call(torch.tensor([[1, 2], [3, 4]])), compiles="C")
def tolist_of_a_matrix(x):
    rows = x.tolist()
    return rows[1][0] - rows[0][1]


@both(call(ints(1, 2, 3)), call(ints(4, 5, 6)), compiles="C.")
def torch_check_decides_a_branch(x):
    n = x.sum().item()
    torch._check(n > 0)
    if n > 0:  # known from the check: no break, no guard
        return x + 1
    return x - 1


@both(call(floats(1, 2, 3)), compiles="C")
def torch_check_on_a_float(x):
    n = x.sum().item()
    torch._check(n > 0)
    return x / n


@both(call(ints(1, 2, 3)), call(ints(0, 0, 1)), compiles="C.")
def check_is_size(x):
    n = x.sum().item()
    torch._check_is_size(n)
    return torch.zeros(n)


@both(call(ints(1, 2, 3)), call(ints(2, 2, 2)), compiles="C.")
def torch_check_with_a_message(x):
    n = x.sum().item()
    torch._check(n > 0, lambda: "positive")  # the graph's assert carries the text
    return x + n


@both(call(ints(1, 2, 3)), call(ints(3, 0, 0)), compiles="C.")
def checks_bound_a_narrow(x):
    n = x.max().item()
    torch._check(n <= x.shape[0])
    torch._check(n >= 0)
    return x.narrow(0, 0, n)


@both(call(ints(1, 2, 3)), compiles="C")
def constrain_as_size(x):
    n = x.sum().item()
    torch._constrain_as_size(n, min=0, max=10)
    return torch.zeros(n)


@both(call(floats(1, 2, 3)), compiles="C")
def two_items(x):
    return x.sum().item() + x.max().item()


# ---- ops whose output size depends on the data: an unbacked length (`u0`, 0 <= u0 <= numel) ----------

def both_shapes(*calls, **kwargs):
    """Register a case under fullgraph=True and again under capture_dynamic_output_shape_ops alone."""
    def deco(fn):
        case(FULLGRAPH, *calls, fullgraph=True, name=f"{fn.__name__}_fullgraph", **kwargs)(fn)
        case(OUTPUT_SHAPES, *calls, name=f"{fn.__name__}_output_shapes", **kwargs)(fn)
        return fn
    return deco


OUTPUT_SHAPES: list = []  # capture_dynamic_output_shape_ops=True, fullgraph=False


@both_shapes(call(ints(1, 0, 3)), call(ints(0, 0, 5)), compiles="C.")
def nonzero_of_a_tensor(x):
    return torch.nonzero(x)


@both_shapes(call(floats(1, -2, 3)), call(floats(-1, -1, -1)), compiles="C.")
def boolean_mask(x):
    return x[x > 0]


@both_shapes(call(floats(1, -2, 3)), call(floats(5, 6, -1)), compiles="C.")
def boolean_mask_then_ops(x):
    return x[x > 0].sum() * 2


@both_shapes(call(ints(1, 0, 3)), call(ints(1, 1, 1)), compiles="C.")
def length_of_a_nonzero(x):
    y = x.nonzero()
    return y.shape[0] + 1


@pytest.mark.parametrize("c", OUTPUT_SHAPES, ids=[c.name for c in OUTPUT_SHAPES])
def test_unbacked_sizes_with_capture_dynamic_output_shape_ops(c):
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        check_case(c)


@both(call(floats(1, 2, 3)), call(ints(1, 2, 3)), compiles="CC")
def item_of_an_ndarray(x):
    a = x.numpy()
    return x + (a * 2).sum().item()  # through torch._numpy's ndarray.item: a `wrapped_item` node


@both(call(ints(1, 2, 3)), call(ints(4, 5, 6)), compiles="C.")
def tolist_of_an_int_ndarray(x):
    return x.numpy().tolist()


# ---- with symbolic input sizes too (dynamic=True): backed `s77` and unbacked `u0` in one graph ------

@both(call(ints(1, 2, 3)), call(ints(1, 1, 1, 1)), compiles="C.", dynamic=True)
def item_as_a_size_with_dynamic_shapes(x):
    n = x.sum().int().item()
    return torch.ones(n) + x.shape[0]


@both(call(ints(1, 2, 3)), call(ints(2, 2, 2, 2)), compiles="C.", dynamic=True)
def torch_check_relating_an_item_to_a_size(x):
    n = x.sum().item()
    torch._check(n == x.shape[0] * 2)
    return x.sum() + n


@pytest.mark.parametrize("c", FULLGRAPH, ids=[c.name for c in FULLGRAPH])
def test_unbacked_under_fullgraph(c):
    with torch._dynamo.config.patch(capture_scalar_outputs=False):
        check_case(c)


@pytest.mark.parametrize("c", CAPTURED, ids=[c.name for c in CAPTURED])
def test_unbacked_with_capture_scalar_outputs(c):
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        check_case(c)


# ---- a branch on an unbacked number: a graph break (the comparison is in the first graph) ----------

@break_case(CAPTURED_BREAKS, call(ints(1, 2, 3)), call(ints(-5, 1, 1)), compiles="C.")
def branch_on_an_item(x):
    n = x.sum().item()
    if n > 0:
        return x + 1
    return x - 1


@break_case(CAPTURED_BREAKS, call(floats(1, 2, 3)), call(floats(-5, 1, 1)), compiles="C.")
def branch_on_a_float_item(x):
    n = x.sum().item() * 2
    if n > 1.5:
        return x + n
    return x - n


@pytest.mark.parametrize("c", CAPTURED_BREAKS, ids=[c.name for c in CAPTURED_BREAKS])
def test_unbacked_branch_breaks(c):
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        check_break_case(c)


# ---- what Dynamo refuses, Standin refuses --------------------------------------------------------

def branch(x):
    n = x.sum().item()
    if n > 0:
        return x + 1
    return x - 1


def float_tolist(x):
    return x.tolist()


def test_branch_on_an_unbacked_symbol_under_fullgraph_is_a_user_error():
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.UserError, match=r"torch._check\*\(\)") as dynamo_error:
        torch.compile(branch, backend="eager", fullgraph=True, dynamic=False)(ints(1, 2, 3))
    torch._dynamo.reset()
    with pytest.raises(tracer.UserError, match=r"torch._check\*\(\)") as ours:
        tracer.compile(branch, fullgraph=True, dynamic=False)(ints(1, 2, 3))
    expected = "Could not guard on data-dependent expression u0 > 0"
    assert expected in str(dynamo_error.value) and expected in str(ours.value)
    assert "test_diff_unbacked.py" in str(ours.value)  # the user's line


def test_tolist_of_a_float_tensor_under_fullgraph_is_unsupported():
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.Unsupported, match="non-integer tensor"):
        torch.compile(float_tolist, backend="eager", fullgraph=True)(floats(1, 2))
    torch._dynamo.reset()
    with pytest.raises(tracer.Unsupported, match="non-integer tensor"):
        tracer.compile(float_tolist, fullgraph=True)(floats(1, 2))


def test_nonzero_without_capture_breaks_and_says_how_to_capture():
    opt = tracer.compile(lambda x: torch.nonzero(x) + 1, dynamic=False)
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=False):
        torch.testing.assert_close(opt(ints(1, 0, 2)), torch.tensor([[1], [3]]))
    reasons = [str(e.reason) for e in opt.compile_events if e.reason]
    assert any("capture_dynamic_output_shape_ops" in r for r in reasons), reasons


def test_item_without_capture_still_breaks_and_says_how_to_capture():
    opt = tracer.compile(lambda x: x * x.sum().item(), dynamic=False)
    with torch._dynamo.config.patch(capture_scalar_outputs=False):
        torch.testing.assert_close(opt(floats(1, 2)), floats(3, 6))
    reasons = [str(e.reason) for e in opt.compile_events if e.reason]
    assert any("capture_scalar_outputs" in r for r in reasons), reasons


def item_and_nonzero(x):
    n = x.sum().item()
    torch._check(n > 0)
    return torch.nonzero(x), n + 1


def test_unbacked_symbols_are_listed_with_the_node_that_made_them_and_their_range():
    opt = tracer.compile(item_and_nonzero, fullgraph=True, dynamic=False)
    opt(ints(1, 0, 2))
    symbols = {s["name"]: s for s in opt.cache_entries[0].shapes.describe()["symbols"]}
    assert symbols["u0"]["source"].startswith("item() (graph node item)") and symbols["u0"]["range"] == "[1, int_oo]"
    assert symbols["u1"]["source"].startswith("nonzero()") and symbols["u1"]["range"] == "[0, 3]"
    assert symbols["u0"]["value"] is None  # nothing was seen: the value is the data's
