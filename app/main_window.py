"""The main window: source and bytecode in the middle, the tracer's state in docks around.

This is the one place that wires widgets to the controller (Spyder style):
widgets emit `sig_*` signals, the controller announces positions and
sessions, and the slots here hand each widget the plain data it shows.
"""
from __future__ import annotations

import os
import sys

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QApplication, QComboBox, QDialog, QDialogButtonBox, QDockWidget, QFileDialog,
                               QHBoxLayout, QHeaderView, QLabel, QMainWindow, QMessageBox, QProgressBar,
                               QScrollArea, QSlider, QSplitter, QTableWidget, QTableWidgetItem, QToolBar,
                               QVBoxLayout, QWidget)

from tracer.debug import TraceEnd
from tracer.export import export_session

from .compare_dock import CompareDock
from .controller import DebugController
from .paths import DEFAULT_SCRIPT
from .settings import Settings
from .widgets.bytecode_view import BytecodeView
from .widgets.find_bar import SCOPE_SOURCE, FindBar
from .widgets.graph_view import GraphPanel
from .widgets.guard_editor import GuardEditor
from .widgets.panels import (BreakpointsPanel, BreaksPanel, CachePanel, CallStackPanel, LocalsPanel, LogPanel,
                             SourceTreePanel, StackPanel)
from .widgets.source_view import SourceView
from .widgets.watch_panel import WatchPanel

__all__ = ["MainWindow", "run_gui", "DEFAULT_SCRIPT", "STEP_ACTIONS"]

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
    ("restart", "Restart Trace", "Ctrl+Shift+R", "restart"),
)
MESSAGE_DIALOG = "standin.message"  # objectName of the error dialogs, closed when a new run starts
COMPACT_WIDTH = 1900  # px: narrower windows keep one column of docks, on the right
FONT_SIZES = (7, 8, 9, 10, 11, 12, 14, 16, 18, 20, 24)
DEFAULT_FONT_SIZE = 10
# (dock object name, title): short titles, so tabbed docks read whole at 1280 px
DOCKS = (("stack", "Stack"), ("locals", "Locals"), ("callstack", "Call stack"), ("watch", "Watch"),
         ("sources", "Sources and guards"), ("breakpoints", "Breakpoints"), ("graph", "FX graph"),
         ("cache", "Cache"), ("breaks", "Graph breaks"), ("guard_editor", "Guard editor"), ("log", "Log"),
         ("compare", "Compare"))


