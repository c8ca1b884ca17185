"""`standin explain|export` on scripts that end themselves, chdir, or are not scripts at all (#14)."""
import json
import os
import subprocess
import sys

from app import cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

COMPILES_THEN = '''\
import os, sys, torch

@torch.compile(backend="eager")
def f(x):
    return x * 2 + 1

print("before", f(torch.ones(2)).tolist())
sys.stdout.flush()
{ending}
print("never printed")
'''


def write(tmp_path, ending: str, name: str = "script.py"):
    path = tmp_path / name
    path.write_text(COMPILES_THEN.format(ending=ending))
    return path


def test_explain_returns_the_status_of_sys_exit_and_says_so(tmp_path, capsys):
    script = write(tmp_path, "sys.exit(3)")
    assert cli.main(["explain", str(script)]) == 3
    captured = capsys.readouterr()
    assert "The script exited with status 3: sys.exit(3)." in captured.out
    assert "exited with status 3" in captured.err
    assert "1 compiled frame" in captured.out  # what ran before the exit is explained


def test_export_returns_the_status_of_sys_exit_and_writes_the_report(tmp_path, capsys):
    script = write(tmp_path, "sys.exit(3)")
    out = tmp_path / "out"
    assert cli.main(["export", str(script), "--out", str(out)]) == 3
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == {"ok": False, "error": None, "exit_status": 3, "exit_how": "sys.exit(3)"}
    assert report["summary"]["graphs"] == 1
    assert (out / "stdout.txt").read_text() == "before [3.0, 3.0]\n"
    assert "exited with status 3" in (out / "report.html").read_text()


def test_sys_exit_zero_is_success(tmp_path, capsys):
    assert cli.main(["explain", str(write(tmp_path, "sys.exit(0)"))]) == 0
    assert cli.main(["explain", str(write(tmp_path, "sys.exit()"))]) == 0


def _standin(*argv, cwd):
    """The real command in its own process: an os._exit that got through would end pytest itself."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", "app", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_os_exit_keeps_the_report_and_stdout_and_returns_its_status(tmp_path):
    script = write(tmp_path, "os._exit(3)")
    done = _standin("export", str(script), "--out", "out", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert "os._exit(3) at script.py:9" in done.stderr and "what ran is kept" in done.stderr
    out = tmp_path / "out"
    report = json.loads((out / "report.json").read_text())
    assert report["status"]["exit_status"] == 3 and report["status"]["exit_how"] == "os._exit(3) at script.py:9"
    assert report["summary"]["graphs"] == 1
    assert (out / "stdout.txt").read_text() == "before [3.0, 3.0]\n"
    explained = _standin("explain", str(script), cwd=tmp_path)
    assert explained.returncode == 3, explained.stderr
    assert "The script exited with status 3: os._exit(3) at script.py:9." in explained.stdout
    assert "never printed" not in explained.stdout + explained.stderr


def test_os_exit_in_a_forked_child_still_ends_the_child(tmp_path, capsys):
    """Only the script's own thread is caught: multiprocessing's children end with os._exit."""
    script = write(tmp_path, "pid = os.fork()\nif pid == 0:\n    os._exit(7)\n"
                             "print('child status', os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))")
    out = tmp_path / "out"
    assert cli.main(["export", str(script), "--out", str(out)]) == 0
    assert "child status 7\n" in (out / "stdout.txt").read_text()


def test_relative_out_is_where_standin_ran_not_where_the_script_went(tmp_path, monkeypatch, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = write(tmp_path, f"os.chdir({str(elsewhere)!r})")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["export", str(script), "--out", "rel_dir"]) == 0
    assert (tmp_path / "rel_dir" / "report.json").is_file()
    assert not (elsewhere / "rel_dir").exists()
    assert os.getcwd() == str(tmp_path)  # the script's chdir did not move the command either


def test_explain_of_a_directory_says_it_is_a_directory(tmp_path, capsys):
    for argv in (["explain", str(tmp_path)], ["export", str(tmp_path), "--out", str(tmp_path / "o")],
                 [str(tmp_path)]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert f"{tmp_path} is a directory, not a script" in err and "no such script" not in err
    assert not (tmp_path / "o").exists()
