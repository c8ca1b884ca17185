"""Bugs the random-program fuzzer (fuzz_run.py) found, one small case each.

Each case is the reduced program, rewritten by hand where that made it clearer.
"""
import warnings

import pytest
import torch

import tracer
from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(3), {"a": 1.0}), call(T(3), {"a": 1.0, "b": 2.0}), compiles="CC")
def del_of_a_missing_key_is_caught(x, d):
    try:
        del d["b"]
    except KeyError as e:
        return x + len(e.args)
    return x - 1


test_fuzz_found = parametrize(CASES)


def del_of_a_missing_key_escapes(x, d):
    del d["b"]
    return x


def test_del_of_a_missing_key_raises_the_programs_key_error():
    tracer.reset()
    opt = tracer.compile(del_of_a_missing_key_escapes)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tracer.InternalTracerWarning)  # it was an internal error
        with pytest.raises(KeyError, match="'b'"):
            opt(torch.ones(2), {"a": 1.0})
