"""Sessions over scripts that misbehave: each gives a clear message, never a hang or a lost recording."""
import textwrap
import time

import pytest

import tracer
from tracer.debug import Session

COMPILES = """
import torch

@torch.compile
def f(x):
    return x * 2 + 1

f(torch.ones(3))
print("compiled once")
"""


def script(tmp_path, body: str, name: str = "user_script.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


def test_a_syntax_error_is_reported_with_its_line(tmp_path):
    session = Session(script(tmp_path, "def broken(:\n    pass\n")).run()
    assert session.error.startswith("SyntaxError") and "line 1" in session.error
    assert session.functions == [] and session.timelines == []


@pytest.mark.parametrize("where", ["before", "during", "after"])
def test_a_script_that_raises_keeps_what_ran_before(tmp_path, where):
    body = COMPILES.replace("f(torch.ones(3))", {
        "before": "raise RuntimeError('boom before')\nf(torch.ones(3))",
        "during": "f(torch.ones(3))\nf('not a tensor')",
        "after": "f(torch.ones(3))\nraise RuntimeError('boom after')",
    }[where])
    session = Session(script(tmp_path, body)).run()
    assert session.error is not None
    if where == "before":
        assert "boom before" in session.error and session.timelines == []
    else:
        assert session.timelines and session.functions[0].cache_entries  # the first call's trace is kept
        assert ("boom after" in session.error) if where == "after" else session.error.startswith("TypeError")


def test_a_script_that_never_compiles_is_not_an_error(tmp_path):
    session = Session(script(tmp_path, "print('plain python')\n")).run()
    assert session.error is None and session.functions == [] and "plain python" in session.stdout


def test_an_endless_plain_python_loop_can_be_stopped_and_keeps_the_recording(tmp_path):
    body = COMPILES + textwrap.dedent("""
        while True:  # even a script that swallows every Exception stops
            try:
                pass
            except Exception:
                pass
    """)
    session = Session(script(tmp_path, body)).start()
    assert not session.wait(0.5) and session.running
    assert "compiled once" in session.stdout  # output so far is readable while it runs
    assert session.stop()
    assert session.wait(10), "the stopped script did not unwind"
    assert session.error.startswith("ScriptStopped: stopped by the user")
    assert session.error == f"ScriptStopped: {session.stopped}"  # a stop, said as one (the window shows no error)
    assert session.timelines and session.functions[0].cache_entries
    assert not session.stop()  # stopping twice is harmless


def test_run_with_a_timeout_stops_an_endless_script(tmp_path):
    # the run returns because the timeout stopped the script (no wall-clock bound: machines are noisy)
    session = Session(script(tmp_path, "while True:\n    pass\n")).run(timeout=0.5)
    assert not session.running and "stopped at the 0.5 s timeout after" in session.error


def test_stopping_inside_a_long_trace_marks_that_trace_stopped(tmp_path):
    body = """
        import torch

        @torch.compile
        def spin(x):
            acc = 0
            for i in range(1_000_000):  # traced instruction by instruction: many seconds
                acc = (acc + i) % 7
            return x + acc

        spin(torch.ones(2))
    """
    session = Session(script(tmp_path, body)).start()
    deadline = time.monotonic() + 30
    while not (session.timelines and len(session.timelines[0].snapshots) > 100) and time.monotonic() < deadline:
        time.sleep(0.05)
    session.stop()
    assert session.wait(10)
    assert session.error.startswith("ScriptStopped")
    (timeline,) = session.timelines
    assert timeline.outcome == "stopped (ScriptStopped)" and len(timeline.snapshots) > 100


def test_an_endless_traced_loop_stops_at_the_instruction_budget(tmp_path, monkeypatch):
    from tracer import symbolic_convert
    monkeypatch.setattr(symbolic_convert, "INSTRUCTION_BUDGET", 5_000)
    body = """
        import torch

        @torch.compile(fullgraph=True)
        def spins(x, n):
            while n > 0:
                n = n + 1
            return x + 1

        spins(torch.ones(2), 1)
    """
    session = Session(script(tmp_path, body)).run()
    assert session.error.startswith("Unsupported") and "5,000 instructions without returning" in session.error
    assert session.timelines[-1].outcome.startswith("error")


def test_a_session_runs_its_script_once(tmp_path):
    session = Session(script(tmp_path, "x = 1\n")).start()
    assert session.wait(30) and session.error is None
    with pytest.raises(tracer.UserError, match="already run"):
        session.start()


def test_ctrl_c_while_a_run_waits_stops_the_script_and_waits_only_the_grace_for_it(tmp_path):
    import os
    import signal
    import threading

    session = Session(script(tmp_path, "import time\ntime.sleep(5)  # one C call: a stop lands after it\nprint('late')\n"))
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()  # Ctrl+C, in the main thread
    session.run(timeout=60)
    assert session.running, "the run waited for the script instead of the stop's grace (2 s)"
    assert session.wait(30)
    assert session.error.startswith("ScriptStopped: stopped by the user after ") and session.stdout == ""
