"""The window on a real X server: `standin SCRIPT` under Xvfb and a window manager, driven by xdotool.

The widget tests run offscreen, where Qt never loads its xcb plugin and no window manager hands
out focus; a missing system library or a slot that raises only shows here. The test presses the
keys a person presses (step, step back, continue, a breakpoint, zoom, find, restart) and fails
on any Python traceback on stderr or an abnormal exit.
`make test` installs Xvfb, xdotool and openbox (`make screen`).
"""
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = os.path.join(ROOT, "resources", "examples", "seed_example.py")
KEYS = ["F11", "F11", "F11", "F10", "ctrl+shift+F10", "shift+F10", "F5", "F9", "F5", "ctrl+equal", "ctrl+minus",
        "ctrl+f", "Escape", "ctrl+shift+r", "ctrl+shift+F5"]


def _start_xvfb() -> tuple[subprocess.Popen, str]:
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    assert number, "Xvfb did not report a display"
    return server, f":{number}"


def _xdotool(display: str, *args, timeout: float = 30) -> str:
    done = subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": display}, capture_output=True,
                          text=True, timeout=timeout)
    return done.stdout.strip()


def test_standin_on_a_real_screen_takes_keys_without_a_traceback(tmp_path):
    for tool in ("Xvfb", "xdotool", "openbox"):
        assert shutil.which(tool), f"{tool} is missing: `make screen` installs it"
    server, display = _start_xvfb()
    env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb", "PYTHONPATH": ROOT,
           "XDG_CONFIG_HOME": str(tmp_path), "HOME": str(tmp_path)}  # settings of its own, not the user's
    manager = subprocess.Popen(["openbox"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    app = subprocess.Popen([sys.executable, "-m", "app", SEED], env=env, cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline, window = time.monotonic() + 120, ""
        while not window and time.monotonic() < deadline and app.poll() is None:
            window = _xdotool(display, "search", "--name", "Standin — seed_example.py").split("\n")[0]
            time.sleep(0.5)
        assert window, f"no window appeared (exit {app.poll()})"
        _xdotool(display, "windowactivate", "--sync", window)
        for key in KEYS:
            _xdotool(display, "key", "--window", window, "--clearmodifiers", key)
            time.sleep(0.15)
        time.sleep(1.0)
        assert app.poll() is None, "the window went away while taking keys"
        _xdotool(display, "key", "--window", window, "ctrl+q")
        out, err = app.communicate(timeout=60)
    finally:
        if app.poll() is None:
            app.kill()
            app.communicate()
        manager.terminate()
        server.terminate()
        manager.wait(10)
        server.wait(10)
    assert "Traceback" not in err, err
    assert app.returncode == 0, f"exit status {app.returncode}\n{err}"
