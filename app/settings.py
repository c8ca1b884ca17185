"""What the window remembers between runs: layout, recent scripts, breakpoints, watches, font size.

A thin typed face over QSettings (an INI file in the user's config folder on
Linux), so the rest of the app never spells a settings key.
"""
from __future__ import annotations

import json
import os

from PySide6.QtCore import QByteArray, QSettings

MAX_RECENT = 8


class Settings:
    def __init__(self, store: QSettings | None = None):
        self.store = store if store is not None else QSettings("Standin", "Standin")

    @classmethod
    def in_file(cls, path: str) -> "Settings":
        """Settings kept in one INI file: for scripted runs (screenshots, benchmarks) that must not
        read or change the user's own."""
        return cls(QSettings(path, QSettings.IniFormat))

    # ---- window layout --------------------------------------------------------------------
    def save_layout(self, window) -> None:
        self.store.setValue("window/geometry", window.saveGeometry())
        self.store.setValue("window/state", window.saveState())

    def restore_layout(self, window) -> bool:
        geometry, state = self.store.value("window/geometry"), self.store.value("window/state")
        if not isinstance(geometry, QByteArray) or not isinstance(state, QByteArray):
            return False
        return window.restoreGeometry(geometry) and window.restoreState(state)

    # ---- recent scripts ---------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        """Most recent first; scripts that no longer exist are dropped."""
        paths = self._json("recent/files", [])
        return [p for p in paths if isinstance(p, str) and os.path.isfile(p)][:MAX_RECENT]

    def add_recent(self, path: str) -> None:
        path = os.path.abspath(path)
        paths = [path] + [p for p in self.recent_files() if p != path]
        self.store.setValue("recent/files", json.dumps(paths[:MAX_RECENT]))

    # ---- breakpoints ------------------------------------------------------------------------
    def breakpoints(self) -> list[tuple[str, str, bool]]:
        """(kind, text, enabled) as the breakpoints panel would create them."""
        specs = self._json("breakpoints/list", [])
        return [(k, t, bool(e)) for k, t, e in (s for s in specs if isinstance(s, list) and len(s) == 3)
                if isinstance(k, str) and isinstance(t, str)]

    def set_breakpoints(self, specs: list[tuple[str, str, bool]]) -> None:
        self.store.setValue("breakpoints/list", json.dumps([list(s) for s in specs]))

    # ---- watches and font size -------------------------------------------------------------------
    def watches(self) -> list[str]:
        return [w for w in self._json("watch/expressions", []) if isinstance(w, str)]

    def set_watches(self, expressions) -> None:
        self.store.setValue("watch/expressions", json.dumps(list(expressions)))

    def font_size(self, default: float) -> float:
        size = self._json("view/font_size", default)
        return float(size) if isinstance(size, (int, float)) and 6 <= size <= 40 else default

    def set_font_size(self, points: float) -> None:
        self.store.setValue("view/font_size", json.dumps(points))

    def sync(self) -> None:
        self.store.sync()

    def _json(self, key: str, default):
        """A JSON value, or the default when the file was edited into something unreadable."""
        try:
            value = json.loads(self.store.value(key, "null"))
        except (TypeError, ValueError):
            return default
        return default if value is None else value
