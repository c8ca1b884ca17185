"""`python -m bench --quick` runs both compilers side by side and prints its table."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_quick_runs_and_prints_the_table():
    done = subprocess.run([sys.executable, "-m", "bench", "--quick"], cwd=ROOT, capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "tracer median" in done.stdout and "dynamo median" in done.stdout and "tracer/dynamo" in done.stdout
    assert "global_config" in done.stdout and "import" in done.stdout
