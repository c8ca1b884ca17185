"""Regenerate the README's screenshots: the main window at several points of the bundled tour.

    .venv/bin/python packaging/screenshots.py [OUT_DIR]     (default: docs/)

The last picture is the Compare dock on the tour (it runs the tour under torch.compile too).

Runs offscreen; each picture is the window as a user would see it at that step, at the two
sizes people have (1600×1000 and a laptop's 1280×800, the latter named `*-1280.png`).
"""
from __future__ import annotations

import os
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from app.main_window import DEFAULT_SCRIPT, MainWindow  # noqa: E402
from app.settings import Settings  # noqa: E402


def first_step(timeline, predicate) -> int:
    return next(s.step for s in timeline.snapshots if predicate(s))


SIZES = ((1600, 1000, ""), (1280, 800, "-1280"))


def main(out_dir: str) -> list[str]:
    os.makedirs(out_dir, exist_ok=True)
    app = QApplication.instance() or QApplication([])
    shots = []
    for width, height, suffix in SIZES:
        shots += _shoot_tour(app, out_dir, width, height, suffix)
    shots.append(_shoot_compare(app, out_dir))
    return shots


def _shoot_compare(app, out_dir: str) -> str:
    """5. the Compare dock on the tour: the first frame that differs from torch.compile, side by side."""
    window = MainWindow(settings=Settings.in_file(os.path.join(tempfile.mkdtemp(), "settings.ini")))
    window.resize(1600, 1000)
    window.show()
    window.open_script(DEFAULT_SCRIPT, wait=True)
    window.compare.compare_open_script(wait=True)
    window.resizeDocks([window.compare], [600], Qt.Vertical)  # as a user drags the dock up to read it
    app.processEvents()
    path = os.path.join(out_dir, "05-compare.png")
    window.grab().save(path)
    window.close()
    return path


def _shoot_tour(app, out_dir: str, width: int, height: int, suffix: str) -> list[str]:
    # fresh settings: the pictures show the default layout, not whatever the user last arranged
    window = MainWindow(settings=Settings.in_file(os.path.join(tempfile.mkdtemp(), "settings.ini")))
    window.resize(width, height)
    window.show()
    window.open_script(DEFAULT_SCRIPT, wait=True)
    c = window.controller
    timeline = c.timeline
    shots = []

    def shoot(name: str) -> None:
        app.processEvents()
        path = os.path.join(out_dir, name.replace(".png", f"{suffix}.png"))
        window.grab().save(path)
        shots.append(path)

    # 1. inside the inlined helper: the global config read becomes a constant; a watch on it
    window.watch_panel.set_expressions(["x.shape", "cfg.eps"])
    window.dock("watch").raise_()
    c.goto(first_step(timeline, lambda s: s.frame.function == "normalize" and s.frame.opname == "BINARY_OP"))
    c.step_into()
    shoot("01-inlined-helper.png")
    # 2. inside the nn.Module's forward: the baked-in cfg.scale, its guards and the growing graph
    window.dock("sources").raise_()
    window.dock("locals").raise_()
    c.goto(first_step(timeline, lambda s: s.frame.function == "forward" and s.frame.opname == "BINARY_OP"))
    c.step_into()
    window.dock("graph").raise_()
    window.graph_panel.tabs.setCurrentIndex(1)
    shoot("02-module-forward.png")
    # 3. the graph break: the cache panel, each entry saying why it recompiled
    c.goto(len(timeline) - 1)
    window.dock("cache").raise_()
    shoot("03-graph-break.png")
    # 4. the guard editor after changing cfg.scale and calling again
    editor = window.guard_editor
    editor.set_expression("cfg.scale", "5")
    editor.call_again()
    c.wait_for(editor.sig_called, lambda: False)
    window.dock("guard_editor").raise_()
    window.resizeDocks([window.dock("guard_editor")], [int(height * 0.55)], Qt.Vertical)  # as a user drags it up
    shoot("04-guard-editor.png")
    editor.undo_all()
    window.close()
    return shots


if __name__ == "__main__":
    for written in main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs")):
        print(written)
