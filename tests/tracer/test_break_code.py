"""break_site: what the instruction at a graph break consumes, where it continues, which slot it calls."""
import pytest

from tracer import bytecode
from tracer.break_code import break_site
from tracer.exc import Unsupported
from tracer.variables.constant import ConstantVariable
from tracer.variables.misc import NullVariable


def calls(f, g, xs, kw):
    a = f(1, 2)
    b = g(*xs, **kw)
    if a:
        return b
    return -b


def instruction(opname, nth=0):
    found = [inst for inst in bytecode.decode(calls.__code__).instructions if inst.opname == opname]
    return found[nth]


def values(n):
    return [ConstantVariable(i) for i in range(n)]


def test_a_call_consumes_its_callable_its_null_and_its_arguments():
    inst = instruction("CALL")
    stack = values(1) + [NullVariable(), ConstantVariable("f"), *values(2)]
    site = break_site(inst, stack, "why")
    assert (site.consumed, site.untouched, site.call_slot) == (4, 1, 2)
    assert site.continuations == ((inst.index + 1, 2),)


def test_a_method_call_calls_the_method_below_its_self():
    inst = instruction("CALL")
    stack = [ConstantVariable("method"), ConstantVariable("self"), *values(2)]
    assert break_site(inst, stack, "why").call_slot == 0


def test_call_function_ex_with_keywords_consumes_the_null_below_the_callable():
    inst = instruction("CALL_FUNCTION_EX")
    assert bytecode.has_kwargs_mapping(inst)
    stack = [*values(2), NullVariable(), ConstantVariable("g"), ConstantVariable(()), ConstantVariable({})]
    site = break_site(inst, stack, "why")
    assert (site.consumed, site.call_slot, site.nulls) == (4, 3, frozenset())
    assert site.continuations == ((inst.index + 1, 3),)


def test_a_conditional_jump_continues_two_ways():
    inst = next(i for i in bytecode.decode(calls.__code__).instructions if i.opname in bytecode.POP_JUMPS)
    site = break_site(inst, values(2), "why")
    assert site.consumed == 1 and site.continuations == ((inst.index + 1, 1), (inst.target, 1))


def test_a_null_below_the_consumed_slots_is_recorded_for_the_resume_function():
    inst = instruction("CALL")
    stack = [NullVariable(), ConstantVariable("outer"), NullVariable(), ConstantVariable("f"), *values(2)]
    assert break_site(inst, stack, "why").nulls == frozenset({0})


def test_an_instruction_it_cannot_resume_after_is_unsupported_with_the_reason():
    with pytest.raises(Unsupported, match=r"RETURN_VALUE \(the reason\)"):
        break_site(instruction("RETURN_VALUE"), values(1), "the reason")
