"""Settings survive bad files: an edited or stale settings file never stops the app from starting."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings

from app.main_window import MainWindow
from app.settings import MAX_RECENT, Settings


def settings_in(tmp_path) -> Settings:
    return Settings(QSettings(str(tmp_path / "standin.ini"), QSettings.IniFormat))


def test_recent_files_are_most_recent_first_unique_and_existing(tmp_path):
    settings = settings_in(tmp_path)
    paths = []
    for i in range(MAX_RECENT + 2):
        path = tmp_path / f"s{i}.py"
        path.write_text("")
        paths.append(str(path))
        settings.add_recent(str(path))
    settings.add_recent(paths[-3])
    recent = settings.recent_files()
    assert recent[0] == paths[-3] and len(recent) == MAX_RECENT and len(set(recent)) == MAX_RECENT
    os.remove(paths[-1])
    assert paths[-1] not in settings.recent_files()


def test_garbage_in_the_settings_file_gives_defaults(tmp_path, qtbot):
    store = QSettings(str(tmp_path / "standin.ini"), QSettings.IniFormat)
    store.setValue("recent/files", "{not json")
    store.setValue("breakpoints/list", '[["opcode", "CALL", true], "junk", [1, 2, 3], ["line", "nowhere", true]]')
    store.setValue("window/geometry", "not bytes")
    settings = Settings(store)
    assert settings.recent_files() == []
    assert settings.breakpoints() == [("opcode", "CALL", True), ("line", "nowhere", True)]
    window = MainWindow(settings=settings)  # the unparsable line breakpoint is dropped with a note
    qtbot.addWidget(window)
    assert window.controller.breakpoint_specs() == [("opcode", "CALL", True)]
    assert "a saved breakpoint was dropped" in window.log_panel.contents()
