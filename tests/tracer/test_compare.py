"""`standin compare`: the same script under Standin and under real torch.compile, frame by frame (#21).

The scripts are in tests/compare_scripts/. Each runs through the real command
(`python -m app compare SCRIPT --json FILE`), two at a time: every one starts
two children (Standin's and Dynamo's), each importing torch, and the machine
running the suite may be small.
"""
import json
import os
import pathlib
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import jsonschema
import pytest

from app import cli
from tracer.compare import compare, comparison_json, comparison_text
from tracer.compare.records import RunRecord

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "compare_scripts"
REPORT_SCHEMA = json.loads((ROOT / "resources" / "schemas" / "standin.report.schema.json").read_text())
COMPARE_SCHEMA = {"$defs": REPORT_SCHEMA["$defs"], "$ref": "#/$defs/comparison"}
AT_ONCE = 2  # commands running together (each with its two children)
NAMES = ("agree", "standin_breaks", "recompiles_differ", "raises_under_dynamo", "never_compiles",
         "crashes_under_dynamo", "unseeded")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """name -> (exit status, stdout, stderr, the --json document) of `standin compare` on each script."""
    out = tmp_path_factory.mktemp("compare")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    commands = {name: ["compare", str(SCRIPTS / f"{name}.py"), "--json", str(out / f"{name}.json")] for name in NAMES}
    commands["export"] = ["export", str(SCRIPTS / "standin_breaks.py"), "--out", "exported", "--compare"]
    def run(argv):
        done = subprocess.run([sys.executable, "-m", "app", *argv], cwd=out, env=env, capture_output=True,
                              text=True, timeout=900, check=False)
        return done.returncode, done.stdout, done.stderr

    with ThreadPoolExecutor(max_workers=AT_ONCE) as pool:
        finished = dict(zip(commands, pool.map(run, commands.values())))
    results = {"exported": out / "exported"}
    for name, (status, stdout, stderr) in finished.items():
        document = json.loads((out / f"{name}.json").read_text()) if (out / f"{name}.json").is_file() else None
        results[name] = (status, stdout, stderr, document)
    return results


def rows(stdout: str, prefix: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith(prefix)]


def test_agreeing_script_exits_0_and_every_row_is_same(runs):
    status, stdout, stderr, document = runs["agree"]
    assert status == 0, stdout + stderr
    table = [line for line in stdout.splitlines() if line.startswith(("same", "DIFFERS"))]
    assert len(table) == 4 and all(line.startswith("same ") for line in table)  # the run, f, two calls
    assert rows(stdout, "same     f (agree.py:5)")
    assert "Verdict: Standin and Dynamo agree on every frame (1) and call (2)." in stdout
    assert document["agree"] is True and [f["name"] for f in document["frames"]] == ["f"]


def test_standin_only_break_exits_1_and_names_the_row_with_both_sides(runs):
    status, stdout, stderr, document = runs["standin_breaks"]
    assert status == 1, stdout + stderr
    assert rows(stdout, "DIFFERS  f (standin_breaks.py:12)")
    frame = next(f for f in document["frames"] if f["name"] == "f")
    breaks = next(a for a in frame["aspects"] if a["name"] == "breaks")
    assert breaks["same"] is False and breaks["dynamo"] == "no breaks"
    assert breaks["standin"].startswith("1 break at standin_breaks.py:")
    (detail,) = breaks["details"]
    assert "only Standin breaks at standin_breaks.py:" in detail and "(Dynamo does not break there)" in detail
    standin_reason = document["standin"]["frames"][0]["compiles"][0]["breaks"][0]["reason"]
    assert detail.endswith(standin_reason) and standin_reason in stdout
    graphs = next(a for a in frame["aspects"] if a["name"] == "graphs")
    assert graphs["dynamo"] == "1 graph (3 ops)" and "only Dynamo has" in graphs["details"][0]
    assert "Standin breaks" not in "".join(a["details"][0] for a in frame["aspects"] if a["name"] == "graphs")


def test_different_recompiles_exit_1_with_dynamos_reason_verbatim(runs):
    status, stdout, stderr, document = runs["recompiles_differ"]
    assert status == 1, stdout + stderr
    assert rows(stdout, "same     f (recompiles_differ.py:13)")
    assert rows(stdout, "DIFFERS  torch_dynamo_resume_in_f_at_16")
    dynamo_resume = next(f for f in document["dynamo"]["frames"] if f["name"].startswith("torch_dynamo_resume"))
    reasons = [c["reason"] for c in dynamo_resume["compiles"] if c["kind"] == "recompile"]
    assert len(reasons) == 2 and all("got deallocated" in r for r in reasons)  # Dynamo's own words
    for compile_, reason in zip(dynamo_resume["compiles"][1:], reasons):
        assert f"Dynamo recompiled [{compile_['compile_id']}]: {reason}" in stdout
    assert rows(stdout, "DIFFERS  f call 2") and rows(stdout, "DIFFERS  f call 3")
    assert rows(stdout, "same     f call 1")


