"""One object under two names is one value in the trace, with a guard that it stays one.

The same tensor handed in as two arguments (or in an argument and inside a list, or as two
locals a resume function receives) is one graph input, and `a is b` is true in the trace; the
entry is guarded that both names still hold one object (Dynamo's DUPLICATE_INPUT), so a call
with two different tensors recompiles.  Tensors the graph took as distinct are guarded to stay
distinct (Dynamo's NO_TENSOR_ALIASING), so a later call with one tensor twice recompiles too.
The same holds for a list or a plain object under two names: what the trace wrote through one
was read through the other, which is only right while they are one object.
"""
from functools import partial

import torch.nn as nn

from differential import T, call, case, module_case, parametrize
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
BREAK_CASES: list = []

X, Y = T(3), T(3)


class Box:
    def __init__(self, v=0):
        self.v = v


def mul(x, y):
    return x * y


# ---- tensors --------------------------------------------------------------------------------
@case(CASES, call(X, X), call(X, X), call(X, Y), call(Y, X), compiles="C.C.", same_placeholders=True)
def one_tensor_as_two_arguments(a, b):
    return a + b, a is b


@case(CASES, call(X, Y), call(Y, X), call(X, X), call(Y, Y), compiles="C.C.", same_placeholders=True)
def two_tensors_then_one_twice(a, b):
    return a * b, a is not b


@case(CASES, call(X, [X, Y]), call(X, [Y, X]), compiles="CC", same_placeholders=True)
def a_tensor_also_inside_a_list(a, xs):
    return a - xs[0], xs[0] is a, xs[1] is a


@case(CASES, call(X, Y, X), call(X, Y, Y), call(X, Y, X), compiles="CC.", same_placeholders=True)
def three_arguments_two_tensors(a, b, c):
    c.add_(1)
    return a + b + c


# ---- lists and objects: a write through one name is read through the other -----------------
SHARED: list = []


@case(CASES, call(T(2), SHARED, SHARED), call(T(2), [], []), compiles="CC")
def one_list_as_two_arguments(x, first, second):
    first.append(1)
    return x + len(second)


LIST = [1]


@case(CASES, call(T(2), LIST, LIST), call(T(2), LIST, [2, 3]), compiles="CC", state=lambda: LIST)
def one_global_list_twice(x, first, second):
    first.append(4)
    return x * len(second)


BOX = Box()


@case(CASES, call(T(2), BOX, BOX), call(T(2), BOX, Box(1)), call(T(2), BOX, BOX), compiles="CC.",
      state=lambda: BOX)
def one_object_as_two_arguments(x, first, second):
    first.v = 5
    return x + second.v


# ---- modules with one parameter under two names (tied weights) --------------------------------
class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.encode = nn.Linear(4, 4, bias=False)
        self.decode = nn.Linear(4, 4, bias=False)
        self.decode.weight = self.encode.weight

    def forward(self, x):
        return self.decode(self.encode(x))


TIED = Tied()
module_case(CASES, "tied_weights_are_one_input", TIED, call(T(2, 4)), call(T(2, 4)), compiles="C.",
            same_placeholders=True)

test_input_aliasing = parametrize(CASES)


# ---- locals a resume function receives ---------------------------------------------------------
@break_case(BREAK_CASES, call(T(3)), call(T(3)), compiles="C.", same_placeholders=True)
def two_locals_one_tensor_across_a_break(x):
    y = x
    print("break")
    return x + y, x is y


@break_case(BREAK_CASES, call(T(2, 2)), call(T(2, 2)), compiles="C.", same_placeholders=True)
def a_partial_keyword_tensor_across_a_break(x):
    first = partial(mul, y=x)
    print("break")
    return first(x) + x


@break_case(BREAK_CASES, call(X, X), call(X, Y), compiles="CC", same_placeholders=True)
def one_tensor_twice_then_a_break(a, b):
    c = a * b
    print("break")
    return c * b, a is b


test_input_aliasing_at_breaks = parametrize_breaks(BREAK_CASES)
