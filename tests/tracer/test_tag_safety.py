"""Unit tests of tag-safe marking (tracer/guards/tag_safety.py) on native trees built by hand.

A subtree is marked tag safe only when every node and leaf under it is; the roots
are modules with no module under them; each root's own guards get a twin.  The
last tests check torch's fast path does what the marking assumes of it.
"""
import importlib

import pytest
import torch
from torch._C._dynamo.guards import RootGuardManager

import tracer
from tracer.guards.kinds import KINDS, TensorMeta
from tracer.guards.tag_safety import SAFE_LEAVES, mark_tag_safe_roots

KIND = importlib.import_module("torch._dynamo.guards").GuardManagerType.GUARD_MANAGER


def _tensor_leaf(manager, t: torch.Tensor) -> None:
    manager.add_tensor_match_guard(t, list(t.size()), list(t.stride()), "t", ["t"], None, type(t),
                                   torch._C._dispatch_keys(t))


def _linear_tree(layer: torch.nn.Linear, root=None, name="L['m']"):
    """root -> layer (TYPE_MATCH) -> __dict__ -> _parameters -> weight, bias (TENSOR_MATCH)."""
    root = root or RootGuardManager()
    module = root.framelocals_manager(("m", 0), name, layer, KIND)
    module.add_type_match_guard(id(type(layer)), ["type"], None)
    instance_dict = module.get_generic_dict_manager(f"{name}.__dict__", layer.__dict__, KIND)
    parameters = instance_dict.dict_getitem_manager("_parameters", f"{name}._parameters", layer._parameters, KIND)
    for key, value in layer._parameters.items():
        _tensor_leaf(parameters.dict_getitem_manager(key, f"{name}._parameters[{key!r}]", value, KIND), value)
    return root, module, instance_dict, parameters


def _no_twin(manager) -> None:
    pass


def test_a_leaf_module_reached_through_its_dicts_is_one_root_and_every_node_under_it_is_safe():
    root, module, instance_dict, parameters = _linear_tree(torch.nn.Linear(2, 2))
    twins = []
    assert mark_tag_safe_roots(root, twins.append) == [module]
    assert module.is_tag_safe_root() and twins == [module]
    assert all(node.is_tag_safe() for node in (module, instance_dict, parameters, *parameters.get_child_managers()))
    assert not root.is_tag_safe()


def test_one_lambda_leaf_under_a_module_keeps_it_and_every_node_above_the_leaf_unsafe():
    root, module, instance_dict, parameters = _linear_tree(torch.nn.Linear(2, 2))
    parameters.add_lambda_guard(lambda d: True, ["a Python test"], None)
    assert mark_tag_safe_roots(root, _no_twin) == []
    assert not any(node.is_tag_safe() for node in (module, instance_dict, parameters))
    assert all(t.is_tag_safe() for t in parameters.get_child_managers())  # the tensors themselves are


def test_an_attribute_read_through_getattr_keeps_the_module_unsafe():
    layer = torch.nn.Linear(2, 2)
    root, module, _, _ = _linear_tree(layer)
    module.getattr_manager("in_features", "L['m'].in_features", 2, KIND).add_equals_match_guard(2, ["2"], None)
    assert mark_tag_safe_roots(root, _no_twin) == []
    assert not module.is_tag_safe()


def test_a_module_with_a_module_under_it_is_not_safe_its_leaf_module_is_the_root():
    outer = torch.nn.Sequential(torch.nn.Linear(2, 2))
    root = RootGuardManager()
    module = root.framelocals_manager(("m", 0), "L['m']", outer, KIND)
    instance_dict = module.get_generic_dict_manager("L['m'].__dict__", outer.__dict__, KIND)
    modules = instance_dict.dict_getitem_manager("_modules", "L['m']._modules", outer._modules, KIND)
    inner = modules.dict_getitem_manager("0", "L['m']._modules['0']", outer[0], KIND)
    inner.add_type_match_guard(id(type(outer[0])), ["type"], None)
    inner_dict = inner.get_generic_dict_manager("L['m']._modules['0'].__dict__", outer[0].__dict__, KIND)
    inner_dict.dict_getitem_manager("training", "T", True, KIND).add_true_match_guard(["T"], None)
    assert mark_tag_safe_roots(root, _no_twin) == [inner]
    assert modules.is_tag_safe() and not module.is_tag_safe()  # the outer one's class would go unchecked


def test_an_ordered_dict_and_a_tensor_with_an_accessor_are_not_safe():
    layer = torch.nn.Linear(2, 2)
    root, module, instance_dict, parameters = _linear_tree(layer)
    hooks = instance_dict.dict_getitem_manager("_forward_hooks", "H", layer._forward_hooks, KIND)
    hooks.add_length_check_guard(0, ["len(H) == 0"], None)
    assert mark_tag_safe_roots(root, _no_twin) == []
    assert not hooks.is_tag_safe() and not module.is_tag_safe()

    root, module, _, parameters = _linear_tree(torch.nn.Linear(2, 2))
    weight = parameters.get_child_managers()[0]
    weight.getattr_manager("grad", "W.grad", None, KIND).add_none_match_guard(["W.grad is None"], None)
    assert mark_tag_safe_roots(root, _no_twin) == []
    assert not weight.is_tag_safe()


