"""torch's native guard tree built from guards torch has no form for: a Source with no native accessor (its
value read by a Python lambda), a kind with no native leaf or one that refuses the value (its Python test),
a root torch cannot reach (its subtree as one Python check), relations over such sources.  Each must hold
exactly when the guard holds, fail when reading raises, and name the guard when it fails."""
import torch

import tracer

from tracer.guards.kinds import Guard
from tracer.guards.native import NativeGuards
from tracer.source import (AttrSource, DictValueSource, GetItemSource, GlobalSource, IterItemSource, LocalSource,
                           SourceGroup)


def frame(d, it, s, x, y):  # the frame the trees are built for: its locals, in this order
    pass


def native(guards, f_locals, f_globals=None) -> NativeGuards:
    return NativeGuards(guards, frame.__code__, f_locals, f_globals if f_globals is not None else {})


def leaves(manager) -> list[str]:
    found = [type(leaf).__name__ for leaf in manager.get_leaf_guards()]
    for child in manager.get_child_managers():
        found += leaves(child)
    return found


def test_a_source_without_a_native_accessor_is_read_by_a_python_lambda():
    guard = Guard(DictValueSource(LocalSource("d"), 1), "EQUALS_MATCH", 5)
    tree = native([guard], {"d": {"a": 1, "b": 5}})
    assert tree.probe({"d": {"a": 1, "b": 5}}) and tree.probe({"d": {"z": 0, "y": 5}})
    assert not tree.probe({"d": {"a": 1, "b": 6}})
    assert not tree.probe({"d": {"a": 1}})  # the position is gone: reading raises, the guard fails
    assert tree.failing_parts({"d": {"a": 1, "b": 6}}) == [guard.expr]
    ahead = Guard(IterItemSource(LocalSource("it"), 0), "EQUALS_MATCH", 2)
    tree = native([ahead], {"it": iter((2, 3))})
    assert tree.probe({"it": iter((2, 3))}) and not tree.probe({"it": iter((3, 2))})


def test_a_kind_without_a_native_leaf_runs_its_python_test_and_fails_when_it_raises():
    guard = Guard(LocalSource("it"), "TUPLE_ITERATOR_LEN", 2)
    tree = native([guard], {"it": iter((1, 2))})
    assert "LAMBDA_GUARD" in leaves(tree.root)
    assert tree.probe({"it": iter((7, 8))}) and not tree.probe({"it": iter((1, 2, 3))})
    assert not tree.probe({"it": 5})
    assert tree.failing_parts({"it": iter(())}) == ["___tuple_iterator_len(L['it']) == 2"]


def test_a_value_the_native_leaf_refuses_gets_the_python_test_of_its_kind():
    for source, kind, expected, now, other in (
            (LocalSource("s"), "LENGTH_CHECK", 2, {1, 2}, {1, 2, 3}),  # torch checks lengths of dicts and sequences
            (LocalSource("d"), "DICT_CONTAINS", ("k", True), type("D", (dict,), {})(k=1), {}),  # not an exact dict
    ):
        guard = Guard(source, kind, expected)
        name = source.local_name
        tree = native([guard], {name: now})
        assert "LAMBDA_GUARD" in leaves(tree.root), kind
        assert tree.probe({name: now}) and not tree.probe({name: other}), kind
        assert tree.failing_parts({name: other}) == [guard.expr]


def test_a_root_torch_cannot_reach_is_checked_by_python_with_everything_under_it():
    gone = LocalSource("gone")  # not a local of the frame's code: torch has no accessor for it
    guards = [Guard(gone, "TYPE_MATCH", dict), Guard(GetItemSource(gone, "k"), "EQUALS_MATCH", 3),
              Guard(AttrSource(GetItemSource(gone, "o"), "real"), "EQUALS_MATCH", 4)]
    tree = native(guards, {"gone": {"k": 3, "o": 4}})
    assert leaves(tree.root) == ["LAMBDA_GUARD"]
    assert tree.probe({"gone": {"k": 3, "o": 4}})
    assert not tree.probe({"gone": {"k": 2, "o": 4}}) and not tree.probe({"gone": {"k": 3, "o": 5}})
    assert not tree.probe({"gone": [3]}) and not tree.probe({})  # a check raising or a value gone: it fails
    assert tree.failing_parts({"gone": {"k": 3, "o": 5}}) == [g.expr for g in guards]


