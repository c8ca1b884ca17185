"""`python -m tracer.compare.child ENGINE OUT.json SCRIPT [ARGS...]`: one side of a comparison.

ENGINE is `standin` or `dynamo`.  The script runs under that engine in this
process alone, and the RunRecord is written to OUT.json when the run ends
(normally, by an exception, or by SIGINT when the parent stops it).  A crash
(a segfault) writes nothing: the parent reports the signal and stderr instead.

Both sides start their random generators from the seed in $STANDIN_COMPARE_SEED
(torch seeds itself differently in every process): a script that never seeds
draws the same weights and inputs under both engines.
"""
from __future__ import annotations

import os
import random
import signal
import sys

import torch

SEED_VARIABLE = "STANDIN_COMPARE_SEED"
DEFAULT_SEED = 0


def seed_everything(seed: int) -> None:
    """Python's, torch's and (when installed) NumPy's generators, as the script will first see them."""
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy  # optional: NumPy may be absent
    except ImportError:
        return
    numpy.random.seed(seed % 2**32)


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] not in ("standin", "dynamo"):
        print(__doc__, file=sys.stderr)
        return 2
    engine, out, script, args = argv[0], argv[1], argv[2], argv[3:]
    seed_everything(int(os.environ.get(SEED_VARIABLE, DEFAULT_SEED)))
    if engine == "dynamo":
        from .dynamo_side import run_under_dynamo as run  # lazy: a child runs one engine; this one, torch._dynamo
    else:
        from .standin_side import run_under_standin as run  # lazy: a child runs one engine
    record = run(script, args)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Stop (or Ctrl+C) must not cut the record short
    tmp = out + ".part"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(record.dumps())
    os.replace(tmp, out)  # the parent sees a whole record or none
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
