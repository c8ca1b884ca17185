"""The guard editor on the bundled seed example: edit cfg.scale, predict, call again, compare, undo.

seed_example.py ends with cfg.scale == 3 and f holding two cache entries,
[0/0] (guards `G['cfg'].scale == 2`) and [0/1] (`== 3`).
"""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pathlib

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from app import theme
from app.controller import DebugController
from app.models.guard_editor_model import (PREDICTION_HIT, PREDICTION_RECOMPILE, SIDE_LEFT, SIDE_RIGHT, diff_lines,
                                           global_path, other_globals)
from app.widgets.guard_editor import COL_GUARDS, COL_PATH, COL_VALUE, GuardEditor
from tracer.debug import Session

ROOT = pathlib.Path(__file__).resolve().parents[2]
SEED = str(ROOT / "resources" / "examples" / "seed_example.py")


@pytest.fixture
def session():
    return Session(SEED).run()  # frame numbers are the session's own: [0/0] whatever ran before


@pytest.fixture
def editor(qtbot, session):
    """The widget wired to a controller as the main window wires it: calls run there, in a worker."""
    widget = GuardEditor()
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    controller = DebugController()
    controller.session = session
    widget.sig_call_requested.connect(controller.call_again)
    controller.sig_call_finished.connect(widget.show_outcome)
    widget.controller = controller
    widget.set_session(session)
    return widget


def scale(session):
    return session.globals_of(session.functions[0])["cfg"].scale


# ---- pure helpers ---------------------------------------------------------------------------------
@pytest.mark.parametrize("source, path", [
    ("G['cfg'].scale", "cfg.scale"),
    ("G['cfg']", "cfg"),
    ("G['table']['k']", "table['k']"),
    ("type(G['cfg']).scale", "type(cfg).scale"),
    ("L['x']", None),
    ("", None),
    ("len(G['xs'])", None),
])
def test_global_path(source, path):
    assert global_path(source) == path


def test_diff_lines_marks_only_changed_lines():
    assert diff_lines(["a", "b", "c"], ["a", "B", "c"]) == ([1], [1])
    assert diff_lines(["a"], ["a"]) == ([], [])


def test_other_globals_skips_modules_functions_classes_and_dunders():
    import math

    class Flags:
        def __init__(self):
            self.debug = True
            self._hidden = 1

    found = dict(other_globals({"__name__": "m", "math": math, "n": 3, "f": print, "Flags": Flags,
                                "flags": Flags(), "xs": [1, 2], "big": list(range(100))}, skip={"n"}))
    assert found == {"flags.debug": True, "xs": [1, 2]}


# ---- the widget -----------------------------------------------------------------------------------
def test_lists_functions_and_guarded_globals(editor):
    assert editor.function_combo.count() == 1
    assert editor.function_combo.currentText() == "f"
    row = editor.row("cfg.scale")
    assert row is not None and row.guarded and "EQUALS_MATCH" in row.guarded_by
    assert row.value == "3"
    assert editor.row("cfg.shift").guarded
    paths = [r.path for r in editor.rows()]
    assert "cfg" not in paths  # TYPE_MATCH only: its guarded attributes are the rows
    assert "torch" not in paths and "torch.relu" not in paths and "f" not in paths
    table = editor.table
    index = paths.index("cfg.scale")
    assert table.item(index, COL_PATH).text() == "cfg.scale"
    assert table.item(index, COL_VALUE).text() == "3"
    assert "EQUALS_MATCH" in table.item(index, COL_GUARDS).text()


def test_initial_prediction_is_a_hit(editor):
    assert editor.prediction_kind() == PREDICTION_HIT
    assert editor.prediction_text().startswith("cache hit: entry [0/1]")
    assert not editor.undo_button.isEnabled()


def test_apply_predicts_recompile_naming_the_guard(qtbot, editor, session):
    with qtbot.waitSignal(editor.sig_edit_applied) as applied, \
            qtbot.waitSignal(editor.sig_prediction) as predicted:
        editor.path_edit.setText("cfg.scale")
        editor.expression_edit.setText("5")
        qtbot.mouseClick(editor.apply_button, Qt.LeftButton)
    assert applied.args == ["cfg.scale", "5"]
    assert scale(session) == 5
    text = predicted.args[0]
    assert text.startswith("recompile: ")
    assert "G['cfg'].scale == 3, got 5" in text and "G['cfg'].scale == 2, got 5" in text
    assert "seed_example.py:20" in text
    assert editor.prediction_kind() == PREDICTION_RECOMPILE
    assert editor.row("cfg.scale").value == "5"
    assert editor.undo_button.isEnabled()


def test_call_again_recompiles_and_adds_an_entry(qtbot, editor, session):
    assert editor.set_expression("cfg.scale", "5")
    with qtbot.waitSignal(editor.sig_called, timeout=60_000) as called:
        qtbot.mouseClick(editor.call_button, Qt.LeftButton)
        assert not editor.call_button.isEnabled() and "calling f again" in editor.outcome_text()  # busy
    outcome = called.args[0]
    assert outcome.compiled and outcome.error is None
    assert outcome.timelines  # the main window can step through the new trace
    assert [e.compile_id for e in session.functions[0].cache_entries] == ["0/0", "0/1", "0/2"]
    assert editor.entry_ids() == ["0/0", "0/1", "0/2"]
    assert "new entry [0/2]" in editor.outcome_text()
    assert "G['cfg'].scale == 3, got 5" in editor.outcome_text()
    # the new entry now serves the call, and the compare view shows the newest two
    assert editor.prediction_text().startswith("cache hit: entry [0/2]")
    assert editor.compare_combos[SIDE_LEFT].currentText() == "[0/1]"
    assert editor.compare_combos[SIDE_RIGHT].currentText() == "[0/2]"


