"""Guard kinds (`tracer/guards/kinds.py`): each kind's words, its Python check, its failure text and
torch's native leaf for it, against expectations written by hand. No tracing: these pin the table
every form of a check is built from (the generated check, torch's tree, the slow path), so a change
to one kind fails here by name, in milliseconds."""
import collections
import math

import pytest
import torch
from torch._C._dynamo.guards import GlobalStateGuard

from tracer.guards.kinds import (
    KINDS, GlobalState, Guard, InstalledAt, ShapeCheck, TensorMeta, actual_text, check_one, dims_match, expected_json,
    global_state, is_marked, kind_of, leaf_function, leaf_test, manager_kind, tensor_mismatch, tensor_name,
)
from tracer.guards.native import NativeGuards
from tracer.source import LocalSource, SourceGroup

X = LocalSource("x")


def frame(x, y):
    """The frame the native trees below are built for: locals x and y."""


def guard(kind: str, expected, source=X) -> Guard:
    return Guard(source, kind, expected)


def native_of(g: Guard, built_on, y=None) -> NativeGuards:
    """torch's tree of one guard over `x`, built from the value `built_on` as a compile sees it."""
    return NativeGuards([g], frame.__code__, {"x": built_on, "y": y}, {})


def leaves(manager) -> list[str]:
    """The kinds of the leaf guards in a torch guard manager's tree, depth first."""
    found = [type(leaf).__name__ for leaf in manager.get_leaf_guards()]
    for child in manager.get_child_managers():
        found += leaves(child)
    return found


def answers(g: Guard, built_on, value) -> tuple[bool, bool]:
    """(the slow Python check, torch's tree built on `built_on`) for `value`: always the same pair."""
    return check_one(g, value), native_of(g, built_on).probe({"x": value, "y": None})


# ---- small pieces -------------------------------------------------------------------------------

def test_where_a_guard_was_installed_prints_file_line_function_and_source_line():
    at = InstalledAt("m.py", "f", 3, 10, source_line="    y = x + 1\n")
    assert str(at) == "m.py:3 in f: y = x + 1"
    assert str(InstalledAt("m.py", "f", 3, 10)) == "m.py:3 in f"


def test_a_guard_prints_its_kind_and_dynamos_expression():
    g = guard("EQUALS_MATCH", 2)
    assert g.source_name == "L['x']" and g.expr == "L['x'] == 2" and str(g) == "EQUALS_MATCH: L['x'] == 2"
    assert Guard(None, "GLOBAL_STATE", ()).source_name == ""
    assert guard("NO_SUCH_KIND", 1).expr == "NO_SUCH_KIND(L['x'])"  # an unknown kind still prints


def test_an_unknown_kind_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown guard kind NO_SUCH_KIND"):
        kind_of(guard("NO_SUCH_KIND", 1))
    assert kind_of(guard("NONE_MATCH", None)) is KINDS["NONE_MATCH"]


def test_long_values_are_cut_to_sixty_characters_in_the_words_of_a_guard():
    long_text = "a" * 100
    expr = guard("ID_MATCH", long_text).expr
    assert expr == f"___check_obj_id(L['x'], {id(long_text)}), value='{'a' * 56}..."
    assert actual_text(guard("EQUALS_MATCH", 1), "b" * 59) == "got '" + "b" * 56 + "..."
    assert actual_text(guard("EQUALS_MATCH", 1), "b" * 58) == "got '" + "b" * 58 + "'"  # 60 exactly: whole


def test_a_guard_checks_only_with_the_builtins_its_test_needs():
    check = leaf_function(guard("LENGTH_CHECK", 2))
    assert check([1, 2]) is True and check([1]) is False
    assert check.__globals__["__builtins__"] == {"type": type, "len": len, "tuple": tuple, "bool": bool,
                                                 "set": set, "map": map, "id": id}


def test_the_manager_kind_is_the_one_torch_loaded():
    from torch._dynamo.guards import GuardManagerType
    assert manager_kind() is GuardManagerType.GUARD_MANAGER


# ---- tensors ------------------------------------------------------------------------------------

