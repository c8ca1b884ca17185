"""Standin's command line: `standin [SCRIPT]`, `standin export`, `standin explain`, `standin compare`.

    standin SCRIPT [ARGS...]                 open the debugger window on SCRIPT
    standin gui [SCRIPT] [-- ARGS...]        the same, spelled out
    standin export SCRIPT --out DIR [-- ARGS...]
                                             run SCRIPT headless, write graphs, guards and reports
    standin explain SCRIPT [-- ARGS...]      run SCRIPT headless, print a summary
    standin compare SCRIPT [-- ARGS...]      run SCRIPT under Standin and under real torch.compile,
                                             print where they agree and differ, frame by frame

The export and explain paths use the engine (`tracer.debug.Session`) and
`tracer.export` only: Qt is imported lazily, and only for the window, so
headless machines and tests never load it.

Exit status: 0 on success; 2 for a usage error or a missing script; 1 when
the script raised (export still writes everything collected before that);
the script's own status when it ends with sys.exit(n) or os._exit(n).
Progress goes to stderr; `explain` prints its summary on stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from tracer.compare import CallLog, CompareRun, compare_script, comparison_json, comparison_text, record_session
from tracer.compare.child import DEFAULT_SEED, seed_everything
from tracer.debug import Session
from tracer.exc import UserError
from tracer.export import build_report, explain_text, export_session
from tracer.warmup import start_background_imports

from .paths import DEFAULT_SCRIPT

COMMANDS = ("gui", "export", "explain", "compare")
EXIT_DIFFERENT = 1  # `standin compare`: some frame, call or the script's ending differs

EXIT_OK, EXIT_SCRIPT_FAILED, EXIT_USAGE = 0, 1, 2

SCRIPT_ARGS = "Arguments after `--` are passed to the script as sys.argv[1:]."
EXPORT_LAYOUT = """\
Run SCRIPT under Standin's engine without a window and write into DIR:

  DIR/report.html                 self-contained report (opens offline)
  DIR/report.json                 schema standin.report/1
  DIR/explain.txt                 the summary `standin explain` prints
  DIR/stdout.txt                  what the script printed
  DIR/compare.txt                 with --compare: what `standin compare` prints
  DIR/<frame>/<compile_id>/       per cache entry (compile id 0/1 -> 0_1):
      graph_<i>.py                runnable FX code (class Graph(torch.nn.Module))
      graph_<i>.dot, graph_<i>.svg
      guards.txt, guards.json     guard tree; schema standin.guards/1
      original.dis.txt, rewritten.dis.txt

Exit status: 0 ok, 1 the script raised (what ran is still written),
2 usage error or missing script, n the script called sys.exit(n) or os._exit(n)
(what ran is still written)."""


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
    export.add_argument("--compare", action="store_true",
                        help="also run the script under real torch.compile (in a child process) and put the "
                             "comparison in report.html, report.json and compare.txt (see `standin compare`)")

    explain = sub.add_parser(
        "explain", help="run a script headless and print what was compiled, broken and recompiled",
        description="Run SCRIPT under Standin's engine and print its compiled frames, graphs, graph "
                    "breaks (reason and line) and recompiles (the guard that failed).",
        epilog=SCRIPT_ARGS)
    explain.add_argument("script", help="a Python script that uses torch.compile")
    explain.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                         help="stop the script after this long and explain what it traced (Ctrl+C does too)")

    compare = sub.add_parser(
        "compare", help="run a script under Standin and under real torch.compile and compare them",
        description=COMPARE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter, epilog=SCRIPT_ARGS)
    compare.add_argument("script", help="a Python script that uses torch.compile")
    compare.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                         help="stop both runs after this long and compare what they did (Ctrl+C does too)")
    compare.add_argument("--json", metavar="FILE", help="also write the comparison as JSON (schema standin.compare/1)")
    return parser


COMPARE_HELP = """\
Run SCRIPT twice, each in a child process of its own: under Standin, and under
real torch.compile (torch's own, the backend replaced by one that records each
graph and runs it; fullgraph and dynamic as the script passes them). Then print,
per compiled frame (matched by name, file and first line) and per call of a
compiled function, whether the two agree on the number of compiles, the graphs
and their ops, the graph breaks (where, with both reasons), the guards (by
source), eager fallbacks and the outputs. Dynamo's words are kept verbatim.

