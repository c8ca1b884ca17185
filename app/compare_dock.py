"""The Compare dock: the panel, the controller that runs the comparison, and the toolbar action.

Kept apart from the main window so that the window only places the dock and
the action: the comparison of the open script, its Stop, and the jump from a
Standin-only break to its instruction in the trace are wired here.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget

from .compare_controller import CompareController
from .models.compare_model import find_break_step
from .widgets.compare_panel import ComparePanel

READABLE_SHARE = 0.45  # of the window's height, once a comparison is asked for


class CompareDock(QDockWidget):
    def __init__(self, title: str, window, debugger, log):
        """`debugger`: the window's DebugController (its session, timelines, goto); `log(text)`: the log panel."""
        super().__init__(title, window)
        self.setObjectName("compare")
        self.window_ = window
        self.debugger, self.log = debugger, log
        self.controller = CompareController(self)
        self.panel = ComparePanel()
        self.setWidget(self.panel)
        self.action = QAction("Compare", window)
        self.action.setObjectName("compare")
        self.action.setToolTip("Run the open script under real torch.compile too and compare, frame by frame")
        self.action.triggered.connect(lambda: self.compare_open_script())
        c, panel = self.controller, self.panel
        panel.sig_compare_requested.connect(self.compare_open_script)
        panel.sig_stop_requested.connect(c.stop)
        panel.sig_break_selected.connect(self.open_break)
        c.sig_running.connect(panel.set_running)
        c.sig_running.connect(lambda running, _: self.action.setEnabled(not running))
        c.sig_progress.connect(panel.set_progress)
        c.sig_finished.connect(panel.show_comparison)
        c.sig_error.connect(panel.set_message)
        c.sig_log.connect(log)

    def compare_open_script(self, wait: bool = False) -> bool:
        """Compare the open script (with its arguments) under both engines, in the background."""
        session = self.debugger.session
        self.show()
        self.raise_()
        self._make_readable()
        return self.controller.start(session.path if session else None, session.argv if session else None,
                                     wait=wait is True)

    def _make_readable(self) -> None:
        """Asked for a comparison, the dock takes READABLE_SHARE of the window's height (unless the user made
        it taller or floated it): at the bottom docks' usual quarter, a table and two sides do not fit."""
        wanted = int(self.window_.height() * READABLE_SHARE)
        if not self.isFloating() and self.height() < wanted:
            self.window_.resizeDocks([self], [wanted], Qt.Vertical)

    def stop(self) -> None:
        self.controller.stop()

    def open_break(self, row) -> None:
        """A break only Standin makes: open the trace of that compile at the breaking instruction."""
        comparison, session = self.panel.comparison, self.debugger.session
        if comparison is None or session is None or comparison.standin.script != session.path:
            self.log("the comparison is of another script: open it to step to its breaks")
            return
        found = find_break_step(self.debugger.timelines, row.frame, row.compile_id, row.function, row.offset)
        if found is None:
            self.log(f"no recorded trace of {row.frame} [{row.compile_id}] reaches offset {row.offset} of {row.function}")
            return
        index, step = found
        self.debugger.select_timeline(index)
        self.debugger.goto(step)