def test_the_fast_path_still_sees_tensor_changes_but_not_a_class_change_without_the_twin():
    """What the marking relies on: once warm, a root passes by dict tags but its tensors' checks run;
    its own TYPE_MATCH does not, so `__class__ = ...` needs the twin."""
    class Other(torch.nn.Linear):
        pass

    for twin in (False, True):
        layer = torch.nn.Linear(2, 2)
        root, module, _, _ = _linear_tree(layer)

        def add_twin(manager, root=root, layer=layer):
            copy = root.framelocals_manager(("m", 0), "L['m'] (twin)", layer, KIND)
            copy.add_type_match_guard(id(torch.nn.Linear), ["type"], None)

        mark_tag_safe_roots(root, add_twin if twin else _no_twin)
        assert all(root.check({"m": layer}) for _ in range(3))
        layer.__class__ = Other
        assert root.check({"m": layer}) is (not twin)
        layer.__class__ = torch.nn.Linear

    def no_grad(layer):
        layer.weight.requires_grad_(False)

    def other_dtype(layer):
        layer.weight.data = layer.weight.data.double()

    def other_stride(layer):
        layer.weight.data = layer.weight.data.t().contiguous().t()

    for change in (no_grad, other_dtype, other_stride):
        layer = torch.nn.Linear(2, 3)
        root, _, _, _ = _linear_tree(layer)
        mark_tag_safe_roots(root, _no_twin)
        assert all(root.check({"m": layer}) for _ in range(3))
        change(layer)
        assert root.check({"m": layer}) is False, change.__name__


def _leaves_under(manager) -> set:
    names = {type(leaf).__name__ for leaf in manager.get_leaf_guards()}
    for child in manager.get_child_managers():
        names |= _leaves_under(child)
    return names


def test_a_compiled_networks_roots_are_its_torch_leaf_modules_whose_leaves_are_all_safe():
    net = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU(), torch.nn.Dropout(0.0))
    opt = tracer.compile(net)
    opt(torch.randn(2, 3))
    native = opt.cache_entries[0].guards.native
    roots = {r.get_source() for r in native.tag_safe_roots}
    modules = native.root.get_child_managers()  # find the Linear's manager to read its leaves
    net_source = next(m.get_source() for m in modules if m.get_type_of_guarded_value() is torch.nn.Sequential)
    assert {f"{net_source}._modules['1']", f"{net_source}._modules['2']"} <= roots  # no tensor: dict-covered
    linear = f"{net_source}._modules['0']"
    found = []

    def find(manager):
        if manager.get_source() == linear:
            found.append(manager)
        for child in manager.get_child_managers():
            find(child)
    for manager in modules:
        find(manager)
    assert linear in roots and _leaves_under(found[0]) <= SAFE_LEAVES  # its tensors' markers read from dicts
    assert net_source not in roots  # modules under it
    tracer.reset()


def test_the_fast_path_skips_a_tensors_other_leaves_which_is_why_they_keep_a_module_unsafe():
    layer = torch.nn.Linear(2, 2)
    root, module, instance_dict, parameters = _linear_tree(layer)
    weight = parameters.get_child_managers()[0]
    weight.add_no_hasattr_guard("_marked", ["not hasattr(W, '_marked')"], None)
    assert mark_tag_safe_roots(root, _no_twin) == [] and not weight.is_tag_safe()
    for node in (weight, *parameters.get_child_managers()[1:], parameters, instance_dict, module):
        node.mark_tag_safe()  # what marking it anyway would do
    module.mark_tag_safe_root()
    assert all(root.check({"m": layer}) for _ in range(3))
    layer.weight._marked = True
    assert root.check({"m": layer}) is True  # missed: an attribute set on a tensor changes no dict


def test_a_tensors_marker_read_from_its_own_dict_keeps_the_module_safe_and_the_fast_path_sees_it_set():
    layer = torch.nn.Linear(2, 2)
    root, module, instance_dict, parameters = _linear_tree(layer)
    for key, tensor in zip(layer._parameters, parameters.get_child_managers()):
        marks = tensor.get_generic_dict_manager(f"W[{key!r}].__dict__", layer._parameters[key].__dict__, KIND)
        marks.add_dict_contains_guard(False, "_marked", ["not hasattr(W, '_marked')"], None)
    assert mark_tag_safe_roots(root, _no_twin) == [module]
    assert all(root.check({"m": layer}) for _ in range(3))
    layer.bias._marked = True
    assert root.check({"m": layer}) is False  # the tensor's __dict__ has a new version tag


