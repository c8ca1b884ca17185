"""`python -m tracer.compare.child ENGINE OUT.json SCRIPT [ARGS...]`: one side of a comparison.

ENGINE is `standin` or `dynamo`.  The script runs under that engine in this
process alone, and the RunRecord is written to OUT.json when the run ends
(normally, by an exception, or by SIGINT when the parent stops it).  A crash
(a segfault) writes nothing: the parent reports the signal and stderr instead.
"""
from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] not in ("standin", "dynamo"):
        print(__doc__, file=sys.stderr)
        return 2
    engine, out, script, args = argv[0], argv[1], argv[2], argv[3:]
    if engine == "dynamo":
        from .dynamo_side import run_under_dynamo as run
    else:
        from .standin_side import run_under_standin as run
    record = run(script, args)
    tmp = out + ".part"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(record.dumps())
    os.replace(tmp, out)  # the parent sees a whole record or none
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