def test_call_again_without_edit_is_a_hit(qtbot, editor):
    with qtbot.waitSignal(editor.sig_called, timeout=60_000) as called:
        editor.call_again()
    assert not called.args[0].compiled
    assert called.args[0].hit == "0/1"
    assert "cache hit: entry [0/1]" in editor.outcome_text()


def test_compare_highlights_the_differing_guard_line(editor):
    editor.set_compare("0/0", "0/1")
    left, right = editor.highlighted_lines(SIDE_LEFT), editor.highlighted_lines(SIDE_RIGHT)
    assert any(line.startswith("EQUALS_MATCH: G['cfg'].scale == 2") for line in left)
    assert any(line.startswith("EQUALS_MATCH: G['cfg'].scale == 3") for line in right)
    assert any("l_x_ * 2" in line for line in left) and any("l_x_ * 3" in line for line in right)
    # identical guards are not highlighted
    assert not any("G['cfg'].shift" in line for line in left + right)
    # the highlight really is painted on the pane
    pane = editor.compare_panes[SIDE_RIGHT]
    painted = [s.cursor.block().text() for s in pane.extraSelections()]
    assert any(text.startswith("EQUALS_MATCH: G['cfg'].scale == 3") for text in painted)
    assert "# seed_example.py:20" in editor.compare_text(SIDE_LEFT)
    assert "def forward" in editor.compare_text(SIDE_LEFT)


def test_compare_same_entry_highlights_nothing(editor):
    editor.set_compare("0/1", "0/1")
    assert editor.highlighted_lines(SIDE_LEFT) == [] and editor.highlighted_lines(SIDE_RIGHT) == []


@pytest.mark.parametrize("expression", ["1/0", "nope(", "undefined_name"])
def test_bad_expression_shows_error_and_changes_nothing(qtbot, editor, session, expression):
    before = editor.prediction_text()
    applied = []
    editor.sig_edit_applied.connect(lambda *args: applied.append(args))
    assert editor.set_expression("cfg.scale", expression) is False
    assert editor.error_text()
    assert expression in editor.error_text()
    assert scale(session) == 3
    assert session.editor(session.functions[0]).history == []
    assert editor.row("cfg.scale").value == "3"
    assert editor.prediction_text() == before
    assert applied == []
    # a good edit afterwards clears the error
    assert editor.set_expression("cfg.scale", "4")
    assert editor.error_text() == ""


def test_bad_path_shows_error(editor, session):
    assert editor.set_expression("cfg.scale +", "4") is False
    assert editor.error_text()
    assert scale(session) == 3


def test_undo_restores_value_and_prediction_becomes_hit(qtbot, editor, session):
    editor.set_expression("cfg.scale", "5")
    assert editor.prediction_kind() == PREDICTION_RECOMPILE
    with qtbot.waitSignal(editor.sig_prediction) as predicted:
        qtbot.mouseClick(editor.undo_button, Qt.LeftButton)
    assert scale(session) == 3
    assert editor.row("cfg.scale").value == "3"
    assert predicted.args[0].startswith("cache hit: entry [0/1]")
    assert editor.prediction_kind() == PREDICTION_HIT
    assert not editor.undo_button.isEnabled()


def test_undo_all_restores_every_edit(editor, session):
    editor.set_expression("cfg.scale", "5")
    editor.set_expression("cfg.shift", "1.5")
    editor.set_expression("cfg.scale", "7")
    editor.undo_all()
    assert scale(session) == 3
    assert session.globals_of(session.functions[0])["cfg"].shift == 0.5
    assert editor.prediction_kind() == PREDICTION_HIT


def test_editing_the_value_cell_applies_it(qtbot, editor, session):
    index = [r.path for r in editor.rows()].index("cfg.scale")
    with qtbot.waitSignal(editor.sig_edit_applied) as applied:
        editor.table.item(index, COL_VALUE).setText("2")  # what committing a double-click edit does
    assert applied.args == ["cfg.scale", "2"]
    assert scale(session) == 2
    assert editor.prediction_text().startswith("cache hit: entry [0/0]")


def test_selecting_a_row_fills_the_edit_fields(editor):
    index = [r.path for r in editor.rows()].index("cfg.shift")
    editor.table.selectRow(index)
    assert editor.path_edit.text() == "cfg.shift"
    assert editor.expression_edit.text() == "0.5"


def test_without_session_nothing_crashes(qtbot):
    widget = GuardEditor()
    qtbot.addWidget(widget)
    assert widget.set_expression("cfg.scale", "5") is False
    assert widget.call_again() is None
    widget.undo()
    widget.undo_all()
    assert widget.rows() == []
    assert not widget.call_button.isEnabled()


def test_renders(qtbot, editor, tmp_path):
    editor.set_expression("cfg.scale", "5")
    with qtbot.waitSignal(editor.sig_called, timeout=60_000):
        editor.call_again()
    editor.show()
    path = tmp_path / "guard_editor.png"
    assert editor.grab().save(str(path))
    # what is drawn: the hit banner's colour behind the prediction, the changed guard line's in the compare pane
    banner = editor.prediction_view.viewport().grab().toImage()
    assert banner.pixelColor(banner.width() - 4, banner.height() - 4) == QColor(theme.current().prediction_hit[0])
    pane = editor.compare_panes[SIDE_RIGHT]
    row = next(i for i, line in enumerate(editor.compare_text(SIDE_RIGHT).splitlines()) if "scale == 5" in line)
    rect = pane.blockBoundingGeometry(pane.document().findBlockByNumber(row)).translated(pane.contentOffset())
    image = pane.viewport().grab().toImage()
    assert image.pixelColor(image.width() - 4, int(rect.center().y())) == QColor(theme.current().diff_right_bg)