class MainWindow(QMainWindow):
    def __init__(self, controller: DebugController | None = None, settings: Settings | None = None):
        super().__init__()
        self.controller = controller or DebugController(self)
        self.settings = settings or Settings()
        self.setWindowTitle("Standin — a debugger for PyTorch's tracing")
        self.resize(self._first_size())
        self.actions_by_id: dict[str, QAction] = {}
        self._shown_file = None
        self._shown_code = None
        self._shown_tree = None
        self._shown_graph = None
        self._running_name = ""
        self.font_size = DEFAULT_FONT_SIZE
        self._build_center()
        self._build_docks()
        self._build_actions()
        self._build_toolbar()
        self._build_compare()
        self._build_status()
        self._build_menu()
        self._wire()
        self._default_state = self.saveState()  # View ▸ Reset layout goes back to this
        self._restore_settings()

    # ---- layout -------------------------------------------------------------------------
    def _build_center(self) -> None:
        self.source_view = SourceView()
        self.bytecode_view = BytecodeView()
        self.where_label = QLabel("Open a script (File ▸ Open) — the bundled tour shows the seed's story.")
        self.where_label.setObjectName("whereLabel")
        self.where_label.setWordWrap(True)
        self.trace_combo = QComboBox()
        self.trace_combo.setMinimumContentsLength(24)
        self.trace_combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.slider = QSlider(Qt.Horizontal)
        self.slider.setMinimumWidth(100)
        self.slider.setMinimum(0)
        self.step_label = QLabel("step 0 / 0")
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Trace:"))
        bar.addWidget(self.trace_combo, 2)
        bar.addWidget(self.slider, 1)
        bar.addWidget(self.step_label)
        self.splitter = QSplitter(Qt.Horizontal)
        self.splitter.addWidget(self.source_view)
        self.splitter.addWidget(self.bytecode_view)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.find_bar = FindBar()
        self.find_bar.hide()
        center = QWidget()
        layout = QVBoxLayout(center)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.where_label)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.find_bar)
        self.setCentralWidget(center)

    def _dock(self, name: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(dict(DOCKS)[name], self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_docks(self) -> None:
        self.stack_panel = StackPanel()
        self.locals_panel = LocalsPanel()
        self.callstack_panel = CallStackPanel()
        self.watch_panel = WatchPanel()
        self.source_tree_panel = SourceTreePanel()
        self.graph_panel = GraphPanel()
        self.cache_panel = CachePanel()
        self.breaks_panel = BreaksPanel()
        self.breakpoints_panel = BreakpointsPanel()
        self.guard_editor = GuardEditor()
        self.log_panel = LogPanel()
        right, bottom, left = Qt.RightDockWidgetArea, Qt.BottomDockWidgetArea, Qt.LeftDockWidgetArea
        stack = self._dock("stack", self.stack_panel, right)
        locals_ = self._dock("locals", self.locals_panel, right)
        for dock in (self._dock("callstack", self.callstack_panel, right), self._dock("watch", self.watch_panel, right)):
            self.tabifyDockWidget(locals_, dock)
        locals_.raise_()
        tree = self._dock("sources", self.source_tree_panel, left)
        self.tabifyDockWidget(tree, self._dock("breakpoints", self.breakpoints_panel, left))
        tree.raise_()
        graph = self._dock("graph", self.graph_panel, bottom)
        scroller = QScrollArea()  # the editor is tall; its dock must not force the bottom area to be
        scroller.setWidgetResizable(True)
        scroller.setWidget(self.guard_editor)
        for name, widget in (("cache", self.cache_panel), ("breaks", self.breaks_panel),
                             ("guard_editor", scroller), ("log", self.log_panel)):
            self.tabifyDockWidget(graph, self._dock(name, widget, bottom))
        graph.raise_()
        self._initial_docks = (stack, tree, graph)

    def _action(self, action_id: str, label: str, slot, shortcut=None, tip: str | None = None) -> QAction:
        action = QAction(label, self)
        action.setObjectName(action_id)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setToolTip(tip or (f"{label} ({QKeySequence(shortcut).toString()})" if shortcut else label))
        action.triggered.connect(slot)
        self.actions_by_id[action_id] = action
        self.addAction(action)  # shortcuts work with the toolbar hidden too
        return action

    def _build_actions(self) -> None:
        c = self.controller
        self._action("open", "Open…", self.open_dialog, QKeySequence.Open)
        self._action("reload", "Reload Script", self.reload_script, "Ctrl+R",
                     "Run the open script again, after editing it (Ctrl+R)")
        self._action("stop", "Stop", c.stop_script, "Shift+F5",
                     "Stop the running script (Shift+F5); what it traced so far is kept").setEnabled(False)
        self._action("export", "Export graphs and guard reports…", self.export_dialog, "Ctrl+E")
        self._action("quit", "Quit", self.close, QKeySequence.Quit)
        for action_id, label, shortcut, method in STEP_ACTIONS:
            self._action(action_id, label, getattr(c, method), shortcut)
        self._action("toggle_breakpoint", "Toggle Breakpoint", self.toggle_breakpoint_at_cursor, "F9",
                     "Toggle a breakpoint on the source line of the cursor (F9)")
        self._action("run_to_cursor", "Run to Cursor", self.run_to_cursor, "Ctrl+F10",
                     "Run forwards to the source line of the cursor (Ctrl+F10)")
        self._action("find", "Find…", lambda: self.find_bar.open_bar(), QKeySequence.Find)
        self._action("find_next", "Find Next", lambda: self.find_bar.find_next(False), QKeySequence.FindNext)
        self._action("find_previous", "Find Previous", lambda: self.find_bar.find_next(True),
                     QKeySequence.FindPrevious)
        self._action("zoom_in", "Zoom In", lambda: self.zoom(1), "Ctrl+=")
        self.actions_by_id["zoom_in"].setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self._action("zoom_out", "Zoom Out", lambda: self.zoom(-1), "Ctrl+-")
        self._action("zoom_reset", "Actual Size", lambda: self.set_font_size(DEFAULT_FONT_SIZE), "Ctrl+0")
        self._action("reset_layout", "Reset Layout", self.reset_layout)
        self._action("shortcuts", "Keyboard Shortcuts", self.show_shortcuts, "Ctrl+F1")

    def _build_toolbar(self) -> None:
        toolbar = QToolBar("Stepping")
        toolbar.setObjectName("stepping")
        self.addToolBar(toolbar)
        for action_id in ("open", "reload", "stop"):
            toolbar.addAction(self.actions_by_id[action_id])
        toolbar.addSeparator()
        for action_id, *_ in STEP_ACTIONS:
            toolbar.addAction(self.actions_by_id[action_id])
            if action_id in ("step_back", "continue"):
                toolbar.addSeparator()

    def _build_compare(self) -> None:
        """The Compare dock (the open script under real torch.compile too) and its toolbar action."""
        self.compare = CompareDock(dict(DOCKS)["compare"], self, self.controller, self.log_panel.append)
        self.addDockWidget(Qt.BottomDockWidgetArea, self.compare)
        self.tabifyDockWidget(self.dock("graph"), self.compare)
        self.dock("graph").raise_()
        self.actions_by_id["compare"] = self.compare.action
        self.findChild(QToolBar, "stepping").addAction(self.compare.action)

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
        a = self.actions_by_id
        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(a["open"])
        self.recent_menu = file_menu.addMenu("Open &Recent")
        for action_id in ("reload", "stop", "export"):
            file_menu.addAction(a[action_id])
        file_menu.addSeparator()
        file_menu.addAction(a["quit"])
        debug_menu = self.menuBar().addMenu("&Debug")
        for action_id, *_ in STEP_ACTIONS:
            debug_menu.addAction(a[action_id])
        debug_menu.addSeparator()
        debug_menu.addAction(a["toggle_breakpoint"])
        debug_menu.addAction(a["run_to_cursor"])
        view_menu = self.menuBar().addMenu("&View")
        for action_id in ("find", "find_next", "find_previous"):
            view_menu.addAction(a[action_id])
        view_menu.addSeparator()
        for action_id in ("zoom_in", "zoom_out", "zoom_reset"):
            view_menu.addAction(a[action_id])
        view_menu.addSeparator()
        self.panels_menu = view_menu.addMenu("&Panels")
        for dock in self.findChildren(QDockWidget):
            self.panels_menu.addAction(dock.toggleViewAction())
        view_menu.addAction(a["reset_layout"])
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction(a["shortcuts"])

    def dock(self, name: str) -> QDockWidget:
        """A dock by its object name: stack, locals, callstack, watch, sources, breakpoints, graph, cache,
        breaks, guard_editor, log, compare."""
        return self.findChild(QDockWidget, name)

    def _first_size(self) -> QSize:
        """1500 x 950, or less where the screen's free area is smaller (a 1280 x 800 laptop): the docks'
        tabs at the bottom stay on the screen."""
        free = self.screen().availableGeometry()
        return QSize(min(1500, int(free.width() * 0.96)), min(950, int(free.height() * 0.94)))

    def showEvent(self, event):  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._initial_docks:  # sizes only take once the window has a size of its own
            self._size_docks()
            self._initial_docks = None

    def _size_docks(self) -> None:
        """Side docks take a share of the width that leaves the source and bytecode readable; below
        COMPACT_WIDTH the sources and breakpoints join the right side's tabs (one side column only)."""
        stack, tree, graph = self._initial_docks or (self.dock("stack"), self.dock("sources"), self.dock("graph"))
        width, height = max(self.width(), 800), max(self.height(), 600)
        compact = width < COMPACT_WIDTH
        if compact:  # three tabs above (stack, sources, breakpoints), three below: every title reads whole
            for name in ("sources", "breakpoints"):
                self.tabifyDockWidget(stack, self.dock(name))
            stack.raise_()
            self.resizeDocks([stack], [int(width * 0.28)], Qt.Horizontal)
        else:
            self.resizeDocks([stack, tree], [int(width * 0.24), int(width * 0.22)], Qt.Horizontal)
        self.resizeDocks([graph], [int(height * 0.26)], Qt.Vertical)
        self.resizeDocks([stack], [int(height * (0.4 if compact else 0.28))], Qt.Vertical)
        center = width * (0.72 if compact else 0.54)
        self.splitter.setSizes([int(center * 0.6), int(center * 0.4)])

    def reset_layout(self) -> None:
        """Every dock back where it started, at its starting size."""
        self.restoreState(self._default_state)
        for dock in self.findChildren(QDockWidget):
            dock.setFloating(False)
        self._size_docks()
        for name in ("locals", "sources", "graph"):
            self.dock(name).raise_()
        if self.width() < COMPACT_WIDTH:
            self.dock("stack").raise_()

    # ---- wiring --------------------------------------------------------------------------
    def _wire(self) -> None:
        c = self.controller
        c.sig_session_loaded.connect(self.on_session_loaded)
        c.sig_session_changed.connect(self.on_session_changed)
        c.sig_timeline_changed.connect(self.on_timeline_changed)
        c.sig_position_changed.connect(self.on_position_changed)
        c.sig_breakpoints_changed.connect(self.on_breakpoints_changed)
        c.sig_log.connect(self.log_panel.append)
        c.sig_status.connect(lambda text: self.statusBar().showMessage(text, 15_000))
        c.sig_error.connect(self.on_error)
        c.sig_script_failed.connect(self.on_script_failed)
        c.sig_script_stopped.connect(self.on_script_stopped)
        c.sig_running.connect(self.on_running)
        c.sig_progress.connect(self.on_progress)
        c.sig_call_finished.connect(self.guard_editor.show_outcome)
        self.trace_combo.currentIndexChanged.connect(self._on_trace_selected)
        self._scrub = QTimer(self)  # a drag moves the slider faster than a big trace redraws: go to the latest
        self._scrub.setSingleShot(True)
        self._scrub.setInterval(0)
        self._scrub.timeout.connect(lambda: c.goto(self.slider.value()))
        self.slider.valueChanged.connect(self._scrub.start)
        self.source_view.sig_toggle_breakpoint.connect(c.toggle_line_breakpoint)
        self.source_view.sig_run_to_line.connect(c.run_to_line)
        self.source_view.sig_line_selected.connect(self._on_line_selected)
        self.bytecode_view.sig_instruction_selected.connect(self._on_instruction_selected)
        self.bytecode_view.sig_toggle_offset_breakpoint.connect(c.toggle_offset_breakpoint)
        self.bytecode_view.sig_opcode_breakpoint.connect(lambda opname: c.add_breakpoint("opcode", opname))
        self.source_tree_panel.sig_guard_selected.connect(c.goto_guard)
        self.callstack_panel.sig_frame_selected.connect(self._on_frame_selected)
        self.breaks_panel.sig_location_selected.connect(self._show_location)
        self.cache_panel.sig_entry_activated.connect(c.select_entry)
        self.graph_panel.sig_node_selected.connect(self._on_node_selected)
        self.stack_panel.sig_node_selected.connect(self.graph_panel.highlight_node)
        self.breakpoints_panel.sig_breakpoint_requested.connect(c.add_breakpoint)
        self.breakpoints_panel.sig_breakpoint_toggled.connect(c.set_breakpoint_enabled)
        self.breakpoints_panel.sig_breakpoint_removed.connect(c.remove_breakpoint)
        self.watch_panel.sig_watches_changed.connect(self._on_watches_changed)
        self.guard_editor.sig_call_requested.connect(c.call_again)
        self.guard_editor.sig_prediction.connect(lambda text: self.log_panel.append(f"what-if: {text}"))
        self.find_bar.sig_find.connect(self._on_find)

    # ---- settings --------------------------------------------------------------------------
    def _restore_settings(self) -> None:
        if self.settings.restore_layout(self):
            self._initial_docks = None  # the user's own dock sizes win over the defaults
        self.controller.restore_breakpoints(self.settings.breakpoints())
        self.watch_panel.set_expressions(self.settings.watches())
        self.set_font_size(self.settings.font_size(DEFAULT_FONT_SIZE))
        self._fill_recent_menu()

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.recent_files()
        for path in recent:
            self.recent_menu.addAction(path, lambda p=path: self.open_script(p))
        self.recent_menu.setEnabled(bool(recent))

    def closeEvent(self, event):  # noqa: N802 - Qt override
        self.controller.stop_script()
        self.compare.stop()
        self.settings.save_layout(self)
        self.settings.set_breakpoints(self.controller.breakpoint_specs())
        self.settings.set_watches(self.watch_panel.expressions)
        self.settings.set_font_size(self.font_size)
        self.settings.sync()
        super().closeEvent(event)

    # ---- files -----------------------------------------------------------------------------
    def open_script(self, path: str, wait: bool = False) -> bool:
        """Run a script under the engine; with `wait`, return once it has finished (tests, scripts)."""
        return self.controller.open_script(path, wait=wait)

    def reload_script(self) -> bool:
        return self.controller.reload_script()

    def open_dialog(self) -> None:
        start = os.path.dirname(self.controller.script_path) if self.controller.script_path else os.getcwd()
        path, _ = QFileDialog.getOpenFileName(self, "Open a script that uses torch.compile", start,
                                              "Python (*.py);;All files (*)")
        if path:
            self.open_script(path)

    def export_dialog(self) -> None:
        session = self.controller.session
        if session is None:
            self.on_error("nothing to export yet: open a script first")
            return
        start = os.path.dirname(session.path)
        out = QFileDialog.getExistingDirectory(self, "Export graphs and guard reports into folder", start)
        if not out:
            return
        try:
            result = export_session(session, out)
        except OSError as error:
            self.on_error(f"cannot export into {out}: {error.strerror or error}")
            return
        report = os.path.join(result.out_dir, "report.html")
        self.log_panel.append(f"exported {len(result.files)} files into {result.out_dir}; open {report}")
        self.statusBar().showMessage(f"exported {len(result.files)} files into {result.out_dir}", 15_000)

    # ---- messages ----------------------------------------------------------------------------
    def on_running(self, running: bool, name: str) -> None:
        self._close_dialogs()  # the last run's error (or "still running") is stale once a run starts or ends
        self.actions_by_id["stop"].setEnabled(running)
        self.actions_by_id["reload"].setEnabled(not running)
        self.run_progress.setVisible(running)
        self.run_label.setVisible(running)
        self.run_label.setText(f"running {name} …" if running else "")
        self._running_name = name

    def on_progress(self, seconds: float) -> None:
        self.run_label.setText(f"running {self._running_name} … {seconds:.0f} s")

    def on_error(self, message: str) -> None:
        """Bad input is shown, never fatal; the dialog is not modal so nothing waits on it."""
        self.log_panel.append(f"error: {message}")
        self.statusBar().showMessage(message, 15_000)
        self._dialog(QMessageBox.Warning, message)

    def on_script_failed(self, message: str, filename: str, line: int, traceback: str) -> None:
        """The script raised: say it where a person looks, and show the line in the source."""
        self.statusBar().showMessage(message, 30_000)
        self._dialog(QMessageBox.Critical, message, traceback)
        if line and filename and os.path.isfile(filename):
            self._show_location(filename, line)
            self.source_view.editor.setFocus()

    def on_script_stopped(self, message: str, filename: str, line: int) -> None:
        """Stop did what was asked: the status bar says so and the source shows where it was; no dialog."""
        self.statusBar().showMessage(message, 30_000)
        if line and filename and os.path.isfile(filename):
            self._show_location(filename, line)

    def _dialog(self, icon, message: str, details: str = "") -> None:
        if not self.isVisible():
            return
        box = QMessageBox(icon, "Standin", message, QMessageBox.Ok, self)
        box.setObjectName(MESSAGE_DIALOG)
        if details:
            box.setDetailedText(details)
        box.setAttribute(Qt.WA_DeleteOnClose)
        box.open()

    def _close_dialogs(self) -> None:
        for box in self.findChildren(QMessageBox, MESSAGE_DIALOG):
            box.close()

    def show_shortcuts(self) -> QDialog:
        """Help ▸ Keyboard Shortcuts: every action with a key, in one table."""
        dialog = QDialog(self)
        dialog.setObjectName("shortcuts")
        dialog.setWindowTitle("Keyboard shortcuts")
        rows = [(a.text().replace("&", ""), ", ".join(k.toString(QKeySequence.NativeText) for k in a.shortcuts()))
                for a in self.actions_by_id.values() if a.shortcuts()]
        table = QTableWidget(len(rows), 2, dialog)
        table.setHorizontalHeaderLabels(("Action", "Keys"))
        table.verticalHeader().setVisible(False)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        for row, (label, keys) in enumerate(rows):
            table.setItem(row, 0, QTableWidgetItem(label))
            table.setItem(row, 1, QTableWidgetItem(keys))
        buttons = QDialogButtonBox(QDialogButtonBox.Close, dialog)
        buttons.rejected.connect(dialog.close)
        layout = QVBoxLayout(dialog)
        layout.addWidget(QLabel("Gutter click: toggle a breakpoint · right-click a line: Run to cursor · "
                                "Ctrl+wheel on the graph: zoom", dialog))
        layout.addWidget(table)
        layout.addWidget(buttons)
        dialog.resize(460, 520)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.open()
        return dialog

    # ---- zoom, find, cursor actions --------------------------------------------------------------
    def zoom(self, direction: int) -> None:
        sizes = FONT_SIZES
        index = min(range(len(sizes)), key=lambda i: abs(sizes[i] - self.font_size))
        self.set_font_size(sizes[max(0, min(len(sizes) - 1, index + direction))])

    def set_font_size(self, points: float) -> None:
        """Font zoom for everything that shows code or state (Ctrl+= / Ctrl+- / Ctrl+0)."""
        self.font_size = points
        for widget in (self.source_view, self.bytecode_view, self.graph_panel, self.log_panel, self.stack_panel,
                       self.locals_panel, self.callstack_panel, self.watch_panel, self.source_tree_panel,
                       self.cache_panel, self.breaks_panel, self.breakpoints_panel):
            widget.set_font_size(points)
        self.statusBar().showMessage(f"font size {points:g} pt", 3_000)

    def _on_find(self, text: str, scope: str, backwards: bool) -> None:
        view = self.source_view if scope == SCOPE_SOURCE else self.bytecode_view
        found = view.find(text, backwards)
        self.find_bar.show_result(found)
        if not found:
            where = "source" if scope == SCOPE_SOURCE else "bytecode"
            self.statusBar().showMessage(f"{text!r} is not in the {where}", 5_000)

    def toggle_breakpoint_at_cursor(self) -> None:
        if self._shown_file:
            self.source_view.toggle_breakpoint(self.source_view.cursor_line())

    def run_to_cursor(self) -> None:
        if self._shown_file:
            self.controller.run_to_line(self._shown_file, self.source_view.cursor_line())

    # ---- sessions and positions ----------------------------------------------------------------------
    def on_session_loaded(self) -> None:
        session = self.controller.session
        self.setWindowTitle(f"Standin — {os.path.basename(session.path)}")
        self.settings.add_recent(session.path)
        self._fill_recent_menu()
        self._shown_file = self._shown_code = self._shown_tree = self._shown_graph = None
        self.guard_editor.set_session(session)
        self.on_session_changed()
        if os.path.isfile(session.path):  # the script itself until a trace says where to look
            self._show_location(session.path, None)

    def on_session_changed(self) -> None:
        """The session's functions, entries or timelines changed: refill what lists them."""
        session = self.controller.session
        self.cache_panel.show_functions(session.functions)
        self.breaks_panel.show_functions(session.functions, session.timelines)
        self.trace_combo.blockSignals(True)
        self.trace_combo.clear()
        for timeline in session.timelines:
            attempt = " (first attempt)" if timeline.ending is TraceEnd.RESTARTING else ""
            self.trace_combo.addItem(f"{timeline.frame} [{timeline.compile_id}]{attempt} — "
                                     f"{len(timeline)} steps — {timeline.outcome[:60]}")
        self.trace_combo.blockSignals(False)

    def _on_trace_selected(self, index: int) -> None:
        if index >= 0:
            self.controller.select_timeline(index)

    def on_timeline_changed(self, timeline) -> None:
        self._shown_code = None
        if timeline is None:  # a session with nothing traced: nothing of the last one stays on screen
            self._clear_position()
            return
        index = self.controller.timelines.index(timeline)
        if self.trace_combo.currentIndex() != index:
            self.trace_combo.blockSignals(True)
            self.trace_combo.setCurrentIndex(index)
            self.trace_combo.blockSignals(False)
        self.slider.blockSignals(True)
        self.slider.setMaximum(max(0, len(timeline) - 1))
        self.slider.blockSignals(False)

    def _clear_position(self) -> None:
        self.slider.blockSignals(True)
        self.slider.setMaximum(0)
        self.slider.blockSignals(False)
        self.step_label.setText("no trace")
        name = os.path.basename(self.controller.script_path or "")
        self.where_label.setText(f"{name}: no torch.compile call was traced — nothing to step through")
        self.bytecode_view.clear()
        self.source_view.clear_current()
        for panel in (self.stack_panel, self.locals_panel):
            panel.clear()
        self.callstack_panel.show_frames(())
        self.source_tree_panel.show_guards([])
        self.graph_panel.clear()
        self.watch_panel.show_results([])

    def on_position_changed(self, snapshot, previous) -> None:
        timeline = self.controller.timeline
        frame = snapshot.frame
        self.slider.blockSignals(True)
        self.slider.setValue(snapshot.step)
        self.slider.blockSignals(False)
        self.step_label.setText(f"step {snapshot.step + 1} / {len(timeline)}")
        where = f"{frame.function} — line {frame.line}, offset {frame.offset}: {frame.opname} {frame.argrepr}"
        if snapshot.event:
            where += f"   ⚠ {snapshot.event.splitlines()[0]}"
        self.where_label.setText(where)
        if frame.filename != self._shown_file and os.path.isfile(frame.filename):
            self._show_file(frame.filename)
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
        self._show_growing_panels(snapshot, previous, timeline)
        self._show_step_state()

    def _show_growing_panels(self, snapshot, previous, timeline) -> None:
        """The two panels that grow with the trace are rebuilt only when they grew (a step costs little)."""
        frame = snapshot.frame
        seen_sources = tuple(view.source for view in frame.stack if view.source) + \
            tuple(view.source for _, view in frame.locals if view.source)
        guards = self.controller.guards_through_current()
        tree_key = (id(timeline), len(guards), snapshot.guard_count, seen_sources)
        if tree_key != self._shown_tree:  # yellow: what the current instruction installs
            self.source_tree_panel.show_guards(guards, len(guards) - snapshot.guard_count, seen_sources)
            self._shown_tree = tree_key
        graph_key = (id(timeline), snapshot.node_count)
        if graph_key != self._shown_graph:
            nodes = timeline.nodes_at(snapshot.step)
            previous_nodes = previous.node_count if previous is not None else 0
            self.graph_panel.show_nodes(nodes, max(0, len(nodes) - previous_nodes))
            self._shown_graph = graph_key

    def _show_step_state(self) -> None:
        """The watches and the hover texts read the same step."""
        context = self.controller.watch_context()
        if context is None:
            return
        texts = context.hover_texts()
        self.source_view.set_hover_texts(texts)
        self.bytecode_view.set_hover_texts(texts)
        self.watch_panel.show_results([context.evaluate(e) for e in self.watch_panel.expressions])

    def _on_watches_changed(self, expressions) -> None:
        self.settings.set_watches(expressions)
        context = self.controller.watch_context()
        self.watch_panel.show_results([context.evaluate(e) for e in expressions] if context else [])

    def on_breakpoints_changed(self, breakpoints) -> None:
        self.breakpoints_panel.show_breakpoints(breakpoints)
        self.settings.set_breakpoints(self.controller.breakpoint_specs())
        if self._shown_file:
            self.source_view.set_breakpoints(self.controller.line_breakpoints(self._shown_file))
        snapshot = self.controller.snapshot
        if snapshot is not None:
            self.bytecode_view.set_breakpoint_offsets(self.controller.offset_breakpoints(snapshot.frame.function))

    # ---- links between the views (Compiler Explorer style) ---------------------------------------------
    def _on_line_selected(self, filename: str, line: int) -> None:
        self.bytecode_view.highlight_line(line)
        self.graph_panel.highlight_nodes(self.controller.nodes_of_line(filename, line))

    def _on_instruction_selected(self, code_key, offset, line, col_start, col_end) -> None:
        if line and line > 0:
            self.source_view.highlight_lines({line})
        timeline = self.controller.timeline
        if timeline is not None:
            steps = [s.step for s in timeline.snapshots if s.frame.code_key == code_key and s.frame.offset == offset]
            self.graph_panel.highlight_nodes([n for step in steps for n in self.controller.nodes_made_at(step)])

    def _on_node_selected(self, name: str) -> None:
        """A graph node lights up the line and the instruction that made it."""
        step = self.controller.step_of_node(name)
        if step is None:
            return
        frame = self.controller.timeline.snapshots[step].frame
        if frame.filename != self._shown_file and os.path.isfile(frame.filename):
            self._show_file(frame.filename)
        self.source_view.highlight_lines({frame.line})
        if self.bytecode_view.code() is not None and id(self.bytecode_view.code()) == frame.code_key:
            self.bytecode_view.highlight_offsets([frame.offset])
        self.statusBar().showMessage(f"{name} was made by {frame.opname} {frame.argrepr} at line {frame.line} "
                                     f"of {frame.function} (step {step + 1})", 10_000)

    def _on_frame_selected(self, depth: int) -> None:
        snapshot = self.controller.snapshot
        if snapshot is None or depth >= len(snapshot.frames):
            return
        frame = snapshot.frames[depth]
        self._show_location(frame.filename, frame.line)

    def _show_file(self, filename: str) -> None:
        self.source_view.show_file(filename)
        self._shown_file = filename
        self.source_view.set_breakpoints(self.controller.line_breakpoints(filename))

    def _show_location(self, filename: str, line: int | None) -> None:
        if filename and os.path.isfile(filename):
            if filename != self._shown_file:
                self._show_file(filename)
            if line:
                self.source_view.highlight_lines({line})


def run_gui(script: str | None = None, argv=None) -> int:
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("Standin")
    window = MainWindow()
    window.show()
    window.open_script(script or DEFAULT_SCRIPT)
    return app.exec()
