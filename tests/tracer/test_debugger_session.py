"""A session's promises to the app's panels: how a call again reads, where a script failed (file, line and
only the script's frames), the compiled functions found by name, the guarded globals, predictions with new
shapes, and the running state of a script that has not started or has finished."""
import os
import sys
import textwrap

import pytest

import tracer
from tracer.debug import CallOutcome, ScriptError, Session

TWO_FUNCTIONS = """
import torch

class Config:
    def __init__(self):
        self.scale = 2
        self.bias = 1

cfg = Config()

class Holder:
    @torch.compile
    def method(self, x):
        return x + cfg.bias

@torch.compile
def scaled(x):
    return x * cfg.scale + cfg.bias * cfg.scale

def raises(x):
    if x.shape[0] > 100:
        raise ValueError("too big")
    return x

@torch.compile
def checked(x):
    return raises(x) - 1

scaled(torch.ones(3))
Holder().method(torch.ones(2))
checked(torch.ones(2))
print("ran")
"""


def script(tmp_path, body: str, name: str = "user_script.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


@pytest.fixture
def session(tmp_path):
    tracer.reset()
    return Session(script(tmp_path, TWO_FUNCTIONS)).run()


def test_a_call_again_says_hit_recompile_or_raise_in_words():
    assert str(CallOutcome("f", hit="0/0")) == "f: cache hit on [0/0]"
    assert str(CallOutcome("f", compiled=True, events=["a", "b"])) == "f: recompiled — a; b"
    assert str(CallOutcome("f", compiled=True, error="ValueError: x")) == "f: raised ValueError: x"
    fresh = CallOutcome("f")
    assert (fresh.result, fresh.compiled, fresh.hit, fresh.events, fresh.timelines, fresh.stdout, fresh.error) == \
        (None, False, None, [], [], "", None)


def test_compiled_functions_are_found_by_name_or_qualified_name(session):
    assert session.error is None and session.stdout == "ran\n"
    assert session.find("scaled").fn.__name__ == "scaled"
    assert session.find("Holder.method") is session.find("method")
    with pytest.raises(tracer.UserError, match=r"^no compiled function named 'nope' in user_script.py$"):
        session.find("nope")
    scaled = session.find("scaled")
    assert session.frames(scaled) == scaled.all_frames() and session.globals_of(scaled)["cfg"].scale == 2


def test_the_guarded_globals_are_listed_once_each_in_install_order(session):
    names = session.guarded_globals(session.find("scaled"))
    assert names == list(dict.fromkeys(names)) and {"G['cfg'].scale", "G['cfg'].bias"} <= set(names)
    assert names.index("G['cfg'].scale") < names.index("G['cfg'].bias")  # read first, guarded first
    assert all(n.startswith(("G[", "type(G[")) for n in names)  # the tensor argument is no global
    assert "G['cfg'].bias" in session.guarded_globals(session.find("method"))


def test_one_editor_per_namespace_and_a_call_again_with_new_shapes(session):
    scaled = session.find("scaled")
    assert session.editor(scaled) is session.editor(session.find("checked"))  # the same module globals
    prediction = session.predict(scaled, {"x": (5,)})
    assert prediction.recompiles and "size mismatch at index 0. expected 3, actual 5" in prediction.failures[0][1]
    outcome = session.call_again(scaled, {"x": (5,)})
    assert outcome.compiled and outcome.hit is None and outcome.result.shape == (5,)
    assert all(e.kind in ("compile", "recompile") for e in outcome.events) and outcome.events
    assert outcome.timelines and outcome.timelines == session.timelines[-len(outcome.timelines):]
    again = session.call_again(scaled, {"x": (5,)})
    assert not again.compiled and again.hit == scaled.cache_entries[-1].compile_id and again.events == []
    assert again.timelines == [] and again.result.shape == (5,)  # a reshaped tensor's values are random
    with pytest.raises(tracer.UserError, match=r"^cannot give scaled those shapes: "):
        session.predict(scaled, {"nope": (2,)})


def test_a_call_again_that_raises_is_reported_and_keeps_the_session(session):
    checked = session.find("checked")
    editor = session.editor(checked)
    outcome = session.call_again(checked, {"x": (200,)})
    assert outcome.error == "ValueError: too big" and outcome.result is None
    assert str(outcome) == "checked: raised ValueError: too big"
    assert session.call_again(checked, {"x": (2,)}).error is None and editor is session.editor(checked)


def test_a_call_again_captures_what_the_call_printed(tmp_path):
    body = """
        import torch

        @torch.compile
        def noisy(x):
            print("inside", x.shape[0])
            return x + 1

        noisy(torch.ones(2))
    """
    session = Session(script(tmp_path, body)).run()
    assert session.stdout == "inside 2\n"
    outcome = session.call_again(session.find("noisy"))
    assert outcome.stdout == "inside 2\n" and session.stdout == "inside 2\n"


def test_a_function_never_called_cannot_be_called_again(tmp_path):
    body = """
        import torch

        @torch.compile
        def once(x):
            return x + 1

        once(torch.ones(2))
    """
    session = Session(script(tmp_path, body)).run()
    once = session.find("once")
    once.last_call = None
    with pytest.raises(tracer.UserError, match=r"^once has not been called yet$"):
        session.call_again(once)


def test_a_failure_is_placed_at_the_scripts_own_innermost_line(tmp_path):
    helper = script(tmp_path, "def fail():\n    raise KeyError('deep')\n", "helper_mod.py")
    main = script(tmp_path, f"import sys\nsys.path.insert(0, {os.path.dirname(helper)!r})\n"
                            "import helper_mod\n\nhelper_mod.fail()\n")
    session = Session(main).run()
    assert session.error == "KeyError: 'deep'"
    where = session.error_at
    assert isinstance(where, ScriptError) and (where.filename, where.line) == (main, 5)
    assert where.traceback.endswith("KeyError: 'deep'\n")
    assert f'File "{main}", line 5' in where.traceback and f'File "{helper}", line 2' in where.traceback
    assert "runpy" not in where.traceback and "tracer" + os.sep not in where.traceback  # the script's frames only


def test_a_syntax_error_is_placed_at_its_own_file_and_line(tmp_path):
    path = script(tmp_path, "x = 1\ny = (\n")
    session = Session(path).run()
    assert session.error.startswith("SyntaxError")
    assert (session.error_at.filename, session.error_at.line) == (path, 2)


def test_a_script_that_exits_keeps_its_status_and_how(tmp_path):
    session = Session(script(tmp_path, "import sys\nsys.exit(4)\n")).run()
    assert (session.exit_status, session.exit_how, session.error) == (4, "sys.exit(4)", None)


def test_a_session_before_and_after_its_script(tmp_path):
    session = Session(script(tmp_path, "x = 1\n"), ["--flag"])
    assert session.argv == ["--flag"] and not session.running and session.elapsed == 0.0
    assert session.wait(0) and not session.stop()  # nothing started: nothing to wait for or stop
    session.run(timeout=30)
    assert not session.running and session.error is None and session.elapsed > 0
    assert session.exit_status is None and session.exit_how is None and session.error_at is None


def test_a_directory_is_not_a_script(tmp_path):
    with pytest.raises(tracer.UserError, match=rf"^{tmp_path} is a directory, not a script$"):
        Session(str(tmp_path))
    with pytest.raises(tracer.UserError, match=rf"^no such script: {tmp_path}/none.py$"):
        Session(str(tmp_path / "none.py"))


def test_each_module_namespace_has_its_own_editor(tmp_path):
    helper = script(tmp_path, "import torch\nscale = 3\n\n@torch.compile\ndef scaled(x):\n    return x * scale\n",
                    "editor_helper.py")
    main = script(tmp_path, f"import sys\nsys.path.insert(0, {os.path.dirname(helper)!r})\nimport torch\n"
                            "import editor_helper\nscale = 2\n\n@torch.compile\ndef mine(x):\n    return x * scale\n\n"
                            "mine(torch.ones(2))\neditor_helper.scaled(torch.ones(2))\n")
    tracer.reset()
    session = Session(main).run()
    mine, theirs = session.find("mine"), session.find("scaled")
    assert session.editor(mine) is not session.editor(theirs)
    assert session.editor(mine).globals is mine.fn.__globals__ and session.editor(theirs).get("scale") == 3
    session.editor(theirs).set("scale", 5)
    assert session.call_again(theirs).result.tolist() == [5.0, 5.0]
    assert session.call_again(mine).result.tolist() == [2.0, 2.0]
    sys.modules.pop("editor_helper", None)


def test_a_call_again_that_compiles_only_a_new_frame_is_a_compile_numbered_by_the_session(tmp_path):
    body = """
        import torch

        @torch.compile
        def branchy(x, scale=1):
            y = x * scale
            if y.sum() > 0:
                return y + 1
            print("negative")  # a break in the other branch: a frame made and compiled by the call again
            return y - 1

        x = torch.ones(2)
        branchy(x, scale=3)
        x.mul_(-1)  # the last call's tensor, now negative: the other branch's resume function runs next
    """
    tracer.reset()
    session = Session(script(tmp_path, body)).run()
    branchy = session.find("branchy")
    outcome = session.call_again(branchy)
    assert outcome.result.tolist() == [-4.0, -4.0]  # the keyword argument passed again
    assert [(e.kind, e.compile_id) for e in outcome.events] == [("compile", "2/0"), ("graph_break", "2/0"),
                                                                ("compile", "3/0")]  # numbered by the session
    assert outcome.compiled and outcome.hit is None and outcome.stdout == "negative\n"
    again = session.call_again(branchy)
    assert (again.compiled, again.hit, again.events) == (False, "0/0", [])


def test_a_call_again_names_its_hit_once_the_call_log_is_full(tmp_path):
    body = """
        import torch

        class Cfg:
            scale = 2

        cfg = Cfg()

        @torch.compile
        def scaled(x):
            return x * cfg.scale

        x = torch.ones(2)
        for _ in range(10_000):  # as many calls as the function's log keeps
            scaled(x)
        cfg.scale = 4
        scaled(x)  # 0/1
        cfg.scale = 3
        scaled(x)  # 0/2
        cfg.scale = 4  # the next call hits 0/1: neither the oldest kept call's entry nor the last one's
    """
    tracer.reset()
    session = Session(script(tmp_path, body)).run()
    scaled = session.find("scaled")
    assert len(scaled.calls) == scaled.calls.maxlen and list(scaled.calls)[-2:] == ["0/1", "0/2"]
    outcome = session.call_again(scaled)
    assert (outcome.compiled, outcome.hit) == (False, "0/1")


def test_a_call_again_that_calls_itself_again_names_the_entry_its_own_call_hit(tmp_path):
    body = """
        import torch

        @torch.compile(dynamic=False)
        def down(x, n):
            if n == 0:
                return x * 2
            print("level", n)  # a break: the resume calls down again, a call of its own (n == 1: 0/1)
            return down(x + 1, n - 1)

        down(torch.ones(2), 2)
    """
    tracer.reset()
    session = Session(script(tmp_path, body)).run()
    down = session.find("down")
    assert list(down.calls) == ["0/0", "0/1"]
    outcome = session.call_again(down)
    assert (outcome.compiled, outcome.hit, outcome.stdout) == (False, "0/0", "level 2\nlevel 1\n")
    assert list(down.calls)[2:] == ["0/0", "0/1"]


def test_a_run_with_a_timeout_waits_for_a_script_that_ends_in_time(tmp_path):
    session = Session(script(tmp_path, "import time\ntime.sleep(0.3)\nprint('done')\n")).run(timeout=60)
    assert (session.error, session.stdout, session.running) == (None, "done\n", False)