def test_a_relation_over_a_source_torch_cannot_reach_is_checked_by_python():
    x = torch.ones(2)
    pair = SourceGroup((LocalSource("x"), LocalSource("gone")))
    guard = Guard(pair, "DUPLICATE_INPUT", ("L['x']", "L['gone']"))
    tree = native([guard], {"x": x, "gone": x})
    assert leaves(tree.root) == ["LAMBDA_GUARD"]
    assert tree.probe({"x": x, "gone": x}) and not tree.probe({"x": x, "gone": torch.ones(2)})
    assert not tree.probe({"x": x})  # a member gone: the relation cannot hold
    assert tree.failing_parts({"x": x, "gone": x.clone()}) == [guard.expr]
    distinct = SourceGroup((LocalSource("x"), LocalSource("y")))
    reachable = native([Guard(distinct, "NO_TENSOR_ALIASING", ("L['x']", "L['y']"))], {"x": x, "y": torch.ones(2)})
    assert "LAMBDA_GUARD" not in leaves(reachable.root)  # both reachable: torch's own relational guard
    assert reachable.probe({"x": x, "y": torch.ones(2)}) and not reachable.probe({"x": x, "y": x})


def test_globals_and_a_global_gone_at_build_time():
    f_globals = {"cfg": 3}
    guard = Guard(GlobalSource("cfg"), "EQUALS_MATCH", 3)
    tree = native([guard], {}, f_globals)
    assert tree.probe({})
    f_globals["cfg"] = 4
    assert not tree.probe({}) and tree.failing_parts({}) == [guard.expr]
    missing = native([Guard(GlobalSource("nope"), "EQUALS_MATCH", 1)], {}, {})  # read fails while building
    assert not missing.probe({})
    f_globals = {"other": 1}
    later = native([Guard(GlobalSource("nope"), "EQUALS_MATCH", 1)], {}, f_globals)
    assert not later.probe({})  # torch's item accessor built over a missing key would pass here
    f_globals["nope"] = 2
    assert not later.probe({})
    f_globals["nope"] = 1
    assert later.probe({})


def test_a_relation_over_a_global_and_an_unreachable_source_reads_the_frames_globals():
    x = torch.ones(2)
    f_globals = {"g": x}
    pair = SourceGroup((GlobalSource("g"), LocalSource("gone")))
    tree = native([Guard(pair, "DUPLICATE_INPUT", ("G['g']", "L['gone']"))], {"gone": x}, f_globals)
    assert tree.probe({"gone": x}) and not tree.probe({"gone": x.clone()})
    f_globals["g"] = x.clone()
    assert not tree.probe({"gone": x})


def sized(x):
    if x.shape[0] > 2:
        return x * 2
    return x - 1


def test_a_shape_guard_over_the_frame_holds_for_the_sizes_it_allows():
    opt = tracer.compile(sized, dynamic=True)
    opt(torch.ones(4))
    guards = opt.cache_entries[0].guards
    assert any(g.kind == "SHAPE_ENV" for g in guards) and guards.native is not None
    assert guards.native.probe({"x": torch.ones(7)}) and not guards.native.probe({"x": torch.ones(2)})
    assert not guards.native.probe({"x": 3})


W = torch.ones(5)


def sized_by_a_global(x):
    if W.shape[0] > x.shape[0]:
        return x * 2
    return x - 1


