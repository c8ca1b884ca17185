"""Regenerate the README's screenshots: the main window at several points of the bundled tour.

    .venv/bin/python packaging/screenshots.py [OUT_DIR]     (default: docs/)

Runs offscreen; each picture is the window as a user would see it at that step.
"""
from __future__ import annotations

import os
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from app.main_window import DEFAULT_SCRIPT, MainWindow  # noqa: E402
from app.settings import Settings  # noqa: E402


def first_step(timeline, predicate) -> int:
    return next(s.step for s in timeline.snapshots if predicate(s))


def main(out_dir: str) -> list[str]:
    os.makedirs(out_dir, exist_ok=True)
    app = QApplication.instance() or QApplication([])
    # fresh settings: the pictures show the default layout, not whatever the user last arranged
    window = MainWindow(settings=Settings.in_file(os.path.join(tempfile.mkdtemp(), "settings.ini")))
    window.resize(1600, 1000)
    window.show()
    window.open_script(DEFAULT_SCRIPT, wait=True)
    c = window.controller
    timeline = c.timeline
    shots = []

    def shoot(name: str) -> None:
        app.processEvents()
        path = os.path.join(out_dir, name)
        window.grab().save(path)
        shots.append(path)

    # 1. inside the inlined helper: the global config read becomes a constant
    c.goto(first_step(timeline, lambda s: s.frame.function == "normalize" and s.frame.opname == "BINARY_OP"))
    c.step_into()
    shoot("01-inlined-helper.png")
    # 2. inside the nn.Module's forward: the baked-in cfg.scale and the growing graph
    c.goto(first_step(timeline, lambda s: s.frame.function == "forward" and s.frame.opname == "BINARY_OP"))
    c.step_into()
    shoot("02-module-forward.png")
    # 3. the graph break: the cache panel and the break's reason
    c.goto(len(timeline) - 1)
    window.dock("breaks").raise_()
    shoot("03-graph-break.png")
    # 4. the guard editor after changing cfg.scale and calling again
    window.guard_editor.set_expression("cfg.scale", "5")
    window.guard_editor.call_again()
    window.dock("guard_editor").raise_()
    shoot("04-guard-editor.png")
    window.guard_editor.undo_all()
    return shots


if __name__ == "__main__":
    for written in main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs")):
        print(written)
