"""Resume functions built and run directly (`tracer/resume.py`): which locals are live after a break,
whether it sits in a loop or a with-block, and a resume code object entered after a call — with
values on the stack, a pending NULL, the frame's cells, a try block around the entry — computing
what the original frame computes from there."""
import dis
import types
from collections import namedtuple

import pytest

import bytecode as bc

from tracer.bytecode import decode
from tracer.codegen import assemble
from tracer.resume import (decoded_index_to_library, has_backedge, library_instructions, live_locals, make_resume_code, origin_index,
                           original_from, resume_prologue_length, results_of, setup_instructions, successors,
                           with_blocks_around)


def helper(value):
    return value


def check(value):
    if value < 0:
        raise ValueError(value)
    return value


def adds_after_a_call(x, y, unused):
    a = x * 2
    b = helper(a)
    c = b + y
    return c


def calls_around_a_call(g, x, y):
    return g(x, helper(y))


def with_a_cell(x):
    k = 3

    def inner():
        return k
    y = helper(x)
    return y + inner()


def in_a_try(x):
    try:
        y = helper(x)
        return check(y) + 1
    except ValueError:
        return -1


def loops(xs):
    total = 0
    for x in xs:
        helper(x)
        total = total + x
    total = helper(total)
    return total


def in_blocks(a, b):
    with a:
        helper(1)
        with b:
            helper(2)
    try:
        helper(3)
    finally:
        pass
    helper(4)


def nth(fn, opname, n=0, argval=None):
    found = [i for i in decode(fn.__code__).instructions
             if i.opname == opname and (argval is None or i.argval == argval)]
    return found[n]


def call_of(fn, n=0):
    return nth(fn, "CALL", n)


def call_after_const(fn, value):
    """The call of `helper(value)`."""
    instructions = decode(fn.__code__).instructions
    start = nth(fn, "LOAD_CONST", argval=value).index
    return next(i for i in instructions[start:] if i.opname == "CALL")


def resumed(fn, after, n_stack, live, nulls=frozenset(), name="resume_here"):
    code = fn.__code__
    return make_resume_code(code, decode(code), after.index + 1, n_stack, live, name, nulls)


def test_only_locals_read_before_written_are_live_after_the_break():
    decoded = decode(adds_after_a_call.__code__)
    after_call = call_of(adds_after_a_call).index + 1
    assert live_locals(decoded, after_call) == {"y"}
    assert live_locals(decoded, 0) == {"x", "y"}  # `unused` is never read
    # c is read by the return after being written: not live at the store, live right after it
    store_c = nth(adds_after_a_call, "STORE_FAST", argval="c").index
    assert live_locals(decoded, store_c) == set() and live_locals(decoded, store_c + 1) == {"c"}


def test_a_deleted_local_is_live_until_its_deletion():
    def deletes(x):
        y = x
        helper(0)
        del y
        return x
    decoded = decode(deletes.__code__)
    assert live_locals(decoded, call_of(deletes).index + 1) == {"x", "y"}


def test_a_local_read_after_the_loop_stays_live_around_its_back_edge():
    decoded = decode(loops.__code__)
    assert live_locals(decoded, call_of(loops).index + 1) == {"total", "x"}
    assert "xs" not in live_locals(decoded, call_of(loops).index + 1)  # the iterator is on the stack


def test_liveness_carried_around_a_back_edge_needs_another_pass():
    def reads_in_the_next_iteration(xs, k):
        total = 0
        for x in xs:
            total = total + k
            helper(x)
        return total
    decoded = decode(reads_in_the_next_iteration.__code__)
    assert live_locals(decoded, call_of(reads_in_the_next_iteration).index + 1) == {"k", "total"}


def test_a_loop_that_ends_the_code_reads_its_head_again():
    def forever(k, n):
        while True:
            helper(n)
            n = helper(k)
    decoded = decode(forever.__code__)
    assert decoded.instructions[-1].opname == "JUMP_BACKWARD"  # the last instruction: the loop's jump
    assert live_locals(decoded, call_of(forever, 1).index + 1) == {"k"}


