"""`python -m bench --quick` runs both compilers side by side: every row it reports is a real
measurement (finite numbers, positive where they must be, the ratio of the two medians), whatever
rows the workloads add. One repetition keeps the run short on a loaded machine; what is checked is
the shape and sanity of the numbers, never their size."""
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNITS = {"compile": "ms", "warm": "us/call", "overhead": "us/call", "guards": "us/call", "import": "ms"}


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    done = subprocess.run([sys.executable, "-m", "bench", "--quick", "--repeat", "1", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, json.loads(out.read_text())


def finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def test_every_row_holds_finite_medians_of_its_samples_and_their_ratio(bench):
    _, results = bench
    rows = results["rows"]
    assert results["quick"] is True and results["repeat"] == 1
    assert {r["workload"] for r in rows} >= {"global_config", "import (after torch)"}
    for r in rows:
        name = f"{r['workload']} / {r['metric']}"
        metric, unit = r["metric"].split(" (")
        assert UNITS[metric] == unit.rstrip(")"), name
        assert set(r["samples"]) == {"tracer", "dynamo"}, name
        for kind in ("tracer", "dynamo"):
            samples = r["samples"][kind]
            assert samples and all(finite(s) for s in samples), (name, kind, samples)
            assert math.isclose(r[kind], statistics.median(samples)), (name, kind)
        if metric == "overhead":  # a warm call minus its graphs: never more than the call, ~0 in noise
            warm = next(w for w in rows if w["workload"] == r["workload"] and w["metric"].startswith("warm "))
            assert r["tracer"] < warm["tracer"] and r["dynamo"] < warm["dynamo"], name
            positive = r["tracer"] > 0 and r["dynamo"] > 0
        else:  # a duration
            assert r["tracer"] > 0 and r["dynamo"] > 0, name
            positive = True
        if positive:
            assert finite(r["ratio"]) and math.isclose(r["ratio"], r["tracer"] / r["dynamo"]), name
        else:
            assert r["ratio"] is None, name


def test_recording_overhead_and_app_numbers_are_measurements(bench):
    _, results = bench
    assert results["recording"], results["recording_note"]
    for r in results["recording"]:
        assert r["plain"] > 0 and r["recording"] > 0 and finite(r["plain"]) and finite(r["recording"]), r
        assert math.isclose(r["ratio"], r["recording"] / r["plain"]), r
    latency, memory = results["app"]["latency"], results["app"]["memory"]
    assert latency["trace_steps"] > 0 and 0 < latency["median_ms"] <= latency["p90_ms"] and finite(latency["p90_ms"])
    assert memory["steps"] > 0 and all(finite(memory[k]) and memory[k] > 0
                                       for k in ("bytes_per_step", "bytes_per_step_read", "read_us_per_step"))


def test_the_printed_table_has_a_line_per_row_with_the_same_numbers(bench):
    stdout, results = bench
    lines = stdout.splitlines()
    assert any("tracer median" in line and "dynamo median" in line and "tracer/dynamo" in line for line in lines)
    for r in results["rows"]:
        matching = [line for line in lines if line.startswith(r["workload"]) and r["metric"] in line]
        assert len(matching) == 1, (r["workload"], r["metric"])
        cells = matching[0].split()
        assert cells[-1] == ("-" if r["ratio"] is None else
                             (f"{r['ratio']:.2f}" if abs(r["ratio"]) < 100 else f"{r['ratio']:.0f}")), matching[0]
        assert "nan" not in matching[0].lower() and "inf" not in matching[0].lower(), matching[0]
