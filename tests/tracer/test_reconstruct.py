"""Values rebuilt in rewritten bytecode (`tracer/codegen.py`): each kind of value a traced frame can
return or leave in a local across a graph break comes back as eager makes it — same type, same
contents, one object where eager has one. Fast and tracer-only: these pin the code generator
(the differential files compare the same outcomes with Dynamo)."""
import collections
import functools
import operator
from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest
import torch

import tracer

Point = namedtuple("Point", "x y")


class Box:
    def __init__(self, value):
        self.value = value

    def scaled(self, k):
        return self.value * k


class Plain:
    pass


class TableDict(dict):
    pass


@pytest.fixture(autouse=True)
def _reset():
    tracer.reset()
    yield
    tracer.reset()


def same(a, b):
    """Equal as eager's result: types all the way down, tensors by value."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, torch.Tensor):
        assert a.shape == b.shape and a.dtype == b.dtype and torch.allclose(a, b)
    elif isinstance(a, (list, tuple, deque)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
        if isinstance(a, deque):
            assert a.maxlen == b.maxlen
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            same(a[k], b[k])
        if isinstance(a, defaultdict):
            assert a.default_factory is b.default_factory
    elif isinstance(a, (Box, Plain)):
        assert a.__dict__.keys() == b.__dict__.keys()
        for k in a.__dict__:
            same(a.__dict__[k], b.__dict__[k])
    elif isinstance(a, slice):
        assert (a.start, a.stop, a.step) == (b.start, b.stop, b.step)
    else:
        assert a == b


def returns_tuple_and_list(x):
    y = x + 1
    return (y, [y * 2, 3, "s"], ())


def returns_namedtuple(x):
    return Point(x + 1, x * 2)


def returns_deque(x):
    return deque([x + 1, x + 2], maxlen=3)


def returns_set(x):
    return {1, 2, 3}, x + 1


def returns_dicts(x):
    d = defaultdict(list)
    d["a"].append(x + 1)
    return {"p": x * 2, 3: None}, OrderedDict(b=x - 1), d, collections.Counter("aab"), TableDict(k=x + 3)


def returns_size_and_slice(x):
    return (x + 1).shape, slice(1, x.shape[0], 2), x[1:]


def returns_new_objects(x):
    box = Box(x + 1)
    plain = Plain()
    plain.inner = box
    plain.count = 2
    return plain, box


def returns_bound_method(x):
    box = Box(x + 1)
    return box.scaled


def returns_closure(x):
    y = x + 1

    def add(z):
        return z + y
    return add


def returns_partial_and_getter(x):
    return functools.partial(torch.add, x + 1, alpha=2), operator.itemgetter(0, 2)


def returns_exception(x):
    return ValueError("bad", 3), x + 1


def returns_views_and_iterator(x):
    d = {"a": x + 1, "b": 2}
    it = iter([x, x + 1, x + 2])
    next(it)
    return d.keys(), d.values(), it


def returns_one_list_twice(x):
    shared = [x + 1]
    return shared, [shared, shared]


def returns_float_of_tensor_size(x):
    return x.shape[0] / 2, x + 1


def returns_constants(x):
    return range(3), torch.float32, len, torch, Box, Box.scaled, x + 1


CASES = [returns_tuple_and_list, returns_namedtuple, returns_deque, returns_set, returns_dicts,
         returns_size_and_slice, returns_new_objects, returns_one_list_twice, returns_float_of_tensor_size,
         returns_constants]


def compiled(fn):
    """fn compiled, checked after each call to have run its graph: a value the code generator cannot
    rebuild makes the frame run eagerly, with the same result, which would hide it."""
    opt = tracer.compile(fn)

    def call(*args):
        result = opt(*args)
        entry = opt.cache_entries[-1]
        assert entry.eager_reason is None and entry.graphs, f"{fn.__name__} ran eagerly: {entry.eager_reason}"
        return result
    return call


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_a_returned_value_is_rebuilt_as_eager_builds_it(fn):
    x = torch.arange(4.0)
    opt = tracer.compile(fn)
    got, want = opt(x), fn(x)
    assert opt.cache_entries and opt.cache_entries[0].graphs, "the frame ran eagerly: nothing rebuilt"
    same(got, want)


def test_one_list_held_twice_stays_one_object():
    got = compiled(returns_one_list_twice)(torch.ones(2))
    assert got[0] is got[1][0] is got[1][1]


def test_a_bound_method_a_closure_and_a_partial_call_as_eager():
    x = torch.arange(3.0)
    method = compiled(returns_bound_method)(x)
    assert method.__self__.__class__ is Box and torch.equal(method(2), returns_bound_method(x)(2))
    add = compiled(returns_closure)(x)
    assert torch.equal(add(torch.ones(3)), returns_closure(x)(torch.ones(3)))
    partial, getter = compiled(returns_partial_and_getter)(x)
    eager_partial, eager_getter = returns_partial_and_getter(x)
    assert partial.keywords == {"alpha": 2} and torch.equal(partial(x), eager_partial(x))
    assert getter([1, 2, 3]) == eager_getter([1, 2, 3]) == (1, 3)


def test_an_exception_made_in_the_trace_is_rebuilt_with_its_arguments():
    error, y = compiled(returns_exception)(torch.ones(2))
    assert type(error) is ValueError and error.args == ("bad", 3) and torch.equal(y, torch.full((2,), 2.0))


def test_dict_views_and_a_partly_used_iterator_are_rebuilt():
    x = torch.arange(3.0)
    keys, values, it = compiled(returns_views_and_iterator)(x)
    assert type(keys) is type({}.keys()) and list(keys) == ["a", "b"]
    assert type(values) is type({}.values()) and torch.equal(list(values)[0], x + 1)
    rest = list(it)
    assert len(rest) == 2 and torch.equal(rest[0], x + 1) and torch.equal(rest[1], x + 2)


def breaks_with_locals(x):
    items = [x + 1]
    table = {"k": x * 2}
    box = Box(x - 1)
    print("break")
    items.append(table["k"] + box.value)
    return items, table, box


def test_locals_of_every_kind_cross_a_graph_break(capsys):
    x = torch.arange(3.0)
    opt = tracer.compile(breaks_with_locals)
    got = opt(x)
    want = breaks_with_locals(x)
    same(got, want)
    assert capsys.readouterr().out == "break\nbreak\n"
    assert len(opt.all_frames()) > 1  # the break made a resume function that received the locals


def returns_a_closure_over_a_changed_cell(x):
    k = 1

    def bump(step=2):
        nonlocal k
        k += step
        return k
    bump()
    return x + k, bump


def test_a_cell_written_in_the_trace_holds_its_new_value_afterwards():
    y, bump = compiled(returns_a_closure_over_a_changed_cell)(torch.zeros(2))
    assert torch.equal(y, torch.full((2,), 3.0))
    assert bump.__defaults__ == (2,) and bump() == 5  # the closure sees the cell the trace wrote


OUT_LIST, OUT_DEQUE, OUT_SET, OUT_DICT = [], deque(maxlen=4), set(), {}
OUT_ITER = None
OUT_GLOBAL = 0
OUT_BOX = Box(0)


def mutates_what_it_was_given(x):
    global OUT_GLOBAL
    OUT_LIST.append(1)
    OUT_DEQUE.append(2)
    OUT_SET.add(3)
    OUT_DICT["k"] = 4
    next(OUT_ITER)
    OUT_GLOBAL = 5
    OUT_BOX.value = 6
    return x + 1


def test_mutations_of_outside_containers_objects_and_globals_are_replayed():
    global OUT_ITER
    OUT_LIST[:], OUT_SET, OUT_DICT = [0], {0}, {"a": 0}
    OUT_DEQUE.clear()
    OUT_DEQUE.extend([0])
    globals().update(OUT_SET=OUT_SET, OUT_DICT=OUT_DICT)
    OUT_ITER = iter([10, 11, 12])
    opt = tracer.compile(mutates_what_it_was_given)
    y = opt(torch.zeros(2))
    assert opt.cache_entries[0].graphs and torch.equal(y, torch.ones(2))
    assert OUT_LIST == [0, 1] and list(OUT_DEQUE) == [0, 2] and OUT_DEQUE.maxlen == 4
    assert OUT_SET == {0, 3} and OUT_DICT == {"a": 0, "k": 4}
    assert next(OUT_ITER) == 11  # one item consumed
    assert OUT_GLOBAL == 5 and OUT_BOX.value == 6


def returns_two_closures_over_one_cell(x):
    k = 1

    def get():
        return k

    def bump():
        nonlocal k
        k += 1
        return k
    bump()
    return x + k, get, bump


def test_closures_made_in_the_trace_over_one_cell_still_share_it():
    y, get, bump = compiled(returns_two_closures_over_one_cell)(torch.zeros(2))
    assert torch.equal(y, torch.full((2,), 2.0)) and get() == 2
    assert get.__closure__[0] is bump.__closure__[0]
    bump()
    assert get() == 3  # one cell: the other closure sees the write


def makes_a_counter(x):
    def counter():
        n = 0

        def step():
            nonlocal n
            n += 1
            return n
        return step
    return x + 1, counter()


def test_a_cell_made_inside_the_trace_is_rebuilt_once_with_its_contents():
    y, step = compiled(makes_a_counter)(torch.zeros(2))
    assert torch.equal(y, torch.ones(2)) and (step(), step()) == (1, 2)


def tripled(grad):
    return grad * 3


def returns_an_input_hooks_handle(x):
    handle = x.register_hook(tripled)
    return (x * 2).sum(), handle


def returns_a_removed_hooks_handle(x):
    handle = x.register_hook(tripled)
    handle.remove()
    return (x * 2).sum(), handle


def test_the_handle_of_an_input_hook_is_the_real_one_registered_once():
    x = torch.ones(3, requires_grad=True)
    loss, handle = compiled(returns_an_input_hooks_handle)(x)
    assert type(handle) is torch.utils.hooks.RemovableHandle and list(x._backward_hooks.values()) == [tripled]
    loss.backward()
    assert x.grad.tolist() == [6.0] * 3  # tripled once: registered where its handle was rebuilt, not again
    handle.remove()
    assert not x._backward_hooks


def test_the_handle_of_a_hook_removed_in_the_trace_runs_the_frame_eagerly():
    opt = tracer.compile(returns_a_removed_hooks_handle)
    x = torch.ones(3, requires_grad=True)
    loss, handle = opt(x)
    assert opt.cache_entries[-1].eager_reason == "the handle of a hook removed in the trace, alive after it"
    loss.backward()
    assert x.grad.tolist() == [2.0] * 3 and type(handle) is torch.utils.hooks.RemovableHandle


def scaled_sum(t, *, k=1, b=0):
    return t * k + b


def returns_a_partial_with_more_keywords_than_arguments(x):
    return functools.partial(scaled_sum, k=2, b=x + 1)


def test_a_partial_with_more_keywords_than_arguments_is_called_with_all_of_them():
    x = torch.arange(3.0)
    partial = compiled(returns_a_partial_with_more_keywords_than_arguments)(x)
    assert partial.func is scaled_sum and list(partial.keywords) == ["k", "b"]
    assert torch.equal(partial(torch.ones(3)), returns_a_partial_with_more_keywords_than_arguments(x)(torch.ones(3)))


def returns_closures_over_two_cells(x):
    a, b = 1, 10

    def get_a():
        return a

    def get_b():
        return b
    return x + a, get_a, get_b


def test_a_closure_made_in_the_trace_holds_its_own_cell_of_the_frame():
    y, get_a, get_b = compiled(returns_closures_over_two_cells)(torch.zeros(2))
    assert (get_a(), get_b()) == (1, 10) and get_a.__closure__[0] is not get_b.__closure__[0]


def makes_two_closures_over_a_new_cell(x):
    def pair():
        n = 0

        def get():
            return n

        def bump():
            nonlocal n
            n += 1
            return n
        return get, bump
    get, bump = pair()
    return x + 1, get, bump


def test_closures_over_a_cell_made_in_the_trace_share_one_rebuilt_cell():
    y, get, bump = compiled(makes_two_closures_over_a_new_cell)(torch.zeros(2))
    assert get.__closure__[0] is bump.__closure__[0] and get() == 0
    assert bump() == 1 and get() == 1


def closes_over_an_argument(x, n):
    def add(t):
        return t + n
    return x * 2, add


def test_a_closure_over_an_argument_that_leaves_the_frame_guards_it_as_dynamo():
    """The closure holds the frame's own cell of `n`: its value is staged (and so guarded), as Dynamo
    guards it: a new `n` compiles again in both engines, and each closure adds its own."""
    counts = {"tracer": 0, "dynamo": 0}

    def backend(name):
        def count(gm, example_inputs):
            counts[name] += 1
            return gm.forward
        return count
    torch._dynamo.reset()
    ours = tracer.compile(closes_over_an_argument, backend=backend("tracer"))
    theirs = torch.compile(closes_over_an_argument, backend=backend("dynamo"), dynamic=False)
    for n in (1, 2):
        for opt in (ours, theirs):
            _, add = opt(torch.ones(2), n)
            assert add(0) == n
    assert counts == {"tracer": 2, "dynamo": 2}
    torch._dynamo.reset()


def returns_new_objects_and_a_changed_cell(x):
    items, table = [x + 1], {"k": x}
    box = Box(x)
    k = 1

    def bump():
        nonlocal k
        k += 1
    bump()
    return items, table, box, bump, k


EFFECTS_SEEN = []


def sets_on_a_new_object_then_mutates_outside(x):
    box = Box(x)
    box.extra = 1
    EFFECTS_SEEN.append(2)
    return x + 1


@pytest.mark.parametrize("fn, prefix", [(returns_new_objects_and_a_changed_cell, "___cellvalue"),
                                        (returns_new_objects_and_a_changed_cell, "___obj"),
                                        (sets_on_a_new_object_then_mutates_outside, "___effect"),
                                        (makes_a_counter, "___cell")],
                         ids=["cell", "object", "effect", "new_cell"])
def test_the_rewritten_codes_own_locals_are_named_apart_from_the_users(fn, prefix):
    """Temps, staged cell values, rebuilt objects and replayed effects are `___`-named: no user local
    can be overwritten."""
    opt = tracer.compile(fn)
    opt(torch.zeros(2))
    code = opt.cache_entries[0].code
    own = set(code.co_varnames) - set(fn.__code__.co_varnames)
    assert all(name.startswith("___") for name in own), own
    assert any(name.startswith(prefix) for name in own)  # the cell the trace wrote, the objects it made


def returns_two_errors_and_one_twice(x):
    first, second = ValueError("a"), KeyError("b")
    return x + 1, first, second, first


def test_each_exception_made_in_the_trace_is_its_own_object():
    _, first, second, again = compiled(returns_two_errors_and_one_twice)(torch.zeros(2))
    assert (type(first), first.args, type(second), second.args) == (ValueError, ("a",), KeyError, ("b",))
    assert again is first


def returns_a_closure_over_an_empty_cell(x):
    def pair():
        def get():
            return n
        return get
        n = 0  # never runs: n is a cell that stays empty
    return x + 1, pair()


def test_a_cell_made_in_the_trace_and_left_empty_is_rebuilt_empty():
    _, get = compiled(returns_a_closure_over_an_empty_cell)(torch.zeros(2))
    with pytest.raises(ValueError, match="empty"):
        get.__closure__[0].cell_contents
    with pytest.raises(NameError):
        get()


LOGGED = []


class LoggedError(Exception):
    """An exception whose own __init__ does something: it cannot be rebuilt by calling it again."""

    def __init__(self, code):
        LOGGED.append(code)


def returns_a_logged_error(x):
    return x + 1, LoggedError(3)


def returns_an_error_with_an_attribute(x):
    error = ValueError("bad")
    error.note = 7
    return x + 1, error


def returns_a_caused_error(x):
    try:
        raise ValueError("outer") from KeyError("inner")
    except ValueError as error:
        caught = error
    return x + 1, caught


def returns_a_chained_error(x):
    try:
        try:
            raise KeyError("first")
        except KeyError:
            raise ValueError("second")
    except ValueError as error:
        caught = error
    return x + 1, caught


def test_an_exception_whose_class_has_its_own_init_is_rebuilt_without_running_it_again():
    """Calling its class again would run that __init__ again (its effects twice): it is made by
    BaseException.__new__ with the attributes the traced __init__ wrote."""
    LOGGED.clear()
    opt = tracer.compile(returns_a_logged_error)
    _, got = opt(torch.zeros(2))
    assert opt.cache_entries[-1].eager_reason is None and len(opt.cache_entries[-1].graphs) == 1
    assert type(got) is LoggedError and got.args == (3,)  # BaseException.__new__ alone: its __init__ ran in the trace
    assert LOGGED == [3]  # once: never remade


@pytest.mark.parametrize("fn", [returns_an_error_with_an_attribute, returns_a_caused_error, returns_a_chained_error],
                         ids=["attribute", "cause", "context"])
def test_an_exception_with_attributes_set_in_the_trace_is_rebuilt_with_them(fn):
    opt = tracer.compile(fn)
    _, got = opt(torch.zeros(2))
    assert opt.cache_entries[-1].eager_reason is None and len(opt.cache_entries[-1].graphs) == 1
    _, want = fn(torch.zeros(2))
    assert type(got) is type(want) and got.args == want.args and got.__dict__ == want.__dict__
    assert repr(got.__cause__) == repr(want.__cause__) and repr(got.__context__) == repr(want.__context__)
    assert got.__suppress_context__ == want.__suppress_context__


def returns_a_function_with_keyword_only_defaults(x):
    def scale(t, *, k=2):
        return t * k
    return x + 1, scale


def test_a_function_with_keyword_only_defaults_is_rebuilt_with_them():
    opt = tracer.compile(returns_a_function_with_keyword_only_defaults)
    _, scale = opt(torch.zeros(2))
    assert opt.cache_entries[-1].eager_reason is None and len(opt.cache_entries[-1].graphs) == 1
    assert scale(3) == 6 and scale.__kwdefaults__ == {"k": 2} and scale(3, k=3) == 9


def make_counter():
    k = 0

    def bump():
        nonlocal k
        k += 1
        return k
    return bump


BUMP = make_counter()


def calls_an_outside_closure(x):
    return x + BUMP()


def test_a_cell_of_an_outside_closure_written_in_the_trace_holds_the_new_value():
    BUMP.__closure__[0].cell_contents = 0
    y = compiled(calls_an_outside_closure)(torch.zeros(2))
    assert torch.equal(y, torch.ones(2)) and BUMP.__closure__[0].cell_contents == 1
    assert BUMP() == 2  # the real cell, written after the graph


def drops_a_closure_over_an_argument(x, n):
    def add(t):
        return t + n
    return x * 2


def test_an_argument_cell_the_trace_never_reads_is_not_guarded_as_in_dynamo():
    """The cell of `n` already holds the argument: staging it again would guard it, and a new `n` would
    compile the first frame again where Dynamo does not."""
    compiles = {"tracer": [], "dynamo": []}

    def backend(name):
        def count(gm, example_inputs):
            compiles[name].append(len(gm.graph.nodes))
            return gm.forward
        return count
    torch._dynamo.reset()
    fn = drops_a_closure_over_an_argument
    ours = tracer.compile(fn, backend=backend("tracer"))
    theirs = torch.compile(fn, backend=backend("dynamo"), dynamic=False)
    for n in (1, 2, 3):
        want = fn(torch.ones(2), n)
        for opt in (ours, theirs):
            assert torch.equal(opt(torch.ones(2), n), want)
    assert len(compiles["tracer"]) == len(compiles["dynamo"]) == 1, compiles
    torch._dynamo.reset()


def test_an_outside_mutation_after_an_attribute_set_on_a_new_object_is_replayed():
    EFFECTS_SEEN.clear()
    y = compiled(sets_on_a_new_object_then_mutates_outside)(torch.zeros(2))
    assert torch.equal(y, torch.ones(2)) and EFFECTS_SEEN == [2]


def halved(grad):
    return grad / 2


def two_input_hooks_one_handle_returned(x):
    handle = x.register_hook(tripled)
    x.register_hook(halved)
    return (x * 2).sum(), handle


def test_a_second_input_hook_is_registered_after_one_whose_handle_was_rebuilt():
    x = torch.ones(3, requires_grad=True)
    loss, handle = compiled(two_input_hooks_one_handle_returned)(x)
    loss.backward()
    assert x.grad.tolist() == [3.0] * 3 and len(x._backward_hooks) == 2  # 2 * 3 / 2: both, once each


def returns_floats(x, s):
    return s, x.shape[0] / 2, (x * s).sum()


def test_a_float_input_comes_back_as_itself_and_a_computed_one_as_a_float_under_dynamic_shapes():
    x, s = torch.ones(3), 1.5
    outputs = []

    def backend(gm, example_inputs):  # as Dynamo hands a backend: a float leaves the graph as a 0-d tensor
        def run(*args):
            out = gm(*args)
            outputs.extend(type(o) for o in out)
            return out
        return run
    opt = tracer.compile(returns_floats, dynamic=True, backend=backend)
    for n in (3, 5):  # the second size runs the same entry: its sizes are symbolic
        x = torch.ones(n)
        got = opt(x, s)
        assert got[0] is s and type(got[1]) is float and got[1] == n / 2 and torch.equal(got[2], (x * s).sum())
    assert len(opt.cache_entries) == 1 and opt.cache_entries[0].eager_reason is None
    assert set(outputs) == {torch.Tensor}, outputs


def returns_arrays(a):
    return a, a + 1


def test_an_array_from_outside_comes_back_as_itself_and_a_computed_one_as_an_array():
    import numpy as np
    a = np.arange(3.0)
    got = compiled(returns_arrays)(a)
    assert got[0] is a and type(got[1]) is np.ndarray and got[1].tolist() == [1.0, 2.0, 3.0]