def test_successors_follow_jumps_fall_through_and_exception_handlers():
    decoded = decode(in_a_try.__code__)
    call = call_of(in_a_try)
    handler = decoded.index_of_offset[next(r for r in decoded.exception_table
                                           if r.start <= call.offset < r.end).target]
    assert successors(decoded, call.index) == [call.index + 1, handler]
    ret = nth(in_a_try, "RETURN_VALUE")
    assert successors(decoded, ret.index) == []
    plain = decode(loops.__code__)
    back = nth(loops, "JUMP_BACKWARD")
    assert successors(plain, back.index) == [back.target]
    for_iter = nth(loops, "FOR_ITER")
    assert successors(plain, for_iter.index) == [for_iter.target, for_iter.index + 1]
    last = len(plain.instructions) - 1
    assert all(n <= last for i in range(last + 1) for n in successors(plain, i))


def test_a_break_in_a_loop_body_has_a_back_edge_and_one_after_it_has_none():
    decoded = decode(loops.__code__)
    assert has_backedge(decoded, call_of(loops, 0).index)
    assert not has_backedge(decoded, call_of(loops, 1).index)


def test_the_instruction_right_before_the_loops_jump_is_in_the_loop():
    def stores_in_a_loop(obj, xs):
        for x in xs:
            obj.attr = x
        return obj
    decoded = decode(stores_in_a_loop.__code__)
    store = nth(stores_in_a_loop, "STORE_ATTR")
    assert decoded.instructions[store.index + 1].opname == "JUMP_BACKWARD"
    assert has_backedge(decoded, store.index)


def test_the_loops_own_closing_jump_is_not_a_back_edge_after_it():
    def counts_down(x):
        while x.sum() > 0:
            x = x - 1
        return x
    decoded = decode(counts_down.__code__)
    closing = next(i for i in decoded.instructions if i.opname.startswith("POP_JUMP_BACKWARD"))
    assert closing.target < closing.index
    assert not has_backedge(decoded, closing.index)  # as Dynamo: the scan starts after the break


def test_a_jump_back_to_the_break_itself_is_not_counted_as_dynamo_counts_strictly_before():
    def spins(x):
        while True:
            x = x + 1
    decoded = decode(spins.__code__)
    jump = decoded.instructions[-1]
    assert jump.opname == "JUMP_BACKWARD"
    assert not has_backedge(decoded, jump.target) and has_backedge(decoded, jump.target + 1)


def test_code_that_ends_without_a_return_or_a_jump_back_has_no_back_edge():
    def raises(x):
        helper(x)
        raise ValueError(x)
    assert not has_backedge(decode(raises.__code__), call_of(raises).index)


def test_the_scan_for_a_back_edge_stops_at_the_first_return():
    def returns_in_the_loop(xs):
        for x in xs:
            if helper(x):
                return x
        return None
    assert not has_backedge(decode(returns_in_the_loop.__code__), call_of(returns_in_the_loop).index)


def test_with_blocks_around_a_break_are_their_exit_slots_outermost_first():
    decoded = decode(in_blocks.__code__)
    def around(n):
        return with_blocks_around(decoded, call_after_const(in_blocks, n).index)
    assert (around(1), around(2), around(3), around(4)) == ([0], [0, 1], None, [])  # 3: in a try block


def test_a_resume_function_takes_the_stack_then_the_live_locals_and_goes_on():
    code = resumed(adds_after_a_call, call_of(adds_after_a_call), 1, ["y"])
    assert (code.co_name, code.co_qualname) == ("resume_here", "resume_here")
    assert code.co_varnames[:2] == ("___stack0", "y") and code.co_argcount == 2
    assert (code.co_filename, code.co_firstlineno) == (adds_after_a_call.__code__.co_filename,
                                                       adds_after_a_call.__code__.co_firstlineno)
    assert code.co_flags & (0x04 | 0x08 | 0x20) == 0  # no *args, **kwargs, not a generator
    assert types.FunctionType(code, globals())(10, 5) == 15


def test_a_pending_null_is_pushed_not_passed():
    call = call_of(calls_around_a_call, 0)  # helper(y): NULL, g, x below its result
    code = resumed(calls_around_a_call, call, 4, [], nulls=frozenset({0}))
    assert code.co_varnames[:3] == ("___stack1", "___stack2", "___stack3") and code.co_argcount == 3
    assert types.FunctionType(code, globals())(lambda a, b: a - b, 10, 3) == 7


