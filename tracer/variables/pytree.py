"""`torch.utils._pytree` on the trackers of a trace, as Dynamo's pytree polyfills do.

torch.func's transforms flatten their arguments and results with pytree (`tree_flatten`,
`tree_unflatten`, `tree_map`, ...).  Pytree's own Python reads the class of every node through
tables of registered types, which the tracer does not model; but its answer depends only on the
structure of containers the tracer holds (tuples, lists, dicts, namedtuples) and on which items
are leaves.  So the structure is rebuilt with a marker for each leaf, real pytree flattens that,
and the markers are mapped back to the trackers: the spec is the real `TreeSpec` (a constant),
the leaves are the trackers themselves.
"""
from __future__ import annotations

import torch.utils._pytree as pytree

from ..exc import Unsupported
from .base import VariableTracker
from .constant import ConstantVariable
from .dicts import ConstDictVariable
from .lists import ListVariable, NamedTupleVariable, TupleVariable, make_named_tuple, tuple_fields


class _Leaf:
    """Where a leaf tracker sits in the rebuilt structure (pytree sees an object of no registered type)."""

    __slots__ = ("tracker",)

    def __init__(self, tracker):
        self.tracker = tracker


def _skeleton(var):
    """The Python structure of a tracker: its containers real, each leaf a `_Leaf`."""
    var = var.realize()
    if isinstance(var, NamedTupleVariable):
        return make_named_tuple(var.tuple_cls, [_skeleton(item) for item in var.items])
    if type(var) in (TupleVariable, ListVariable):
        return var.python_type()(_skeleton(item) for item in var.items)
    if isinstance(var, ConstDictVariable) and var.dict_cls is dict and all(
            isinstance(key, (str, int)) for key in var.entries):
        return {key: _skeleton(value) for key, value in var.entries.items()}
    if var.is_python_constant():
        return _constant_skeleton(var.as_python_constant())
    if var.python_type() in pytree.SUPPORTED_NODES:
        raise Unsupported(f"pytree of {var.describe()} (a container kind the tracer does not flatten)")
    return _Leaf(var)


def _constant_skeleton(value):
    """A constant's structure (in_dims=(0, None)), its leaves constants; a node pytree flattens that
    the tracker side would not rebuild (torch.Size, an OrderedDict) is refused."""
    if pytree.tree_is_leaf(value):
        return _Leaf(ConstantVariable(value))
    if type(value) in (tuple, list):
        return type(value)(_constant_skeleton(item) for item in value)
    if type(value) is dict:
        return {key: _constant_skeleton(item) for key, item in value.items()}
    if isinstance(value, tuple) and tuple_fields(type(value)):
        return make_named_tuple(type(value), [_constant_skeleton(item) for item in value])
    raise Unsupported(f"pytree of the constant {type(value).__qualname__} (a node kind the tracer does not flatten)")


def _tracker(value) -> VariableTracker:
    """A rebuilt structure as trackers again: containers new, leaves the trackers they mark."""
    if isinstance(value, _Leaf):
        return value.tracker
    if isinstance(value, tuple) and type(value) is not tuple:
        return NamedTupleVariable(tuple(_tracker(item) for item in value), tuple_cls=type(value))
    if type(value) is tuple:
        return TupleVariable(tuple(_tracker(item) for item in value))
    if type(value) is list:
        return ListVariable(tuple(_tracker(item) for item in value))
    if type(value) is dict:
        return ConstDictVariable({key: _tracker(item) for key, item in value.items()})
    return ConstantVariable(value)  # a leaf pytree itself made (None of an empty node)


def _leaves(tree) -> list:
    return [leaf.tracker for leaf in pytree.tree_leaves(_skeleton(tree))]


def _spec(var) -> pytree.TreeSpec:
    if not var.is_python_constant() or not isinstance(var.as_python_constant(), pytree.TreeSpec):
        raise Unsupported(f"pytree given {var.describe()} as a TreeSpec")
    return var.as_python_constant()


def _refuse_is_leaf(kwargs) -> None:
    if kwargs.get("is_leaf") is not None and not (kwargs["is_leaf"].is_python_constant()
                                                  and kwargs["is_leaf"].as_python_constant() is None):
        raise Unsupported("torch.utils._pytree with an is_leaf function")


def tree_flatten(tx, args, kwargs):
    _refuse_is_leaf(kwargs)
    leaves, spec = pytree.tree_flatten(_skeleton(args[0]))
    return TupleVariable((ListVariable(tuple(leaf.tracker for leaf in leaves)), ConstantVariable(spec)))


def tree_leaves(tx, args, kwargs):
    _refuse_is_leaf(kwargs)
    return ListVariable(tuple(_leaves(args[0])))


def tree_unflatten(tx, args, kwargs):
    leaves, spec = args[0].unpack_var_sequence(tx), _spec(args[1])
    if len(leaves) != spec.num_leaves:
        raise Unsupported(f"tree_unflatten of {len(leaves)} leaves with a TreeSpec of {spec.num_leaves}")
    return _tracker(pytree.tree_unflatten([_Leaf(leaf) for leaf in leaves], spec))


def tree_map(tx, args, kwargs):
    """fn called on the leaves of the trees, in order, traced; the result has the first tree's shape."""
    _refuse_is_leaf(kwargs)
    fn, tree, rests = args[0], args[1], args[2:]
    leaves, spec = pytree.tree_flatten(_skeleton(tree))
    others = [spec.flatten_up_to(_skeleton(rest)) for rest in rests]
    results = [fn.call_function(tx, [leaf.tracker, *[other[i].tracker for other in others]], {})
               for i, leaf in enumerate(leaves)]
    return _tracker(pytree.tree_unflatten([_Leaf(r) for r in results], spec))


def tree_map_(tx, args, kwargs):
    """tree_map for fn's effects: the tree itself is the answer."""
    tree_map(tx, args, kwargs)
    return args[1]


def broadcast_to_and_flatten(tx, args, kwargs):
    """`_broadcast_to_and_flatten(in_dims, spec)`: on constants (dims are ints or None), answered now."""
    if not args[0].is_python_constant():
        raise Unsupported(f"_broadcast_to_and_flatten of {args[0].describe()}, not a constant")
    flat = pytree._broadcast_to_and_flatten(args[0].as_python_constant(), _spec(args[1]))
    return ConstantVariable(None) if flat is None else ListVariable(tuple(ConstantVariable(v) for v in flat))


POLYFILLS = {pytree.tree_flatten: tree_flatten, pytree.tree_leaves: tree_leaves, pytree.tree_unflatten: tree_unflatten,
             pytree.tree_map: tree_map, pytree.tree_map_: tree_map_,
             pytree._broadcast_to_and_flatten: broadcast_to_and_flatten}
