"""CompareController: runs `tracer.compare` on the open script in the background and announces it.

The comparison runs in two child processes (tracer.compare.runner): the window
stays live, a poll reports the running time, and Stop ends both children.
Widgets never hold the run; they show what this controller emits.
"""
from __future__ import annotations

import os

from PySide6.QtCore import QEventLoop, QObject, QTimer, Signal

from tracer.compare import CompareRun

POLL_MS = 100


class CompareController(QObject):
    sig_running = Signal(bool, str)  # a comparison started (True, the script's name) or ended (False, "")
    sig_progress = Signal(float)  # seconds it has run
    sig_finished = Signal(object)  # the Comparison
    sig_error = Signal(str)
    sig_log = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.run: CompareRun | None = None
        self.comparison = None
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._check)

    @property
    def running(self) -> bool:
        return self.run is not None

    def start(self, script: str | None, argv: list[str] | None = None, wait: bool = False) -> bool:
        """Compare `script` (with its arguments) under Standin and torch.compile; with `wait`, block till done."""
        if self.run is not None:
            self.sig_error.emit("a comparison is already running: stop it first")
            return False
        if not script or not os.path.isfile(script):
            self.sig_error.emit("open a script first: the comparison runs the open script under both engines")
            return False
        self.sig_log.emit(f"comparing {script} under Standin and under torch.compile (two child processes) ...")
        self.run = CompareRun(script, argv).start()
        self.sig_running.emit(True, os.path.basename(script))
        self._poll.start()
        if wait:
            loop = QEventLoop()

            def quit_when_done(running: bool, _name: str) -> None:
                if not running:
                    loop.quit()

            self.sig_running.connect(quit_when_done)
            if self.run is not None:
                loop.exec()
            self.sig_running.disconnect(quit_when_done)
        return True

    def stop(self) -> None:
        if self.run is not None and self.run.running:
            self.sig_log.emit("stopping the comparison ...")
            self.run.stop("by the user")

    def _check(self) -> None:
        run = self.run
        if run is None:
            self._poll.stop()
            return
        if run.running:
            self.sig_progress.emit(run.elapsed)
            return
        self._poll.stop()
        self.run = None
        try:
            self.comparison = run.result()
        except (KeyError, RuntimeError) as error:  # a side left no record at all
            self.sig_running.emit(False, "")
            self.sig_error.emit(f"the comparison failed: {error}")
            return
        self.sig_log.emit("comparison: " + ("they agree" if self.comparison.agree else "they differ"))
        self.sig_running.emit(False, "")
        self.sig_finished.emit(self.comparison)
