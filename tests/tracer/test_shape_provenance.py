"""Provenance of shape guards: each guard the ShapeEnv produces names the instruction, line and
tracker that caused it -- the branch on a size, the view that needed divisibility, the range()
that specialised a size, the 0/1 rule where the tensor entered the trace, duck sizing.

Lines are found by the `# <tag>` comment on them, so the tests do not depend on line numbers.
"""
import inspect

import pytest
import torch

import tracer
from tracer.script import routed_torch_compile


def line_of(fn, tag: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    for offset, text in enumerate(lines):
        if f"# <{tag}>" in text:
            return start + offset
    raise AssertionError(f"no line tagged <{tag}> in {fn.__name__}")


def shape_guards(entry):
    return [g for g in entry.guards if g.kind == "SHAPE_ENV"]


def guard(entry, text):
    found = [g for g in entry.guards if g.expr == text]
    assert found, f"no guard {text!r} in {[g.expr for g in entry.guards]}"
    return found[0]


def run(fn, calls, **options):
    opt = tracer.compile(fn, **options)
    for args in calls:
        torch.testing.assert_close(opt(*args), fn(*args))
    return opt


@pytest.fixture(autouse=True)
def _fresh():
    tracer.reset()
    yield
    tracer.reset()


def branch(x):
    n = x.shape[0]  # <wrap>
    y = x * 2
    if n > 4:  # <branch>
        return y + 1
    return y


def test_a_branch_bound_names_the_jump_and_the_lower_bound_names_the_0_1_rule():
    opt = run(branch, [(torch.randn(3, 2),), (torch.randn(2, 2),)])
    entry = opt.cache_entries[1]
    bounds = guard(entry, "2 <= L['x'].size()[0] <= 4")
    lower, upper = bounds.causes
    assert lower.installed_at.line == line_of(branch, "wrap") and "0/1 specialisation" in lower.why
    assert lower.opname == "LOAD_ATTR" and lower.tracker == "TensorVariable"
    assert upper.installed_at.line == line_of(branch, "branch") and upper.opname.startswith("POP_JUMP")
    assert "branch" in upper.why and upper.tracker == "SymNodeVariable"
    assert bounds.installed_at == upper.installed_at  # the guard is shown at the branch


def test_the_other_side_of_the_branch_is_guarded_by_the_same_jump():
    opt = run(branch, [(torch.randn(3, 2),), (torch.randn(2, 2),), (torch.randn(6, 2),)])
    (bound,) = shape_guards(opt.cache_entries[2])
    assert bound.expr == "5 <= L['x'].size()[0]"
    assert [c.installed_at.line for c in bound.causes] == [line_of(branch, "branch")]


def float_branch(x, s):
    y = x * 2
    if s > 0.6:  # <branch>
        return y * s
    return y


def test_a_symbolic_float_names_its_branch_and_the_nan_rule_where_it_entered_the_trace():
    opt = run(float_branch, [(torch.randn(3), 0.5), (torch.randn(3), 0.55)])
    entry = opt.cache_entries[1]
    (bound,) = guard(entry, "L['s'] <= 0.6").causes
    assert bound.installed_at.line == line_of(float_branch, "branch") and bound.opname.startswith("POP_JUMP")
    assert bound.tracker == "SymNodeVariable"
    (nan,) = guard(entry, "not math.isnan(L['s'])").causes
    assert "not NaN" in nan.why and nan.tracker == "SymNodeVariable"
    assert nan.installed_at.line == line_of(float_branch, "branch")  # s is first read by the comparison
    assert entry.shapes.describe()["numbers"] == {"L['s']": "the float L['s'] is symbolic (its value changed)"}


def test_a_symbolic_float_formatted_into_a_string_is_eagers_string():
    def formatted(x, s):
        return x + 1, f"{s}"  # Dynamo 2.13 returns the float itself here once s is symbolic

    opt = tracer.compile(formatted)
    for s in (0.5, 0.55, 0.9):
        assert opt(torch.ones(2), s)[1] == f"{s}"
    assert any("formatting" in c.why for g in shape_guards(opt.cache_entries[-1]) for c in g.causes)


def view(x):
    flat = x.reshape(-1)  # <wrap>
    return flat.view(2, -1)  # <view>


def test_a_view_that_needs_divisibility_names_the_view():
    opt = run(view, [(torch.randn(4, 3),), (torch.randn(6, 3),)])
    divisible = guard(opt.cache_entries[1], "((3*L['x'].size()[0]) % 2) == 0")
    (cause,) = divisible.causes
    assert cause.installed_at.line == line_of(view, "view") and cause.opname == "CALL"
    assert cause.tracker == "view" and "view()" in cause.why


def loop(x):
    n = x.shape[0]  # <wrap>
    for i in range(n):  # <range>
        x = x + i
    return x


def test_a_size_specialised_by_range_says_so_on_its_tensor_match():
    opt = run(loop, [(torch.randn(4, 3),), (torch.randn(6, 3),)])
    entry = opt.cache_entries[1]
    (match,) = [g for g in entry.guards if g.kind == "TENSOR_MATCH"]
    assert match.expected.size == (6, 3)  # specialised: exactly 6 again
    (cause,) = match.causes
    assert cause.installed_at.line == line_of(loop, "range") and "range()" in cause.why
    assert shape_guards(entry) == []
    assert [str(c) for c in entry.became_dynamic] == ["L['x'].size()[0] became dynamic (was 4, now 6)"]


def add(x, y):
    return x + y  # <add>


def test_an_equality_from_broadcasting_names_the_operation():
    opt = run(add, [(torch.randn(4, 3), torch.randn(4, 3)), (torch.randn(6, 3), torch.randn(6, 3))])
    equal = guard(opt.cache_entries[1], "L['y'].size()[0] == L['x'].size()[0]")
    (cause,) = equal.causes
    assert cause.installed_at.line == line_of(add, "add") and cause.opname == "BINARY_OP"
    assert "add()" in cause.why


def test_duck_sizing_names_where_the_second_tensor_entered():
    opt = run(add, [(torch.randn(4, 3), torch.randn(4, 3))], dynamic=True)
    equal = guard(opt.cache_entries[0], "L['y'].size()[0] == L['x'].size()[0]")
    (cause,) = equal.causes
    assert cause.why.startswith("duck sizing: L['y'].size()[0] had the same size 4 as L['x'].size()[0]")
    assert cause.installed_at.line == line_of(add, "add")


def int_branch(x, k):
    if k > 2:  # <branch>
        return x + k
    return x - k


def test_an_int_argument_made_symbolic_is_guarded_by_its_branch():
    opt = run(int_branch, [(torch.randn(3), 2), (torch.randn(3), 3)])
    entry = opt.cache_entries[1]
    assert [g.expr for g in shape_guards(entry)] == ["3 <= L['k']"]
    (cause,) = shape_guards(entry)[0].causes
    assert cause.installed_at.line == line_of(int_branch, "branch")
    assert any(g.kind == "TYPE_MATCH" and g.source_name == "L['k']" for g in entry.guards)


def test_every_shape_guard_of_a_dynamic_trace_has_a_cause_with_a_line():
    for fn, calls, options in ((branch, [(torch.randn(3, 2),), (torch.randn(2, 2),)], {}),
                               (view, [(torch.randn(4, 3),), (torch.randn(6, 3),)], {}),
                               (add, [(torch.randn(4, 3), torch.randn(4, 3))], {"dynamic": True})):
        opt = run(fn, calls, **options)
        guards = shape_guards(opt.cache_entries[-1])
        assert guards
        for g in guards:
            assert g.causes and all(c.installed_at is not None and c.installed_at.line for c in g.causes), g


# ---- the recompile says which dimension became dynamic ---------------------------------------------------
def test_the_recompile_reason_is_dynamos_and_names_the_dimension_that_became_dynamic():
    opt = run(branch, [(torch.randn(3, 2),), (torch.randn(2, 2),)])
    reason = opt.compile_events[1].reason
    assert reason.startswith("0/0: tensor 'x' size mismatch at index 0. expected 3, actual 2")
    assert reason.endswith("L['x'].size()[0] became dynamic (was 3, now 2)")


def test_a_failing_shape_guard_is_reported_with_the_size_it_got():
    opt = run(branch, [(torch.randn(3, 2),), (torch.randn(2, 2),), (torch.randn(6, 2),)])
    reason = opt.compile_events[2].reason
    assert reason.startswith("0/1: 2 <= L['x'].size()[0] <= 4, got L['x'].size()[0] = 6")


# ---- bad input -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["auto", 1, 0, "True"])
def test_dynamic_takes_only_none_true_or_false(bad):
    with pytest.raises(tracer.UserError, match="dynamic must be None"):
        tracer.compile(branch, dynamic=bad)


def test_a_marked_dimension_the_code_specialises_is_the_users_error_as_in_dynamo():
    def fixed(x):
        return x.view(x.shape[0] * 3)

    x = torch.randn(4, 3)
    torch._dynamo.mark_dynamic(x, 1)
    with pytest.raises(tracer.UserError, match=r"L\['x'\].size\(\)\[1\]"):
        tracer.compile(fixed)(x)


def test_a_script_keeps_the_dynamic_argument_it_passes_to_torch_compile():
    collected = []
    with routed_torch_compile(collected):
        default = torch.compile(branch)
        static = torch.compile(branch, dynamic=False)
        always = torch.compile(branch, dynamic=True)
    assert [c.dynamic for c in (default, static, always)] == [None, False, True]
    with routed_torch_compile([]), pytest.raises(tracer.UserError):
        torch.compile(branch, dynamic="sometimes")


# ---- the exports carry it -------------------------------------------------------------------------------
BATCH_SCRIPT = '''\
import torch


@torch.compile(backend="eager")
def f(x):
    if x.shape[0] > 4:
        return x * 2
    return x - 1


f(torch.randn(3, 2))
f(torch.randn(2, 2))
'''


def test_the_exports_show_shape_guards_with_causes_and_the_symbols(tmp_path):
    import json
    import pathlib

    import jsonschema

    from tracer.debug import Session
    from tracer.export import export_session

    script = tmp_path / "batches.py"
    script.write_text(BATCH_SCRIPT)
    session = Session(str(script)).run()
    assert session.error is None, session.error
    result = export_session(session, str(tmp_path / "out"))
    root = pathlib.Path(__file__).resolve().parents[2]
    schema = json.loads((root / "resources" / "schemas" / "standin.report.schema.json").read_text())
    jsonschema.validate(result.report, schema, cls=jsonschema.Draft202012Validator)
    (dynamic,) = [e for frame in result.report["frames"] for e in frame["entries"] if e["compile_id"].endswith("/1")]
    assert dynamic["shapes"]["became_dynamic"] == ["L['x'].size()[0] became dynamic (was 3, now 2)"]
    assert [s["range"] for s in dynamic["shapes"]["symbols"]] == ["[2, 4]"]
    (bound,) = [g for g in dynamic["guards"] if g["kind"] == "SHAPE_ENV"]
    assert bound["expression"] == "2 <= L['x'].size()[0] <= 4"
    assert [c["installed_at"]["line"] for c in bound["causes"]] == [6, 6]
    assert bound["causes"][1]["opname"].startswith("POP_JUMP")
    guards_txt = (tmp_path / "out" / "f" / "0_1" / "guards.txt").read_text()
    assert "SHAPE_ENV: 2 <= L['x'].size()[0] <= 4" in guards_txt and "because the branch on" in guards_txt
    html = (tmp_path / "out" / "report.html").read_text()
    assert "because" in html and "Symbolic sizes" in html and "became dynamic (was 3, now 2)" in html
