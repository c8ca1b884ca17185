"""Differential cases: side effects replayed after the graph -- global lists and dicts
mutated, attributes of outside objects assigned, globals rebound, in-place ops on
inputs and global tensors.  Every case compares the program state after each call
(``state=``) and the arguments after the call."""
import torch

from differential import T, call, case, parametrize

CASES: list = []

LOG: list = []
CACHE: dict = {"seed": 0}
ACC = torch.zeros(3)
TOTAL = None
CALLS = 0
BOUND = None


class State:
    def __init__(self):
        self.last = None
        self.count = 0
        self.history = []


STATE = State()
SHARED: list = []


class Record:
    def __init__(self, value, tag):
        self.value = value
        self.tag = tag


SHARED_BOX = Record(SHARED, "box")


@case(CASES, call(T(3)), call(T(3)), state=lambda: SHARED)
def outside_list_read_by_two_paths_mutated_through_one(x):
    # seen through two paths before any mutation: both must be the one tracker, or `first` goes stale
    first = SHARED
    before = len(first)
    second = SHARED_BOX.value
    second.append(x.sum())
    return x * len(first) + before, first is second


@case(CASES, call(T(3)), call(T(3)), call(T(2, 2)), state=lambda: LOG)
def append_to_global_list(x):
    LOG.append(x * 2)
    return x + 1


@case(CASES, call(T(3)), call(T(3)), state=lambda: LOG)
def extend_insert_pop_global_list(x):
    LOG.extend([x, x + 1, x + 2])
    LOG.insert(0, x.sum())
    last = LOG.pop()
    return last * 2


@case(CASES, call(T(3)), call(T(3)), state=lambda: CACHE)
def setitem_on_global_dict(x):
    CACHE["last"] = x + 1
    CACHE["norm"] = x.norm()
    return x * CACHE["seed"]


@case(CASES, call(T(3)), call(T(3)), state=lambda: CACHE)
def dict_update_pop_del(x):
    CACHE.update({"a": x, "b": x * 2})
    del CACHE["a"]
    old = CACHE.pop("seed", 5)  # present on the first call only
    return x + old


@case(CASES, call(T(3)), call(T(3)), state=lambda: STATE)
def object_attribute_assigned_tensor(x):
    STATE.last = x.exp()
    STATE.history.append(x.sum())
    return x - 1


@case(CASES, call(T(3)), call(T(3)), call(T(3)), compiles="CCC", state=lambda: STATE.count)
def object_counter_incremented(x):
    # STATE.count is read (guarded) and written: every call sees a new value
    STATE.count += 1
    return x * STATE.count


@case(CASES, call(T(3)), call(T(3)), state=lambda: TOTAL)
def global_assigned(x):
    global TOTAL
    TOTAL = x.sum() * 2
    return x / 2


@case(CASES, call(T(3)), call(T(3)), state=lambda: BOUND)
def global_rebound_to_a_new_list_then_mutated(x):
    # the append swaps every holder of the list for its new version, the assigned global too
    global BOUND
    BOUND = [x.sum()]
    BOUND.append(x * 2)
    return x + 1


@case(CASES, call(T(3)), call(T(3)), call(T(3)), compiles="CCC", state=lambda: CALLS)
def global_int_incremented(x):
    global CALLS
    CALLS = CALLS + 1
    return x + CALLS


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def inplace_on_input(x):
    x.add_(1)
    y = x * 2
    x.mul_(3)
    return y


@case(CASES, call(T(3), T(3)), call(T(3), T(3)), compiles="C.")
def inplace_on_input_not_returned(x, y):
    y.copy_(x.sin())
    x.zero_()


@case(CASES, call(T(3)), call(T(3)), compiles="C.", state=lambda: ACC)
def inplace_on_global_tensor(x):
    ACC.add_(x)
    return ACC * 2


@case(CASES, call([T(2), T(2)], {"k": T(2)}), call([T(2), T(2)], {"k": T(2)}), compiles="C.")
def mutate_argument_containers(xs, d):
    xs.append(xs[0] + xs[1])
    d["new"] = d["k"] * 2
    d["k"] = d["k"] + 1
    return len(xs)


@case(CASES, call(T(3), State()), call(T(3), State()), compiles="C.")
def mutate_argument_object(x, s):
    s.last = x * 3
    s.history.append(x)
    return x


@case(CASES, call(T(3)), call(T(3)), state=lambda: (LOG, CACHE))
def new_objects_stored_and_returned(x):
    rec = Record(x * 2, "double")
    items = [x, x + 1]
    LOG.append(rec)
    CACHE["items"] = items
    return rec, items, {"rec": rec}


@case(CASES, call(T(3)), call(T(3)), state=lambda: LOG)
def appended_list_mutated_after(x):
    inner = [x]
    LOG.append(inner)
    inner.append(x + 1)  # the stored list sees the later append
    return len(inner)


def _log_helper(t, tag):
    LOG.append((tag, t.mean()))
    return t * 2


@case(CASES, call(T(3)), call(T(3)), state=lambda: LOG)
def side_effect_inside_helper(x):
    y = _log_helper(x, "first")
    return _log_helper(y, "second")


@case(CASES, call(T(3)), call(T(3)), state=lambda: (STATE, LOG, TOTAL))
def side_effects_combined(x):
    global TOTAL
    y = x.relu()
    STATE.last = y
    LOG.append(y.sum())
    TOTAL = y.max()
    x.sub_(1)
    return Record(y, "combined"), x


test_side_effects = parametrize(CASES)
