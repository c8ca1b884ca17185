"""The Compare panel and its toolbar action, on the scripts of tests/compare_scripts (#21)."""
import ast
import os
import pathlib

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import Qt

from app.main_window import MainWindow
from app.models import compare_model as cm
from tracer.compare import CompareRun

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "compare_scripts"
RUN_S = 600_000  # ms: two children each import torch; the machine is shared


@pytest.fixture
def window(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    return win


@pytest.fixture(scope="module")
def comparisons():
    """Comparisons of the scripts the panel only has to show."""
    results = {}
    for name in ("raises_under_dynamo", "never_compiles", "recompiles_differ"):  # one at a time: two children each
        run = CompareRun(str(SCRIPTS / f"{name}.py")).start()
        assert run.wait(RUN_S / 1000)
        results[name] = run.result()
    return results


def test_the_toolbar_action_compares_in_the_background_then_every_row_agrees(window, qtbot):
    assert window.open_script(str(SCRIPTS / "agree.py"), wait=True)
    panel, action = window.compare.panel, window.actions_by_id["compare"]
    action.trigger()
    assert window.compare.controller.running  # it returned at once: the window stays live
    assert panel.stop_button.isEnabled() and not panel.compare_button.isEnabled() and not action.isEnabled()
    assert panel.busy.isVisibleTo(panel) and "comparing agree.py" in panel.status.text()
    assert window.dock("compare").isVisible()
    window.controller.step_into()  # the debugger still steps meanwhile
    assert window.controller.snapshot.step == 1
    qtbot.waitUntil(lambda: not window.compare.controller.running, timeout=RUN_S)
    assert not panel.stop_button.isEnabled() and panel.compare_button.isEnabled() and action.isEnabled()
    assert not panel.busy.isVisibleTo(panel)
    rows = panel.rows()
    assert [r[cm.COL_TITLE] for r in rows] == ["the script run", "f (agree.py:5)", "f call 1", "f call 2"]
    assert all(r[cm.COL_MARK] == cm.AGREE and r[cm.COL_DIFFERS] == "" for r in rows)
    assert panel.status.text().startswith("Standin and torch.compile agree")


def test_a_standin_only_break_opens_its_instruction_in_the_trace(window, qtbot):
    assert window.open_script(str(SCRIPTS / "standin_breaks.py"), wait=True)
    assert window.compare.compare_open_script(wait=True)
    panel = window.compare.panel
    row = next(r for r in panel.rows() if r[cm.COL_TITLE] == "f (standin_breaks.py:12)")
    assert row[cm.COL_MARK] == cm.DIFFER and "breaks" in row[cm.COL_DIFFERS]
    # the first differing frame is opened side by side
    assert panel.standin_text.toPlainText().startswith("f  standin_breaks.py:12")
    assert "graph break at standin_breaks.py:" in panel.standin_text.toPlainText()
    assert "graph break" not in panel.dynamo_text.toPlainText() and "guards:" in panel.dynamo_text.toPlainText()
    assert "only Standin breaks" in panel.differences.toPlainText()
    (brk,) = [b for b in panel.break_rows() if b.jumps]
    index = panel.breaks_model.index(panel.break_rows().index(brk), 0)
    window.controller.select_timeline(len(window.controller.timelines) - 1)  # somewhere else: the resume's trace
    assert window.controller.timeline.frame != "f"
    qtbot.waitUntil(lambda: panel.breaks.visualRect(index).isValid() and panel.breaks.viewport().isVisible())
    qtbot.mouseClick(panel.breaks.viewport(), Qt.LeftButton, pos=panel.breaks.visualRect(index).center())
    snapshot, timeline = window.controller.snapshot, window.controller.timeline
    # the same compile of the same frame (the window's frames may be numbered apart from the child's)
    assert timeline.frame == "f" and timeline.compile_id.endswith("/0") and brk.compile_id.endswith("/0")
    assert (snapshot.frame.function, snapshot.frame.offset, snapshot.frame.line) == (brk.function, brk.offset, brk.line)
    assert snapshot.frame.opname == "CALL"  # the call of str.partition that Standin could not trace
    assert window.bytecode_view.current_offset() == brk.offset


def test_stop_ends_a_running_comparison_and_says_so(window, qtbot, tmp_path):
    script = tmp_path / "forever.py"
    script.write_text("import torch\n\n@torch.compile(backend='eager')\ndef f(x):\n    return x + 1\n\n"
                      "f(torch.ones(1))\nwhile True:\n    pass\n")
    panel = window.compare.panel
    assert window.compare.controller.start(str(script))
    qtbot.wait(1500)
    qtbot.mouseClick(panel.stop_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: not window.compare.controller.running, timeout=60_000)
    status = panel.rows()[0]
    assert status[cm.COL_TITLE] == "the script run"
    assert "stopped by the user" in status[cm.COL_STANDIN] and "stopped by the user" in status[cm.COL_DYNAMO]
    assert panel.compare_button.isEnabled()


def test_a_script_raising_under_dynamo_only_shows_dynamos_error(window, comparisons):
    panel = window.compare.panel
    panel.show_comparison(comparisons["raises_under_dynamo"])
    status, frame = panel.rows()[:2]
    assert status[cm.COL_MARK] == cm.DIFFER and status[cm.COL_STANDIN] == "finished"
    assert status[cm.COL_DYNAMO] == "raised RuntimeError: this script refuses to run under real Dynamo"
    assert frame[cm.COL_MARK] == cm.AGREE  # the Standin side stays usable: its frame is compared as usual
    assert "how the script ended" in panel.status.text()


def test_a_script_that_never_compiles_shows_only_the_run(window, comparisons):
    panel = window.compare.panel
    panel.show_comparison(comparisons["never_compiles"])
    assert [r[cm.COL_TITLE] for r in panel.rows()] == ["the script run"]
    assert panel.status.text() == "Standin and torch.compile agree on every frame (0) and call."
    assert panel.standin_text.toPlainText() == "" and panel.break_rows() == []


def test_different_recompiles_show_dynamos_reasons_side_by_side(window, comparisons, qtbot):
    panel = window.compare.panel
    panel.show_comparison(comparisons["recompiles_differ"])
    titles = [r[cm.COL_TITLE] for r in panel.rows()]
    resume = next(i for i, t in enumerate(titles) if t.startswith("torch_dynamo_resume_in_f_at_16"))
    panel.select_row(resume)
    dynamo = panel.dynamo_text.toPlainText()
    assert dynamo.count("] recompile: 1/0: Cache line invalidated because L['___stack0'] got deallocated") == 2
    assert "] recompile" not in panel.standin_text.toPlainText()
    assert panel.rows()[resume][cm.COL_DIFFERS] == "compiles, guards"


def test_at_the_default_window_size_the_compare_dock_is_readable(window, comparisons, qtbot, monkeypatch):
    window.resize(1500, 950)  # MainWindow's first size on a screen with room for it
    panel = window.compare.panel
    asked = []
    monkeypatch.setattr(window.compare.controller, "start", lambda *args, **kw: asked.append(args) or True)
    window.actions_by_id["compare"].trigger()  # the toolbar's Compare (the children are not run here)
    panel.show_comparison(comparisons["recompiles_differ"])
    qtbot.waitUntil(lambda: window.compare.height() >= 0.4 * window.height())  # taller than its tab mates

    def lines(box):
        return box.viewport().height() // box.fontMetrics().lineSpacing()

    assert len(asked) == 1 and window.compare.isVisible()
    assert panel.table.viewport().height() >= 4 * panel.table.sizeHintForRow(0)  # four rows at least
    assert lines(panel.standin_text) >= 10 and lines(panel.dynamo_text) >= 10
    assert lines(panel.differences) >= 4 and panel.breaks.viewport().height() >= 3 * 16
    widths = [panel.standin_text.width(), panel.dynamo_text.width(), panel.differences.width()]
    assert max(widths) - min(widths) <= 4 and min(widths) >= 400  # three equal columns side by side


def test_the_compare_model_imports_no_qt():
    tree = ast.parse((ROOT / "app" / "models" / "compare_model.py").read_text())
    modules = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    modules += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
    assert modules and not [m for m in modules if m.startswith(("PySide6", "app.models.row_tree_model"))]