def test_a_tensors_meta_is_what_tensor_match_compares():
    t = torch.ones(2, 3)
    meta = TensorMeta.of(t)
    assert (meta.type, meta.dtype, meta.device, meta.requires_grad) == (torch.Tensor, torch.float32,
                                                                        torch.device("cpu"), False)
    assert (meta.size, meta.stride, meta.marked) == ((2, 3), (3, 1), False)
    assert meta.dispatch_keys == torch._C._dispatch_keys(t) and meta.is_static()
    pattern = TensorMeta.of(t, size=(None, 3), stride=(3, None))
    assert (pattern.size, pattern.stride) == ((None, 3), (3, None)) and not pattern.is_static()
    assert not TensorMeta.of(t, size=(2, 3), stride=(None, 1)).is_static()
    torch._dynamo.mark_dynamic(t, 0)
    assert TensorMeta.of(t).marked


def test_a_tensor_is_marked_only_by_dynamos_marker():
    t = torch.ones(2)
    assert not is_marked(t)
    t.note = 1
    assert not is_marked(t)  # another attribute in its __dict__
    torch._dynamo.maybe_mark_dynamic(t, 0)
    assert is_marked(t)


def test_sizes_match_a_pattern_at_every_static_dimension():
    assert dims_match((2, 3), (2, 3)) and dims_match((5, 3), (None, 3))
    assert not dims_match((2, 4), (None, 3)) and not dims_match((2, 3), (2, 3, 1))
    assert not dims_match((2, 3, 1), (2, 3))


def test_tensor_match_prints_as_dynamo_and_reports_its_meta():
    g = guard("TENSOR_MATCH", TensorMeta.of(torch.ones(2, 3, requires_grad=True)))
    assert g.expr == ("check_tensor(L['x'], Tensor, torch.float32, device=None, requires_grad=True, "
                      "size=[2, 3], stride=[3, 1])")
    assert expected_json(g) == {"type": "Tensor", "dtype": "torch.float32", "device": "cpu",
                                "requires_grad": True, "size": [2, 3], "stride": [3, 1]}


def test_tensor_match_accepts_only_the_same_meta_in_python_and_in_torchs_tree():
    t = torch.ones(2, 3)
    g = guard("TENSOR_MATCH", TensorMeta.of(t))
    assert answers(g, t, torch.zeros(2, 3)) == (True, True)
    others = {"dtype": torch.ones(2, 3, dtype=torch.float64), "shape": torch.ones(3, 2),
              "stride": torch.ones(3, 2).t(), "requires_grad": torch.ones(2, 3, requires_grad=True),
              "type": torch.nn.Parameter(torch.ones(2, 3), requires_grad=False), "rank": torch.ones(6),
              "device": torch.ones(2, 3, device="meta"), "not a tensor": 3}
    for why, other in others.items():
        assert answers(g, t, other) == (False, False), why
    marked = torch.ones(2, 3)
    torch._dynamo.mark_dynamic(marked, 0)
    assert answers(g, t, marked) == (False, False)  # marked since: Dynamo recompiles


def test_tensor_match_with_a_marked_tensor_accepts_it_marked():
    t = torch.ones(2, 3)
    torch._dynamo.mark_dynamic(t, 0)
    g = guard("TENSOR_MATCH", TensorMeta.of(t))
    assert check_one(g, t) and "__dict__" not in leaf_test(g, "v", repr)
    assert leaves(native_of(g, t).root) == ["TENSOR_MATCH"]  # no guard on the marker


def test_tensor_match_with_symbolic_sizes_leaves_them_to_the_shape_guards():
    t = torch.ones(2, 3)
    g = guard("TENSOR_MATCH", TensorMeta.of(t, size=(None, 3), stride=(3, 1)))
    assert check_one(g, torch.ones(5, 3)) and not check_one(g, torch.ones(5, 4))
    assert not check_one(g, torch.ones(5, 6)[:, :3])  # stride (6, 1)


def test_tensor_match_off_the_cpu_compares_the_device():
    meta = torch.ones(2, device="meta")
    g = guard("TENSOR_MATCH", TensorMeta.of(meta))
    assert check_one(g, torch.ones(2, device="meta")) and not check_one(g, torch.ones(2))
    assert "is_cpu" not in leaf_test(g, "v", repr)


