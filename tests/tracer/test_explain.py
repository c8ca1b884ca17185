"""tracer.explain summarises graphs, breaks, ops, guards and events."""
import torch

import tracer


def two_breaks(x):
    y = x.sin()
    print("first")
    z = y * 2
    n = int(z.sum().item())
    return z + n


def test_explain_lists_each_break_once_with_file_and_line(capsys):
    report = tracer.explain(two_breaks)(torch.ones(3))
    capsys.readouterr()
    assert report.graph_break_count == 2
    reasons = [brk.reason for brk in report.graph_breaks]
    assert any("print" in r for r in reasons) and any("item" in r for r in reasons)
    lines = {brk.location.line for brk in report.graph_breaks}
    first = two_breaks.__code__.co_firstlineno
    assert lines == {first + 2, first + 4}
    assert all(brk.location.filename == __file__ for brk in report.graph_breaks)
    text = str(report)
    reasons_section = text.split("Break reasons:")[1].split("Ops in graph")[0]
    assert reasons_section.count("print()") == 1 and "Graph break count: 2" in text
    torch.testing.assert_close(report.result, two_breaks(torch.ones(3)))


def test_explain_counts_graphs_and_ops():
    def f(x):
        return torch.relu(x) + 1

    report = tracer.explain(f)(torch.ones(2))
    assert report.graph_count == 1 and report.graph_break_count == 0
    assert report.ops_per_graph == [["torch.relu", "operator.add"]]
    assert any("TENSOR_MATCH" in g for guards in report.guards.values() for g in guards)
    assert report.compile_events[0].endswith("compile")


def test_repeated_break_in_a_loop_frame_is_reported_once():
    def helper(x):
        print("x")
        return x + 1

    def f(x):
        x = helper(x)
        return helper(x) * 2

    report = tracer.explain(f)(torch.ones(2))
    assert report.graph_break_count >= 1
    keys = [(b.reason, b.location.line) for b in report.graph_breaks]
    assert len(keys) == len(set(keys))
