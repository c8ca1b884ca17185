"""The main window as a person drives it: menus and keys, dialogs answered, the gutter and the panels.

Each test checks what is shown (the Log, the status bar, a dialog, the selected row, the step) and
an exact outcome, computed independently where the engine could be wrong (a Navigator of its own).
"""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox, QTableWidget

from app import cli
from app.main_window import MainWindow
from app.paths import DEFAULT_SCRIPT
from tracer.debug import LineBreakpoint, Navigator

SEED = os.path.join(os.path.dirname(DEFAULT_SCRIPT), "seed_example.py")
SEED_BODY_LINE = 21  # `return torch.relu(y - cfg.shift), ...`: run once per trace of f
SEED_BLANK_LINE = 22


@pytest.fixture
def window(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    return win


@pytest.fixture
def seed_window(window):
    assert window.open_script(SEED, wait=True)
    return window


def menu_action(window, menu_title: str, text: str):
    """The action a person clicks: found in the menu bar by its words, not by an id."""
    for menu_action_ in window.menuBar().actions():
        if menu_action_.text().replace("&", "") == menu_title:
            for action in menu_action_.menu().actions():
                if action.text().replace("&", "") == text:
                    return action
    raise AssertionError(f"no {menu_title} ▸ {text}")


def visible_dialogs(window, kind=QMessageBox):
    return [d for d in window.findChildren(kind) if d.isVisible()]


def status(window) -> str:
    return window.statusBar().currentMessage()


def gutter_click(qtbot, window, line: int) -> None:
    view = window.source_view
    view.editor.scroll_to_line(line, only_if_hidden=True)
    y = view.editor.line_top(line) + 3
    qtbot.mouseClick(view.gutter, Qt.LeftButton, pos=QPoint(4, y))


# ---- opening, the default script, compile ids -------------------------------------------------------
def test_standin_with_no_script_opens_the_tour():
    assert cli.DEFAULT_SCRIPT == DEFAULT_SCRIPT and os.path.basename(DEFAULT_SCRIPT) == "tour.py"


def test_file_open_through_the_menu_runs_the_chosen_script(window, qtbot, monkeypatch):
    asked = []

    def answer(parent, caption, start, filters):
        asked.append(start)
        return SEED, "Python (*.py)"

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(answer))
    window.open_script(DEFAULT_SCRIPT, wait=True)
    menu_action(window, "File", "Open…").trigger()
    qtbot.waitUntil(lambda: window.controller.session.path == SEED and window.controller.running is None,
                    timeout=60_000)
    assert asked == [os.path.dirname(DEFAULT_SCRIPT)]  # the dialog starts in the open script's folder
    assert window.windowTitle() == "Standin — seed_example.py"
    assert window.source_view.filename() == SEED and window.controller.snapshot.step == 0
    assert status(window) == "seed_example.py: 1 compiled function(s), 2 trace(s)"


def test_each_script_numbers_its_frames_from_zero(window):
    window.open_script(DEFAULT_SCRIPT, wait=True)
    window.open_script(SEED, wait=True)
    entries = [item.values[0] for item in window.cache_panel.entry_items()]
    assert entries == ["[0/0]", "[0/1]"]
    assert window.trace_combo.itemText(0).startswith("f [0/0]")


# ---- export --------------------------------------------------------------------------------------------
def test_file_export_writes_the_files_and_says_so(seed_window, qtbot, monkeypatch, tmp_path):
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *args: str(tmp_path)))
    menu_action(seed_window, "File", "Export graphs and guard reports…").trigger()
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert "report.html" in written and "f/0_1/guards.txt" in written
    expected = f"exported {len(written)} files into {tmp_path}"
    assert expected in seed_window.log_panel.contents()
    assert status(seed_window) == expected


def test_file_export_into_a_place_it_cannot_write_is_an_error_not_a_crash(seed_window, monkeypatch, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *args: str(blocker)))
    menu_action(seed_window, "File", "Export graphs and guard reports…").trigger()
    assert status(seed_window).startswith(f"cannot export into {blocker}")
    assert [d.text() for d in visible_dialogs(seed_window)] == [status(seed_window)]


