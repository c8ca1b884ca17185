"""Differential cases: class attributes read through type(obj) (guarded, so a change
recompiles), min/max with key= and default=, every math function folded on constants,
enum members as constants, issubclass, id() and dict.fromkeys."""
import enum
import math

import torch
import torch.nn as nn

from differential import T, call, case, module_case, parametrize, set_attr, set_global
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
BREAK_CASES: list = []


class Scaled:
    SCALE = 2.0


obj = Scaled()


class ScaledModule(nn.Module):
    SCALE = 3.0

    def forward(self, x):
        return x * type(self).SCALE


net = ScaledModule()


class Counter:
    calls = 0


counter = Counter()


class Mode(enum.Enum):
    A = 1
    B = 2


class Shape(enum.Enum):
    SQUARE = (2, 2)
    WIDE = (1, 4)

    def area(self):
        return self.value[0] * self.value[1]


MODE = Mode.A


# ---- type(obj): a Source for the class, so its attributes are guarded ----------------------
@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("Scaled.SCALE", 5.0)), compiles="C.C")
def type_of_global_class_attr(x):
    return x * type(obj).SCALE, type(obj).__name__


module_case(CASES, "type_of_self_class_attr", net, call(T(3)), call(T(3)),
            call(T(3), mutate=set_attr("ScaledModule.SCALE", 7.0)), compiles="C.C")


@case(CASES, call(T(3), 2), call(T(3), 2.5), call(T(3), "s"))
def type_of_argument(x, n):
    return x + 1, type(n) is int, type(n).__name__, type(x) is torch.Tensor


@break_case(BREAK_CASES, call(T(1)), call(T(1)), call(T(1)), breaks=None,
            state=lambda: Counter.calls)
def type_of_global_class_counter(x):
    type(counter).calls += 1
    return x + Counter.calls


# ---- min / max with key= and default= --------------------------------------------------------
@case(CASES, call(T(3)), call(T(3)))
def min_max_key_constants(x):
    words = ["ccc", "a", "bb"]
    return (x * max([1, 5, 3], key=lambda v: -v) + min([-4, 2, 3], key=abs),
            max(words, key=len), min(words, key=len), max(3, 7, 5, key=lambda v: v % 4))


@break_case(BREAK_CASES, call(T(3), T(2)), call(T(3), T(2)))
def min_max_key_tensors_break(x, y):  # Dynamo folds key= only over constants
    longest = max([x, y], key=lambda t: t.shape[0])
    shortest = min((x, y), key=lambda t: t.numel())
    return longest * 2, shortest + 1


@case(CASES, call(T(3)), call(T(3)))
def min_max_default(x):
    return x + max([], default=4) + min([2, 1], default=9), max((), default=None)


# ---- math on constants: folded, never a graph break -------------------------------------------
@case(CASES, call(T(3)), call(T(3)))
def math_functions_fold(x):
    return (x * math.exp(1) + math.log2(8) + math.log10(100) + math.sin(0) + math.cos(0) + math.tanh(0)
            + math.erf(0) + math.gcd(12, 8) + math.factorial(3) + math.copysign(1, -2) + math.fabs(-1)
            + math.trunc(2.5) + math.hypot(3, 4) + math.radians(180) + math.atan2(1, 1) + math.isqrt(17)
            + math.comb(5, 2) + math.perm(4, 2) + math.degrees(1.0) + math.lcm(4, 6) + math.expm1(0.5)
            + math.log1p(0.5) + math.dist((0, 0), (3, 4)) + math.fsum([0.1, 0.2]) + math.asinh(1.0))


@case(CASES, call(T(2, 8)), call(T(2, 8)), call(T(2, 6)), compiles="C.C")
def math_on_shapes(x):
    d = x.shape[-1]
    return x / math.sqrt(d) * math.log10(d) + math.floor(math.log2(d)), math.isqrt(d), math.ceil(d / 3)


# ---- enum members: constants guarded by identity ----------------------------------------------
@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_global("MODE", Mode.B)), compiles="C.C")
def enum_compare_value_name(x):
    if MODE == Mode.A:
        return x + MODE.value, MODE.name
    return x * MODE.value, MODE.name, MODE is Mode.B, MODE in (Mode.A, Mode.B)


@case(CASES, call(T(3), Shape.SQUARE), call(T(3), Shape.SQUARE), call(T(3), Shape.WIDE), compiles="C.C")
def enum_argument_tuple_value_and_method(x, shape):
    rows, cols = shape.value
    return x * rows + cols + shape.area(), {Mode.A: 1}[Mode.A], shape


# ---- issubclass, id(), dict.fromkeys ----------------------------------------------------------
@case(CASES, call(T(3)), call(T(3)))
def issubclass_of_classes(x):
    return (x * issubclass(bool, int), issubclass(Scaled, object), issubclass(ScaledModule, nn.Module),
            issubclass(Mode, (int, enum.Enum)))


@case(CASES, call(T(3)), call(T(3)))
def dict_fromkeys(x):
    d = dict.fromkeys(["x", "y"], 0)
    e = dict.fromkeys("ab")
    return x + len(d) + d["y"], d, e


other = obj


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_global("other", Scaled())), compiles="C.C")
def id_of_outside_objects(x):
    return x + 1, id(other) == id(obj), id(None) == id(None)


test_builtins_more = parametrize(CASES)
test_builtins_more_breaks = parametrize_breaks(BREAK_CASES)
