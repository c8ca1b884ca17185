"""The Qt binding itself: a release that loses references to None would crash the app mid-session."""
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QWidget


def test_qt_calls_that_return_nothing_keep_none_alive(qtbot):
    """PySide6 6.12.0 takes a reference from None on each such call (see constraints.txt)."""
    widget = QWidget()
    qtbot.addWidget(widget)
    before = sys.getrefcount(None)
    for _ in range(2000):
        widget.update()
    assert sys.getrefcount(None) > before - 1000, "this PySide6 release frees None: pin another one"