# ---- stepping -------------------------------------------------------------------------------------------
def test_keys_step_forwards_and_back_to_exact_steps(seed_window, qtbot):
    c = seed_window.controller
    for _ in range(12):
        qtbot.keyClick(seed_window, Qt.Key_F11)
    assert c.snapshot.step == 12
    assert seed_window.source_view.current_line() == c.snapshot.frame.line
    assert seed_window.bytecode_view.current_offset() == c.snapshot.frame.offset
    assert seed_window.slider.value() == 12 and seed_window.step_label.text().startswith("step 13 /")
    qtbot.keyClick(seed_window, Qt.Key_F10, Qt.ControlModifier | Qt.ShiftModifier)  # step back
    assert c.snapshot.step == 11
    reference = Navigator(c.timeline)
    reference.goto(11)
    qtbot.keyClick(seed_window, Qt.Key_F10, Qt.ShiftModifier)  # step back over
    assert c.snapshot.step == reference.step_back_over() and c.snapshot.step < 11
    menu_action(seed_window, "Debug", "Step Back").trigger()
    assert c.snapshot.step == reference.step_back()
    qtbot.keyClick(seed_window, Qt.Key_R, Qt.ControlModifier | Qt.ShiftModifier)  # restart trace
    assert c.snapshot.step == 0
    seed_window.slider.setValue(5)
    qtbot.waitUntil(lambda: c.snapshot.step == 5)


def test_scrubbing_the_slider_goes_to_where_it_stops_not_through_every_value(seed_window, qtbot):
    c = seed_window.controller
    shown = []
    c.sig_position_changed.connect(lambda snapshot, previous: shown.append(snapshot.step))
    for value in (3, 9, 14, 7):  # a drag: values arrive faster than a big trace redraws
        seed_window.slider.setValue(value)
    assert c.snapshot.step == 0
    qtbot.waitUntil(lambda: c.snapshot.step == 7)
    qtbot.wait(50)
    assert shown == [7] and seed_window.step_label.text().startswith("step 8 /")
    assert seed_window.bytecode_view.current_offset() == c.snapshot.frame.offset


def test_the_bytecode_offset_column_stays_in_view(seed_window):
    c = seed_window.controller
    c.goto(len(c.timeline) - 1)
    table = seed_window.bytecode_view.table
    header = table.horizontalHeader()
    assert table.horizontalScrollBar().value() == 0
    assert header.sectionViewportPosition(1) >= 0 and header.sectionSize(1) > 30  # Offset


# ---- breakpoints: the gutter, F9, the panel -------------------------------------------------------------
def test_gutter_breakpoint_stops_continue_and_reverse_continue(seed_window, qtbot):
    c = seed_window.controller
    gutter_click(qtbot, seed_window, SEED_BODY_LINE)
    assert [(b.filename, b.line) for b in c.breakpoints] == [(SEED, SEED_BODY_LINE)]
    assert seed_window.source_view.breakpoints() == {SEED_BODY_LINE}
    assert seed_window.breakpoints_panel.model.index(0, 0).data() == f"seed_example.py:{SEED_BODY_LINE}"
    first = next(s.step for s in c.timeline.snapshots if s.frame.line == SEED_BODY_LINE)
    qtbot.keyClick(seed_window, Qt.Key_F5)
    assert c.snapshot.step == first
    c.goto(len(c.timeline) - 1)
    qtbot.keyClick(seed_window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)  # reverse continue
    assert c.snapshot.step == first
    gutter_click(qtbot, seed_window, SEED_BODY_LINE)  # a second click removes it
    assert c.breakpoints == [] and seed_window.source_view.breakpoints() == set()


def test_a_breakpoint_on_a_blank_line_is_refused_with_a_reason(seed_window, qtbot):
    gutter_click(qtbot, seed_window, SEED_BLANK_LINE)
    assert seed_window.controller.breakpoints == []
    assert seed_window.source_view.breakpoints() == set()  # the dot the click drew is taken back
    assert status(seed_window) == (f"line {SEED_BLANK_LINE} of seed_example.py holds no code: "
                                   "a breakpoint there would never stop")


