"""`python -m app [SCRIPT]` / `standin [SCRIPT]`.

Until the window exists, this runs the script under the engine in the terminal
and prints each compiled function's graphs, guards and compile events.
"""
from __future__ import annotations

import argparse
import os
import sys

DEFAULT_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                              "resources", "examples", "seed_example.py")


def report(compiled) -> str:
    lines = [f"== {compiled.fn.__qualname__} ({compiled.code.co_filename}:{compiled.code.co_firstlineno})"]
    for event in compiled.compile_events:
        lines.append(f"  event {event}")
    for entry in compiled.cache_entries:
        lines.append(f"  cache entry [{entry.compile_id}]  hits={entry.hits}")
        if entry.eager_reason:
            lines.append(f"    runs eagerly: {entry.eager_reason}")
        for guard in entry.guards:
            where = f"  # {guard.installed_at}" if guard.installed_at else ""
            lines.append(f"    guard {guard}{where}")
        for gm in entry.graphs:
            lines.extend("    | " + line for line in gm.code.strip().splitlines())
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="standin", description="Debug torch.compile's tracing with Standin.")
    parser.add_argument("script", nargs="?", default=DEFAULT_SCRIPT, help="a Python script that uses torch.compile")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    options = parser.parse_args(argv)
    from tracer.exc import UserError
    from tracer.script import run_script
    try:
        _, compiled = run_script(options.script, options.args)
    except UserError as error:
        print(f"standin: {error}", file=sys.stderr)
        return 2
    print()
    for fn in compiled:
        print(report(fn))
    return 0


if __name__ == "__main__":
    sys.exit(main())
