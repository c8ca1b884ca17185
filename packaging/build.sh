#!/usr/bin/env bash
# Build a one-folder Standin app with PyInstaller: dist/standin/standin (+ desktop integration files).
# Called by `make dist`. Uses the project's .venv; installs PyInstaller there if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-.venv/bin/python}
if [ ! -x "$PY" ]; then
    echo "build.sh: $PY not found; run 'make test' or 'make run' first to create .venv" >&2
    exit 2
fi
if ! "$PY" -m PyInstaller --version >/dev/null 2>&1; then
    echo "build.sh: installing PyInstaller into .venv" >&2
    "$PY" -m pip install --quiet --disable-pip-version-check "pyinstaller>=6.3"
fi
if [ ! -f resources/icons/standin-256.png ]; then
    "$PY" packaging/render_icon.py 256 >/dev/null
fi

"$PY" -m PyInstaller --noconfirm --clean \
    --distpath dist --workpath build/pyinstaller \
    packaging/standin.spec

# freedesktop integration next to the app, laid out as under a prefix (share/...)
SHARE=dist/standin/share
install -Dm644 packaging/standin.desktop "$SHARE/applications/standin.desktop"
install -Dm644 packaging/io.github.standin.Standin.metainfo.xml "$SHARE/metainfo/io.github.standin.Standin.metainfo.xml"
install -Dm644 resources/icons/standin.svg "$SHARE/icons/hicolor/scalable/apps/standin.svg"
install -Dm644 resources/icons/standin-256.png "$SHARE/icons/hicolor/256x256/apps/standin.png"

if command -v desktop-file-validate >/dev/null; then desktop-file-validate "$SHARE/applications/standin.desktop"; fi
if command -v appstreamcli >/dev/null; then appstreamcli validate --no-net "$SHARE/metainfo/io.github.standin.Standin.metainfo.xml"; fi

echo "build.sh: built dist/standin/ (run dist/standin/standin --help)"
