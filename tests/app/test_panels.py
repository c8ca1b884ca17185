"""The state panels over real recorded data: models, highlights, signals, and a rendered PNG of each."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import textwrap

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from app import theme

import tracer.debug
from app.models.row_tree_model import CHANGED_ROLE, PAYLOAD_ROLE
from app.models.source_tree import build_source_items, parent_source_name
from app.models.tracker_tree import COL_KIND, build_locals_items, build_stack_items
from app.widgets.graph_view import GraphPanel, code_text, layout_nodes
from tracer.export.layout import layer_of
from app.widgets.panels import (BreakpointsPanel, BreaksPanel, CachePanel,
                                CallStackPanel, LocalsPanel, LogPanel, SourceTreePanel, StackPanel)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = os.path.join(ROOT, "resources", "examples", "seed_example.py")
PNG_DIR = "/tmp/standin_panels"

BREAKING = textwrap.dedent("""
    import torch

    class Cfg:
        scale = 2

    cfg = Cfg()

    def leaf(x):
        return x * cfg.scale

    def mid(x):
        y = leaf(x)
        return y + 1

    @torch.compile(backend="eager")
    def g(x):
        a = mid(x).relu()
        print("between")
        return a.sum(), (a, [1, 2])

    g(torch.ones(3))
""")


@pytest.fixture(scope="module")
def seed():
    tracer.reset()  # frame numbers are per process: start at 0 whatever ran before
    return tracer.debug.Session(SEED).run()


@pytest.fixture(scope="module")
def breaking(tmp_path_factory):
    path = tmp_path_factory.mktemp("scripts") / "breaking.py"
    path.write_text(BREAKING)
    session = tracer.debug.Session(str(path)).run()
    assert session.error is None, session.error
    return session


def render(widget, name):
    os.makedirs(PNG_DIR, exist_ok=True)
    widget.resize(600, 400)
    widget.show()
    QApplication.processEvents()
    path = os.path.join(PNG_DIR, f"{name}.png")
    assert widget.grab().save(path)
    return path


def _row(model, *path):
    index = model.index(path[0], 0)
    for row in path[1:]:
        index = model.index(row, 0, index)
    return index


# ---- models, Qt-free parts --------------------------------------------------------------------
def test_stack_items_top_first_with_identity_changes(seed):
    tl = seed.timelines[0]
    before, after = tl.snapshots[3].frame.stack, tl.snapshots[4].frame.stack  # LOAD_ATTR scale replaced the top
    items = build_stack_items(after, before)
    assert [i.values[0] for i in items] == ["top", "top-1"]
    assert items[0].changed and not items[1].changed  # lazy G['cfg'] -> constant 2; L['x'] untouched
    assert items[1].dim and items[1].values[COL_KIND].startswith("lazy")
    pushed = build_stack_items(tl.snapshots[5].frame.stack, tl.snapshots[4].frame.stack)
    assert [i.changed for i in pushed] == [True]  # BINARY_OP replaced both with the product


def test_tuple_on_stack_expands(seed):
    tl = seed.timelines[0]
    last = tl.snapshots[-1].frame.stack  # RETURN_VALUE: a (tensor, 4) tuple
    items = build_stack_items(last)
    assert len(items) == 1 and items[0].values[COL_KIND] == "Tuple"
    assert [(c.values[0], c.values[COL_KIND]) for c in items[0].children] == [("0", "Tensor"), ("1", "Constant")]


def test_locals_compare_by_name(seed):
    tl = seed.timelines[0]
    items = build_locals_items(tl.snapshots[8].frame.locals, tl.snapshots[7].frame.locals)  # STORE_FAST y
    changed = {i.values[0] for i in items if i.changed}
    assert "y" in changed


def test_parent_source_names():
    assert parent_source_name("G['cfg'].scale") == "G['cfg']"
    assert parent_source_name("G['cfg']") is None
    assert parent_source_name("L['xs'][0]") == "L['xs']"
    assert parent_source_name("G['m'].layers[0].weight") == "G['m'].layers[0]"
    assert parent_source_name("type(L['x'])") == "L['x']"


def test_source_items_merge_unguarded_sources(seed):
    tl = seed.timelines[0]
    roots = build_source_items(tl.guards_at(4), 0, ["L['x']", "G['cfg'].scale", "L['other'].attr"])
    names = [r.values[0] for r in roots]
    assert "L['other']" in names and roots[names.index("L['other']")].dim
    other = roots[names.index("L['other']")].children[0]
    assert other.values[0] == ".attr" and other.payload == "L['other'].attr"  # named from its parent


# ---- panels -----------------------------------------------------------------------------------------
def test_stack_panel_highlight_role_and_png(qtbot, seed):
    tl = seed.timelines[0]
    panel = StackPanel()
    qtbot.addWidget(panel)
    panel.show_views(tl.snapshots[13].frame.stack, tl.snapshots[12].frame.stack)
    model = panel.model
    assert model.rowCount() == 4
    assert model.index(0, 0).data(CHANGED_ROLE) is True  # shift -> its constant 0.5
    assert model.index(0, 0).data(Qt.BackgroundRole) is not None
    assert model.index(1, 0).data(CHANGED_ROLE) is False
    assert model.index(1, 0).data(Qt.BackgroundRole) is None
    with qtbot.waitSignal(panel.sig_node_selected) as blocker:
        panel.view.clicked.emit(model.index(1, 2))  # the add tensor
    assert blocker.args == ["add"]
    render(panel, "stack")
    image = panel.view.viewport().grab().toImage()  # the changed row is painted yellow, the one below is not
    changed, same = (panel.view.visualRect(model.index(r, 1)) for r in (0, 1))
    assert image.pixelColor(changed.right() - 2, changed.center().y()) == QColor(theme.current().changed_bg)
    assert image.pixelColor(same.right() - 2, same.center().y()) != QColor(theme.current().changed_bg)
    panel.show_views(tl.snapshots[-1].frame.stack)
    assert model.rowCount() == 1 and model.rowCount(model.index(0, 0)) == 2
    render(panel, "stack_tuple")


def test_locals_panel_png(qtbot, seed):
    tl = seed.timelines[0]
    panel = LocalsPanel()
    qtbot.addWidget(panel)
    panel.show_locals(tl.snapshots[8].frame.locals, tl.snapshots[7].frame.locals)
    assert [panel.model.index(r, 0).data() for r in range(panel.model.rowCount())] == ["x", "n", "y"]
    render(panel, "locals")


def test_call_stack_panel(qtbot, breaking):
    tl = breaking.timelines[0]
    snap = max(tl.snapshots, key=lambda s: s.depth)
    panel = CallStackPanel()
    qtbot.addWidget(panel)
    panel.show_frames(snap.frames)
    model = panel.model
    assert model.rowCount() == len(snap.frames) >= 3
    assert model.index(0, 0).data() == "leaf"
    with qtbot.waitSignal(panel.sig_frame_selected) as blocker:
        panel.view.clicked.emit(model.index(model.rowCount() - 1, 0))
    assert blocker.args == [0]
    render(panel, "callstack")


def test_source_tree_panel_guard_click(qtbot, seed):
    tl = seed.timelines[0]
    step = 5
    new = tl.snapshots[step].guard_count - tl.snapshots[step - 1].guard_count
    extra = [v.source for v in tl.snapshots[step].frame.stack if v.source]
    extra += [v.source for _, v in tl.snapshots[step].frame.locals if v.source]
    panel = SourceTreePanel()
    qtbot.addWidget(panel)
    panel.show_guards(tl.guards_at(step), new, extra)
    model = panel.model
    cfg = model.find_source("G['cfg']")
    assert cfg is not None
    scale = next(c for c in cfg.children if c.payload == "G['cfg'].scale")
    guard_row = next(c for c in scale.children if not isinstance(c.payload, str))
    # the main column says what the guard claims of its source; kind and where it was installed follow
    assert guard_row.values[:2] == ("== 2", "EQUALS_MATCH")
    assert guard_row.tooltip.startswith("EQUALS_MATCH: G['cfg'].scale == 2")
    assert guard_row.values[2] == "seed_example.py:20 in f"
    assert f"(offset {guard_row.payload.installed_at.offset})" in guard_row.tooltip
    assert scale.values[0] == ".scale"
    index = model.index_of(guard_row, 1)
    assert index.data(CHANGED_ROLE) is (tl.guards.index(guard_row.payload) >= tl.snapshots[step].guard_count - new)
    with qtbot.waitSignal(panel.sig_guard_selected) as blocker:
        panel.view.clicked.emit(index)
    assert blocker.args == [guard_row.payload]
    render(panel, "sources")


def test_source_tree_rebuilds_only_when_its_rows_change_and_fits_its_columns_to_their_text(qtbot, seed):
    tl = seed.timelines[0]
    guards = tl.guards_at(len(tl.snapshots) - 1)
    guarded = sorted({g.source_name for g in guards if g.source is not None})
    panel = SourceTreePanel()
    qtbot.addWidget(panel)
    panel.resize(900, 400)
    panel.show()
    resets = []
    panel.model.modelReset.connect(lambda: resets.append(1))
    panel.show_guards(guards, 0, guarded[:1])
    panel.show_guards(list(guards), 0, guarded)  # a new list of the same guards, other guarded sources on the stack
    assert resets == [1]
    panel.show_guards(guards, 1, guarded)  # the last guard is new at this step: yellow, so rebuilt
    panel.show_guards(guards, 1, guarded + ["L['unseen']"])  # an unguarded source joins, greyed
    assert resets == [1, 1, 1] and panel.model.find_source("L['unseen']").dim
    panel.show_guards(guards[:-1], 1, guarded + ["L['unseen']"])  # one guard fewer (a step back)
    assert len(resets) == 4
    metrics = panel.view.fontMetrics()
    kinds = [item.values[1] for item in panel.model.all_items() if item.values[1]]
    widest = max(metrics.horizontalAdvance(k) for k in kinds)
    assert panel.view.header().sectionSize(1) == widest + 14  # the widest kind and a margin: nothing cut


def test_graph_panel_one_item_per_node(qtbot, seed):
    tl = seed.timelines[0]
    panel = GraphPanel()
    qtbot.addWidget(panel)
    nodes = tl.nodes_at(14)
    panel.show_nodes(nodes, 1)
    assert len(panel.node_items) == len(nodes) == 4
    assert panel.text.toPlainText().splitlines()[1].startswith("mul = operator.mul(l_x_, 2)")
    assert layer_of(layout_nodes(nodes)) == {"l_x_": 0, "mul": 1, "add": 2, "sub": 3}
    assert len(panel.edge_items) == 3
    panel.tabs.setCurrentIndex(1)
    render(panel, "graph_growing")
    gm = seed.functions[0].cache_entries[0].graphs[0]
    panel.show_graph_module(gm)
    assert len(panel.node_items) == len(list(gm.graph.nodes))
    assert "relu" in panel.text.toPlainText()
    render(panel, "graph_module")
    panel.tabs.setCurrentIndex(0)
    panel.show_nodes(tl.nodes, 2)
    render(panel, "graph_code")
    assert "# 4 float32" in code_text(tl.nodes)


def test_cache_panel_lists_recompile(qtbot, seed):
    panel = CachePanel()
    qtbot.addWidget(panel)
    panel.show_functions(seed.functions)
    entries = panel.entry_items()
    assert [e.payload for e in entries] == [("f", "0/0"), ("f", "0/1")]
    with qtbot.waitSignal(panel.sig_entry_selected) as blocker:
        panel.view.clicked.emit(panel.model.index_of(entries[1], 0))
    assert blocker.args == ["f", "0/1"]
    panel.view.expandAll()
    render(panel, "cache")


def test_breaks_panel(qtbot, breaking):
    panel = BreaksPanel()
    qtbot.addWidget(panel)
    panel.show_functions(breaking.functions)
    model = panel.model
    assert model.rowCount() >= 1
    first = model.index(0, 0)
    assert "print" in first.data()
    filename, line = first.data(PAYLOAD_ROLE)
    with qtbot.waitSignal(panel.sig_location_selected) as blocker:
        panel.view.clicked.emit(first)
    assert blocker.args == [filename, line] and line == 19
    render(panel, "breaks")
    cache = CachePanel()
    qtbot.addWidget(cache)
    cache.show_functions(breaking.functions)
    cache.view.expandAll()
    render(cache, "cache_breaking")


def test_breakpoints_panel(qtbot):
    bps = [tracer.debug.OpcodeBreakpoint(opname="CALL"), tracer.debug.guard_installed_on("G['cfg']*"),
           tracer.debug.LineBreakpoint(filename=SEED, line=20, enabled=False, hit_count=2,
                                       log_message="top={top}")]
    bps[0].hits = 3
    panel = BreakpointsPanel()
    qtbot.addWidget(panel)
    panel.show_breakpoints(bps)
    model = panel.model
    assert model.rowCount() == 3
    assert model.index(2, 0).data(Qt.CheckStateRole) == Qt.Unchecked
    with qtbot.waitSignal(panel.sig_breakpoint_toggled) as blocker:
        model.setData(model.index(0, 0), Qt.Unchecked, Qt.CheckStateRole)
    assert blocker.args == [0, False]
    panel.view.setCurrentIndex(model.index(1, 0))
    with qtbot.waitSignal(panel.sig_breakpoint_removed) as blocker:
        panel.remove_button.click()
    assert blocker.args == [1]
    panel.kind_combo.setCurrentIndex(panel.kind_combo.findData("guard_on"))
    panel.text_edit.setText("G['cfg']*")
    with qtbot.waitSignal(panel.sig_breakpoint_requested) as blocker:
        panel.add_button.click()
    assert blocker.args == ["guard_on", "G['cfg']*"]
    panel.kind_combo.setCurrentIndex(panel.kind_combo.findData("opcode"))
    panel.text_edit.setText("")
    with qtbot.assertNotEmitted(panel.sig_breakpoint_requested):
        panel.add_button.click()  # a kind that needs text does nothing without it
    panel.show_breakpoints(bps)
    render(panel, "breakpoints")


def test_log_panel(qtbot, seed):
    panel = LogPanel()
    qtbot.addWidget(panel)
    for event in seed.timelines[0].events:
        panel.append(f"[{event.step:>3}] {event.kind:<12} {event.text}")
    assert panel.contents().count("\n") == len(seed.timelines[0].events) - 1
    assert panel.text.isReadOnly()
    render(panel, "log")


def test_the_graph_code_keeps_keyword_arguments(qtbot):
    import torch

    def f(x):
        return torch.softmax(x / 2, dim=-1)

    opt = tracer.compile(f)
    recorder = tracer.debug.record(opt)
    opt(torch.ones(3))
    nodes = recorder.timelines[0].nodes
    softmax = next(n for n in nodes if "softmax" in n.target)
    assert softmax.args == "truediv, dim=-1" and softmax.inputs == ("truediv",)
    panel = GraphPanel()
    qtbot.addWidget(panel)
    panel.show_nodes(nodes)
    assert "softmax(truediv, dim=-1)" in panel.text.toPlainText()


def test_cache_panel_marks_the_hits_of_a_code_skipped_for_good_as_not_counted(qtbot):
    import torch

    import tracer

    def no_ops(x):
        return x

    opt = tracer.compile(no_ops)
    for _ in range(3):
        opt(torch.ones(2))
    panel = CachePanel()
    qtbot.addWidget(panel)
    panel.show_functions([opt])
    entry, = panel.entry_items()
    assert entry.values[1] == "1+" and "not counted" in entry.tooltip
    tracer.reset()
