"""Standin's command line: `standin [SCRIPT]`, `standin export`, `standin explain`.

    standin SCRIPT [ARGS...]                 open the debugger window on SCRIPT
    standin gui [SCRIPT] [-- ARGS...]        the same, spelled out
    standin export SCRIPT --out DIR [-- ARGS...]
                                             run SCRIPT headless, write graphs, guards and reports
    standin explain SCRIPT [-- ARGS...]      run SCRIPT headless, print a summary

The export and explain paths use the engine (`tracer.debug.Session`) and
`tracer.export` only: Qt is imported lazily, and only for the window, so
headless machines and tests never load it.

Exit status: 0 on success; 2 for a usage error or a missing script; 1 when
the script raised (export still writes everything collected before that).
Progress goes to stderr; `explain` prints its summary on stdout.
"""
from __future__ import annotations

import argparse
import os
import sys

from .paths import DEFAULT_SCRIPT

COMMANDS = ("gui", "export", "explain")

EXIT_OK, EXIT_SCRIPT_FAILED, EXIT_USAGE = 0, 1, 2

SCRIPT_ARGS = "Arguments after `--` are passed to the script as sys.argv[1:]."
EXPORT_LAYOUT = """\
Run SCRIPT under Standin's engine without a window and write into DIR:

  DIR/report.html                 self-contained report (opens offline)
  DIR/report.json                 schema standin.report/1
  DIR/explain.txt                 the summary `standin explain` prints
  DIR/stdout.txt                  what the script printed
  DIR/<frame>/<compile_id>/       per cache entry (compile id 0/1 -> 0_1):
      graph_<i>.py                runnable FX code (class Graph(torch.nn.Module))
      graph_<i>.dot, graph_<i>.svg
      guards.txt, guards.json     guard tree; schema standin.guards/1
      original.dis.txt, rewritten.dis.txt

Exit status: 0 ok, 1 the script raised (what ran is still written),
2 usage error or missing script."""


def _progress(message: str) -> None:
    print(f"standin: {message}", file=sys.stderr, flush=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="standin",
        description="Debug torch.compile's tracing with Standin.",
        epilog="`standin SCRIPT` is short for `standin gui SCRIPT`. "
               "Use `standin COMMAND --help` for a command's options.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    gui = sub.add_parser("gui", help="open the debugger window on a script (the default command)",
                         description="Open the Standin window on SCRIPT (the bundled example if omitted).", epilog=SCRIPT_ARGS)
    gui.add_argument("script", nargs="?", default=None, help="a Python script that uses torch.compile")

    export = sub.add_parser(
        "export", help="run a script headless and write graphs, guards and reports to a folder",
        description=EXPORT_LAYOUT, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=SCRIPT_ARGS)
    export.add_argument("script", help="a Python script that uses torch.compile")
    export.add_argument("--out", "-o", required=True, metavar="DIR", help="output folder (created if missing)")
    export.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                        help="stop the script after this long and export what it traced (Ctrl+C does too)")

    explain = sub.add_parser(
        "explain", help="run a script headless and print what was compiled, broken and recompiled",
        description="Run SCRIPT under Standin's engine and print its compiled frames, graphs, graph "
                    "breaks (reason and line) and recompiles (the guard that failed).",
        epilog=SCRIPT_ARGS)
    explain.add_argument("script", help="a Python script that uses torch.compile")
    explain.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                         help="stop the script after this long and explain what it traced (Ctrl+C does too)")
    return parser


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"a positive number of seconds, not {text!r}")
    return value


def split_argv(argv: list[str]) -> tuple[list[str], list[str]]:
    """(Standin's arguments, the script's arguments).

    The script's arguments follow `--`; `standin SCRIPT ARGS...` (the GUI
    shorthand) also passes everything after SCRIPT through.
    """
    if "--" in argv:
        cut = argv.index("--")
        own, rest = argv[:cut], argv[cut + 1:]
    else:
        own, rest = argv, []
    if not own:
        return ["gui"], rest
    if own[0] in COMMANDS or own[0].startswith("-"):
        return own, rest
    return ["gui", own[0]], own[1:] + rest


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _run_session(script: str, args: list[str], timeout: float | None = None):
    """Run the script under the engine; (session, None) or (None, exit status)."""
    if not os.path.isfile(script):
        print(f"standin: no such script: {script}", file=sys.stderr)
        return None, EXIT_USAGE
    from tracer.debug import Session
    from tracer.exc import UserError
    _progress(f"running {script} ...")
    try:
        session = Session(script, args).run(timeout=timeout)
    except UserError as error:
        print(f"standin: {error}", file=sys.stderr)
        return None, EXIT_USAGE
    if session.error:
        _progress(f"the script raised {session.error}; keeping what ran before that")
    return session, None


def cmd_export(options) -> int:
    session, status = _run_session(options.script, options.args, options.timeout)
    if session is None:
        return status
    from tracer.export import export_session
    try:
        result = export_session(session, options.out, progress=_progress)
    except OSError as error:
        print(f"standin: cannot write to {options.out}: {error}", file=sys.stderr)
        return EXIT_USAGE
    summary = result.report["summary"]
    graphs = _count(summary["graphs"], "graph", "graphs")
    entries = _count(summary["cache_entries"], "cache entry", "cache entries")
    _progress(f"wrote {len(result.files)} files ({graphs}, {entries}) to {result.out_dir}; "
              f"open {os.path.join(result.out_dir, 'report.html')}")
    if session.error:
        _progress("the export is partial: the script failed before finishing")
        return EXIT_SCRIPT_FAILED
    return EXIT_OK


def cmd_explain(options) -> int:
    session, status = _run_session(options.script, options.args, options.timeout)
    if session is None:
        return status
    from tracer.export import build_report, explain_text
    sys.stdout.write(explain_text(build_report(session)))
    sys.stdout.flush()
    return EXIT_SCRIPT_FAILED if session.error else EXIT_OK


def cmd_gui(options) -> int:
    script = options.script or DEFAULT_SCRIPT
    if not os.path.isfile(script):
        print(f"standin: no such script: {script}", file=sys.stderr)
        return EXIT_USAGE
    from app.main_window import run_gui  # Qt loads only here
    status = run_gui(script)
    return int(status or 0)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        own, script_args = split_argv(argv)
        options = parser.parse_args(own)
    except SystemExit as exit_:  # --help (0) or a usage error (2)
        return int(exit_.code or 0)
    options.args = script_args
    if options.command is None:
        options.command, options.script = "gui", None
    handler = {"gui": cmd_gui, "export": cmd_export, "explain": cmd_explain}[options.command]
    return handler(options)


if __name__ == "__main__":
    sys.exit(main())