def test_tensor_match_in_torchs_tree_is_torchs_leaf_and_a_test_of_the_markers_absence():
    t = torch.ones(2)
    assert leaves(native_of(guard("TENSOR_MATCH", TensorMeta.of(t)), t).root) == ["TENSOR_MATCH", "DICT_CONTAINS"]

    class Odd(torch.Tensor):
        def __getattr__(self, name):
            raise AttributeError(name)
    odd = torch.ones(2).as_subclass(Odd)
    g = guard("TENSOR_MATCH", TensorMeta.of(odd))
    assert leaves(native_of(g, odd).root) == ["TENSOR_MATCH", "NO_HASATTR"]  # its own attribute lookup
    assert answers(g, odd, torch.zeros(2).as_subclass(Odd)) == (True, True)
    marked = torch.zeros(2).as_subclass(Odd)
    torch._dynamo.mark_dynamic(marked, 0)
    assert answers(g, odd, marked) == (False, False)


class ReadsItsOwnWay(torch.Tensor):
    def __getattribute__(self, name):
        return super().__getattribute__(name)


class MarkedClass(torch.Tensor):
    _has_dynamo_dim_marking = True  # an attribute of the class: "not in its __dict__" is not "absent"


@pytest.mark.parametrize("cls", [ReadsItsOwnWay, MarkedClass], ids=lambda c: c.__name__)
def test_the_markers_absence_on_a_tensor_type_with_its_own_lookup_is_torchs_hasattr_test(cls):
    t = torch.ones(2).as_subclass(cls)
    assert leaves(native_of(guard("TENSOR_MATCH", TensorMeta.of(t)), t).root) == ["TENSOR_MATCH", "NO_HASATTR"]


def test_tensor_match_built_on_something_else_is_checked_by_its_python_test():
    g = guard("TENSOR_MATCH", TensorMeta.of(torch.ones(2)))
    tree = native_of(g, 3)  # the frame held no tensor when built: no example for torch's leaf
    assert leaves(tree.root) == ["LAMBDA_GUARD"]
    assert tree.probe({"x": torch.ones(2), "y": None}) and not tree.probe({"x": torch.ones(3), "y": None})
    keyless = guard("TENSOR_MATCH", TensorMeta(torch.Tensor, torch.float32, torch.device("cpu"), False, (2,), (1,)))
    assert leaves(native_of(keyless, torch.ones(2)).root) == ["LAMBDA_GUARD"]  # no dispatch keys to compare


def test_a_tensor_is_named_as_dynamo_names_it():
    assert tensor_name("L['x']") == "x" and tensor_name("L['xs'][1]") == "xs[1]"
    assert tensor_name("G['w']") == "G['w']" and tensor_name("L['a']['b']") == "a['b']"


def test_a_tensor_mismatch_says_what_differs_first_in_dynamos_words():
    t = torch.ones(2, 3)
    then = TensorMeta.of(t)
    marked = torch.ones(2, 3)
    torch._dynamo.mark_dynamic(marked, 0)
    cases = [
        (torch.nn.Parameter(t), "tensor 'x' type mismatch. expected Tensor, actual Parameter"),
        (t.double(), "tensor 'x' dtype mismatch. expected torch.float32, actual torch.float64"),
        (torch.ones(2, 3, device="meta"), "tensor 'x' device mismatch. expected cpu, actual meta"),
        (t.clone().requires_grad_(), "tensor 'x' requires_grad mismatch. expected requires_grad=0"),
        (torch.ones(6), "tensor 'x' rank mismatch. expected 2, actual 1"),
        (torch.ones(2, 4), "tensor 'x' size mismatch at index 1. expected 3, actual 4"),
        (torch.ones(3, 2).t(), "tensor 'x' stride mismatch at index 0. expected 3, actual 1"),
        (marked, f"tensor 'x': {'_has_dynamo_dim_marking'} is present on runtime tensor but was absent at "
                 "compile time"),
        (torch.zeros(2, 3), "tensor 'x' matches"),
    ]
    for value, words in cases:
        assert tensor_mismatch("L['x']", then, value) == words
    assert tensor_mismatch("", then, torch.ones(6)) == "tensor rank mismatch. expected 2, actual 1"
    symbolic = TensorMeta.of(t, size=(None, 3), stride=(None, 1))
    assert tensor_mismatch("L['x']", symbolic, torch.ones(7, 3)) == "tensor 'x' matches"
    assert tensor_mismatch("L['x']", symbolic, torch.ones(7, 3).t().contiguous().t()) == \
        "tensor 'x' stride mismatch at index 1. expected 1, actual 7"


