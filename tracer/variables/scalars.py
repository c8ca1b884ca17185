"""A tensor's data read as Python numbers: `.item()`, `int(t)`, `float(t)`, `t.tolist()`.

The value is not known at trace time.  Where the trace captures such reads (fullgraph=True, or
torch._dynamo.config.capture_scalar_outputs: see shapes/policy.DataCapture) the graph gets an
`item()` node whose example value is an unbacked symbol of the trace's ShapeEnv (`u0` for an
int, `zuf0` for a float), made by the fake tensor's own `item()`; later arithmetic is symbolic,
a size made from it gets runtime asserts (`u0 >= 0`), and a branch on it cannot be decided: a
graph break, or under fullgraph=True a UserError, as in Dynamo.  Elsewhere the read breaks.
"""
from __future__ import annotations

import dis
import operator

import torch

from ..exc import Unsupported, observed
from .constant import ConstantVariable
from .lists import ListVariable
from .sym import SymNodeVariable
from .tensor import TensorVariable
from .user_functions import UserFunctionVariable

# The dtypes Dynamo's `tolist()` reads element by element (a float tensor's tolist breaks).
TOLIST_DTYPES = frozenset({torch.int8, torch.int16, torch.int32, torch.int64})


def read_data(tx, tensor, name: str, args, kwargs):
    """`tensor.<name>(*args)` for one of the methods that turn data into Python values."""
    output = tx.output
    if name == "__bool__" or not output.capture.scalars or args or kwargs:
        hint = "" if output.capture.scalars or name == "__bool__" else \
            " (torch._dynamo.config.capture_scalar_outputs = True records it in the graph)"
        raise Unsupported(f"Tensor.{name}() needs the tensor's data at trace time{hint}")
    output.data_dependent_shapes()
    if name == "item":
        return output.call(tx, "call_method", "item", (tensor,), {})
    if name == "tolist":
        return _tolist(tx, tensor)
    dtype = tensor.example.dtype
    if name == "__index__" and (dtype.is_floating_point or dtype.is_complex):
        raise observed(TypeError("only integer tensors of a single element can be converted to an index"),
                       "only integer tensors of a single element can be converted to an index")
    if dtype.is_complex:
        raise Unsupported(f"Tensor.{name}() of a complex tensor")
    item = read_data(tx, tensor, "item", [], {})
    return _converted(tx, item, torch.sym_float if name == "__float__" else torch.sym_int)


def _converted(tx, item: SymNodeVariable, fn) -> SymNodeVariable:
    """`sym_int(u0)` / `sym_float(zuf0)`: a node only where the number changes kind (as in Dynamo's
    graphs: int() of a float tensor's item is a `sym_int` node; float() of it is the item itself)."""
    if fn(item.value) is item.value:
        return item
    return tx.output.call(tx, "call_function", fn, (item,), {})


def _tolist(tx, tensor):
    """As Dynamo: an integer tensor's items, each an `item()` of a `getitem`, in nested lists."""
    if tensor.example.dtype not in TOLIST_DTYPES:
        raise Unsupported(f"Tensor.tolist() with non-integer tensor ({tensor.example.dtype})")
    if tensor.example.dim() == 0:
        return read_data(tx, tensor, "item", [], {})
    length = TensorVariable.call_method(tensor, tx, "size", [ConstantVariable(0)], {})  # an ndarray's too
    if not isinstance(length, ConstantVariable):
        length = ConstantVariable(length.specialize("tolist() needs the tensor's length", tx))
    items = []
    for index in range(length.value):
        row = tx.output.call(tx, "call_function", operator.getitem, (tensor, ConstantVariable(index)), {})
        items.append(_tolist(tx, row))
    return ListVariable(tuple(items))


def symbolic_check(fn):
    """A handler for `torch._check(cond)` and its kin: on a data-dependent condition (`u0 > 0`) a
    `torch._check` node, as in Dynamo, whose fake run tells the ShapeEnv the fact (the graph then
    asserts it); a condition known true folds away, as in Dynamo; a false one runs the real function."""
    def handler(tx, args, kwargs):
        positional = list(args[1:] if fn is torch._check_with else args)
        cond = positional[0] if positional else kwargs.get("cond")
        if cond is not None and cond.is_python_constant() and cond.as_python_constant() is True:
            return ConstantVariable(None)
        if not isinstance(cond, SymNodeVariable):
            return UserFunctionVariable(fn).call_function(tx, list(args), dict(kwargs))
        message = positional[1] if len(positional) > 1 else kwargs.get("message")
        text = _constant_message(message) if message is not None else None
        if message is not None and text is None:
            raise Unsupported(f"{fn.__name__}() with a message that is not a lambda returning a constant "
                              f"string, on the data-dependent condition {cond.expr()}")
        tx.output.call(tx, "call_function", torch._check, (cond, *([ConstantVariable(text)] if text else [])), {})
        return ConstantVariable(None)
    return handler


def _constant_message(message) -> str | None:
    """The string a `lambda: "..."` message returns, read from its code without running it (the text
    the graph's runtime assert then carries, as in Dynamo's); None for any other message."""
    code = message.get_code() if hasattr(message, "get_code") else None
    if code is None or code.co_argcount or code.co_kwonlyargcount or code.co_freevars:
        return None
    body = [inst for inst in dis.get_instructions(code) if inst.opname not in ("RESUME", "NOP", "CACHE")]
    if len(body) == 2 and body[0].opname == "LOAD_CONST" and body[1].opname == "RETURN_VALUE" \
            and isinstance(body[0].argval, str):
        return body[0].argval
    return None


def size_check(tx, args, kwargs):
    """`torch._check_is_size(n)`: a node on an unbacked number (it is then known >= 0), as in Dynamo."""
    value = args[0] if args else kwargs.get("i")
    if not isinstance(value, SymNodeVariable):
        return UserFunctionVariable(torch._check_is_size).call_function(tx, list(args), dict(kwargs))
    tx.output.call(tx, "call_function", torch._check_is_size, (value,), {})
    return ConstantVariable(None)


def check_polyfills() -> dict:
    """torch's `_check` functions answered here (see polyfills.POLYFILLS)."""
    checks = (torch._check, torch._check_with, torch._check_index, torch._check_value, torch._check_type,
              torch._check_not_implemented)
    return {**{fn: symbolic_check(fn) for fn in checks}, torch._check_is_size: size_check}


def expect_true(tx, args, kwargs):
    """What `torch._check(False, ...)` asks before raising: a known condition is its own answer."""
    cond = args[0] if args else kwargs.get("a")
    if cond is None or not cond.is_python_constant():
        raise Unsupported("expect_true() of a condition that is not known at trace time")
    return ConstantVariable(bool(cond.as_python_constant()))