Exit status: 0 every frame and call agrees, 1 something differs, 2 usage error
or missing script."""


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


def _script_problem(script: str) -> str | None:
    """Why SCRIPT cannot be run (a directory, missing), or None."""
    if os.path.isdir(script):
        return f"{script} is a directory, not a script (name the .py file to run)"
    if not os.path.isfile(script):
        return f"no such script: {script}"
    return None


def _run_session(script: str, args: list[str], timeout: float | None = None, calls=None):
    """Run the script under the engine; (session, None) or (None, exit status).

    With a `tracer.compare` CallLog in `calls`, each call of a compiled function is recorded there.
    """
    problem = _script_problem(script)
    if problem:
        print(f"standin: {problem}", file=sys.stderr)
        return None, EXIT_USAGE
    _progress(f"running {script} ...")
    try:
        session = Session(script, args, present=None if calls is None else calls.present)
        session.run(timeout=timeout)
    except UserError as error:
        print(f"standin: {error}", file=sys.stderr)
        return None, EXIT_USAGE
    if session.error:
        _progress(f"the script raised {session.error}; keeping what ran before that")
    elif session.exit_how:
        _progress(f"the script exited with status {session.exit_status}: {session.exit_how}"
                  + (HARD_EXIT_NOTE if session.exit_how.startswith("os._exit") else ""))
    return session, None


HARD_EXIT_NOTE = ("; Standin ended the script there instead of ending the process, so what ran is kept "
                  "(the script's finally blocks ran, which os._exit skips)")


def _status_of(session) -> int:
    """The command's exit status: 1 when the script raised, else the status the script exited with."""
    if session.error:
        return EXIT_SCRIPT_FAILED
    return session.exit_status or EXIT_OK


def _start_dynamo(options):
    """With --compare: real torch.compile on the same script, in a child, while Standin runs here."""
    if not options.compare or _script_problem(options.script):
        return None, None
    _progress(f"running {options.script} under torch.compile too, in a child process, to compare ...")
    dynamo = CompareRun(options.script, options.args, options.timeout, engines=("dynamo",), seed=DEFAULT_SEED)
    seed_everything(DEFAULT_SEED)  # this run starts its generators where the child's starts them
    return dynamo.start(), CallLog()


def _comparison_of(session, dynamo, calls):
    if dynamo is None:
        return None
    if dynamo.running:
        _progress("waiting for the torch.compile run ...")
    dynamo.wait()
    comparison = dynamo.result(standin=record_session(session, calls))
    _progress("compared with torch.compile: " + ("they agree" if comparison.agree else "they differ")
              + " (the Comparison section of report.html, compare.txt)")
    return comparison


def cmd_export(options) -> int:
    out = os.path.abspath(options.out)  # where the user ran standin, whatever the script chdirs to
    dynamo, calls = _start_dynamo(options)
    session, status = _run_session(options.script, options.args, options.timeout, calls)
    if session is None:
        if dynamo is not None:
            dynamo.stop()
        return status
    comparison = _comparison_of(session, dynamo, calls)
    try:
        result = export_session(session, out, progress=_progress, comparison=comparison)
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
    return _status_of(session)


def cmd_explain(options) -> int:
    session, status = _run_session(options.script, options.args, options.timeout)
    if session is None:
        return status
    sys.stdout.write(explain_text(build_report(session)))
    sys.stdout.flush()
    return _status_of(session)


def cmd_compare(options) -> int:
    problem = _script_problem(options.script)
    if problem:
        print(f"standin: {problem}", file=sys.stderr)
        return EXIT_USAGE
    _progress(f"running {options.script} under Standin and under torch.compile (two child processes) ...")
    comparison = compare_script(options.script, options.args, options.timeout)
    sys.stdout.write(comparison_text(comparison))
    sys.stdout.flush()
    if options.json:
        path = os.path.abspath(options.json)
        try:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(comparison_json(comparison), handle, indent=2, default=str)
        except OSError as error:
            print(f"standin: cannot write {path}: {error}", file=sys.stderr)
            return EXIT_USAGE
        _progress(f"wrote {path}")
    return EXIT_OK if comparison.agree else EXIT_DIFFERENT


def cmd_gui(options) -> int:
    script = options.script or DEFAULT_SCRIPT
    problem = _script_problem(script)
    if problem:
        print(f"standin: {problem}", file=sys.stderr)
        return EXIT_USAGE
    from app.main_window import run_gui  # Qt loads only here
    status = run_gui(script)
    return int(status or 0)


def main(argv: list[str] | None = None) -> int:
    start_background_imports()  # torch._dynamo, which the first compile's FakeTensorMode imports
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
    handler = {"gui": cmd_gui, "export": cmd_export, "explain": cmd_explain, "compare": cmd_compare}[options.command]
    return handler(options)


if __name__ == "__main__":
    sys.exit(main())
