"""The HTML report in a real browser: headless Chromium renders it offline with every section.

CI installs Chromium (`apt-get install -y chromium`); when it is missing this
test fails and says so, rather than skipping quietly.
"""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from tracer.debug import Session
from tracer.export import export_session

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
SCRIPT = '''\
import torch

BANNER = "<script>document.title = 'pwned'</script>"


@torch.compile(backend="eager")
def g(x):
    y = torch.sin(x) + 1
    print("break here", BANNER)
    return y.cos() * 2


print(g(torch.ones(3)))
'''
SECTIONS = ("summary", "source", "graph-breaks", "recompiles", "frames", "stdout")


def chromium() -> str:
    override = os.environ.get("STANDIN_CHROMIUM")
    for path in ((override,) if override else ()) + CHROMIUM_CANDIDATES:
        if path and os.access(path, os.X_OK):
            return path
    found = shutil.which("chromium")
    if found:
        return found
    pytest.fail("Chromium is required for the HTML report browser test and was not found at "
                f"{', '.join(CHROMIUM_CANDIDATES)}. Install it: apt-get install -y chromium "
                "(or set STANDIN_CHROMIUM to a Chromium/Chrome binary).")


def run_browser(tmp_path, *args) -> subprocess.CompletedProcess:
    command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={tmp_path / 'profile'}", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


@pytest.fixture(scope="module")
def report_page(tmp_path_factory) -> pathlib.Path:
    base = tmp_path_factory.mktemp("browser")
    script = base / "breaks.py"
    script.write_text(SCRIPT)
    session = Session(str(script)).run()
    assert session.error is None, session.error
    export_session(session, str(base / "out"))
    return base / "out" / "report.html"


def test_report_renders_every_section_in_chromium(report_page, tmp_path):
    dom = run_browser(tmp_path, "--dump-dom", report_page.as_uri()).stdout
    for section in SECTIONS:
        assert re.search(rf'<section id="{section}"', dom), f"section {section} missing from the rendered DOM"
    assert "<title>Standin report — breaks.py</title>" in dom  # the user's <script> never ran
    assert "&lt;script&gt;document.title = 'pwned'&lt;/script&gt;" in dom
    assert "<script" not in dom.lower()
    assert dom.count('class="node"') >= 8  # two graphs drawn inline as SVG
    assert "print() has a side effect outside the graph" in dom


def test_report_screenshot(report_page, tmp_path):
    shot = tmp_path / "report.png"
    run_browser(tmp_path, "--hide-scrollbars", "--window-size=1280,1600", f"--screenshot={shot}",
                report_page.as_uri())
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