def test_a_tensor_mismatch_names_a_changed_dispatch_key_set():
    t = torch.ones(2)
    then = TensorMeta.of(t)
    with torch.inference_mode():
        other = torch.ones(2)
    words = tensor_mismatch("L['x']", then, other)
    assert words.startswith("tensor 'x' dispatch key set mismatch. expected ")
    assert words == (f"tensor 'x' dispatch key set mismatch. expected {then.dispatch_keys}, "
                     f"actual {torch._C._dispatch_keys(other)}")
    keyless = TensorMeta(torch.Tensor, torch.float32, torch.device("cpu"), False, (2,), (1,))
    assert tensor_mismatch("L['x']", keyless, other) == "tensor 'x' matches"  # no keys recorded: none compared


def test_a_failed_tensor_match_reads_as_its_mismatch_or_the_value_it_got():
    g = guard("TENSOR_MATCH", TensorMeta.of(torch.ones(2)))
    assert actual_text(g, torch.ones(3)) == "tensor size mismatch at index 0. expected 2, actual 3"
    assert actual_text(g, [1, 2]) == "got [1, 2]"


# ---- values, types, identities ------------------------------------------------------------------

def test_type_match_accepts_only_that_exact_type():
    g = guard("TYPE_MATCH", int)
    assert g.expr == f"___check_type_id(L['x'], {id(int)}), type=<class 'int'>"
    assert answers(g, 1, 5) == (True, True) and answers(g, 1, True) == (False, False)
    assert answers(g, 1, "1") == (False, False)
    assert actual_text(g, "s") == "got type str" and expected_json(g) == "int"
    assert leaves(native_of(g, 1).root) == ["TYPE_MATCH"]


def test_id_match_accepts_only_that_object():
    box = [1]
    g = guard("ID_MATCH", box)
    assert g.expr == f"___check_obj_id(L['x'], {id(box)}), value=[1]"
    assert answers(g, box, box) == (True, True) and answers(g, box, [1]) == (False, False)
    assert actual_text(g, [1]) == "got [1]" and leaves(native_of(g, box).root) == ["ID_MATCH"]
    assert expected_json(guard("ID_MATCH", frame)) == "frame"  # by qualified name
    assert expected_json(g) == "[1]"  # no qualified name: its repr
    assert expected_json(guard("ID_MATCH", "x" * 300)) == repr("x" * 300)[:200]


def test_equals_match_compares_type_and_value():
    g = guard("EQUALS_MATCH", 2)
    assert answers(g, 2, 2) == (True, True)
    for other in (3, 2.0, True, "2"):
        assert answers(g, 2, other) == (False, False), other
    one = guard("EQUALS_MATCH", True)
    assert answers(one, True, True) == (True, True) and answers(one, True, 1) == (False, False)
    assert leaves(native_of(g, 2).root) == ["TYPE_MATCH", "EQUALS_MATCH"]
    assert expected_json(g) == "2" and expected_json(guard("EQUALS_MATCH", "s" * 300)) == repr("s" * 300)[:200]
    assert actual_text(g, 3) == "got 3"


def test_equals_match_of_nan_accepts_any_nan_float():
    nan = float("nan")
    g = guard("EQUALS_MATCH", nan)
    assert g.expr == "L['x'] == nan"
    assert answers(g, nan, float("nan")) == (True, True) and answers(g, nan, math.inf) == (False, False)
    assert answers(g, nan, 1.0) == (False, False)
    assert leaves(native_of(g, nan).root) == ["TYPE_MATCH", "FLOAT_IS_NAN"]
    plain = guard("EQUALS_MATCH", 1.5)
    assert answers(plain, 1.5, 1.5) == (True, True) and answers(plain, 1.5, nan) == (False, False)


@pytest.mark.parametrize("kind, expected, words, leaf", [
    ("NONE_MATCH", None, "L['x'] is None", "NONE_MATCH"),
    ("TRUE_MATCH", True, "L['x'] == True", "TRUE_MATCH"),
    ("FALSE_MATCH", False, "L['x'] == False", "FALSE_MATCH"),
])
def test_singletons_are_matched_by_identity(kind, expected, words, leaf):
    g = guard(kind, expected)
    assert g.expr == words and leaves(native_of(g, expected).root) == [leaf]
    assert answers(g, expected, expected) == (True, True)
    for other in {None, True, False, 0, 1} - {expected}:
        if other is not expected:
            assert answers(g, expected, other) == (False, False), other


