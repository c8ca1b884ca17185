"""The background import of torch._dynamo (tracer/warmup.py) and the first compile never race."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

RACE = '''
import warnings
warnings.simplefilter("error")  # an internal tracer error would be a warning: make it fail
import torch
import tracer
from tracer.warmup import start_background_imports
thread = start_background_imports()
out = tracer.compile(lambda x: x * 2 + 1, backend="eager")(torch.ones(2))  # at once, as `standin export` does
assert not thread.is_alive(), "the compile did not wait for the background import"
assert out.tolist() == [3.0, 3.0]
print("ok")
'''


def test_a_compile_started_beside_the_background_import_waits_for_it():
    """Two threads importing torch._dynamo and the sympy shape code at once can each meet the other's module
    half-initialised (an ImportError inside the trace, which then ran eagerly): the compile waits instead."""
    done = subprocess.run([sys.executable, "-c", RACE], cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
