"""Differential cases: globals, attributes of global objects, and mutations of them."""
import math

import torch

from differential import T, call, case, mutate_with, parametrize, set_attr, set_global

CASES: list = []


class Sub:
    def __init__(self):
        self.alpha = 0.5


class Config:
    def __init__(self):
        self.rows = 2
        self.scale = 2
        self.unused = "x"
        self.sub = Sub()


cfg = Config()
K = 3
W = T(4)
TABLE = {"a": 2, "b": 3}
COEFFS = [1.5, -2.0]
FLAG = True
MODE = "sum"
NEVER_READ = 0


@case(CASES, call(T(8)), call(T(8)), call(T(8), mutate=set_attr("cfg.rows", 4)), call(T(8)),
      compiles="C.C.")
def glob_attr_used_as_shape(x):
    return x.view(cfg.rows, -1) * cfg.scale


@case(CASES, call(T(3)), call(T(3), mutate=set_global("K", 4)), call(T(3), mutate=set_global("K", 3)),
      compiles="CC.")
def glob_int_back_and_forth(x):
    # after K goes back to 3 the first cache entry matches again
    return x + K


@case(CASES, call(T(4)), call(T(4), mutate=set_global("W", T(4))),
      call(T(4), mutate=set_global("W", T(2, 4))), call(T(4), mutate=set_global("W", T(4, dtype=torch.float64))),
      compiles="C.CC")
def glob_tensor_rebound(x):
    return x * W + W.sum()


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("cfg.sub.alpha", 0.25)), compiles="C.C")
def glob_nested_attribute(x):
    return x * cfg.sub.alpha + cfg.scale


@case(CASES, call(T(3)), call(T(3), mutate=mutate_with(lambda g: g["TABLE"].__setitem__("a", 7),
                                                      "TABLE['a'] = 7")),
      call(T(3), mutate=mutate_with(lambda g: g["TABLE"].__setitem__("zz", 1), "TABLE['zz'] = 1")),
      compiles="CC.")
def glob_dict_entry(x):
    # Dynamo guards the entries it read, not the key set: adding "zz" does not recompile
    return x * TABLE["a"] + TABLE["b"]


@case(CASES, call(T(3)), call(T(3)),
      call(T(3), mutate=mutate_with(lambda g: g["COEFFS"].__setitem__(1, 5.0), "COEFFS[1] = 5.0")),
      compiles="C.C")
def glob_list_of_floats(x):
    return x * COEFFS[0] + COEFFS[1]


@case(CASES, call(T(3)), call(T(3), mutate=set_attr("cfg.unused", "y")),
      call(T(3), mutate=set_global("NEVER_READ", 99)), compiles="C..")
def glob_unread_changes_do_not_recompile(x):
    return x * cfg.scale


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_global("FLAG", False)), call(T(3)),
      compiles="C.C.")
def glob_bool_flag_selects_branch(x):
    if FLAG:
        return x + 1
    return x - 1


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def glob_module_attributes(x):
    return x.to(torch.float64) * math.pi + math.sqrt(4.0), torch.float32, math.e > 2


@case(CASES, call(T(2, 3)), call(T(2, 3), mutate=set_global("MODE", "mean")),
      call(T(2, 3), mutate=set_global("MODE", "sum")), compiles="CC.")
def glob_string_mode(x):
    if MODE == "sum":
        return x.sum(dim=0)
    return x.mean(dim=0)


SHAPE = (2, -1)
PARAMS = {"w": T(3), "b": T(3)}


@case(CASES, call(T(6)), call(T(6)), call(T(6), mutate=set_global("SHAPE", (3, -1))),
      call(T(6), mutate=set_global("SHAPE", (2, -1))), compiles="C.C.")
def glob_tuple_used_as_shape(x):
    return x.reshape(SHAPE).sum(-1)


@case(CASES, call(T(3)), call(T(3), mutate=set_global("K", 3.0)), call(T(3), mutate=set_global("K", 3)),
      compiles="CC.")
def glob_int_to_float_type_change(x):
    # 3 == 3.0, so only the type guard tells the entries apart
    return x * K, K


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_global("PARAMS", {"w": T(3), "b": T(3)})),
      call(T(3), mutate=set_global("PARAMS", {"w": T(3)})), compiles="C..C")
def glob_dict_of_tensors_loop(x):
    for name, p in PARAMS.items():
        x = x * p if name == "w" else x + p
    return x


test_globals_attrs = parametrize(CASES)
