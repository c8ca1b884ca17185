"""Calls on constants Dynamo folds and Standin broke on, compared with Dynamo: an Enum looked up by
value (`Color(2)`, EnumMeta's own lookup; a class with a `_missing_` hook of its own is not folded),
`slice.indices`, `hex`/`oct`/`bin`."""
import enum

import pytest

import tracer
from differential import T, call, case, parametrize

CASES: list = []


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Lenient(enum.Enum):
    ONE = 1

    @classmethod
    def _missing_(cls, value):
        return cls.ONE


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def an_enum_looked_up_by_value(x):
    return x * Color(2).value, Color(1).name, Color(2) is Color.GREEN


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def slice_indices_of_a_constant_slice(x):
    s = slice(1, None, 2)
    return x[s], s.indices(5), slice(-3, None).indices(4)


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def hex_oct_bin_fold(x):
    return x + len(hex(255)), oct(8), bin(5)


test_constant_folds = parametrize(CASES)


def missing_hook(x):
    return x, Lenient(7)


def test_an_enum_with_its_own_missing_hook_is_not_folded():
    with pytest.raises(tracer.Unsupported):
        tracer.compile(missing_hook, fullgraph=True)(T(3))
    assert tracer.compile(missing_hook)(T(3))[1] is Lenient.ONE
