"""The native guard tree's form of a guard, where a cheaper torch leaf answers the same question.

An empty dict or OrderedDict whose keys a trace read (nn.Module's global hook dicts, read on
every module call) is checked by its length, not by torch's key-order leaf, which calls
OrderedDict.keys() and builds a list on every check: the tiny trees' checks cost half as much.
A differential case: a key added to such a dict recompiles where Dynamo does, and the
first entry runs again once it is gone.
"""
import collections

import torch

import tracer
from differential import T, call, case, mutate_with, parametrize

CASES: list = []
EMPTY = collections.OrderedDict()


def leaves_of(manager, source: str) -> list[str]:
    """The leaf guard kinds of the manager of `source` in a native tree."""
    if manager.get_source() == source:
        return [type(leaf).__name__ for leaf in manager.get_leaf_guards()]
    for child in manager.get_child_managers():
        found = leaves_of(child, source)
        if found:
            return found
    return []


def over_empty(x):
    for name in EMPTY:
        x = x + len(name)
    return x * 2


def test_no_keys_expected_is_a_length_check():
    opt = tracer.compile(over_empty, backend="eager", dynamic=False)
    opt(torch.ones(2))
    assert leaves_of(opt.cache_entries[0].guards.native.root, "G['EMPTY']") == ["TYPE_MATCH", "DICT_LENGTH"]


def _add(g):
    g["EMPTY"]["key"] = 1


def _remove(g):
    del g["EMPTY"]["key"]


case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=mutate_with(_add, "EMPTY['key'] = 1")),
     call(T(3), mutate=mutate_with(_remove, "del EMPTY['key']")), compiles="C.C.")(over_empty)


test_diff_guard_tree_shapes = parametrize(CASES)
