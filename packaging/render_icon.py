"""Render resources/icons/standin.svg to a PNG with Qt (QtSvg ships in PySide6-Essentials).

    python packaging/render_icon.py [SIZE]     # writes resources/icons/standin-SIZE.png (default 256)
"""
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "resources", "icons")


def render(size: int = 256) -> str:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (keeps Qt alive)
    renderer = QSvgRenderer(os.path.join(ICONS, "standin.svg"))
    if not renderer.isValid():
        raise SystemExit("standin.svg did not parse")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    path = os.path.join(ICONS, f"standin-{size}.png")
    if not image.save(path):
        raise SystemExit(f"could not write {path}")
    return path


if __name__ == "__main__":
    print(render(int(sys.argv[1]) if len(sys.argv) > 1 else 256))
