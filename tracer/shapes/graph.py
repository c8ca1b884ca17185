"""Symbols in the FX graph, placed as Dynamo places them.

A tensor input with symbolic sizes is preceded by one `torch.SymInt` placeholder per new symbol
(named after it: `s77`); reading a size later in the trace records `size()` and `getitem` nodes,
and at the end torch's own pass (`insert_deferred_runtime_asserts`) replaces each read whose value
is a bound symbol by that symbol's placeholder.  What is then unused (reads, arithmetic on
symbols, placeholders of specialised symbols) is dropped.
"""
from __future__ import annotations

import re

import torch
import torch.fx
from torch.fx.passes.runtime_assert import insert_deferred_runtime_asserts

from ..variables.sym import SYM_TYPES


def _is_symbolic(value) -> bool:
    return isinstance(value, SYM_TYPES) and not value.node.expr.is_number


def size_patterns(fake: torch.Tensor) -> tuple[tuple, tuple]:
    """(size, stride) of a fake tensor with None at each symbolic entry: what TENSOR_MATCH compares."""
    def pattern(values):
        return tuple(None if _is_symbolic(v) else int(v) for v in values)
    return pattern(fake.size()), pattern(fake.stride())


def unbound_symbols(fake: torch.Tensor, bound: dict):
    """(property, index, SymInt) for each plain symbol of a fake input that no placeholder binds yet,
    sizes first, then strides and the storage offset, as Dynamo lifts them."""
    found = []
    entries = [("size", i, s) for i, s in enumerate(fake.size())]
    entries += [("stride", i, s) for i, s in enumerate(fake.stride())]
    entries.append(("storage_offset", None, fake.storage_offset()))
    seen = set(bound)
    import sympy  # lazy: sympy (warmup.py)
    for prop, index, value in entries:
        if isinstance(value, torch.SymInt) and isinstance(value.node.expr, sympy.Symbol) \
                and value.node.expr not in seen:
            seen.add(value.node.expr)
            found.append((prop, index, value))
    return found


def binds_symbol(node: torch.fx.Node) -> bool:
    """A placeholder whose value is still one plain symbol (a size's `s77`, an int argument's)."""
    import sympy  # lazy: sympy (warmup.py)
    example = node.meta.get("example_value")
    return node.op == "placeholder" and isinstance(example, torch.SymInt) and isinstance(example.node.expr,
                                                                                        sympy.Symbol)


def symbols_used_by(nodes) -> set:
    """The symbols the remaining (non-symbol) inputs' example values still carry."""
    from torch.fx.experimental.symbolic_shapes import free_symbols  # lazy: sympy (warmup.py)
    used = set()
    for node in nodes:
        example = node.meta.get("example_value")
        if isinstance(example, (torch.Tensor, *SYM_TYPES)):
            used |= set(free_symbols(example))
    return used


def reify_symbols(graph: torch.fx.Graph, shape_env) -> None:
    """torch's pass that hash-conses symbolic values (a size read equal to a bound symbol becomes it)
    and writes the ShapeEnv's deferred runtime asserts on unbacked symbols (`u0 >= 0`) into the graph."""
    insert_deferred_runtime_asserts(torch.fx.GraphModule(torch.nn.Module(), graph), shape_env, "standin",
                                    export=False)


def is_pure_size_node(node: torch.fx.Node) -> bool:
    """A node that only computes a size or arithmetic on symbols: dropped when unused, as in Dynamo."""
    from torch.fx.experimental.symbolic_shapes import is_accessor_node  # lazy: sympy (warmup.py)
    if node.op == "placeholder" or node.op == "output":
        return False
    if is_accessor_node(node):
        return True
    if node.op != "call_function" or not isinstance(node.meta.get("example_value"), SYM_TYPES):
        return False
    return all(isinstance(a, (int, float, bool)) or
               (isinstance(a, torch.fx.Node) and isinstance(a.meta.get("example_value"), SYM_TYPES))
               for a in list(node.args) + list(node.kwargs.values()))


def reads_float_input(node: torch.fx.Node) -> bool:
    """The `item()` that reads a symbolic float argument back from its 0-d tensor placeholder."""
    return node.op == "call_method" and node.target == "item" and len(node.args) == 1 \
        and isinstance(node.args[0], torch.fx.Node) and node.args[0].op == "placeholder" \
        and isinstance(node.meta.get("example_value"), torch.SymFloat)


_TERM = re.compile(r"(?:[LG]\[[^\]]+\](?:\.\w+|\[[^\]]+\])*?)\.(?:size\(\)\[\d+\]|stride\(\)\[\d+\]|storage_offset\(\))"
                   r"|[LG]\['[^']+'\](?:\[[^\]]+\])*")


def terms_of(python: str) -> tuple[str, ...]:
    """The sizes and ints a shape guard reads, each once, in order (`L['x'].size()[0]`, `L['n']`)."""
    out = []
    for match in _TERM.finditer(python):
        if match.group(0) not in out:
            out.append(match.group(0))
    return tuple(out)