def test_a_shape_guard_over_a_global_tensor_reads_the_frames_globals():
    opt = tracer.compile(sized_by_a_global, dynamic=True)
    opt(torch.ones(3))
    guards = opt.cache_entries[0].guards
    assert any(g.kind == "SHAPE_ENV" and "G['W']" in g.expr for g in guards), [g.expr for g in guards]
    assert guards.native.probe({"x": torch.ones(4)}) and not guards.native.probe({"x": torch.ones(6)})


def managers_named(manager, name) -> int:
    found = int(manager.get_source() == name)
    return found + sum(managers_named(child, name) for child in manager.get_child_managers())


def test_a_source_reached_by_a_relation_too_has_one_manager():
    x, z = torch.ones(2), torch.zeros(2)
    first, second = DictValueSource(LocalSource("d"), 0), DictValueSource(LocalSource("d"), 1)
    guards = [Guard(first, "TYPE_MATCH", torch.Tensor), Guard(second, "TYPE_MATCH", torch.Tensor),
              Guard(SourceGroup((first, second)), "NO_TENSOR_ALIASING", (first.name(), second.name()))]
    tree = native(guards, {"d": {"a": x, "b": z}})
    assert managers_named(tree.root, "L['d']") == 1  # read once per check, not once per guard over it
    assert managers_named(tree.root, first.name()) == 1 and managers_named(tree.root, second.name()) == 1
    assert tree.probe({"d": {"a": x, "b": z}}) and tree.probe({"p": 0, "d": {"c": z, "e": x}})
    assert not tree.probe({"d": {"a": x, "b": x}})  # one tensor twice
    assert not tree.probe({"d": {"a": x, "b": 1}}) and not tree.probe({"d": {"a": x}})
    assert tree.failing_parts({"d": {"a": x, "b": x}}) == ["Duplicate tensor found where not expected!"]  # torch's


def test_a_relation_over_a_global_missing_at_build_time_fails_until_it_holds():
    x = torch.ones(2)
    f_globals = {}
    pair = SourceGroup((GlobalSource("t"), LocalSource("x")))
    guard = Guard(pair, "DUPLICATE_INPUT", ("G['t']", "L['x']"))
    tree = native([guard], {"x": x}, f_globals)
    assert not tree.probe({"x": x})  # G['t'] is missing: the two cannot be one object
    f_globals["t"] = x.clone()
    assert not tree.probe({"x": x})
    f_globals["t"] = x
    assert tree.probe({"x": x}) and not tree.probe({"x": x.clone()})


def find(manager, name):
    """The manager named `name` under `manager` and its parent's name (None, None if there is none)."""
    for child in manager.get_child_managers():
        if child.get_source() == name:
            return child, manager.get_source()
        found = find(child, name)
        if found[0] is not None:
            return found
    return None, None


def test_a_relation_over_sources_nothing_else_guards_is_torchs_own_guard_over_their_managers():
    x, z = torch.ones(2), torch.zeros(2)
    f_globals = {"g": z}
    members = (GetItemSource(LocalSource("d"), "a"), GetItemSource(LocalSource("s"), 1), GlobalSource("g"))
    guard = Guard(SourceGroup(members), "NO_TENSOR_ALIASING", tuple(m.name() for m in members))
    f_locals = {"d": {"a": x}, "s": [0, torch.full((2,), 2.0)]}
    tree = native([guard], f_locals, f_globals)
    assert leaves(tree.root) == ["NO_TENSOR_ALIASING"] * 3  # no Python: each member has its own accessor
    item, parent = find(tree.root, "L['d']['a']")
    assert parent == "L['d']" and item.get_type_of_guarded_value() is torch.Tensor  # the value it was built on
    assert find(tree.root, "G['g']")[0].get_type_of_guarded_value() is torch.Tensor
    assert [type(a).__name__ for a in find(tree.root, "L['d']")[0].get_accessors()] == ["DictGetItemGuardAccessor"]
    assert [type(a).__name__ for a in find(tree.root, "L['s']")[0].get_accessors()] == ["GetItemGuardAccessor"]
    assert tree.probe(f_locals)
    assert not tree.probe({"d": {"a": x}, "s": [0, x]}) and not tree.probe({"d": {"a": z}, "s": f_locals["s"]})


