"""The checker every generated code object passes before it runs (tracer/code_check.py).

Each hand-broken code object below would crash CPython or misbehave if it ran; the
checker must reject it with a message naming the code object and the problem.  Real
code objects (the standard library's, Standin's own, generated ones) must pass.
"""
import collections
import dis
import json
import types
import warnings

import bytecode as bc
import pytest
import torch

import tracer
import tracer.convert_frame
from tracer import bytecode as layer
from tracer.code_check import check_code
from tracer.exc import InternalTracerWarning, InvalidCode


def with_block(x, n):
    with torch.no_grad():
        y = x + n
    return y


def branches(x):
    if x:
        return 1
    return 2


def _encode_varint(value: int, first: bool) -> bytes:
    chunks = []
    while True:
        chunks.append(value & 63)
        value >>= 6
        if not value:
            break
    chunks.reverse()
    out = bytearray(chunk | 64 for chunk in chunks[:-1]) + bytearray([chunks[-1]])
    if first:
        out[0] |= 128
    return bytes(out)


def encode_table(rows) -> bytes:
    """3.11's exception-table format: start, length, target (in code units), depth << 1 | lasti."""
    out = b""
    for start, end, target, depth, lasti in rows:
        out += _encode_varint(start // 2, True) + _encode_varint((end - start) // 2, False)
        out += _encode_varint(target // 2, False) + _encode_varint(depth << 1 | lasti, False)
    return out


def rows_of(code):
    return [(r.start, r.end, r.target, r.depth, r.lasti) for r in layer.exception_table(code)]


def with_rows(code, rows):
    return code.replace(co_exceptiontable=encode_table(rows))


def patched(code, offset: int, opname: str, arg: int = 0):
    raw = bytearray(code.co_code)
    raw[offset], raw[offset + 1] = dis.opmap[opname], arg
    return code.replace(co_code=bytes(raw))


def offset_of(code, opname: str) -> int:
    return next(inst.offset for inst in dis.get_instructions(code) if inst.opname == opname)


def rejected(code) -> str:
    with pytest.raises(InvalidCode) as info:
        check_code(code)
    message = str(info.value)
    assert repr(code.co_qualname) in message  # names the code object
    return message


def test_the_table_encoder_round_trips():
    code = with_block.__code__
    assert with_rows(code, rows_of(code)).co_exceptiontable == code.co_exceptiontable


def test_real_code_objects_pass():
    seen = []

    def walk(code):
        seen.append(code)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                walk(const)

    for module in (json.decoder, json.encoder, collections, dis, layer, tracer.convert_frame):
        for value in vars(module).values():
            for member in [value, *vars(value).values()] if isinstance(value, type) else [value]:
                code = getattr(member, "__code__", None)
                if isinstance(code, types.CodeType) and code not in seen:
                    walk(code)
    assert len(seen) > 200
    for code in seen:
        assert check_code(code) is code


def test_a_generated_resume_function_passes():
    def broken_in_block(x):
        with torch.no_grad():
            print("break")
            y = x * 2
        return y

    opt = tracer.compile(broken_in_block)
    opt(torch.ones(2))
    codes = [entry.code for frame in opt.all_frames() for entry in frame.cache_entries] \
        + [frame.code for frame in opt.all_frames()[1:]]
    assert len(codes) == 3
    for code in codes:
        assert check_code(code) is code


def test_a_stack_size_too_small_is_rejected():
    code = with_block.__code__
    assert "co_stacksize is 1" in rejected(code.replace(co_stacksize=1))


def test_a_handler_row_deeper_than_the_stack_is_rejected():
    code = with_block.__code__
    rows = rows_of(code)
    start, end, target, depth, lasti = rows[0]
    message = rejected(with_rows(code, [(start, end, target, 32768, lasti), *rows[1:]]))
    assert "keeps 32768" in message


def test_a_handler_row_shallower_than_the_handler_needs_is_rejected():
    code = with_block.__code__
    rows = rows_of(code)
    start, end, target, depth, lasti = rows[0]
    assert depth == 1  # the block's __exit__
    message = rejected(with_rows(code, [(start, end, target, 0, lasti), *rows[1:]]))
    assert "stack" in message


def test_a_row_without_lasti_under_a_handler_that_reads_it_is_rejected():
    code = with_block.__code__
    rows = rows_of(code)
    cleanup = rows[1][2]  # the with-block's cleanup: COPY 3, POP_EXCEPT, RERAISE 1 (reads lasti)
    assert all(lasti for *_, lasti in rows)
    without = [(s, e, t, d, False) if t == cleanup else (s, e, t, d, True) for s, e, t, d, _ in rows]
    assert "RERAISE 1 reads an instruction offset" in rejected(with_rows(code, without))


def test_an_exception_table_row_past_the_end_is_rejected():
    code = with_block.__code__
    rows = rows_of(code)
    size = len(code.co_code)
    start, _, target, depth, lasti = rows[-1]
    assert "past the end" in rejected(with_rows(code, [*rows[:-1], (start, size + 8, target, depth, lasti)]))


def test_a_handler_outside_the_code_is_rejected():
    code = with_block.__code__
    rows = rows_of(code)
    start, end, _, depth, lasti = rows[0]
    message = rejected(with_rows(code, [(start, end, len(code.co_code) + 40, depth, lasti), *rows[1:]]))
    assert "handler that is not an instruction" in message


def test_overlapping_rows_are_rejected():
    code = with_block.__code__
    rows = rows_of(code)
    start, end, target, depth, lasti = rows[0]
    assert "overlaps" in rejected(with_rows(code, [rows[0], (start, end, target, depth, lasti), *rows[1:]]))


def test_a_jump_out_of_range_is_rejected():
    code = branches.__code__
    jump = next(i for i in dis.get_instructions(code) if i.opname.startswith("POP_JUMP_FORWARD"))
    assert "not an instruction" in rejected(patched(code, jump.offset, jump.opname, 200))


def test_a_constant_index_out_of_range_is_rejected():
    code = branches.__code__
    assert "constant 99" in rejected(patched(code, offset_of(code, "LOAD_CONST"), "LOAD_CONST", 99))


def test_a_local_index_out_of_range_is_rejected():
    code = branches.__code__
    assert "local 7" in rejected(patched(code, offset_of(code, "LOAD_FAST"), "LOAD_FAST", 7))


def test_a_stack_underflow_is_rejected():
    code = branches.__code__
    assert "underflows" in rejected(patched(code, offset_of(code, "LOAD_FAST"), "POP_TOP"))


def test_falling_off_the_end_is_rejected():
    code = branches.__code__
    last = list(dis.get_instructions(code))[-1]
    assert last.opname == "RETURN_VALUE"
    assert "past the last instruction" in rejected(patched(code, last.offset, "NOP"))


def test_two_paths_reaching_one_instruction_with_different_depths_are_rejected():
    done = bc.Label()
    program = bc.Bytecode([bc.Instr("RESUME", 0), bc.Instr("LOAD_CONST", 1), bc.Instr("LOAD_FAST", "x"),
                           bc.Instr("POP_JUMP_FORWARD_IF_TRUE", done), bc.Instr("LOAD_CONST", 2), done,
                           bc.Instr("RETURN_VALUE")])
    program.argnames = ["x"]
    program.argcount = 1
    code = program.to_code(stacksize=4)
    assert "on one path" in rejected(code)


def test_an_unknown_opcode_is_rejected():
    code = branches.__code__
    raw = bytearray(code.co_code)
    raw[offset_of(code, "LOAD_FAST")] = 239
    assert "unknown opcode" in rejected(code.replace(co_code=bytes(raw)))


@pytest.mark.expects_internal_error
def test_a_generated_code_object_that_fails_runs_the_frame_eagerly(monkeypatch):
    """Wired in: what assemble() makes is checked, and a failure is an internal error, not a crash."""
    real_to_code = bc.Bytecode.to_code

    def shrunk(self, *args, **kwargs):
        return real_to_code(self, *args, **kwargs).replace(co_stacksize=0)

    monkeypatch.setattr(bc.Bytecode, "to_code", shrunk)

    def fn(x):
        return x * 2 + 1

    opt = tracer.compile(fn)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert torch.equal(opt(torch.ones(2)), fn(torch.ones(2)))
    assert any(issubclass(w.category, InternalTracerWarning) and "co_stacksize" in str(w.message) for w in caught)
    (entry,) = opt.cache_entries
    assert entry.code is None and "is invalid" in entry.eager_reason