def test_f9_toggles_a_breakpoint_on_the_cursor_line(seed_window, qtbot):
    editor = seed_window.source_view.editor
    cursor = editor.textCursor()
    cursor.setPosition(editor.document().findBlockByNumber(SEED_BODY_LINE - 1).position())
    editor.setTextCursor(cursor)
    assert menu_action(seed_window, "Debug", "Toggle Breakpoint").shortcut().toString() == "F9"
    qtbot.keyClick(seed_window, Qt.Key_F9)
    assert [b.line for b in seed_window.controller.breakpoints] == [SEED_BODY_LINE]


def test_run_to_cursor_on_a_line_never_reached_says_so_and_stays(seed_window, qtbot):
    c = seed_window.controller
    c.goto(3)
    editor = seed_window.source_view.editor
    cursor = editor.textCursor()
    cursor.setPosition(editor.document().findBlockByNumber(11 - 1).position())  # Config.__init__: not traced
    editor.setTextCursor(cursor)
    menu_action(seed_window, "Debug", "Run to Cursor").trigger()
    assert c.snapshot.step == 3
    assert status(seed_window) == "line 11 of seed_example.py is never reached after step 4 of this trace"
    cursor.setPosition(editor.document().findBlockByNumber(SEED_BODY_LINE - 1).position())
    editor.setTextCursor(cursor)
    qtbot.keyClick(seed_window, Qt.Key_F10, Qt.ControlModifier)
    assert c.snapshot.frame.line == SEED_BODY_LINE
    assert c.snapshot.step == next(s.step for s in c.timeline.snapshots if s.frame.line == SEED_BODY_LINE)


def test_opcode_breakpoint_added_in_the_panel_stops_and_counts_the_hit(seed_window, qtbot):
    panel = seed_window.breakpoints_panel
    panel.kind_combo.setCurrentIndex(panel.kind_combo.findData("opcode"))
    qtbot.keyClicks(panel.text_edit, "BINARY_OP")
    qtbot.mouseClick(panel.add_button, Qt.LeftButton)
    assert [b.to_spec() for b in seed_window.controller.breakpoints] == [("opcode", "BINARY_OP")]
    qtbot.keyClick(seed_window, Qt.Key_F5)
    snap = seed_window.controller.snapshot
    assert snap.frame.opname == "BINARY_OP"
    assert snap.step == next(s.step for s in seed_window.controller.timeline.snapshots
                             if s.frame.opname == "BINARY_OP")
    assert seed_window.bytecode_view.current_offset() == snap.frame.offset
    # both operands still lazy: cfg.scale, an int attribute, is read lazily as Dynamo reads it (guarded when used)
    assert [view.kind for view in snap.frame.stack][-2:] == ["LazyVariableTracker", "LazyVariableTracker"]
    assert panel.model.index(0, 1).data() == "1", "the panel counts the hit"


def test_a_disabled_breakpoint_does_not_stop(seed_window, qtbot):
    panel = seed_window.breakpoints_panel
    panel.kind_combo.setCurrentIndex(panel.kind_combo.findData("offset"))
    assert panel.kind_combo.currentText() == "Offset"
    first_binary = next(s for s in seed_window.controller.timeline.snapshots if s.frame.opname == "BINARY_OP")
    qtbot.keyClicks(panel.text_edit, f"f:{first_binary.frame.offset}")
    qtbot.keyClick(panel.text_edit, Qt.Key_Return)
    bp = seed_window.controller.breakpoints[0]
    model = panel.model
    model.setData(model.index(0, 0), Qt.Unchecked, Qt.CheckStateRole)  # what unticking the box does
    assert bp.enabled is False
    qtbot.keyClick(seed_window, Qt.Key_F5)
    assert seed_window.controller.snapshot.step == len(seed_window.controller.timeline) - 1
    assert bp.hits == 0
    model.setData(model.index(0, 0), Qt.Checked, Qt.CheckStateRole)
    seed_window.controller.goto(0)
    qtbot.keyClick(seed_window, Qt.Key_F5)
    assert seed_window.controller.snapshot.step == first_binary.step


