"""Building displays: the opcodes that make tuples, lists, sets, dicts, slices and strings, and unpack them.

Each pops its parts off the translator's stack and pushes one new tracker; the in-place forms used by
comprehensions and displays (LIST_APPEND, SET_ADD, MAP_ADD, ...) replace the display under construction
with a new tracker carrying the same mutation id, since trackers are immutable.
"""
from __future__ import annotations

from . import bytecode
from .exc import Unsupported
from .variables.base import VariableTracker
from .variables.builtin import BuiltinVariable
from .variables.constant import ConstantVariable
from .variables.dicts import ConstDictVariable
from .variables.misc import UserDefinedObjectVariable
from .variables.object_protocol import is_mapping_object, mapping_entries
from .variables.lists import ListVariable, SliceVariable, TupleVariable, hash_key
from .variables.sets import SetVariable, unique_items
from .variables.sym import SymNodeVariable
from .variables.tensor import TensorVariable


class BuildingOpcodes:
    """The part of InstructionTranslator that builds and unpacks displays."""

    def BUILD_SLICE(self, inst):
        """A tensor bound (`x[:t]`) is its `t.item()`, as Dynamo takes it: a graph break here, where no
        resume function can start (the graph stops at the last checkpoint), or an unbacked symbol
        under capture_scalar_outputs."""
        parts = [part.call_method(self, "item", [], {}) if isinstance(part, TensorVariable) else part
                 for part in (p.realize() for p in self.popn(inst.arg))]
        if len(parts) == 2:
            parts.append(ConstantVariable(None))
        self.push(SliceVariable(*parts))

    def BUILD_TUPLE(self, inst):
        self.push(TupleVariable(tuple(self.popn(inst.arg))))

    def BUILD_LIST(self, inst):
        self.push(ListVariable(tuple(self.popn(inst.arg))))

    def BUILD_SET(self, inst):
        self.push(SetVariable(unique_items(self.popn(inst.arg))))

    def SET_ADD(self, inst):
        value = self.pop()
        target = self.display_at(inst.arg)
        self.stack[-inst.arg] = SetVariable(unique_items(target.items + (value,)), mutation_id=target.mutation_id)

    def SET_UPDATE(self, inst):
        seq = self.pop().realize()
        target = self.display_at(inst.arg)
        self.stack[-inst.arg] = SetVariable(unique_items(target.items + tuple(seq.unpack_var_sequence(self))),
                                            mutation_id=target.mutation_id)

    def BUILD_MAP(self, inst):
        flat = self.popn(2 * inst.arg)
        self.push(BuiltinVariable(dict).call_function(
            self, [TupleVariable(tuple(TupleVariable((flat[i], flat[i + 1]))
                                       for i in range(0, len(flat), 2)))], {}))

    def BUILD_CONST_KEY_MAP(self, inst):
        keys = self.pop().as_python_constant()
        values = self.popn(inst.arg)
        self.push(ConstDictVariable(dict(zip(keys, values))))

    def BUILD_STRING(self, inst):
        parts = self.popn(inst.arg)
        self.push(ConstantVariable("".join(p.as_python_constant() for p in parts)))

    def FORMAT_VALUE(self, inst):
        conversion, has_spec = bytecode.format_conversion(inst)
        spec = self.pop().as_python_constant() if has_spec else ""
        value = self.pop().realize()
        if isinstance(value, SymNodeVariable):  # as Dynamo: a string needs the value, guarded
            value = ConstantVariable(value.specialize(f"formatting {value.expr()} into a string needs its value", self))
        if not value.is_python_constant() and not spec and _formats_as_text(value, inst.arg & 0x03):
            # f"{obj}" / f"{obj!r}" of a user object: its __str__ / __repr__, traced
            if inst.arg & 0x03 == 0 and hasattr(value, "guard_class_lacks"):
                value.guard_class_lacks(self, "__format__")  # a class that gains one formats differently
            value = BuiltinVariable(repr if inst.arg & 0x03 == 2 else str).call_function(self, [value], {})
            conversion = None  # the text is the conversion's result already (not repr() of it again)
        if not value.is_python_constant():
            raise Unsupported(f"formatting {value.describe()} into a string")
        raw = value.as_python_constant()
        self.push(ConstantVariable(format(conversion(raw) if conversion else raw, spec)))

    def LIST_APPEND(self, inst):
        value = self.pop()
        target = self.display_at(inst.arg)
        self.stack[-inst.arg] = ListVariable(target.items + (value,), mutation_id=target.mutation_id)

    def LIST_EXTEND(self, inst):
        seq = self.pop().realize()
        target = self.display_at(inst.arg)
        if not seq.has_unpack_var_sequence(self):
            raise Unsupported(f"extending a list with {seq.describe()}")
        self.stack[-inst.arg] = ListVariable(target.items + tuple(seq.unpack_var_sequence(self)),
                                             mutation_id=target.mutation_id)

    def LIST_TO_TUPLE(self, inst):
        self.push(TupleVariable(tuple(self.pop().realize().items)))

    def DICT_MERGE(self, inst):
        update = self.pop().realize()
        target = self.display_at(inst.arg)
        self.stack[-inst.arg] = ConstDictVariable({**target.entries, **self._entries_to_merge(update)},
                                                  mutation_id=target.mutation_id)

    def _entries_to_merge(self, update) -> dict:
        """What `**update` adds: a dict's entries, or a user mapping's read through its keys() and
        __getitem__ (traced), as CPython's dict merge reads any object with keys()."""
        if isinstance(update, ConstDictVariable):
            return update.read_entries()
        if isinstance(update, UserDefinedObjectVariable) and is_mapping_object(update):
            return mapping_entries(self, update)
        raise Unsupported(f"**-unpacking {update.describe()}")

    DICT_UPDATE = DICT_MERGE

    def MAP_ADD(self, inst):
        value, key = self.pop(), self.pop()
        target = self.display_at(inst.arg)
        self.stack[-inst.arg] = ConstDictVariable({**target.entries, hash_key(key): value},
                                                  mutation_id=target.mutation_id)

    def UNPACK_SEQUENCE(self, inst):
        seq = self.pop().realize()
        if not seq.has_unpack_var_sequence(self):
            raise Unsupported(f"unpacking {seq.describe()}")
        items = seq.unpack_var_sequence(self)
        if len(items) != inst.arg:
            raise Unsupported(f"ValueError: unpacking {len(items)} values into {inst.arg} names")
        self.stack.extend(reversed(items))

    def UNPACK_EX(self, inst):
        seq = self.pop().realize()
        before, after = bytecode.unpack_ex_counts(inst)
        items = seq.unpack_var_sequence(self)
        if len(items) < before + after:
            raise Unsupported(f"ValueError: not enough values to unpack ({len(items)})")
        middle = ListVariable(tuple(items[before:len(items) - after]))
        self.stack.extend(reversed(items[:before] + [middle] + items[len(items) - after:]))


def _formats_as_text(value: VariableTracker, conversion: int) -> bool:
    """Whether f"{value}" (conversion 0, no spec) is str(value), as object.__format__ makes it; !s and !r
    always are str() and repr()."""
    if conversion in (1, 2):
        return True
    try:
        return conversion == 0 and value.python_type().__format__ is object.__format__
    except Unsupported:
        return False