def test_the_tensor_check_reads_the_marker_from_the_dict_except_where_the_type_has_its_own_getattr():
    class Lookup(torch.Tensor):
        def __getattr__(self, name):
            raise AttributeError(name)

    found = {}
    for t in (torch.randn(2), torch.nn.Parameter(torch.randn(2)), torch.randn(2).as_subclass(Lookup)):
        root = RootGuardManager()
        manager = root.framelocals_manager(("t", 0), "L['t']", t, KIND)
        KINDS["TENSOR_MATCH"].native(manager, TensorMeta.of(t), ["check_tensor(L['t'])"], t)
        found[type(t).__name__] = ([type(leaf).__name__ for leaf in manager.get_leaf_guards()],
                                   [m.get_source() for m in manager.get_child_managers()])
        assert root.check({"t": t})
        torch._dynamo.mark_dynamic(t, 0)
        assert not root.check({"t": t})  # either way, marking it later fails the check
    assert found == {"Tensor": (["TENSOR_MATCH"], ["L['t'].__dict__"]),
                     "Parameter": (["TENSOR_MATCH"], ["L['t'].__dict__"]),
                     "Lookup": (["TENSOR_MATCH", "NO_HASATTR"], [])}


def _item(value, name="extra"):
    """root -> a Linear (TYPE_MATCH) -> __dict__ -> its item `name` = value: the item's manager, and the module's."""
    layer = torch.nn.Linear(2, 2)
    setattr(layer, name, value)
    root, module, instance_dict, _ = _linear_tree(layer)
    return root, module, instance_dict.dict_getitem_manager(name, f"L['m'].{name}", value, KIND)


@pytest.mark.parametrize("value, add_leaf, safe", [
    (True, lambda m, v: m.add_true_match_guard(["v"], None), True),
    (False, lambda m, v: m.add_false_match_guard(["v"], None), True),
    (None, lambda m, v: m.add_none_match_guard(["v"], None), True),
    (3, lambda m, v: m.add_not_none_guard(["v"], None), True),
    (3, lambda m, v: m.add_equals_match_guard(v, ["v"], None), True),
    ("s", lambda m, v: m.add_type_match_guard(id(str), ["v"], None), True),
    (2.5, lambda m, v: m.add_id_match_guard(id(v), ["v"], None), True),
    ({"k": 1}, lambda m, v: m.add_dict_contains_guard(True, "k", ["v"], None), True),
    ({"k": 1}, lambda m, v: m.add_dict_length_check_guard(1, ["v"], None), True),
    ((1, 2), lambda m, v: m.add_length_check_guard(2, ["v"], None), True),
    (3, lambda m, v: m.add_no_hasattr_guard("nope", ["v"], None), False),
    ({"k": 1}, lambda m, v: m.add_dict_version_guard(v, ["v"], None), False),
    (3, lambda m, v: m.add_lambda_guard(lambda x: True, ["v"], None), False),
])
def test_each_leaf_torch_skips_safely_leaves_its_module_a_root_and_no_other(value, add_leaf, safe):
    root, module, item = _item(value)
    add_leaf(item, value)
    (leaf,) = item.get_leaf_guards()
    assert (type(leaf).__name__ in SAFE_LEAVES) == safe
    assert mark_tag_safe_roots(root, _no_twin) == ([module] if safe else [])
    assert item.is_tag_safe() == safe and module.is_tag_safe_root() == safe


@pytest.mark.parametrize("value, safe", [(7, True), ("text", True), ((1, "a"), True), ([1], False), ({1}, False)])
def test_a_value_with_no_accessor_is_safe_only_when_immutable_or_an_exact_tuple(value, safe):
    root, module, item = _item(value)
    item.add_type_match_guard(id(type(value)), ["v"], None)
    assert mark_tag_safe_roots(root, _no_twin) == ([module] if safe else [])


def test_a_dict_or_tuple_is_safe_through_its_items_only():
    for value, reach in (({"k": 1}, lambda m: m.dict_getitem_manager("k", "V['k']", 1, KIND)),
                         ((1, 2), lambda m: m.tuple_getitem_manager(0, "V[0]", 1, KIND)),
                         ((1, 2), lambda m: m.getitem_manager(0, "V[0]", 1, KIND))):
        root, module, item = _item(value)
        reach(item).add_equals_match_guard(1, ["V item"], None)
        assert mark_tag_safe_roots(root, _no_twin) == [module] and item.is_tag_safe()
    for value in ({"k": 1}, (1, 2)):
        root, module, item = _item(value)
        item.getattr_manager("__len__", "V.__len__", value.__len__, KIND).add_not_none_guard(["V.__len__"], None)
        assert mark_tag_safe_roots(root, _no_twin) == [] and not item.is_tag_safe()
