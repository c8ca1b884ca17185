"""The main window: source and bytecode in the middle, the tracer's state in docks around.

This is the one place that wires widgets to the controller (Spyder style):
widgets emit `sig_*` signals, the controller announces positions and
sessions, and the slots here hand each widget the plain data it shows.
"""
from __future__ import annotations

import os
import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QApplication, QComboBox, QDockWidget, QFileDialog, QHBoxLayout, QLabel, QMainWindow,
                               QMessageBox, QProgressBar, QScrollArea, QSlider, QSplitter, QToolBar, QVBoxLayout,
                               QWidget)

from .compare_controller import CompareController
from .controller import DebugController
from .models.compare_model import find_break_step
from .settings import Settings
from .widgets.bytecode_view import BytecodeView
from .widgets.compare_panel import ComparePanel
from .widgets.graph_view import GraphPanel
from .widgets.guard_editor import GuardEditor
from .widgets.panels import (BreakpointsPanel, BreaksPanel, CachePanel, CallStackPanel, LocalsPanel, LogPanel,
                             SourceTreePanel, StackPanel)
from .widgets.source_view import SourceView

DEFAULT_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                              "resources", "examples", "tour.py")

# (action id, label, shortcut, controller method) — words and keys as in VS Code's debugger
STEP_ACTIONS = (
    ("reverse_continue", "Reverse Continue", "Ctrl+Shift+F5", "reverse_continue"),
    ("step_back_out", "Step Back Out", "Ctrl+Shift+F11", "step_back_out"),
    ("step_back_over", "Step Back Over", "Shift+F10", "step_back_over"),
    ("step_back", "Step Back", "Ctrl+Shift+F10", "step_back"),
    ("step_into", "Step Into", "F11", "step_into"),
    ("step_over", "Step Over", "F10", "step_over"),
    ("step_out", "Step Out", "Shift+F11", "step_out"),
    ("continue", "Continue", "F5", "continue_"),
    ("restart", "Restart Trace", "Ctrl+Shift+F5+R", "restart"),
)


