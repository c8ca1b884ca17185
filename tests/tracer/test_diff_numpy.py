"""Differential cases: NumPy in traced code, computed as torch ops through torch._numpy as Dynamo
does -- Tensor.numpy() and torch.from_numpy, NumPy functions, ndarray methods, attributes and
operators, NumPy arrays passed in and returned, NumPy scalars made in the trace, np.dtype /
np.finfo / np.iinfo constants, and dtypes as arguments (guarded by value)."""
import numpy as np
import torch

from differential import T, call, case, parametrize, parametrize_against_eager, set_global
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
BREAK_CASES: list = []


# ---- arrays that come from tensors ---------------------------------------------------------------
@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def numpy_round_trip(x):
    a = x.numpy()
    return torch.from_numpy(a * 2 + 1), torch.as_tensor(np.asarray(x) + 1)


@case(CASES, call(T(3, 4)), call(T(3, 4)), call(T(2, 4)), compiles="C.C")
def numpy_functions(x):
    a = x.numpy()
    b = np.sin(a) + np.exp(a)
    c = np.where(a > 0, a, 0)
    return torch.from_numpy(np.sum(b, axis=0)), torch.from_numpy(np.concatenate([c, c * 2])), \
        torch.from_numpy(np.abs(a).astype(np.float64))


@case(CASES, call(T(3, 4)), call(T(3, 4)), compiles="C.")
def ndarray_methods_and_attributes(x):
    a = x.numpy()
    m = a.reshape(2, 6).T.mean(axis=1)
    return torch.from_numpy(m), torch.from_numpy(a @ a.T), a.shape, a.ndim, a.size, isinstance(a, np.ndarray)


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def ndarray_returned(x):
    a = x.numpy()
    return a + 1, -a, a[1:], a.T


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def numpy_arrays_made_in_the_trace(x):
    return x + torch.from_numpy(np.ones(3, dtype=np.float32)), torch.from_numpy(np.arange(3) * 2)


@case(CASES, call(np.arange(5.0)), call(np.arange(5.0)), call(np.arange(4.0)), compiles="C.C")
def ndarray_argument(a):
    return np.sin(a) * 2, a.shape


# ---- scalars, dtypes and their constants -----------------------------------------------------------
@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def numpy_scalars_in_code(x):
    return x * np.float32(2.0) + np.int64(3) + np.pi


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def numpy_type_info_constants(x):
    big = np.finfo(np.float32).max
    return x.clamp(min=np.finfo(np.float32).min, max=big) + np.iinfo(np.int32).bits, \
        np.dtype("float32").itemsize, np.iinfo(np.int16).max


@case(CASES, call(T(3), np.dtype(np.float32)), call(T(3), np.dtype("float32")),
      call(T(3), np.ones(1, dtype=np.float32).dtype), call(T(3), np.dtype(np.float64)), compiles="C..C")
def numpy_dtype_argument(x, dt):
    return x + np.finfo(dt).eps


INFO = np.finfo(np.float32)


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_global("INFO", np.finfo(np.float16))), compiles="C.C")
def numpy_finfo_global(x):
    return x + INFO.max / 1e30


test_numpy = parametrize(CASES)


# ---- arrays alive at a graph break --------------------------------------------------------------------
@break_case(BREAK_CASES, call(T(3)), call(T(3)), compiles="C.")
def ndarray_alive_at_break(x):
    a = x.numpy() + 1
    print("break")
    return torch.from_numpy(np.cos(a))


# ndarray.item() / .tolist() of an array from a tensor need its data: Dynamo breaks there ("data dependent
# operator", capture_scalar_outputs off) and so does Standin, with the same graphs on each side;
# a.item(i) is the array's i-th item, an array in torch._numpy, and is a node on both sides.
@break_case(BREAK_CASES, call(T(3)), call(T(3)), compiles="C.")
def ndarray_item_breaks(x):
    a = x.numpy()
    s = (a * 2).sum().item()
    return x + s


SAME_INPUT = T(4)  # Dynamo guards the values of the list tolist() made (on the stack at the next break)


@break_case(BREAK_CASES, call(SAME_INPUT), call(SAME_INPUT), compiles="C.")
def ndarray_tolist_breaks(x):
    a = (x.numpy() * 10).astype(np.int64)
    return x + 1, a[:2].tolist(), np.abs(a).tolist()


@break_case(BREAK_CASES, call(T(3)), call(T(3)), compiles="C.")
def ndarray_item_of_an_index_breaks(x):
    a = x.numpy() + 1
    return x * a.item(1), a.max().item()


test_numpy_at_breaks = parametrize_breaks(BREAK_CASES)


# ---- NumPy scalars from outside: guarded constants, on purpose -----------------------------------------
# Dynamo makes such a scalar a graph input (a 0-d tensor), which promotes as a tensor: an int tensor
# times np.float64(2.5) comes out float64, where eager (a NumPy scalar promotes as a Python number)
# gives float32.  Standin keeps eager's dtypes, so these compare with eager only.
EAGER_ONLY: list = []


@case(EAGER_ONLY, call(torch.arange(3, dtype=torch.int32), np.float64(2.5)),
      call(torch.arange(3, dtype=torch.int32), np.float64(4.0)), compiles="CC")
def numpy_scalar_argument_times_an_int_tensor(x, s):
    return x * s, torch.add(x, s)


test_numpy_scalars_from_outside = parametrize_against_eager(EAGER_ONLY)