# ---- containers ---------------------------------------------------------------------------------

def test_length_check_of_a_list_a_tuple_and_a_dict_is_torchs_own_check_after_the_type():
    g = guard("LENGTH_CHECK", 2)
    assert g.expr == "len(L['x']) == 2" and actual_text(g, [1, 2, 3]) == "got len 3"
    for example, same, longer in (([1, 2], [3, 4], [1, 2, 3]), ((1, 2), (3, 4), (1,)),
                                  ({"a": 1, "b": 2}, {"c": 1, "d": 2}, {})):
        assert leaves(native_of(g, example).root) == ["TYPE_MATCH",
                                                       "DICT_LENGTH" if type(example) is dict else "LENGTH_CHECK"]
        assert answers(g, example, same) == (True, True) and answers(g, example, longer) == (False, False)
    assert native_of(g, [1, 2]).probe({"x": (1, 2), "y": None}) is False  # another type: the guard fails
    assert answers(g, "ab", "cd") == (True, True) and leaves(native_of(g, "ab").root) == ["LAMBDA_GUARD"]


def test_tuple_iterator_len_counts_what_is_left():
    g = guard("TUPLE_ITERATOR_LEN", 2)
    assert g.expr == "___tuple_iterator_len(L['x']) == 2"
    it = iter((1, 2, 3))
    next(it)
    assert answers(g, it, it) == (True, True) and answers(g, it, iter((1, 2, 3))) == (False, False)
    assert leaves(native_of(g, it).root) == ["LAMBDA_GUARD"]


def test_dict_keys_match_compares_the_keys_in_order():
    g = guard("DICT_KEYS_MATCH", ("a", "b"))
    assert g.expr == "list(L['x'].keys()) == ['a', 'b']"
    d = {"a": 1, "b": 2}
    assert answers(g, d, {"a": 0, "b": 0}) == (True, True)
    assert answers(g, d, {"b": 0, "a": 0}) == (False, False) and answers(g, d, {"a": 0}) == (False, False)
    assert actual_text(g, {"b": 1}) == "got keys ['b']"
    assert leaves(native_of(g, d).root) == ["TYPE_MATCH", "MAPPING_KEYS_MATCH"]
    assert leaves(native_of(g, {"b": 1}).root) == ["LAMBDA_GUARD"]  # keys torch would copy are not those expected
    assert leaves(native_of(g, [1]).root) == ["LAMBDA_GUARD"]


class EmptyTable(dict):
    pass


@pytest.mark.parametrize("empty, leaf", [({}, "DICT_LENGTH"), (collections.OrderedDict(), "DICT_LENGTH"),
                                         (EmptyTable(), "MAPPING_KEYS_MATCH")])
def test_no_keys_expected_of_a_dict_or_ordered_dict_is_torchs_length_check(empty, leaf):
    """A length of 0 says the same as no keys for dict and OrderedDict (nn.Module's hook dicts), with no
    list of keys per check; a subclass, whose keys() may be its own, keeps the key check."""
    g = guard("DICT_KEYS_MATCH", ())
    assert leaves(native_of(g, empty).root) == ["TYPE_MATCH", leaf]
    assert answers(g, empty, type(empty)()) == (True, True) and answers(g, empty, type(empty)(a=1)) == (False, False)


def test_dict_contains_tests_a_keys_presence_or_absence():
    present, absent = guard("DICT_CONTAINS", ("k", True)), guard("DICT_CONTAINS", ("k", False))
    assert present.expr == "___dict_contains('k', L['x'])" and absent.expr == "not ___dict_contains('k', L['x'])"
    with_k, without = {"k": 1}, {"j": 1}
    assert answers(present, with_k, with_k) == (True, True) and answers(present, with_k, without) == (False, False)
    assert answers(absent, without, without) == (True, True) and answers(absent, without, with_k) == (False, False)
    assert leaves(native_of(present, with_k).root) == ["TYPE_MATCH", "DICT_CONTAINS"]
    assert native_of(present, with_k).probe({"x": ["k"], "y": None}) is False  # not a dict any more
    assert leaves(native_of(present, ["k"]).root) == ["LAMBDA_GUARD"] and check_one(present, ["k"])


