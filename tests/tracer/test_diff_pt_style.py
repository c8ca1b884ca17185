"""Differential cases found by running PyTorch-style Dynamo tests (small functions compiled whole
with a counting backend) through both engines: the constructs where Standin differed."""
import operator

import torch

from differential import T, call, case, parametrize

CASES: list = []


@case(CASES, call(T(4, 3)), call(T(4, 3)), call(T(2, 3, dtype=torch.float64)), compiles="C.C")
def tensor_new_with_a_shape_is_empty_of_that_shape(x):
    # a Size or ints name a shape; a list is data to copy
    shaped = x.new(x.size()).fill_(2.0)
    by_ints = x.new(2, 5).zero_()
    from_data = x.new([1.0, 2.0])
    return shaped + x, by_ints.shape, from_data * 3


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def operator_length_hint_of_each_item(x):
    lengths = tuple(map(operator.length_hint, [tuple(range(i)) for i in range(4)]))
    return x * sum(lengths), lengths, operator.length_hint((1, 2), 7)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def list_repeated_with_the_count_on_the_left(x):
    parts = 3 * [x]
    more = 2 * (x, 1)
    return sum(parts), len(more), more[2] + 1


test_pt_style = parametrize(CASES)
