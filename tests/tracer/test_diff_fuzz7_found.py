"""Wrong answers the generator families of fuzz_families6.py (views, hierarchy, cells, outside, torch_state,
module_attrs) found, one small case each, against eager and real Dynamo.  Each case is the reduced program,
rewritten by hand where that made it clearer."""
import torch
from differential import T, call, case, mutate_with, parametrize
from differential_breaks import break_case, parametrize_breaks
from torch import nn

CASES: list = []
BREAK_CASES: list = []


# ---- a resume function that made a zero-argument super() explicit, broken again after it -------------------

class _Base:
    def f(self, t):
        return t + 1


class _Child(_Base):
    def f(self, t):
        print("before")
        u = super().f(t)  # the first resume function calls super(__class__, self): two instructions more
        print("after")  # its break resumes the original code: at `v = u * 2`, not two instructions later
        v = u * 2
        return v + 3


CHILD = _Child()


@break_case(BREAK_CASES, call(T(3)), call(T(3)), compiles="C.")
def a_break_after_a_rewritten_super_call_resumes_where_it_stopped(x):
    return CHILD.f(x) * 10


# ---- obj.__dict__ written in the trace, then read as attributes ----------------------------------------------

class _Obj:
    def __init__(self):
        self.k = 1.0


OBJ = _Obj()


@case(CASES, call(T(3)), call(T(3)), compiles="CC", state=lambda: dict(vars(OBJ)))
def an_attribute_written_through_dunder_dict_is_read_back(x):
    y = x + OBJ.k
    OBJ.__dict__["k"] = OBJ.k + 4.0
    return y + OBJ.k


@case(CASES, call(T(3)), call(T(3)), compiles="CC", state=lambda: dict(vars(OBJ)))
def a_dunder_dict_update_is_read_back_as_attributes(x):
    OBJ.__dict__.update(k=OBJ.k * 3, extra=2.0)
    return x + OBJ.k + OBJ.extra


# ---- the replay after the graph writes to the objects the trace wrote to ------------------------------------

class _Node:
    def __init__(self, v):
        self.v = v
        self.child = None


ROOT = _Node(1)
ROOT.child = _Node(2)
OTHER = _Node(3)


def _nodes():
    return ROOT.v, ROOT.child.v, OTHER.v, ROOT.child is OTHER


@case(CASES, call(T(3)), call(T(3)), compiles="CC", state=_nodes)
def a_write_to_an_object_reached_through_an_attribute_the_trace_reassigns(x):
    """`old` is named `G['ROOT'].child`; the replay stores ROOT.child first: it writes to the old child."""
    old = ROOT.child
    ROOT.child = OTHER
    old.v = old.v + 10
    return x + old.v


ITEMS = [_Node(4), _Node(5)]


@case(CASES, call(T(3)), call(T(3)), compiles="CC", state=lambda: [n.v for n in ITEMS])
def a_write_to_an_object_reached_through_a_list_the_trace_reorders(x):
    first = ITEMS[0]
    ITEMS.reverse()
    first.v = first.v + 1
    return x + first.v


# ---- nn.Module buffers registered or replaced in forward ------------------------------------------------------

class _Buffered(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("old", torch.zeros(3))

    def forward(self, x):
        return x


MOD = _Buffered()


def _buffers():
    return {name: b.clone() for name, b in MOD.named_buffers()}


@case(CASES, call(T(3)), call(T(3)), compiles="C.", state=_buffers)
def a_buffer_registered_again_is_read_back(x):
    y = x + MOD.old
    MOD.register_buffer("old", x * 5)
    return y + MOD.old


@case(CASES, call(T(3)), call(T(3)), compiles="C.", state=_buffers)
def a_buffer_assigned_is_read_back_through_buffers(x):
    MOD.old = x * 3
    return x + MOD.old + MOD._buffers["old"]


@case(CASES, call(T(3)), call(T(3)), compiles="C.", state=_buffers)
def listing_buffers_after_registering_one_lists_the_new_one(x):
    MOD.register_buffer("old", x * 2)
    return x + sum(b.sum() for b in MOD.buffers())


@break_case(BREAK_CASES, call(T(3)), call(T(3)), compiles="C.", breaks=True)
def a_bound_method_of_a_torch_module_left_on_the_stack_at_a_break_is_called_as_a_method(x):
    """`MOD.register_parameter` waits on the stack while nn.Parameter() breaks: the resume function gets the
    bound method as an argument, which is not a torch operator to put in the graph."""
    m = nn.Linear(3, 3)
    m.register_parameter("p", nn.Parameter(x * 2))
    return x + len(list(m.parameters()))


class _Extra(nn.Module):
    def forward(self, x, k=1):
        h = x + getattr(self, "extra", 0)
        print("at", k)
        self.extra = k * 2
        return h


EXTRA = _Extra()


@break_case(BREAK_CASES, call(T(3), 1), call(T(3), 1), call(T(3), 2), compiles="C.C",
            state=lambda: getattr(EXTRA, "extra", None))
def a_module_attribute_read_missing_is_guarded_missing(x, n):
    """getattr(self, 'extra', 0) found nothing on the first call: the graph is guarded on `extra` staying
    missing, so on the second call (the resume function set it) forward's frame recompiles instead of adding 0."""
    return EXTRA(x, k=n)


# ---- cells: a closure cell from outside read through __closure__ ------------------------------------------------

def _counter(start):
    count = start

    def bump(k):
        nonlocal count
        count += k
        return count

    return bump


BUMPER = _counter(0)
# a cell's contents are no global a snapshot restores: each call starts from a fresh counter
_FRESH_BUMPER = mutate_with(lambda g: g.__setitem__("BUMPER", _counter(0)), "BUMPER = _counter(0)")


@case(CASES, call(T(3), mutate=_FRESH_BUMPER), call(T(3), mutate=_FRESH_BUMPER), compiles="C.",
      state=lambda: BUMPER.__closure__[0].cell_contents)
def a_cell_read_through_closure_holds_what_a_traced_call_wrote(x):
    """BUMPER(1) writes its cell (a nonlocal) in the trace; `cell_contents` reads that, not the cell as it
    was (Standin broke at the getset descriptor)."""
    t = x + BUMPER(1)
    return t + BUMPER.__closure__[0].cell_contents


# ---- views: a stride the trace folded to a number --------------------------------------------------------------

@case(CASES, call(T(3, 3)), call(T(3, 3)), compiles="C.", dynamic=True)
def a_stride_whose_symbol_a_split_fixed_is_returned_as_an_int(x):
    """Splitting by rows fixes the row count (one tensor per row), so t.stride() folds: the SymInt of the
    fake tensor, a number now, is returned as the int it stands for, not as itself."""
    t = x * 1
    a, b = t.split(1, dim=0)[:2]
    b.add_(1)
    return t, t.stride()


test_fuzz7_found = parametrize(CASES)
test_fuzz7_found_breaks = parametrize_breaks(BREAK_CASES)