def test_stepping_in_and_out_of_a_helper_in_another_file_lexes_each_file_once(window, qtbot, tmp_path, monkeypatch):
    from app.widgets import highlight
    from tests.app.test_source_bytecode_views import counting_lexer

    (tmp_path / "helper.py").write_text("import torch\n\n\ndef scaled(x):\n    y = x * 2\n    return torch.relu(y)\n")
    main = tmp_path / "main.py"
    main.write_text("import torch\n\nfrom helper import scaled\n\n\n@torch.compile(backend='eager')\n"
                    "def f(x):\n    a = scaled(x)\n    b = scaled(a + 1)\n    return a + b\n\n\n"
                    "print(f(torch.ones(3)))\n")
    lexed = counting_lexer(monkeypatch)
    window.open_script(str(main), wait=True)
    shown = [window.source_view.filename()]
    for _ in range(len(window.controller.timeline) - 1):  # F11 to the end
        qtbot.keyClick(window, Qt.Key_F11)
        shown.append(window.source_view.filename())
    files = [os.path.basename(name) for i, name in enumerate(shown) if i == 0 or shown[i - 1] != name]
    assert files == ["main.py", "helper.py", "main.py", "helper.py", "main.py"]
    qtbot.keyClick(window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)  # reverse continue: back to step 1
    assert window.controller.snapshot.step == 0 and window.source_view.filename() == str(main)
    assert lexed == [main.read_text()[:-1], (tmp_path / "helper.py").read_text()[:-1]]  # each once, however often shown
    assert highlight.cached_token_spans.cache_info().hits == 3  # main, helper and main shown again


# ---- guards and the cache -----------------------------------------------------------------------------------
def test_the_sources_tree_keeps_what_was_folded_and_selected_while_stepping(seed_window, qtbot):
    panel, view = seed_window.source_tree_panel, seed_window.source_tree_panel.view
    seed_window.dock("sources").raise_()
    for _ in range(4):  # BINARY_OP `x * cfg.scale`: G['cfg'] holds two guards
        qtbot.keyClick(seed_window, Qt.Key_F11)

    def row(name):
        return panel.model.index_of(panel.model.find_source(name))

    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=view.visualRect(row("G['cfg']")).center())
    qtbot.keyClick(view, Qt.Key_Left)  # fold it
    assert not view.isExpanded(row("G['cfg']"))
    for _ in range(9):  # to `y - cfg.shift`: the tree is rebuilt with new sources and a third cfg guard
        qtbot.keyClick(seed_window, Qt.Key_F11)
    assert seed_window.controller.snapshot.step == 13
    assert [(item.values[0], len(item.children)) for item in panel.model.items()] == \
        [("G['cfg']", 3), ("L['x']", 1), ("L['n']", 1), ("G['torch']", 2)]
    assert not view.isExpanded(row("G['cfg']")) and panel.model.find_source("G['cfg']").bold  # folded, news in bold
    assert view.isExpanded(row("G['torch']")) and view.isExpanded(row("L['x']"))  # what it did not fold is open
    assert panel.current_item().payload == "G['cfg']"  # the selection stays on the same source
    qtbot.keyClick(view, Qt.Key_Right)
    assert view.isExpanded(row("G['cfg']"))


def test_clicking_a_guard_goes_to_the_instruction_that_installed_it(seed_window):
    c = seed_window.controller
    c.goto(len(c.timeline) - 1)
    panel = seed_window.source_tree_panel
    scale = next(item for item in panel.model.all_items() if item.payload == "G['cfg'].scale")
    guard_row = scale.children[0]
    panel.view.clicked.emit(panel.model.index_of(guard_row, 0))
    frame = c.snapshot.frame
    # an int attribute is guarded where it is first used (the multiplication), as Dynamo's lazy trackers are
    assert (frame.opname, frame.argrepr, frame.line) == ("BINARY_OP", "*", 20)
    guard = guard_row.payload
    assert c.timeline.guards.index(guard) >= c.snapshot.guard_count  # this very instruction installs it
    shown = [item.payload for item in panel.model.all_items()]
    assert guard in shown and next(i for i in panel.model.all_items() if i.payload is guard).changed


def test_a_cache_entry_row_says_why_it_recompiled_and_a_double_click_opens_its_trace(seed_window):
    panel = seed_window.cache_panel
    entries = panel.entry_items()
    assert entries[0].values[4] == ""
    assert entries[1].values[4].startswith("recompiled: 0/0: G['cfg'].scale == 2, got 3")
    assert panel.view.isExpanded(panel.model.index_of(entries[1].parent))  # expanded by default
    c = seed_window.controller
    assert c.timeline.compile_id == "0/0"
    panel.view.doubleClicked.emit(panel.model.index_of(entries[1], 0))
    assert c.timeline.compile_id == "0/1" and c.snapshot.step == 0
    assert seed_window.trace_combo.currentText().startswith("f [0/1]")


