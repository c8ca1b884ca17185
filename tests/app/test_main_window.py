"""The main window end to end: open a script, step both ways, breakpoints, guard jumps, call again."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from app.main_window import DEFAULT_SCRIPT, MainWindow  # noqa: E402

SEED = os.path.join(os.path.dirname(DEFAULT_SCRIPT), "seed_example.py")


@pytest.fixture
def window(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    return win


def test_opens_the_bundled_tour_and_shows_the_first_step(window):
    assert window.open_script(DEFAULT_SCRIPT, wait=True)
    c = window.controller
    assert c.timeline is not None and c.snapshot.step == 0
    assert window.source_view.filename() == os.path.abspath(DEFAULT_SCRIPT)
    assert window.trace_combo.count() == len(c.timelines) >= 4
    assert "step 1 /" in window.step_label.text()
    assert window.cache_panel.entry_items()


def test_stepping_updates_every_panel_and_steps_back(window, qtbot):
    window.open_script(SEED, wait=True)
    c = window.controller
    for _ in range(12):
        qtbot.keyClick(window, Qt.Key_F11)
    snap = c.snapshot
    assert snap.step == 12
    assert window.source_view.current_line() == snap.frame.line
    assert window.bytecode_view.current_offset() == snap.frame.offset
    assert window.slider.value() == 12
    qtbot.keyClick(window, Qt.Key_F10, Qt.ShiftModifier)  # step back over
    assert c.snapshot.step < 12
    window.actions_by_id["step_back"].trigger()
    window.slider.setValue(5)
    assert c.snapshot.step == 5


def test_gutter_breakpoint_then_continue_stops_there(window):
    window.open_script(SEED, wait=True)
    line = 21
    window.source_view.sig_toggle_breakpoint.emit(window.source_view.filename(), line)
    assert line in window.source_view.breakpoints()
    assert window.breakpoints_panel is not None
    window.actions_by_id["continue"].trigger()
    assert window.controller.snapshot.frame.line == line
    window.actions_by_id["reverse_continue"].trigger()
    assert window.controller.snapshot.step == 0 or window.controller.snapshot.frame.line == line


def test_clicking_a_guard_jumps_to_the_instruction_that_installed_it(window):
    window.open_script(SEED, wait=True)
    c = window.controller
    c.goto(len(c.timeline) - 1)
    guard = next(g for g in c.timeline.guards if g.source_name == "G['cfg'].scale")
    at = guard.installed_at
    window.source_tree_panel.sig_guard_selected.emit(at.filename, at.line, at.offset, at.function)
    assert c.snapshot.frame.line == at.line
    assert any(g.source_name == "G['cfg'].scale" for g in c.timeline.guards_at(c.snapshot.step))


def test_call_again_from_the_guard_editor_shows_the_new_trace(window):
    window.open_script(SEED, wait=True)
    editor = window.guard_editor
    assert editor.set_expression("cfg.scale", "7")
    before = len(window.controller.timelines)
    outcome = editor.call_again()
    assert outcome.compiled
    assert len(window.controller.timelines) > before
    assert window.controller.timeline is outcome.timelines[0]
    editor.undo_all()


def test_a_missing_script_is_reported_not_crashed(window):
    assert not window.controller.open_script("/no/such/file.py")
    assert "no such script" in window.log_panel.contents()


def test_opcode_breakpoint_then_continue_stops_on_that_opcode(window):
    window.open_script(SEED, wait=True)
    window.breakpoints_panel.sig_breakpoint_requested.emit("opcode", "BINARY_OP")
    assert len(window.controller.breakpoints) == 1
    window.actions_by_id["continue"].trigger()
    snap = window.controller.snapshot
    assert snap.frame.opname == "BINARY_OP"
    assert window.bytecode_view.current_offset() == snap.frame.offset
    names = [view.kind for view in snap.frame.stack]
    assert names[-2:] == ["LazyVariableTracker", "ConstantVariable"]  # x, and cfg.scale baked in
    panel = window.breakpoints_panel.model
    assert panel.data(panel.index(0, 1)) == "1", "the panel counts the hit"


@pytest.mark.parametrize("content", ["def broken(:\n    pass\n", b"\x00\x01\x02binary\xff"])
def test_a_script_with_a_syntax_error_or_binary_content_shows_a_message(window, tmp_path, content):
    window.open_script(SEED, wait=True)
    path = tmp_path / "bad.py"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    window.open_script(str(path), wait=True)
    log = window.log_panel.contents()
    assert "the script raised" in log and ("SyntaxError" in log or "ValueError" in log)
    assert window.isVisible()


def test_a_script_that_never_compiles_anything_is_explained(window, tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("print('hello')\n")
    window.open_script(str(path), wait=True)
    assert "0 compiled function(s)" in window.log_panel.contents()
    assert "hello" in window.log_panel.contents()


def test_a_script_that_loops_forever_runs_in_the_background_and_can_be_stopped(window, qtbot, tmp_path):
    window.open_script(SEED, wait=True)
    seed_session = window.controller.session
    path = tmp_path / "forever.py"
    path.write_text(open(SEED).read() + "\nwhile True:\n    pass\n")
    assert window.open_script(str(path))  # returns at once: the window stays live
    stop = window.actions_by_id["stop"]
    qtbot.waitUntil(lambda: stop.isEnabled() and window.run_progress.isVisible())
    assert window.controller.session is seed_session  # still showing the old session while it runs
    qtbot.waitUntil(lambda: "s" in window.run_label.text() and "running forever.py" in window.run_label.text())
    assert not window.open_script(SEED)  # one script at a time, said clearly
    assert "still running" in window.log_panel.contents()
    stop.trigger()
    qtbot.waitUntil(lambda: not stop.isEnabled(), timeout=10_000)
    session = window.controller.session
    assert session is not seed_session and session.error.startswith("ScriptStopped")
    assert session.timelines and window.controller.timeline is not None  # what ran is kept and shown
    assert not window.run_progress.isVisible()


def test_a_failing_script_that_compiled_nothing_keeps_the_current_session(window, tmp_path):
    window.open_script(SEED, wait=True)
    seed_session = window.controller.session
    path = tmp_path / "raises.py"
    path.write_text("raise RuntimeError('import failed')\n")
    window.open_script(str(path), wait=True)
    assert window.controller.session is seed_session
    assert "import failed" in window.log_panel.contents() and "stays open" in window.log_panel.contents()


def test_breakpoints_recent_scripts_and_layout_persist(qtbot):
    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    first.open_script(SEED, wait=True)
    first.controller.add_breakpoint("opcode", "LOAD_ATTR")
    first.controller.add_breakpoint("guard_on", "G['cfg']*")
    first.controller.add_breakpoint("exception_handled", "")
    first.controller.toggle_line_breakpoint(os.path.abspath(SEED), 12)
    first.controller.set_breakpoint_enabled(0, False)
    first.dock("log").hide()
    first.close()

    second = MainWindow()
    qtbot.addWidget(second)
    second.show()
    assert second.controller.breakpoint_specs() == [
        ("opcode", "LOAD_ATTR", False), ("guard_on", "G['cfg']*", True), ("exception_handled", "", True),
        ("line", f"{os.path.abspath(SEED)}:12", True)]
    assert [a.text() for a in second.recent_menu.actions()] == [os.path.abspath(SEED)]
    assert second.dock("log").isHidden()
    second.recent_menu.actions()[0].trigger()
    qtbot.waitUntil(lambda: second.controller.session is not None and second.controller.running is None,
                    timeout=30_000)
    assert second.controller.session.path == os.path.abspath(SEED)