def test_a_tag_safe_roots_twin_is_reached_as_the_root_is_and_sees_a_class_change():
    class Other(torch.nn.Linear):
        pass
    m = torch.nn.Sequential(torch.nn.Linear(2, 2))
    sub = GetItemSource(AttrSource(LocalSource("d"), "_modules"), "0")
    weight = GetItemSource(AttrSource(sub, "_parameters"), "weight")
    from tracer.guards.kinds import TensorMeta
    guards = [Guard(LocalSource("d"), "TYPE_MATCH", torch.nn.Sequential),
              Guard(sub, "TYPE_MATCH", torch.nn.Linear), Guard(weight, "TENSOR_MATCH", TensorMeta.of(m[0].weight))]
    tree = native(guards, {"d": m})
    root, _ = find(tree.root, sub.name())
    assert tree.tag_safe_roots == [root]
    twin, parent = find(tree.root, f"{sub.name()} (outside its tag-safe subtree)")
    assert parent == find(tree.root, sub.name())[1] == "L['d']._modules"  # read as the root is: an item of
    modules, _ = find(tree.root, parent)                                   # that dict, read straight
    assert [type(a).__name__ for a in modules.get_accessors()] == ["DictGetItemGuardAccessor"] * 2
    assert [type(leaf).__name__ for leaf in twin.get_leaf_guards()] == ["TYPE_MATCH"]
    assert tree.probe({"d": m}) and tree.probe({"d": m})  # the second check may take the fast path
    m[0].__class__ = Other  # no dict changes: only the twin's TYPE_MATCH sees it
    assert not tree.probe({"d": m})


class Scaled:
    scale = 2


def test_builtins_the_globals_dict_a_module_and_a_type_are_each_read_by_torchs_own_accessor():
    import sys
    import types
    from tracer.source import BuiltinSource, GlobalsDictSource, ModuleSource, TypeSource
    module = types.ModuleType("standin_native_probe")
    module.k = 1
    sys.modules[module.__name__] = module
    try:
        f_globals = {"__builtins__": {"len": len}}
        guards = [Guard(BuiltinSource("len"), "ID_MATCH", len), Guard(GlobalsDictSource(), "DICT_CONTAINS", ("len", False)),
                  Guard(AttrSource(ModuleSource(module.__name__), "k"), "EQUALS_MATCH", 1),
                  Guard(AttrSource(TypeSource(LocalSource("x")), "scale"), "EQUALS_MATCH", 2)]
        f_locals = {"x": Scaled()}
        tree = native(guards, f_locals, f_globals)
        assert "LAMBDA_GUARD" not in leaves(tree.root)
        assert {c.get_source() for c in tree.root.get_child_managers()} == {
            "G", "G['__builtins_dict___0']", "sys.modules", "L['x']"}
        assert [type(a).__name__ for a in find(tree.root, "L['x']")[0].get_accessors()] == ["TypeGuardAccessor"]
        for name, value in (("G['__builtins_dict___0']['len']", len), ("type(L['x'])", Scaled),
                            ("type(L['x']).scale", 2), ("G['__import_standin_native_probe'].k", 1),
                            ("G['__import_standin_native_probe']", module), ("G", {}),
                            ("G['__builtins_dict___0']", {}), ("sys.modules", {})):
            assert find(tree.root, name)[0].get_type_of_guarded_value() is type(value), name  # built on its value
        assert tree.probe(f_locals)
        assert not tree.probe({"x": object()})  # another type: no class attribute scale
        f_globals["__builtins__"]["len"] = max
        assert not tree.probe(f_locals) and tree.failing_parts(f_locals) == [guards[0].expr]
        f_globals["__builtins__"]["len"] = len
        f_globals["len"] = 3  # a global now shadows the builtin
        assert not tree.probe(f_locals)
        del f_globals["len"]
        module.k = 2
        assert not tree.probe(f_locals)
        module.k = 1
        Scaled.scale = 3
        assert not tree.probe(f_locals)
        Scaled.scale = 2
        assert tree.probe(f_locals)
    finally:
        del sys.modules[module.__name__]
        Scaled.scale = 2