def test_call_again_from_the_guard_editor_is_busy_then_shows_the_result_and_its_stdout(seed_window, qtbot):
    editor = seed_window.guard_editor
    editor.path_edit.setText("cfg.scale")
    editor.expression_edit.setText("7")
    qtbot.mouseClick(editor.apply_button, Qt.LeftButton)
    before = len(seed_window.controller.timelines)
    with qtbot.waitSignal(editor.sig_called, timeout=60_000) as called:
        qtbot.mouseClick(editor.call_button, Qt.LeftButton)
        assert editor.call_button.text() == "Calling …" and not editor.call_button.isEnabled()
    outcome = called.args[0]
    assert outcome.compiled and len(seed_window.controller.timelines) > before
    assert seed_window.controller.timeline is outcome.timelines[-1]
    assert "new entry [0/2]" in editor.outcome_text()  # the result stays on screen
    assert "G['cfg'].scale == 3, got 7" in editor.outcome_text()
    assert f"call again: {outcome}" in seed_window.log_panel.contents()
    assert editor.call_button.isEnabled()
    editor.undo_all()


def test_opening_another_script_clears_the_guard_editors_typing(seed_window):
    editor = seed_window.guard_editor
    editor.path_edit.setText("cfg.scale")
    editor.expression_edit.setText("99")
    seed_window.open_script(DEFAULT_SCRIPT, wait=True)
    assert editor.path_edit.text() == "" and editor.expression_edit.text() == ""
    assert editor.function_combo.currentText() == "step"


# ---- bad input ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("content, says", [("x = 1\ndef broken(:\n    pass\n", "SyntaxError: invalid syntax (bad.py, line 2)"),
                                           (b"\x00\x01\x02binary\xff", "source code string cannot contain null bytes")])
def test_a_script_that_cannot_compile_says_so(window, tmp_path, content, says):
    path = tmp_path / "bad.py"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    window.open_script(str(path), wait=True)
    message = status(window)
    assert message.startswith("bad.py raised SyntaxError") and message.endswith(says)
    dialogs = visible_dialogs(window)
    assert [d.text() for d in dialogs] == [message] and "SyntaxError" in dialogs[0].detailedText()
    assert window.source_view.filename() == str(path)
    assert window.isVisible() and window.actions_by_id["open"].isEnabled()


def test_a_script_that_raises_shows_the_traceback_and_the_line(window, tmp_path):
    path = tmp_path / "raises.py"
    path.write_text("import torch\n\n\ndef boom():\n    raise RuntimeError('import failed')\n\n\nboom()\n")
    window.open_script(str(path), wait=True)
    assert status(window) == "raises.py raised RuntimeError: import failed (line 5 of raises.py)"
    dialog = visible_dialogs(window)[0]
    assert dialog.icon() == QMessageBox.Critical
    assert 'raises.py", line 8' in dialog.detailedText() and 'line 5, in boom' in dialog.detailedText()
    assert window.source_view.filename() == str(path) and window.source_view.highlighted_lines() == {5}
    assert "the script raised RuntimeError: import failed (line 5 of raises.py)" in window.log_panel.contents()


def test_a_folder_is_refused_with_a_message(window, tmp_path):
    assert not window.open_script(str(tmp_path))
    assert status(window) == f"{tmp_path} is a directory, not a script"
    assert [d.text() for d in visible_dialogs(window)] == [status(window)]


def test_a_missing_script_is_reported_not_crashed(window):
    assert not window.controller.open_script("/no/such/file.py")
    assert status(window) == "no such script: /no/such/file.py"
    assert "error: no such script: /no/such/file.py" in window.log_panel.contents()