# ---- relations between sources -----------------------------------------------------------------

def pair_guard(kind: str) -> Guard:
    return Guard(SourceGroup((X, LocalSource("y"))), kind, ("L['x']", "L['y']"))


def relational_tree(g: Guard, x, y) -> NativeGuards:
    return NativeGuards([g], frame.__code__, {"x": x, "y": y}, {})


def test_duplicate_input_holds_while_both_names_hold_one_object():
    g = pair_guard("DUPLICATE_INPUT")
    t = torch.ones(2)
    assert g.expr == "L['x'] is L['y']" and g.source_name == "(L['x'], L['y'])"
    assert check_one(g, (t, t)) and not check_one(g, (t, torch.ones(2)))
    tree = relational_tree(g, t, t)
    assert tree.probe({"x": t, "y": t}) and not tree.probe({"x": t, "y": torch.ones(2)})
    assert "LAMBDA_GUARD" not in leaves(tree.root)
    assert actual_text(g, (t, torch.ones(2))) == "they are different objects now"


def test_no_tensor_aliasing_holds_while_the_tensors_are_distinct():
    g = pair_guard("NO_TENSOR_ALIASING")
    a, b = torch.ones(2), torch.ones(2)
    assert g.expr == "check_no_aliasing(L['x'], L['y'])"
    assert check_one(g, (a, b)) and not check_one(g, (a, a))
    tree = relational_tree(g, a, b)
    assert tree.probe({"x": a, "y": b}) and not tree.probe({"x": a, "y": a})
    assert "LAMBDA_GUARD" not in leaves(tree.root)
    assert actual_text(g, (a, a)) == "Duplicate tensors found: [L['x'], L['y']]"
    three = Guard(SourceGroup((X, LocalSource("y"), LocalSource("z"))), "NO_TENSOR_ALIASING",
                  ("L['x']", "L['y']", "L['z']"))
    assert actual_text(three, (a, b, a)) == "Duplicate tensors found: [L['x'], L['z']]"
    assert actual_text(three, (a, a, a)) == "Duplicate tensors found: [L['x'], L['y'], L['z']]"
    four = Guard(SourceGroup(tuple(LocalSource(n) for n in "xyzw")), "NO_TENSOR_ALIASING",
                 ("L['x']", "L['y']", "L['z']", "L['w']"))
    assert actual_text(four, (a, b, a, b)) == "Duplicate tensors found: [L['x'], L['z']], [L['y'], L['w']]"


# ---- global state, shapes -----------------------------------------------------------------------

def test_global_state_is_each_switch_and_torchs_snapshot_of_the_moment():
    state = global_state()
    assert [name for name, _ in state] == ["grad_mode", "default_dtype", "deterministic_algorithms", "autocast",
                                           "torch_function"]
    assert dict(state) == {"grad_mode": torch.is_grad_enabled(), "default_dtype": torch.get_default_dtype(),
                           "deterministic_algorithms": False, "autocast": False, "torch_function": True}
    assert isinstance(state.native, GlobalStateGuard) and state.native.check()


def test_global_state_holds_until_a_switch_changes_and_names_it():
    g = Guard(None, "GLOBAL_STATE", global_state())
    assert g.expr == f"___check_global_state() against {dict(g.expected)}"
    assert expected_json(g) == {"grad_mode": "True", "default_dtype": "torch.float32",
                                "deterministic_algorithms": "False", "autocast": "False", "torch_function": "True"}
    tree = NativeGuards([g], frame.__code__, {"x": None, "y": None}, {})
    assert check_one(g, None) and tree.probe({"x": None, "y": None})
    assert leaves(tree.root) == ["GLOBAL_STATE"]
    with torch.no_grad():
        assert not check_one(g, None) and not tree.probe({"x": None, "y": None})
        assert actual_text(g, None) == "changed grad_mode=False"
    torch.set_default_dtype(torch.float64)
    try:
        assert not check_one(g, None) and actual_text(g, None) == "changed default_dtype=torch.float64"
    finally:
        torch.set_default_dtype(torch.float32)


def test_global_state_names_every_switch_that_changed_at_once():
    g = Guard(None, "GLOBAL_STATE", global_state())
    torch.set_default_dtype(torch.float64)
    try:
        with torch.no_grad():
            assert actual_text(g, None) == "changed grad_mode=False, default_dtype=torch.float64"
    finally:
        torch.set_default_dtype(torch.float32)