class MainWindow(QMainWindow):
    def __init__(self, controller: DebugController | None = None, settings: Settings | None = None):
        super().__init__()
        self.controller = controller or DebugController(self)
        self.settings = settings or Settings()
        self.setWindowTitle("Standin — a debugger for PyTorch's tracing")
        self.resize(1500, 950)
        self.actions_by_id: dict[str, QAction] = {}
        self._shown_file = None
        self._shown_code = None
        self._shown_tree = None
        self._shown_graph = None
        self._running_name = ""
        self._build_center()
        self._build_docks()
        self._build_toolbar()
        self._build_compare()
        self._build_status()
        self._build_menu()
        self._wire()
        self._restore_settings()

    # ---- layout -------------------------------------------------------------------------
    def _build_center(self) -> None:
        self.source_view = SourceView()
        self.bytecode_view = BytecodeView()
        self.where_label = QLabel("Open a script (File ▸ Open) — the bundled example shows the seed's story.")
        self.where_label.setObjectName("whereLabel")
        self.trace_combo = QComboBox()
        self.trace_combo.setMinimumWidth(380)
        self.trace_combo.setMaximumWidth(560)
        self.slider = QSlider(Qt.Horizontal)
        self.slider.setMinimumWidth(220)
        self.slider.setMinimum(0)
        self.step_label = QLabel("step 0 / 0")
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Trace:"))
        bar.addWidget(self.trace_combo)
        bar.addWidget(self.slider, 1)
        bar.addWidget(self.step_label)
        splitter = QSplitter(Qt.Horizontal)
        splitter.addWidget(self.source_view)
        splitter.addWidget(self.bytecode_view)
        splitter.setSizes([820, 480])
        center = QWidget()
        layout = QVBoxLayout(center)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.where_label)
        layout.addWidget(splitter, 1)
        self.setCentralWidget(center)

    def _dock(self, title: str, widget: QWidget, area, name: str) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_docks(self) -> None:
        self.stack_panel = StackPanel()
        self.locals_panel = LocalsPanel()
        self.callstack_panel = CallStackPanel()
        self.source_tree_panel = SourceTreePanel()
        self.graph_panel = GraphPanel()
        self.cache_panel = CachePanel()
        self.breaks_panel = BreaksPanel()
        self.breakpoints_panel = BreakpointsPanel()
        self.guard_editor = GuardEditor()
        self.log_panel = LogPanel()
        right, bottom, left = Qt.RightDockWidgetArea, Qt.BottomDockWidgetArea, Qt.LeftDockWidgetArea
        stack = self._dock("Symbolic stack", self.stack_panel, right, "stack")
        locals_ = self._dock("Symbolic locals", self.locals_panel, right, "locals")
        calls = self._dock("Inlining call stack", self.callstack_panel, right, "callstack")
        self.tabifyDockWidget(locals_, calls)
        locals_.raise_()
        tree = self._dock("Source chains and guards", self.source_tree_panel, left, "sources")
        breakpoints = self._dock("Breakpoints", self.breakpoints_panel, left, "breakpoints")
        self.tabifyDockWidget(tree, breakpoints)
        tree.raise_()
        graph = self._dock("FX graph", self.graph_panel, bottom, "graph")
        cache = self._dock("Cache and compile events", self.cache_panel, bottom, "cache")
        breaks = self._dock("Graph breaks", self.breaks_panel, bottom, "breaks")
        scroller = QScrollArea()  # the editor is tall; its dock must not force the bottom area to be
        scroller.setWidgetResizable(True)
        scroller.setWidget(self.guard_editor)
        editor = self._dock("Guard editor", scroller, bottom, "guard_editor")
        log = self._dock("Log", self.log_panel, bottom, "log")
        for dock in (cache, breaks, editor, log):
            self.tabifyDockWidget(graph, dock)
        graph.raise_()
        self._initial_docks = (stack, tree, graph)

    def _build_toolbar(self) -> None:
        toolbar = QToolBar("Stepping")
        toolbar.setObjectName("stepping")
        self.addToolBar(toolbar)
        open_action = QAction("Open…", self, shortcut=QKeySequence.Open, triggered=self.open_dialog)
        self.actions_by_id["open"] = open_action
        toolbar.addAction(open_action)
        stop_action = QAction("Stop", self, shortcut=QKeySequence("Shift+F5"), triggered=self.controller.stop_script)
        stop_action.setToolTip("Stop the running script (Shift+F5); what it traced so far is kept")
        stop_action.setEnabled(False)
        self.actions_by_id["stop"] = stop_action
        toolbar.addAction(stop_action)
        toolbar.addSeparator()
        for action_id, label, shortcut, method in STEP_ACTIONS:
            action = QAction(label, self)
            if "+R" not in shortcut:
                action.setShortcut(QKeySequence(shortcut))
            action.setToolTip(f"{label} ({shortcut})" if "+R" not in shortcut else label)
            action.triggered.connect(getattr(self.controller, method))
            self.actions_by_id[action_id] = action
            toolbar.addAction(action)
            if action_id in ("step_back", "continue"):
                toolbar.addSeparator()

    def _build_compare(self) -> None:
        """The Compare dock and its toolbar action: the open script under real torch.compile too."""
        self.compare_controller = CompareController(self)
        self.compare_panel = ComparePanel()
        dock = self._dock("Compare with torch.compile", self.compare_panel, Qt.BottomDockWidgetArea, "compare")
        self.tabifyDockWidget(self.dock("graph"), dock)
        self.dock("graph").raise_()
        action = QAction("Compare", self, triggered=self.compare_open_script)
        action.setToolTip("Run the open script under real torch.compile too and compare, frame by frame")
        self.actions_by_id["compare"] = action
        self.findChild(QToolBar, "stepping").addAction(action)
        cc, panel = self.compare_controller, self.compare_panel
        panel.sig_compare_requested.connect(self.compare_open_script)
        panel.sig_stop_requested.connect(cc.stop)
        panel.sig_break_selected.connect(self._on_compare_break)
        cc.sig_running.connect(panel.set_running)
        cc.sig_running.connect(lambda running, _: action.setEnabled(not running))
        cc.sig_progress.connect(panel.set_progress)
        cc.sig_finished.connect(panel.show_comparison)
        cc.sig_error.connect(panel.set_message)
        cc.sig_log.connect(lambda text: self.log_panel.append(text))

    def compare_open_script(self, wait: bool = False) -> bool:
        """Compare the open script (with its arguments) under both engines, in the background."""
        session = self.controller.session
        dock = self.dock("compare")
        dock.show()
        dock.raise_()
        return self.compare_controller.start(session.path if session else None,
                                             session.argv if session else None, wait=wait is True)

    def _on_compare_break(self, row) -> None:
        """A break only Standin makes: open the trace of that compile at the breaking instruction."""
        comparison, session = self.compare_panel.comparison, self.controller.session
        if comparison is None or session is None or comparison.standin.script != session.path:
            self.log_panel.append("the comparison is of another script: open it to step to its breaks")
            return
        found = find_break_step(self.controller.timelines, row.frame, row.compile_id, row.function, row.offset)
        if found is None:
            self.log_panel.append(f"no recorded trace of {row.frame} [{row.compile_id}] reaches offset "
                                  f"{row.offset} of {row.function}")
            return
        index, step = found
        self.controller.select_timeline(index)
        self.controller.goto(step)

    def _build_status(self) -> None:
        """A busy bar and the running time while a script runs; Stop sits in the toolbar."""
        self.run_label = QLabel()
        self.run_progress = QProgressBar()
        self.run_progress.setRange(0, 0)  # busy: a script's length is not known in advance
        self.run_progress.setMaximumWidth(160)
        self.run_progress.setMaximumHeight(14)
        for widget in (self.run_label, self.run_progress):
            self.statusBar().addPermanentWidget(widget)
            widget.hide()

    def _build_menu(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(self.actions_by_id["open"])
        self.recent_menu = file_menu.addMenu("Open &Recent")
        file_menu.addAction(self.actions_by_id["stop"])
        export = QAction("Export graphs and guard reports…", self, triggered=self.export_dialog)
        self.actions_by_id["export"] = export
        file_menu.addAction(export)
        file_menu.addSeparator()
        file_menu.addAction(QAction("Quit", self, shortcut=QKeySequence.Quit, triggered=self.close))
        debug_menu = self.menuBar().addMenu("&Debug")
        for action_id, *_ in STEP_ACTIONS:
            debug_menu.addAction(self.actions_by_id[action_id])
        view_menu = self.menuBar().addMenu("&View")
        for dock in self.findChildren(QDockWidget):
            view_menu.addAction(dock.toggleViewAction())

    def dock(self, name: str) -> QDockWidget:
        """A dock by its object name: stack, locals, callstack, sources, breakpoints, graph, cache,
        breaks, guard_editor, log, compare."""
        return self.findChild(QDockWidget, name)

    def showEvent(self, event):  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._initial_docks:  # sizes only take once the window has a size of its own
            stack, tree, graph = self._initial_docks
            self.resizeDocks([stack, tree], [430, 330], Qt.Horizontal)
            self.resizeDocks([graph], [250], Qt.Vertical)
            self._initial_docks = None

    # ---- wiring --------------------------------------------------------------------------
    def _wire(self) -> None:
        c = self.controller
        c.sig_session_loaded.connect(self.on_session_loaded)
        c.sig_timeline_changed.connect(self.on_timeline_changed)
        c.sig_position_changed.connect(self.on_position_changed)
        c.sig_breakpoints_changed.connect(self.on_breakpoints_changed)
        c.sig_log.connect(self.log_panel.append)
        c.sig_error.connect(self.on_error)
        c.sig_running.connect(self.on_running)
        c.sig_progress.connect(self.on_progress)
        self.trace_combo.currentIndexChanged.connect(self._on_trace_selected)
        self.slider.valueChanged.connect(self._on_slider)
        self.source_view.sig_toggle_breakpoint.connect(c.toggle_line_breakpoint)
        self.source_view.sig_run_to_line.connect(c.run_to_line)
        self.source_view.sig_line_selected.connect(lambda f, line: self.bytecode_view.highlight_line(line))
        self.bytecode_view.sig_instruction_selected.connect(self._on_instruction_selected)
        self.bytecode_view.sig_toggle_offset_breakpoint.connect(c.toggle_offset_breakpoint)
        self.bytecode_view.sig_opcode_breakpoint.connect(lambda opname: c.add_breakpoint("Opcode", opname))
        self.source_tree_panel.sig_guard_selected.connect(self._on_guard_selected)
        self.callstack_panel.sig_frame_selected.connect(self._on_frame_selected)
        self.breaks_panel.sig_location_selected.connect(self._show_location)
        self.breakpoints_panel.sig_breakpoint_requested.connect(c.add_breakpoint)
        self.breakpoints_panel.sig_breakpoint_toggled.connect(c.set_breakpoint_enabled)
        self.breakpoints_panel.sig_breakpoint_removed.connect(c.remove_breakpoint)
        self.guard_editor.sig_called.connect(c.refresh_after_call)
        self.guard_editor.sig_prediction.connect(lambda text: self.log_panel.append(f"what-if: {text}"))

    # ---- settings --------------------------------------------------------------------------
    def _restore_settings(self) -> None:
        if self.settings.restore_layout(self):
            self._initial_docks = None  # the user's own dock sizes win over the defaults
        self.controller.restore_breakpoints(self.settings.breakpoints())
        self._fill_recent_menu()

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.recent_files()
        for path in recent:
            self.recent_menu.addAction(path, lambda p=path: self.open_script(p))
        self.recent_menu.setEnabled(bool(recent))

    def closeEvent(self, event):  # noqa: N802 - Qt override
        self.controller.stop_script()
        self.compare_controller.stop()
        self.settings.save_layout(self)
        self.settings.set_breakpoints(self.controller.breakpoint_specs())
        self.settings.sync()
        super().closeEvent(event)

    # ---- slots ---------------------------------------------------------------------------
    def open_script(self, path: str, wait: bool = False) -> bool:
        """Run a script under the engine; with `wait`, return once it has finished (tests, scripts)."""
        return self.controller.open_script(path, wait=wait)

    def on_running(self, running: bool, name: str) -> None:
        self.actions_by_id["stop"].setEnabled(running)
        self.run_progress.setVisible(running)
        self.run_label.setVisible(running)
        self.run_label.setText(f"running {name} …" if running else "")
        self._running_name = name

    def on_progress(self, seconds: float) -> None:
        self.run_label.setText(f"running {self._running_name} … {seconds:.0f} s")

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a script that uses torch.compile", "", "Python (*.py)")
        if path:
            self.open_script(path)

    def export_dialog(self) -> None:
        if self.controller.session is None:
            return
        out = QFileDialog.getExistingDirectory(self, "Export into folder")
        if out:
            from tracer.export import export_session
            written = export_session(self.controller.session, out)
            self.log_panel.append(f"exported {len(written)} files into {out}")

    def on_error(self, message: str) -> None:
        """Bad input is shown, never fatal; the dialog is not modal so nothing waits on it."""
        self.log_panel.append(f"error: {message}")
        self.statusBar().showMessage(message, 10_000)
        if self.isVisible():
            box = QMessageBox(QMessageBox.Warning, "Standin", message, QMessageBox.Ok, self)
            box.setAttribute(Qt.WA_DeleteOnClose)
            box.open()

    def on_session_loaded(self) -> None:
        session = self.controller.session
        self.setWindowTitle(f"Standin — {os.path.basename(session.path)}")
        self.settings.add_recent(session.path)
        self._fill_recent_menu()
        self.cache_panel.show_functions(session.functions)
        self.breaks_panel.show_functions(session.functions)
        self.guard_editor.set_session(session)
        self.trace_combo.blockSignals(True)
        self.trace_combo.clear()
        for timeline in session.timelines:
            attempt = " (first attempt)" if timeline.attempt == 1 and "restart" in timeline.outcome else ""
            self.trace_combo.addItem(f"{timeline.frame} [{timeline.compile_id}]{attempt} — "
                                     f"{len(timeline)} steps — {timeline.outcome[:60]}")
        self.trace_combo.blockSignals(False)

    def _on_trace_selected(self, index: int) -> None:
        if index >= 0:
            self.controller.select_timeline(index)

    def on_timeline_changed(self, timeline) -> None:
        index = self.controller.timelines.index(timeline)
        if self.trace_combo.currentIndex() != index:
            self.trace_combo.blockSignals(True)
            self.trace_combo.setCurrentIndex(index)
            self.trace_combo.blockSignals(False)
        self.slider.blockSignals(True)
        self.slider.setMaximum(max(0, len(timeline) - 1))
        self.slider.blockSignals(False)
        self._shown_code = None

    def _on_slider(self, value: int) -> None:
        self.controller.goto(value)

    def on_position_changed(self, snapshot, previous) -> None:
        timeline = self.controller.timeline
        frame = snapshot.frame
        self.slider.blockSignals(True)
        self.slider.setValue(snapshot.step)
        self.slider.blockSignals(False)
        self.step_label.setText(f"step {snapshot.step + 1} / {len(timeline)}")
        where = f"{frame.function} — line {frame.line}, offset {frame.offset}: {frame.opname} {frame.argrepr}"
        if snapshot.event:
            where += f"   ⚠ {snapshot.event}"
        self.where_label.setText(where)
        if frame.filename != self._shown_file and os.path.isfile(frame.filename):
            self.source_view.show_file(frame.filename)
            self._shown_file = frame.filename
            self.source_view.set_breakpoints(self.controller.line_breakpoints(frame.filename))
        self.source_view.set_current(frame.line, *frame.columns)
        code = timeline.codes.get(frame.code_key)
        if code is not None and code is not self._shown_code:
            self.bytecode_view.show_code(code)
            self._shown_code = code
            self.source_view.set_band_lines(self.bytecode_view.code_lines())
            self.bytecode_view.set_breakpoint_offsets(self.controller.offset_breakpoints(frame.function))
        self.bytecode_view.set_current(frame.offset)
        same_frame = previous is not None and previous.frame.code_key == frame.code_key \
            and previous.depth == snapshot.depth
        self.stack_panel.show_views(frame.stack, previous=previous.frame.stack if same_frame else None)
        self.locals_panel.show_views(frame.locals, previous=previous.frame.locals if same_frame else None)
        self.callstack_panel.show_frames(snapshot.frames)
        # the two panels that grow with the trace are rebuilt only when they grew (a step costs little)
        seen_sources = tuple(view.source for view in frame.stack if view.source) + \
            tuple(view.source for _, view in frame.locals if view.source)
        tree_key = (id(timeline), snapshot.guard_count, seen_sources)
        if tree_key != self._shown_tree:
            guards = timeline.guards_at(snapshot.step)
            previous_guards = previous.guard_count if previous is not None else 0
            self.source_tree_panel.show_guards(guards, max(0, len(guards) - previous_guards), seen_sources)
            self._shown_tree = tree_key
        graph_key = (id(timeline), snapshot.node_count)
        if graph_key != self._shown_graph:
            nodes = timeline.nodes_at(snapshot.step)
            previous_nodes = previous.node_count if previous is not None else 0
            self.graph_panel.show_nodes(nodes, max(0, len(nodes) - previous_nodes))
            self._shown_graph = graph_key

    def on_breakpoints_changed(self, breakpoints) -> None:
        self.breakpoints_panel.show_breakpoints(breakpoints)
        self.settings.set_breakpoints(self.controller.breakpoint_specs())
        if self._shown_file:
            self.source_view.set_breakpoints(self.controller.line_breakpoints(self._shown_file))
        snapshot = self.controller.snapshot
        if snapshot is not None:
            self.bytecode_view.set_breakpoint_offsets(self.controller.offset_breakpoints(snapshot.frame.function))

    def _on_instruction_selected(self, code_key, offset, line, col_start, col_end) -> None:
        if line:
            self.source_view.highlight_lines({line})

    def _on_guard_selected(self, filename, line, offset, function) -> None:
        self.controller.goto_instruction(function, line, offset)

    def _on_frame_selected(self, depth: int) -> None:
        snapshot = self.controller.snapshot
        if snapshot is None or depth >= len(snapshot.frames):
            return
        frame = snapshot.frames[depth]
        self._show_location(frame.filename, frame.line)

    def _show_location(self, filename: str, line: int) -> None:
        if filename and os.path.isfile(filename):
            if filename != self._shown_file:
                self.source_view.show_file(filename)
                self._shown_file = filename
            self.source_view.highlight_lines({line})


def run_gui(script: str | None = None, argv=None) -> int:
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("Standin")
    window = MainWindow()
    window.show()
    window.open_script(script or DEFAULT_SCRIPT)
    return app.exec()