def test_a_script_that_never_compiles_clears_the_previous_trace_and_says_so(seed_window, tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("print('hello')\n")
    seed_window.open_script(str(path), wait=True)
    assert status(seed_window).startswith("plain.py ran to its end, but no torch.compile call was seen")
    assert seed_window.windowTitle() == "Standin — plain.py"
    assert seed_window.source_view.filename() == str(path)
    assert seed_window.bytecode_view.instructions() == ()
    assert seed_window.step_label.text() == "no trace"
    assert seed_window.trace_combo.count() == 0 and seed_window.cache_panel.entry_items() == []
    assert "hello" in seed_window.log_panel.contents()
    qtbot_keys_do_nothing = seed_window.controller.step_into()  # no trace: stepping is a no-op
    assert qtbot_keys_do_nothing is None and seed_window.controller.snapshot is None


def test_a_script_that_loops_forever_runs_in_the_background_and_can_be_stopped(seed_window, qtbot, tmp_path):
    seed_session = seed_window.controller.session
    path = tmp_path / "forever.py"
    seed_text = open(SEED).read()
    path.write_text(seed_text + "\nwhile True:\n    pass\n")
    loop_line = seed_text.count("\n") + 2  # `while True:`, whose backward jump the stop lands on
    stopped = []
    seed_window.controller.sig_script_stopped.connect(lambda message, *where: stopped.append(message))
    assert seed_window.open_script(str(path))  # returns at once: the window stays live
    stop = seed_window.actions_by_id["stop"]
    qtbot.waitUntil(lambda: stop.isEnabled() and seed_window.run_progress.isVisible())
    assert seed_window.controller.session is seed_session  # still showing the old session while it runs
    qtbot.waitUntil(lambda: "running forever.py … " in seed_window.run_label.text()
                    and seed_window.run_label.text().endswith(" s"))
    assert not seed_window.open_script(SEED)  # one script at a time, said clearly
    assert status(seed_window) == "forever.py is still running: stop it first"
    running = seed_window.controller.running
    qtbot.waitUntil(lambda: running.stdout.count("\n") == 3, timeout=60_000)  # its three calls ran
    qtbot.wait(300)  # the last print has returned: the script is in its loop
    menu_action(seed_window, "File", "Stop").trigger()
    qtbot.waitUntil(lambda: not stop.isEnabled(), timeout=10_000)
    session = seed_window.controller.session
    assert session is not seed_session and session.stopped.startswith("stopped by the user after ")
    assert session.timelines and seed_window.controller.timeline is not None  # what ran is kept and shown
    assert not seed_window.run_progress.isVisible()
    said = status(seed_window)  # a stop is said as a stop, with where it was: not an error, no dialog
    assert said == f"forever.py {session.stopped} at line {loop_line} of forever.py: showing the 2 trace(s) it made"
    assert stopped == [said] and visible_dialogs(seed_window) == []
    assert "raised" not in seed_window.log_panel.contents().split("running " + str(path))[-1]
    assert seed_window.source_view.filename() == str(path)
    assert seed_window.source_view.highlighted_lines() == {loop_line}


def test_a_new_run_closes_the_last_runs_error_dialog(window, qtbot, tmp_path):
    path = tmp_path / "raises.py"
    path.write_text("import torch\nraise ValueError('no data')\n")
    window.open_script(str(path), wait=True)
    assert [d.text() for d in visible_dialogs(window)] == ["raises.py raised ValueError: no data (line 2 of raises.py)"]
    menu_action(window, "File", "Open Recent").menu().actions()[0].trigger()  # the same script again
    assert window.controller.running is not None and visible_dialogs(window) == []  # gone as the run starts
    qtbot.waitUntil(lambda: window.controller.running is None, timeout=60_000)
    assert len(visible_dialogs(window)) == 1  # this run's own error
    window.open_script(SEED, wait=True)
    assert visible_dialogs(window) == [] and status(window) == "seed_example.py: 1 compiled function(s), 2 trace(s)"


# ---- debugger habits: reload, find, zoom, help, watch, hover, links, layout -------------------------------------
def test_reload_runs_the_edited_script_again(window, qtbot, tmp_path):
    path = tmp_path / "edit_me.py"
    path.write_text(open(SEED).read())
    window.open_script(str(path), wait=True)
    path.write_text(open(SEED).read().replace("self.scale = 2", "self.scale = 5"))
    qtbot.keyClick(window, Qt.Key_R, Qt.ControlModifier)
    qtbot.waitUntil(lambda: window.controller.running is None and "self.scale = 5" in window.source_view.line_text(11),
                    timeout=60_000)
    guards = [g.expr for g in window.controller.timeline.guards if g.source_name == "G['cfg'].scale"]
    assert guards == ["G['cfg'].scale == 5"]


def test_find_in_source_then_in_bytecode(seed_window, qtbot):
    qtbot.keyClick(seed_window, Qt.Key_F, Qt.ControlModifier)
    bar = seed_window.find_bar
    assert bar.isVisible()
    qtbot.keyClicks(bar.edit, "cfg.shift")
    qtbot.keyClick(bar.edit, Qt.Key_Return)
    cursor = seed_window.source_view.editor.textCursor()
    assert cursor.selectedText() == "cfg.shift" and cursor.blockNumber() + 1 == SEED_BODY_LINE
    bar.scope.setCurrentIndex(bar.scope.findData("bytecode"))
    qtbot.keyClick(bar.edit, Qt.Key_Return)
    assert bar.status.text() == "not found"  # no instruction reads "cfg.shift" as one
    assert status(seed_window) == "'cfg.shift' is not in the bytecode"
    bar.edit.setText("shift")
    qtbot.keyClick(bar.edit, Qt.Key_Return)
    inst = next(i for i in seed_window.bytecode_view.instructions()
                if i.offset == seed_window.bytecode_view.selected_offsets()[0])
    assert (inst.opname, inst.argrepr) == ("LOAD_ATTR", "shift") and bar.status.text() == ""


def test_font_zoom_keys(seed_window, qtbot):
    editor = seed_window.source_view.editor
    before = editor.font().pointSizeF()
    qtbot.keyClick(seed_window, Qt.Key_Equal, Qt.ControlModifier)
    assert editor.font().pointSizeF() > before
    assert seed_window.bytecode_view.table.font().pointSizeF() == editor.font().pointSizeF()
    qtbot.keyClick(seed_window, Qt.Key_Minus, Qt.ControlModifier)
    qtbot.keyClick(seed_window, Qt.Key_Minus, Qt.ControlModifier)
    assert editor.font().pointSizeF() < before
    qtbot.keyClick(seed_window, Qt.Key_0, Qt.ControlModifier)
    assert editor.font().pointSizeF() == 10


def test_help_lists_the_shortcuts(seed_window):
    menu_action(seed_window, "Help", "Keyboard Shortcuts").trigger()
    dialog = next(d for d in seed_window.findChildren(QDialog) if d.objectName() == "shortcuts" and d.isVisible())
    table = dialog.findChild(QTableWidget)
    rows = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    assert rows["Continue"] == "F5" and rows["Toggle Breakpoint"] == "F9" and rows["Restart Trace"] == "Ctrl+Shift+R"
    assert rows["Reload Script"] == "Ctrl+R" and rows["Run to Cursor"] == "Ctrl+F10"


def test_watch_expressions_follow_the_step(seed_window, qtbot):
    c = seed_window.controller
    panel = seed_window.watch_panel
    for expression in ("x", "x.shape", "cfg.scale", "nothing_here"):
        qtbot.keyClicks(panel.entry, expression)
        qtbot.keyClick(panel.entry, Qt.Key_Return)
    store = next(s.step for s in c.timeline.snapshots if s.frame.opname == "STORE_FAST")  # y = ...
    c.goto(store + 1)
    values = panel.values()
    assert values["x"].startswith("lazy") or values["x"].startswith("Tensor")
    assert values["cfg.scale"] == "3 in the module now; EQUALS_MATCH: G['cfg'].scale == 2"
    assert values["x.shape"] == "4"  # the graph node of the realized x
    assert "nothing_here is not a local of f at this step, nor a module global" == values["nothing_here"]
    c.goto(0)
    assert panel.values()["cfg.scale"] == "3 in the module now; not read by the trace yet"


def test_hovering_a_name_shows_its_tracker_now(seed_window):
    c = seed_window.controller
    c.goto(len(c.timeline) - 1)
    text = seed_window.source_view.hover_text_at(SEED_BODY_LINE, len("    return torch.relu(") + 1)
    assert text.startswith("y — Tensor: ") and "4 float32" in text
    bytecode = seed_window.bytecode_view
    row = next(r for r, i in enumerate(bytecode.instructions()) if i.opname == "LOAD_FAST" and i.argval == "y")
    tooltip = bytecode.table.model().index(row, 3).data(Qt.ToolTipRole)
    assert "y now: Tensor: " in tooltip


def test_a_graph_node_lights_up_the_line_and_instruction_that_made_it_and_back(seed_window):
    c = seed_window.controller
    c.goto(len(c.timeline) - 1)
    graph = seed_window.graph_panel
    graph.sig_node_selected.emit("mul")  # what clicking its box does
    step = c.step_of_node("mul")
    made_by = c.timeline.snapshots[step].frame
    assert (made_by.opname, made_by.line) == ("BINARY_OP", 20)
    assert seed_window.source_view.highlighted_lines() == {20}
    assert seed_window.bytecode_view.selected_offsets() == [made_by.offset]
    seed_window.source_view.sig_line_selected.emit(SEED, SEED_BODY_LINE)  # what clicking the line does
    assert graph.highlighted_nodes() == ["sub", "relu"]


def test_reset_layout_brings_back_a_closed_panel(seed_window):
    seed_window.dock("watch").close()
    seed_window.dock("graph").setFloating(True)
    menu_action(seed_window, "View", "Reset Layout").trigger()
    assert not seed_window.dock("watch").isHidden() and not seed_window.dock("graph").isFloating()


# ---- what the window remembers --------------------------------------------------------------------------------
def test_breakpoints_watches_recent_scripts_and_layout_persist(qtbot):
    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    first.open_script(SEED, wait=True)
    c = first.controller
    for kind, text in (("opcode", "LOAD_ATTR"), ("guard_on", "G['cfg']*"), ("exception_handled", ""),
                       ("offset", "f:30"), ("line", str(SEED_BODY_LINE))):
        c.add_breakpoint(kind, text)
    c.set_breakpoint_enabled(0, False)
    first.watch_panel.add("cfg.scale")
    first.dock("log").hide()
    first.close()

    second = MainWindow()
    qtbot.addWidget(second)
    second.show()
    assert second.controller.breakpoint_specs() == [
        ("opcode", "LOAD_ATTR", False), ("guard_on", "G['cfg']*", True), ("exception_handled", "", True),
        ("offset", "f:30", True), ("line", f"{SEED}:{SEED_BODY_LINE}", True)]
    assert isinstance(second.controller.breakpoints[-1], LineBreakpoint)
    assert second.watch_panel.expressions == ["cfg.scale"]
    assert [a.text() for a in second.recent_menu.actions()] == [SEED]
    assert second.dock("log").isHidden()
    second.recent_menu.actions()[0].trigger()
    qtbot.waitUntil(lambda: second.controller.session is not None and second.controller.running is None,
                    timeout=30_000)
    assert second.controller.session.path == SEED


def test_a_new_window_fits_the_screen_it_opens_on(qtbot):
    """Its first size never reaches past the screen's free area (1500 x 950 on a 1280 x 800 laptop put the
    bottom docks' tabs, Cache and Guard editor among them, below the screen)."""
    win = MainWindow()
    qtbot.addWidget(win)
    free = win.screen().availableGeometry()
    assert free.width() < 1500 and free.height() < 950, "the test screen is too large to show the limit"
    least = win.minimumSizeHint()  # narrower than its toolbar and docks it cannot be (the offscreen screen is 800 wide)
    assert win.height() <= free.height(), (win.size(), free)
    assert win.width() <= max(free.width(), least.width()), (win.size(), free, least)
    assert win.width() < 1500


def test_on_a_1280_by_800_screen_the_bottom_docks_leave_the_code_most_of_the_height(qtbot):
    """The Compare dock shares the FX graph's tab group: its views scroll rather than hold the group at half
    the window (it was 362 of 752 px, the source and bytecode got 230)."""
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1228, 752)
    win.show()
    qtbot.waitExposed(win)
    qtbot.waitUntil(lambda: win.dock("graph").height() <= 0.34 * win.height(), timeout=3000)  # once laid out
    assert win.splitter.height() >= 0.42 * win.height(), (win.splitter.height(), win.height())