def test_the_frames_cells_arrive_as_the_resume_functions_closure():
    code = resumed(with_a_cell, call_of(with_a_cell), 1, ["inner"])
    assert code.co_freevars == ("k",) and code.co_cellvars == ()
    assert dis.opname[code.co_code[0]] == "COPY_FREE_VARS"
    k = types.CellType(4)
    inner = types.FunctionType(with_a_cell.__code__.co_consts[2], globals(), closure=(k,))
    assert types.FunctionType(code, globals(), closure=(k,))(10, inner) == 14


def test_a_try_block_around_the_entry_still_catches_in_the_resume_function():
    code = resumed(in_a_try, call_of(in_a_try), 1, [])
    fn = types.FunctionType(code, globals())
    assert (fn(5), fn(-5)) == (6, -1)


def retries(xs):
    total = 0
    for x in xs:
        try:
            y = helper(x)
            total = total + check(y)
        except ValueError:
            total = total - 100
    return total


def test_a_loop_around_the_try_runs_its_later_iterations_whole():
    code = resumed(retries, call_of(retries), 2, ["total"])  # the loop's iterator below the call's result
    fn = types.FunctionType(code, globals())
    assert fn(iter([2, -3]), 1, 0) == retries([1, 2, -3]) == -97


def after_a_try(x):
    try:
        x = check(x)
    except ValueError:
        x = 0
    y = helper(x)
    return y + 1


def test_an_entry_after_a_closed_try_block_is_in_no_try_block():
    code = resumed(after_a_try, call_of(after_a_try, 1), 1, [])
    assert types.FunctionType(code, globals())(5) == 6


def pending_in_a_try(x):
    try:
        return x + check(helper(x))
    except ValueError:
        return -1


def test_an_entry_mid_expression_in_a_try_block_keeps_the_handlers_depth():
    # at the break: x, the NULL and check below helper's result; the handler unwinds to the try's depth
    code = resumed(pending_in_a_try, call_of(pending_in_a_try, 0), 4, [], nulls=frozenset({1}))
    fn = types.FunctionType(code, globals())
    assert (fn(5, check, 2), fn(5, check, -2)) == (7, -1)


def test_the_prologue_length_counts_what_comes_before_the_copied_code():
    for fn, call, n_stack, live, nulls in ((adds_after_a_call, call_of(adds_after_a_call), 1, ["y"], frozenset()),
                                           (calls_around_a_call, call_of(calls_around_a_call), 4, [],
                                            frozenset({0})),
                                           (with_a_cell, call_of(with_a_cell), 1, ["inner"], frozenset())):
        code = resumed(fn, call, n_stack, live, nulls)
        instructions = decode(code).instructions
        jump = next(i for i in instructions if i.opname == "JUMP_FORWARD")
        prologue = resume_prologue_length(fn.__code__, n_stack, nulls)
        assert prologue == jump.index + 1
        entry = jump.target
        assert instructions[entry].opname == decode(fn.__code__).instructions[call.index + 1].opname
        original = origin_index(decode(code), entry, fn.__code__, prologue)
        assert original == call.index + 1


class Recorder:
    def __init__(self):
        self.log = []

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, *exc):
        self.log.append("exit")
        return False


def in_a_with_block(cm, x):
    with cm:
        y = helper(x)
    return y + 1


def test_a_resume_function_re_enters_the_with_block_around_the_break():
    cm = Recorder()
    call = call_of(in_a_with_block)
    code = make_resume_code(in_a_with_block.__code__, decode(in_a_with_block.__code__), call.index + 1, 2, [],
                            "resume_in_with", contexts=((0, cm),))
    assert code.co_varnames[:1] == ("___stack1",) and code.co_argcount == 1  # __exit__ is not passed
    prologue = resume_prologue_length(in_a_with_block.__code__, 2, contexts=((0, cm),))
    instructions = decode(code).instructions
    assert [i.opname for i in instructions[:prologue]] == ["RESUME", "LOAD_CONST", "BEFORE_WITH", "POP_TOP",
                                                            "LOAD_FAST", "JUMP_FORWARD"]
    assert types.FunctionType(code, globals())(41) == 42 and cm.log == ["enter", "exit"]


def test_setup_instructions_count_the_cell_making_prefix():
    assert setup_instructions(adds_after_a_call.__code__) == 0
    assert setup_instructions(with_a_cell.__code__) == 1  # MAKE_CELL k
    inner = with_a_cell.__code__.co_consts[2]
    assert setup_instructions(inner) == 1  # COPY_FREE_VARS


