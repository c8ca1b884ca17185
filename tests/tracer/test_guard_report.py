"""Guard reports (`tracer/guards/report.py`): the TORCH_LOGS=guards-style tree, line by line, and
the JSON document, field by field, for an entry with global state, a nested attribute chain and a
shape guard with its cause."""
import json
import os
from types import SimpleNamespace

import pytest
import torch

import tracer
from tracer.guards.compiled import GuardSet
from tracer.guards.kinds import Guard
from tracer.guards.report import dumps, report_json, report_text, source_tree
from tracer.source import LocalSource


class Inner:
    def __init__(self):
        self.k = 3


class Outer:
    def __init__(self):
        self.inner = Inner()


CFG = Outer()


def branches_on_size(x):
    if x.shape[0] > 2:
        return x * CFG.inner.k
    return x


FIRST = branches_on_size.__code__.co_firstlineno
HERE = os.path.abspath(__file__)


@pytest.fixture(scope="module")
def entry():
    tracer.reset()
    opt = tracer.compile(branches_on_size, dynamic=True)
    opt(torch.ones(5))
    yield opt.cache_entries[0]
    tracer.reset()


def by_kind(entry, kind, source):
    return next(g for g in entry.guards if g.kind == kind and g.source_name == source)


def test_the_text_report_is_the_tree_of_sources_with_each_guard_where_it_was_installed(entry):
    def at(guard):
        return f"  # {guard.installed_at}"
    tensor, shape = by_kind(entry, "TENSOR_MATCH", "L['x']"), by_kind(entry, "SHAPE_ENV", "L['x']")
    outer, inner = by_kind(entry, "TYPE_MATCH", "G['CFG']"), by_kind(entry, "TYPE_MATCH", "G['CFG'].inner")
    k = by_kind(entry, "EQUALS_MATCH", "G['CFG'].inner.k")
    state = by_kind(entry, "GLOBAL_STATE", "")
    assert state.installed_at is None and len(shape.causes) == 1
    assert report_text(entry).splitlines() == [
        "TREE_GUARD_MANAGER:",
        "+- RootGuardManager",
        f"| +- {state}",
        "| +- GuardManager: source=L['x']",
        f"| | +- {tensor}{at(tensor)}",
        f"| | +- {shape}{at(shape)}",
        f"| | |    because {shape.causes[0]}",
        "| +- GuardManager: source=G['CFG']",
        f"| | +- {outer}{at(outer)}",
        "| | +- GuardManager: source=G['CFG'].inner",
        f"| | | +- {inner}{at(inner)}",
        "| | | +- GuardManager: source=G['CFG'].inner.k",
        f"| | | | +- {k}{at(k)}",
    ]
    assert str(k) == "EQUALS_MATCH: G['CFG'].inner.k == 3"
    assert at(k) == f"  # {HERE}:{FIRST + 2} in branches_on_size: return x * CFG.inner.k"


def test_the_json_report_holds_every_guard_with_where_and_why(entry):
    doc = json.loads(json.dumps(report_json(entry, "branches_on_size")))
    assert (doc["schema"], doc["compile_id"], doc["frame"]) == ("standin.guards/1", "0/0", "branches_on_size")
    assert [(g["source"], g["kind"]) for g in doc["guards"]] == [(g.source_name, g.kind) for g in entry.guards]
    k = next(g for g in doc["guards"] if g["kind"] == "EQUALS_MATCH")
    line = FIRST + 2
    assert k == {"source": "G['CFG'].inner.k", "kind": "EQUALS_MATCH", "expression": "G['CFG'].inner.k == 3",
                 "expected": "3", "installed_by": "ConstantVariable", "causes": [],
                 "installed_at": {"file": HERE, "function": "branches_on_size", "line": line,
                                  "offset": k["installed_at"]["offset"], "columns": [15, 30],
                                  "source_line": "return x * CFG.inner.k"}}
    assert k["installed_at"]["offset"] == by_kind(entry, "EQUALS_MATCH", "G['CFG'].inner.k").installed_at.offset
    state = next(g for g in doc["guards"] if g["kind"] == "GLOBAL_STATE")
    assert state["installed_at"] is None and state["installed_by"] is None and state["source"] == ""
    assert state["expected"]["default_dtype"] == "torch.float32"


def test_a_shape_guards_causes_say_why_where_and_by_which_instruction(entry):
    doc = report_json(entry, "branches_on_size")
    shape = next(g for g in doc["guards"] if g["kind"] == "SHAPE_ENV")
    assert shape["expression"] == "3 <= L['x'].size()[0]" and shape["installed_by"] == "SymNodeVariable"
    (cause,) = shape["causes"]
    (real,) = by_kind(entry, "SHAPE_ENV", "L['x']").causes
    assert cause == {"why": real.why, "opname": "POP_JUMP_FORWARD_IF_FALSE", "tracker": real.tracker,
                     "installed_at": {"file": HERE, "function": "branches_on_size", "line": FIRST + 1,
                                      "offset": real.installed_at.offset, "columns": list(real.installed_at.col_span),
                                      "source_line": "if x.shape[0] > 2:"}}
    assert "s" in real.why and "> 2" in real.why and real.tracker


def test_the_source_tree_indexes_the_guards_on_each_node(entry):
    guards = list(entry.guards)
    at = {(g.kind, g.source_name): i for i, g in enumerate(guards)}
    assert source_tree(guards) == [
        {"source": "L['x']", "guards": [at["TENSOR_MATCH", "L['x']"], at["SHAPE_ENV", "L['x']"]], "children": []},
        {"source": "G['CFG']", "guards": [at["TYPE_MATCH", "G['CFG']"]], "children": [
            {"source": "G['CFG'].inner", "guards": [at["TYPE_MATCH", "G['CFG'].inner"]], "children": [
                {"source": "G['CFG'].inner.k", "guards": [at["EQUALS_MATCH", "G['CFG'].inner.k"]],
                 "children": []}]}]},
    ]
    assert report_json(entry, "f")["tree"] == source_tree(guards)


def test_dumps_is_the_json_report_indented(entry):
    text = dumps(entry, "branches_on_size")
    assert json.loads(text) == json.loads(json.dumps(report_json(entry, "branches_on_size")))
    assert text.startswith('{\n  "schema": "standin.guards/1",\n  "compile_id": "0/0"')


def test_a_guard_with_no_known_instruction_is_listed_without_a_location():
    guard = Guard(LocalSource("n"), "EQUALS_MATCH", 3)
    entry = SimpleNamespace(guards=GuardSet([guard]), compile_id="0/0")
    assert report_text(entry).splitlines()[2:] == ["| +- GuardManager: source=L['n']",
                                                   "| | +- EQUALS_MATCH: L['n'] == 3"]
    assert report_json(entry, "f")["guards"][0]["installed_at"] is None