class SetOnly:
    """A data descriptor by its __set__ alone: it answers before the instance's __dict__."""

    def __get__(self, obj, cls=None):
        return 5.0

    def __set__(self, obj, value):
        raise AttributeError("read-only")


class DeleteOnly:
    """A data descriptor by its __delete__ alone."""

    def __get__(self, obj, cls=None):
        return 5.0

    def __delete__(self, obj):
        raise AttributeError("kept")


class Odd(torch.nn.Module):
    """Attributes a module's __dict__ does not answer for: its own lookup, a class attribute, a property
    over an entry of its __dict__ of the same name."""

    gain = 2.0
    level = 0.0  # shadowed by each instance's own
    settable, deletable = SetOnly(), DeleteOnly()

    def __init__(self):
        super().__init__()
        self.own = 1.0
        self.level = 1.0
        self.__dict__.update(settable=1.0, deletable=1.0)  # hidden by the descriptors
        self.__dict__["shown"] = 1.0  # hidden by the property below

    @property
    def shown(self):
        return 5.0


class Looked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.own = 1.0

    def __getattribute__(self, name):
        return 7.0 if name == "own" else super().__getattribute__(name)


class Plain:
    def __init__(self):
        self.own = 1.0


def test_a_module_attribute_is_read_from_its_dict_only_where_getattr_would_find_it_there():
    def set_own(value, member):
        value.__dict__[member] = 9.0

    def set_class(value, member):
        setattr(type(value), member, 3.0)

    for cls, member, expected, accessor, change, holds in (
            (Odd, "own", 1.0, "GetGenericDictGuardAccessor", set_own, False),
            (Odd, "gain", 2.0, "GetAttrGuardAccessor", set_class, False),
            (Odd, "level", 1.0, "GetGenericDictGuardAccessor", set_own, False),  # a class attribute, no descriptor
            (Odd, "shown", 5.0, "GetAttrGuardAccessor", set_own, True),  # the property still answers 5
            (Odd, "settable", 5.0, "GetAttrGuardAccessor", set_own, True),  # so does each data descriptor
            (Odd, "deletable", 5.0, "GetAttrGuardAccessor", set_own, True),
            (Looked, "own", 7.0, "GetAttrGuardAccessor", set_own, True),  # its own lookup still answers 7
            (Plain, "own", 1.0, "GetAttrGuardAccessor", set_own, False)):
        value = cls()
        tree = native([Guard(AttrSource(LocalSource("d"), member), "EQUALS_MATCH", expected)], {"d": value})
        assert [type(a).__name__ for a in find(tree.root, "L['d']")[0].get_accessors()] == [accessor], member
        assert find(tree.root, f"L['d'].{member}")[0].get_type_of_guarded_value() is float  # built on its value
        assert tree.probe({"d": value}), (cls, member)
        try:
            change(value, member)
            assert tree.probe({"d": value}) is holds, (cls, member)
        finally:
            Odd.gain = 2.0


def test_an_item_of_an_item_of_a_dict_is_read_straight_from_each_dict():
    d = {"a": {"b": 1}}
    tree = native([Guard(GetItemSource(GetItemSource(LocalSource("d"), "a"), "b"), "EQUALS_MATCH", 1)], {"d": d})
    inner, parent = find(tree.root, "L['d']['a']")
    assert parent == "L['d']" and inner.get_type_of_guarded_value() is dict
    assert [type(a).__name__ for a in inner.get_accessors()] == ["DictGetItemGuardAccessor"]
    assert tree.probe({"d": d}) and not tree.probe({"d": {"a": {"b": 2}}}) and not tree.probe({"d": {"a": {}}})