def test_original_from_jumps_over_the_prefix_to_the_target():
    code = with_a_cell.__code__
    call = call_of(with_a_cell)
    items = original_from(code, decode(code), call.index + 1)
    names = [getattr(i, "name", None) for i in items]
    assert names[0] == "JUMP_FORWARD" and "MAKE_CELL" not in names and "RESUME" not in names
    label = items[0].arg
    assert items[items.index(label) + 1].name == decode(code).instructions[call.index + 1].opname
    _, instrs = library_instructions(code)
    kept = [i for i in instrs if i.name not in ("MAKE_CELL", "COPY_FREE_VARS", "RESUME")]
    assert [i for i in items[1:] if isinstance(i, bc.Instr)] == kept  # the rest of the code, all of it


def test_code_going_on_from_the_first_instruction_runs_as_the_original():
    for fn, args in ((with_a_cell, (10,)), (in_a_try, (-5,)), (loops, ([1, 2, 3],))):
        code = fn.__code__
        decoded = decode(code)
        first = next(i.index for i in decoded.instructions if i.opname == "RESUME") + 1
        again = types.FunctionType(assemble(code, original_from(code, decoded, first)), globals())
        assert again(*args) == fn(*args)


def test_decoded_positions_skip_extended_args():
    many = "def f(x):\n" + "".join(f"    v{i} = x\n" for i in range(300)) + "    return v299\n"
    namespace = {}
    exec(compile(many, "<many>", "exec"), namespace)
    decoded = decode(namespace["f"].__code__)
    mapping = decoded_index_to_library(decoded)
    extended = [i for i, inst in enumerate(decoded.instructions) if inst.opname == "EXTENDED_ARG"]
    assert extended
    first = extended[0]
    assert mapping[first + 1] == mapping[first] and mapping[first] == mapping[first - 1] + 1
    assert mapping[-1] == len(decoded.instructions) - 1 - len(extended)


Inst = namedtuple("Inst", "opname arg")

# What a break at each resumable instruction leaves on the stack for the code after it.
LEAVES = {**{name: 0 for name in ("STORE_ATTR", "DELETE_ATTR", "STORE_GLOBAL", "DELETE_GLOBAL", "STORE_SUBSCR",
                                  "DELETE_SUBSCR", "STORE_NAME", "DELETE_NAME", "POP_TOP", "IMPORT_STAR",
                                  "PRINT_EXPR", "DELETE_FAST", "STORE_FAST")},
          **{name: 1 for name in ("BINARY_OP", "BINARY_SUBSCR", "COMPARE_OP", "IS_OP", "CONTAINS_OP",
                                  "UNARY_NEGATIVE", "UNARY_POSITIVE", "UNARY_INVERT", "UNARY_NOT", "GET_ITER",
                                  "LOAD_ATTR", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_CONST",
                                  "LOAD_FAST", "BUILD_TUPLE", "BUILD_LIST", "BUILD_SET", "BUILD_MAP",
                                  "BUILD_CONST_KEY_MAP", "BUILD_STRING", "BUILD_SLICE", "FORMAT_VALUE",
                                  "IMPORT_NAME", "CALL_FUNCTION_EX", "MAKE_FUNCTION", "LIST_TO_TUPLE",
                                  "LOAD_ASSERTION_ERROR", "GET_LEN", "LOAD_BUILD_CLASS")}}


@pytest.mark.parametrize("opname", sorted(LEAVES))
def test_each_resumable_instruction_leaves_its_results(opname):
    assert results_of(Inst(opname, 0)) == LEAVES[opname]


def test_unpacking_leaves_its_names_and_the_rest_is_not_resumable():
    assert results_of(Inst("UNPACK_SEQUENCE", 3)) == 3
    assert results_of(Inst("UNPACK_EX", 2 | (1 << 8))) == 4  # a, b, *rest, c
    assert results_of(Inst("IMPORT_FROM", 0)) == 2
    assert results_of(Inst("LOAD_GLOBAL", 1)) is None  # pushes a NULL too
    for opname in ("BEFORE_WITH", "SWAP", "COPY", "FOR_ITER", "CALL", "RETURN_VALUE"):
        assert results_of(Inst(opname, 0)) is None