class SnapshotSaying:
    """A stand-in for torch's GlobalStateGuard whose failure reason is given (torch's own may be blank)."""

    def __init__(self, reason):
        self.words = reason

    def reason(self):
        return self.words


def test_global_state_changed_outside_the_switches_is_named_by_the_snapshots_reason_stripped_or_a_question_mark():
    for reason, words in ((" num_threads changed\n", "changed num_threads changed"), (" \n", "changed ?")):
        state = GlobalState(global_state())
        state.native = SnapshotSaying(reason)
        assert actual_text(Guard(None, "GLOBAL_STATE", state), None) == words


def test_global_state_outside_the_switches_is_named_by_torchs_snapshot():
    g = Guard(None, "GLOBAL_STATE", global_state())
    threads = torch.get_num_threads()
    torch.set_num_threads(threads + 1)
    try:
        assert not check_one(g, None)
        words = actual_text(g, None)
        assert words.startswith("changed ") and "num_threads" in words.replace(" ", "_").lower()
    finally:
        torch.set_num_threads(threads)


def test_global_state_made_by_hand_is_checked_switch_by_switch():
    by_hand = Guard(None, "GLOBAL_STATE", GlobalState((("grad_mode", True), ("default_dtype", torch.float32))))
    assert check_one(by_hand, None)
    with torch.no_grad():
        assert not check_one(by_hand, None) and actual_text(by_hand, None) == "changed grad_mode=False"
    assert check_one(Guard(None, "GLOBAL_STATE", GlobalState(())), None)  # nothing to compare: holds
    tree = NativeGuards([by_hand], frame.__code__, {"x": None, "y": None}, {})
    assert leaves(tree.root) == ["LAMBDA_GUARD"]  # no native snapshot to give torch
    with torch.no_grad():
        assert not tree.probe({"x": None, "y": None})
    assert tree.probe({"x": None, "y": None})


def test_a_shape_guard_reads_the_frame_and_prints_as_dynamo():
    check = ShapeCheck("2 <= L['x'].size()[0] and L['x'].size()[0] <= 4", "2 <= L['x'].size()[0] <= 4",
                       ("L['x'].size()[0]",))
    assert check.holds({"x": torch.ones(3)}, {}) is True and check.holds({"x": torch.ones(5)}, {}) is False
    g = Guard(None, "SHAPE_ENV", check)
    assert g.expr == "2 <= L['x'].size()[0] <= 4"
    assert expected_json(g) == {"python": check.python, "reads": ["L['x'].size()[0]"]}
    assert leaf_test(g, "v", repr) == f"({check.python})"
    with pytest.raises(ValueError, match="a SHAPE_ENV guard is checked over the frame's L and G"):
        leaf_function(g)
    rounded = ShapeCheck("math.floor(L['n'] / 2) == 1 and torch.is_tensor(G['t'])", "")
    assert rounded.holds({"n": 3}, {"t": torch.ones(1)}) and not rounded.holds({"n": 4}, {"t": torch.ones(1)})


def test_a_shape_guard_in_the_native_tree_answers_as_holds_and_fails_on_a_non_tensor():
    """The native tree's shape guard is check_over(G): one function of L, which must say what holds() says
    (G read from the frame's globals) and fail, not raise, when an input is not a tensor any more."""
    check = ShapeCheck("2 <= L['x'].size()[0] and L['x'].size()[0] <= G['limit']", "2 <= L['x'].size()[0] <= G['limit']",
                       ("L['x'].size()[0]",))
    f_globals = {"limit": 4}
    tree = NativeGuards([Guard(None, "SHAPE_ENV", check)], frame.__code__, {"x": torch.ones(3), "y": None},
                        f_globals)
    for size in range(7):
        f_locals = {"x": torch.ones(size), "y": None}
        assert tree.probe(f_locals) is check.holds(f_locals, f_globals) is (2 <= size <= 4)
    f_globals["limit"] = 6  # the frame's globals, read when checked
    assert tree.probe({"x": torch.ones(6), "y": None})
    assert tree.probe({"x": 3, "y": None}) is False and tree.failing_parts({"x": 3, "y": None}) == [check.text]