def test_script_raising_under_one_engine_only_shows_its_error_in_that_column(runs):
    status, stdout, stderr, document = runs["raises_under_dynamo"]
    assert status == 1, stdout + stderr
    (line,) = rows(stdout, "DIFFERS  the script run")
    assert "finished" in line and "raised RuntimeError: this script refuses to run under" in line
    assert document["status"]["dynamo"] == "raised RuntimeError: this script refuses to run under real Dynamo"
    assert rows(stdout, "same     f (raises_under_dynamo.py:5)")  # the Standin side stays usable
    assert "how the script ended" in stdout


def test_script_that_never_compiles_agrees_with_nothing_to_compare(runs):
    status, stdout, stderr, document = runs["never_compiles"]
    assert status == 0, stdout + stderr
    assert "neither engine compiled a frame" in stdout
    assert document["frames"] == [] and document["calls"] == [] and document["agree"] is True
    assert document["standin"]["stdout"] == document["dynamo"]["stdout"] == "12.0\n"


def test_a_crash_under_one_engine_is_reported_not_fatal(runs):
    status, stdout, stderr, document = runs["crashes_under_dynamo"]
    assert status == 1, stdout + stderr
    (line,) = rows(stdout, "DIFFERS  the script run")
    assert "crashed: killed by SIGSEGV" in line
    assert document["dynamo"]["crashed"] == "killed by SIGSEGV"
    assert [f["name"] for f in document["standin"]["frames"]] == ["f"]


def test_an_unseeded_script_draws_the_same_numbers_under_both_engines(runs):
    status, stdout, stderr, document = runs["unseeded"]
    assert document is not None, stdout + stderr
    (call,) = document["calls"]  # (the module's guards differ: that is not what this test is about)
    assert next(a for a in call["aspects"] if a["name"] == "output")["same"] is True
    assert document["standin"]["stdout"] == document["dynamo"]["stdout"]
    assert document["standin"]["calls"][0]["output"]["sum"] != 0.0  # a real draw, not all zeros


@pytest.mark.parametrize("name", NAMES)
def test_json_validates_against_the_schema(runs, name):
    jsonschema.validate(runs[name][3], COMPARE_SCHEMA)


def test_the_json_round_trips_to_the_same_comparison(runs):
    document = runs["recompiles_differ"][3]
    again = compare(RunRecord.from_json(document["standin"]), RunRecord.from_json(document["dynamo"]))
    assert comparison_json(again) == document
    assert "Verdict: they differ in 1 of 2 frames, 2 of 3 calls." in comparison_text(again)


def test_compare_usage_errors_are_exit_2(tmp_path, capsys):
    assert cli.main(["compare", str(tmp_path / "missing.py")]) == 2
    assert "no such script" in capsys.readouterr().err
    assert cli.main(["compare", str(tmp_path)]) == 2
    assert "is a directory, not a script" in capsys.readouterr().err
    assert cli.main(["compare"]) == 2
    assert cli.main(["compare", "--help"]) == 0
    assert "Exit status: 0 every frame and call agrees" in capsys.readouterr().out


def test_export_compare_puts_the_comparison_in_report_json_and_html(runs):
    status, stdout, stderr, _ = runs["export"]
    assert status == 0, stderr  # the export's status is the script's: the comparison does not change it
    assert "compared with torch.compile: they differ" in stderr
    out = runs["exported"]
    report = json.loads((out / "report.json").read_text())
    jsonschema.validate(report, REPORT_SCHEMA)
    comparison = report["comparison"]
    assert comparison["agree"] is False and comparison["dynamo"]["engine"] == "dynamo"
    # the Standin column is the exported run itself, not another one
    assert [c["compile_id"] for f in comparison["standin"]["frames"] for c in f["compiles"]] == \
        [e["compile_id"] for f in report["frames"] for e in f["entries"]]
    page = (out / "report.html").read_text()
    assert 'id="comparison"' in page and "Standin and Dynamo differ" in page and "only Standin breaks at" in page
    assert (out / "compare.txt").read_text().startswith("standin_breaks.py: Standin")
