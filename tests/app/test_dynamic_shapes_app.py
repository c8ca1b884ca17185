"""The app on a script whose batch size changes: symbolic sizes in the stack and locals, the shape
guards under their tensor with their causes, the cache panel saying when a dimension went dynamic,
and the guard editor's what-if with a new shape."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import textwrap

import pytest

import tracer
from app.models.guard_editor_model import parse_shapes
from app.models.tracker_tree import COL_VALUE, build_locals_items
from app.widgets.guard_editor import PREDICTION_HIT, PREDICTION_RECOMPILE, GuardEditor
from app.widgets.panels import CachePanel, SourceTreePanel
from tracer.debug import Session

SCRIPT = textwrap.dedent("""
    import torch

    @torch.compile(backend="eager")
    def f(x):
        y = x * 2
        if x.shape[0] > 4:  # line 7
            return y + 1
        return y - 1

    f(torch.randn(3, 2))
    f(torch.randn(2, 2))
""")
BRANCH_LINE = 7


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    tracer.reset()
    path = tmp_path_factory.mktemp("scripts") / "batches.py"
    path.write_text(SCRIPT)
    session = Session(str(path)).run()
    assert session.error is None, session.error
    return session


def dynamic_timeline(session):
    return [t for t in session.timelines if t.compile_id == "0/1"][-1]


def test_locals_show_the_symbolic_size(session):
    timeline = dynamic_timeline(session)
    texts = []
    for step in range(len(timeline)):
        for item in build_locals_items(timeline.snapshots[step].frame.locals):
            texts.append(item.values[COL_VALUE])
    assert any("float32[s77x2]" in text for text in texts), texts


def test_source_tree_shows_shape_guards_under_their_tensor_with_their_causes(qtbot, session):
    timeline = dynamic_timeline(session)
    panel = SourceTreePanel()
    qtbot.addWidget(panel)
    panel.show_guards(list(timeline.guards), 0, ())
    x = panel.model.find_source("L['x']")
    shape_rows = [c for c in x.children if getattr(c.payload, "kind", None) == "SHAPE_ENV"]
    assert [r.values[0] for r in shape_rows] == ["2 <= L['x'].size()[0] <= 4"]
    causes = shape_rows[0].children
    assert [c.values[0].split(" ", 1)[0] for c in causes] == ["because", "because"]
    assert "0/1 specialisation" in causes[0].values[0] and "branch" in causes[1].values[0]
    assert causes[1].values[1].startswith("POP_JUMP")
    with qtbot.waitSignal(panel.sig_guard_selected) as blocker:
        panel.view.clicked.emit(panel.model.index_of(causes[1], 0))
    assert blocker.args[0] is causes[1].payload and blocker.args[0].installed_at.line == BRANCH_LINE


def test_cache_panel_says_when_and_why_a_dimension_went_dynamic(qtbot, session):
    panel = CachePanel()
    qtbot.addWidget(panel)
    panel.show_functions(session.functions)
    entries = {item.payload[1]: item for item in panel.entry_items()}
    assert entries["0/0"].values[4] == ""
    assert entries["0/1"].values[4].startswith("L['x'].size()[0] became dynamic (was 3, now 2); recompiled: 0/0:")
    symbols = [c.values[4] for c in entries["0/1"].children]
    assert symbols == ["s77 = L['x'].size()[0], seen 2, range [2, 4]"]


def test_parse_shapes():
    assert parse_shapes("x=6x2, y = 3") == {"x": (6, 2), "y": (3,)}
    assert parse_shapes("") == {}
    for bad in ("x", "x=", "x=6xq", "1=2", "x=-1"):
        with pytest.raises(ValueError):
            parse_shapes(bad)


def test_the_guard_editor_predicts_with_a_new_shape(qtbot, session):
    editor = GuardEditor()
    qtbot.addWidget(editor)
    editor.set_session(session)
    assert editor.set_shapes("x=3x2").startswith("cache hit: entry [0/1]")
    assert editor.prediction_kind() == PREDICTION_HIT
    text = editor.set_shapes("x=6x2")
    assert editor.prediction_kind() == PREDICTION_RECOMPILE
    assert "[0/1] 2 <= L['x'].size()[0] <= 4, got L['x'].size()[0] = 6" in text
    assert "tensor 'x' size mismatch at index 0. expected 3, actual 6" in text
    assert "tensor 'x' rank mismatch. expected 2, actual 1" in editor.set_shapes("x=6")
    assert editor.set_shapes("y=2").startswith("cannot predict: cannot give f those shapes: 'y' is not")
    assert editor.set_shapes("x=6 by 2").startswith("cannot predict: ")
