"""The bytecode layer and the translator's opcode coverage."""
import dis

import pytest
import torch

import tracer
from tracer import bytecode
from tracer.symbolic_convert import InstructionTranslator


def sample(x, ys):
    total = x
    for y in ys:
        total = total + y * 2
    try:
        total = total.relu()
    except RuntimeError:
        pass
    return total


def test_decode_matches_dis_and_adds_positions_and_targets():
    decoded = bytecode.decode(sample.__code__)
    raw = list(dis.get_instructions(sample))
    assert [i.opname for i in decoded.instructions] == [i.opname for i in raw]
    assert [i.offset for i in decoded.instructions] == [i.offset for i in raw]
    assert all(i.index == n for n, i in enumerate(decoded.instructions))
    first_line = sample.__code__.co_firstlineno
    binary = next(i for i in decoded.instructions if i.opname == "BINARY_OP" and i.argrepr == "*")
    assert binary.line == first_line + 3
    line_text = "        total = total + y * 2"
    assert line_text[binary.positions.col_offset:binary.positions.end_col_offset] == "y * 2"
    for inst in decoded.instructions:
        if inst.opname in bytecode.JUMP_OPNAMES:
            assert decoded.instructions[inst.target].offset == inst.argval
    assert decoded.at_offset(binary.offset) is binary


def test_exception_table_is_decoded():
    table = bytecode.decode(sample.__code__).exception_table
    assert table, "a try/except compiles to exception-table rows on 3.11"
    offsets = {i.offset for i in bytecode.decode(sample.__code__).instructions}
    assert all(row.target in offsets for row in table)


def test_decode_is_cached_and_immutable():
    first = bytecode.decode(sample.__code__)
    assert bytecode.decode(sample.__code__) is first
    with pytest.raises(AttributeError):
        first.instructions[0].opname = "NOP"


class Context:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


CONTEXT = Context()

ORDINARY_TENSOR_CODE_OPCODES = """
LOAD_FAST STORE_FAST DELETE_FAST LOAD_GLOBAL LOAD_DEREF STORE_DEREF LOAD_ATTR LOAD_METHOD
LOAD_CONST LOAD_NAME LOAD_CLOSURE MAKE_CELL COPY_FREE_VARS
BINARY_OP COMPARE_OP IS_OP CONTAINS_OP UNARY_NEGATIVE UNARY_POSITIVE UNARY_INVERT UNARY_NOT
BUILD_TUPLE BUILD_LIST BUILD_MAP BUILD_CONST_KEY_MAP BUILD_STRING BUILD_SLICE BUILD_SET
UNPACK_SEQUENCE UNPACK_EX LIST_EXTEND LIST_APPEND LIST_TO_TUPLE DICT_MERGE DICT_UPDATE MAP_ADD
BINARY_SUBSCR STORE_SUBSCR DELETE_SUBSCR
PRECALL CALL KW_NAMES CALL_FUNCTION_EX
JUMP_FORWARD JUMP_BACKWARD POP_JUMP_FORWARD_IF_FALSE POP_JUMP_FORWARD_IF_TRUE
POP_JUMP_FORWARD_IF_NONE POP_JUMP_FORWARD_IF_NOT_NONE POP_JUMP_BACKWARD_IF_FALSE
POP_JUMP_BACKWARD_IF_TRUE JUMP_IF_FALSE_OR_POP JUMP_IF_TRUE_OR_POP
GET_ITER FOR_ITER FORMAT_VALUE COPY SWAP PUSH_NULL RESUME NOP POP_TOP RETURN_VALUE
""".split()


# opcodes of one meaning served by one handler, named after the first (or after what they all do)
SHARED_HANDLERS = {"DICT_UPDATE": "DICT_MERGE", "JUMP_FORWARD": "jump", "JUMP_BACKWARD": "jump"}


@pytest.mark.parametrize("opname", ORDINARY_TENSOR_CODE_OPCODES)
def test_every_ordinary_opcode_has_a_handler_named_after_it(opname):
    assert opname in dis.opmap
    handler = InstructionTranslator.dispatch[opname]
    # the translator's method of that name: defined as it, or made by a factory for a family of opcodes
    assert handler is getattr(tracer.symbolic_convert.InstructionTranslator, opname)
    assert handler.__module__.startswith("tracer."), handler.__module__
    assert handler.__name__ == opname or ".<locals>." in handler.__qualname__ or \
        SHARED_HANDLERS.get(opname) == handler.__name__, handler.__qualname__


def test_opcode_without_handler_is_reported_not_crashed():
    def uses_match(x, d):
        match d:
            case {"k": v}:
                return x + v
        return x

    opt = tracer.compile(uses_match, fullgraph=True)
    with pytest.raises(tracer.Unsupported, match="opcode MATCH_MAPPING is not supported") as info:
        opt(torch.ones(2), {"k": 1})
    assert info.value.location.opname == "MATCH_MAPPING"
    torch.testing.assert_close(tracer.compile(uses_match)(torch.ones(2), {"k": 1}), torch.ones(2) + 1)


def test_with_block_on_an_unknown_context_manager_runs_eagerly():
    def uses_with(x):
        with CONTEXT:
            y = x + 1
        return y

    opt = tracer.compile(uses_with)
    torch.testing.assert_close(opt(torch.ones(2)), torch.ones(2) + 1)
    reasons = [e.reason for e in opt.compile_events if e.kind == "eager_fallback"]
    assert "with-block" in reasons[0]


def operand_bits(x, ys):
    def inner(a, b=1, *, c=2) -> int:
        return a + b + c + x
    first, *rest, last = ys
    return f"{x!r:>4}", inner, print(first, rest, last)


def test_operand_bits_are_decoded_by_the_bytecode_layer_as_dis_prints_them():
    code = operand_bits.__code__
    decoded = bytecode.decode(code)
    by_name = {inst.opname: inst for inst in decoded.instructions}
    parts = bytecode.function_parts(by_name["MAKE_FUNCTION"])
    shown = by_name["MAKE_FUNCTION"].argrepr.split(", ")
    assert [name for name in ("defaults", "kwdefaults", "annotations", "closure") if getattr(parts, name)] \
        == [name for name in ("defaults", "kwdefaults", "annotations", "closure") if name in shown]
    assert bytecode.unpack_ex_counts(by_name["UNPACK_EX"]) == (1, 1)
    assert bytecode.format_conversion(by_name["FORMAT_VALUE"]) == (repr, True)
    loads = [inst for inst in decoded.instructions if inst.opname == "LOAD_GLOBAL"]
    assert [bytecode.pushes_null(inst) for inst in loads] == [inst.argrepr.startswith("NULL + ") for inst in loads]
    assert bytecode.has_var_parameters(sample.__code__) is False
    assert bytecode.has_var_parameters((lambda *a, **k: 0).__code__) is True


def test_handler_at_is_the_exception_table_row_of_an_offset():
    decoded = bytecode.decode(sample.__code__)
    covered = {inst.offset for row in decoded.exception_table for inst in decoded.instructions
               if row.start <= inst.offset < row.end}
    for inst in decoded.instructions:
        row = bytecode.handler_at(decoded.exception_table, inst.offset)
        assert (row is not None) == (inst.offset in covered)
        if row is not None:
            assert row.start <= inst.offset < row.end
