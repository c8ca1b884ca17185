"""The differential harness itself: what it restores between runs, and what it counts as the same
graph and the same failing guard (a harness that forgives too much lets every engine bug through)."""
import sys

import pytest
import torch

from differential import _GlobalsSnapshot
from differential_compare import op_list, reason_problems, states

BUF = torch.arange(6.0)
SEEN = {1}


def test_restore_brings_back_a_tensor_resized_and_retyped_in_place_a_set_and_torch_switches():
    g = sys.modules[__name__].__dict__
    snap = _GlobalsSnapshot(g)
    same = BUF
    BUF.resize_(2, 2).fill_(7.0)
    SEEN.add(5)
    torch.set_default_dtype(torch.float64)
    try:
        snap.restore()
    finally:
        torch.set_default_dtype(torch.float32) if torch.get_default_dtype() != torch.float32 else None
    assert BUF is same and BUF.shape == (6,) and BUF.stride() == (1,)
    torch.testing.assert_close(BUF, torch.arange(6.0))
    assert SEEN == {1}
    assert torch.get_default_dtype() == torch.float32


def test_restore_brings_back_strides_changed_in_place():
    square = torch.arange(4.0).reshape(2, 2)
    snap = _GlobalsSnapshot({"SQ": square})
    square.t_()
    snap.restore()
    assert square.stride() == (2, 1)
    torch.testing.assert_close(square, torch.arange(4.0).reshape(2, 2))


def _graph(fn, *example):
    gm = torch.fx.symbolic_trace(fn)
    for node, value in zip((n for n in gm.graph.nodes if n.op == "placeholder"), example):
        node.meta["example_value"] = value
    return gm


def test_op_lists_compare_arguments_but_not_node_names():
    def a(x, y):
        return torch.add(x * 2, y, alpha=3)

    def renamed(p, q):  # other placeholder names, same computation
        return torch.add(p * 2, q, alpha=3)

    x, y = torch.ones(3), torch.ones(2, 3)
    assert op_list(_graph(a, x, y)) == op_list(_graph(renamed, x, y))
    assert op_list(_graph(a, x, y)) == [
        ("call_function", "operator.mul", "%in:float32[3], 2"),
        ("call_function", "torch.add", "%op0, %in:float32[2, 3], alpha=3"),
    ]

    def other_constant(x, y):
        return torch.add(x * 2.0, y, alpha=3)

    def other_kwarg(x, y):
        return torch.add(x * 2, y, alpha=2)

    def swapped(x, y):
        return torch.add(y * 2, x, alpha=3)

    for changed in (other_constant, other_kwarg, swapped):
        assert op_list(_graph(changed, x, y)) != op_list(_graph(a, x, y)), changed.__name__


@pytest.mark.parametrize("dynamo, ours, same", [
    ("G['cfg'].scale == 2", "G['cfg'].scale == 2, got 3", True),
    ("G['cfg'].scale == 2", "G['cfg'].scale == 3, got 2", False),  # another expected value
    ("G['cfg'].scale == 2", "G['cfg'].shift == 2, got 3", False),  # another source
    ("n == 1", "n == 1, got 2", True),  # ours after L['n'] is printed bare
    ("len(xs) == 1", "len(xs) == 1, got len 2", True),
    ("len(xs) == 1", "xs == 1, got 2", False),  # another kind
    ("tensor 'x' stride mismatch at index 0. expected 1, actual 2",
     "tensor 'x' stride mismatch at index 0. expected 1, actual 2", True),
    ("tensor 'x' stride mismatch at index 0. expected 1, actual 2",
     "tensor 'x' size mismatch at index 0. expected 1, actual 2", False),  # another attribute
    ("tensor 'x' size mismatch at index 0. expected 3, actual 4",
     "tensor 'x' size mismatch at index 0. expected 3, actual 5", False),  # another actual size
    ("tensor 'x' dtype mismatch. expected Float, actual Double",
     "tensor 'x' dtype mismatch. expected torch.float32, actual torch.float64", True),
    ("2 <= x.size()[0]", "2 <= L['x'].size()[0], got L['x'].size()[0] = 1", True),  # a shape guard
    ("2 <= x.size()[0]", "2 <= L['y'].size()[0], got L['y'].size()[0] = 1", False),  # of another tensor
    ("s <= 0.6", "L['s'] <= 0.6, got L['s'] = 0.9", True),  # of a symbolic float
    ("tensor 'y' dtype mismatch. expected Float, actual Double",
     "tensor 'x' dtype mismatch. expected torch.float32, actual torch.float64", False),  # another tensor
    ("GLOBAL_STATE changed: default_dtype ", "___check_global_state() against {...}, changed default_dtype="
     "torch.float64", True),
    ("GLOBAL_STATE changed: grad_mode ", "___check_global_state() against {...}, changed default_dtype="
     "torch.float64", False),
    ("len(G['D']) == 2", "list(G['D'].keys()) == ['a', 'b'], got keys ['a']", True),
    ("len(G['D']) == 3", "list(G['D'].keys()) == ['a', 'b'], got keys ['a']", False),
    ("not G['LOG']", "len(G['LOG']) == 0, got len 1", True),
    ("KeyError on G['D']['a']", "list(G['D'].keys()) == ['a'], got keys ['b']", True),
    ("KeyError on G['D']['c']", "list(G['D'].keys()) == ['a'], got keys ['b']", False),
    ("___check_obj_id(dict(G['C'].__dict__)['f'].__func__.__code__, 1234)",
     "___check_obj_id(G['C'].f.__code__, 1234), value=<code>, got <code>", True),
    ("___check_obj_id(G['C'].f.__code__, 1234)", "___check_obj_id(G['C'].f.__code__, 999), value=<code>", False),
])
def test_a_failing_guard_is_the_same_premise_only_when_source_kind_and_values_agree(dynamo, ours, same):
    assert states(dynamo, ours) is same


def test_the_recompile_reason_must_state_the_first_failing_guard():
    failing = {0: ["G['cfg'].scale == 2, got 3", "n == 1, got 2"]}
    ok = ["recompile: 0/0: G['cfg'].scale == 2, got 3  # f.py:3 in f: return x * cfg.scale"]
    assert reason_problems("call 1", ["0/0: n == 1"], failing, ok) == []
    wrong = ["recompile: 0/0: n == 1, got 2  # f.py:3 in f: return x * cfg.scale"]
    assert reason_problems("call 1", ["0/0: n == 1"], failing, wrong)
    assert reason_problems("call 1", ["0/0: len(xs) == 2"], failing, ok)  # not among ours
