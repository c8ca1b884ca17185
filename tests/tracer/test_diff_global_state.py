"""Differential cases for what a graph depends on besides its arguments' values: torch's
process-wide switches (default dtype, grad mode, deterministic algorithms) changed between
calls, sets from outside the function that the function changes (replayed after the graph),
and an input's strides changing between calls (a transposed view)."""
import torch

from differential import T, call, case, mutate_with, parametrize

CASES: list = []

SEEN = {1}
TAGS = {"a", "b"}
W = T(3).requires_grad_()


def default_dtype(dtype):
    return mutate_with(lambda g: torch.set_default_dtype(dtype), f"torch.set_default_dtype({dtype})")


def grad_enabled(on):
    return mutate_with(lambda g: torch.set_grad_enabled(on), f"torch.set_grad_enabled({on})")


def deterministic(on):
    return mutate_with(lambda g: torch.use_deterministic_algorithms(on), f"torch.use_deterministic_algorithms({on})")


# ---- process-wide switches: the global-state guard -----------------------------------------------

# a tensor made in the function takes the default dtype: float64 must recompile (the old graph
# makes float32), and going back to float32 hits the first entry again
@case(CASES, call(T(3)), call(T(3), mutate=default_dtype(torch.float64)), call(T(3)),
      call(T(3), mutate=default_dtype(torch.float32)), compiles="CC..")
def state_default_dtype_of_new_tensors(x):
    return x + torch.ones(3), torch.zeros(2), torch.tensor([1.5])


# a Python float turned into a tensor in the graph takes the default dtype too
@case(CASES, call(torch.arange(3)), call(torch.arange(3), mutate=default_dtype(torch.float64)),
      compiles="CC")
def state_default_dtype_of_int_tensor_times_float(x):
    return x * 0.5


# whether autograd records is baked into the graph: with grad disabled the result needs no grad
@case(CASES, call(T(3)), call(T(3), mutate=grad_enabled(False)), call(T(3)),
      call(T(3), mutate=grad_enabled(True)), compiles="CC..")
def state_grad_mode(x):
    y = x * W
    return y.detach(), y.requires_grad


@case(CASES, call(T(3)), call(T(3), mutate=deterministic(True)), call(T(3), mutate=deterministic(False)),
      compiles="CC.")
def state_deterministic_algorithms(x):
    return x.sin() + 1


# ---- sets from outside: mutations replayed after the graph ----------------------------------------

@case(CASES, call(T(2)), call(T(2)), state=lambda: SEEN)
def set_outside_add(x):
    SEEN.add(5)
    return x + 1


@case(CASES, call(T(2)), call(T(2)), state=lambda: TAGS)
def set_outside_discard_update(x):
    TAGS.discard("a")
    TAGS.update({"c", "d"})
    return x * 2


@case(CASES, call(T(2), {1, 2}), call(T(2), {3}))
def set_argument_add_and_remove(x, s):
    s.add(7)
    s.discard(3)
    return x - 1


@case(CASES, call(T(2)), call(T(2)), state=lambda: SEEN)
def set_outside_read_after_add(x):
    SEEN.add(9)
    return x + len(SEEN), 9 in SEEN


# ---- strides: the tensor guard checks them ----------------------------------------------------------

# the same shape, transposed: a different layout must recompile (the old graph assumed contiguity)
@case(CASES, call(T(3, 4)), call(T(4, 3).t()), call(T(4, 3).t()), call(T(3, 4)), compiles="CC..")
def stride_transposed_input(x):
    y = x * 2 if x.is_contiguous() else x + 1
    return y, x.stride()


# a square input: shape unchanged, strides swapped
@case(CASES, call(T(3, 3)), call(T(3, 3).t()), compiles="CC")
def stride_square_transposed(x):
    return x.sum(0), x.stride(0)


@case(CASES, call(T(2, 3, 4)), call(T(4, 3, 2).permute(2, 1, 0)), call(T(2, 3, 4)), compiles="CC.")
def stride_permuted_3d(x):
    return x.relu(), x.is_contiguous()


test_global_state = parametrize(CASES)
