"""Run the generator families of fuzz_families.py eagerly, under Standin and under real Dynamo.

    python tests/tracer/fuzz_families_run.py --programs 200 [--family nested] [--start 0] [--out fuzz-families]
    python tests/tracer/fuzz_families_run.py --replay fuzz-families/wrong_nested_12.py

Each program is a case of the break harness (differential_breaks.check_break_case): outputs,
stdout, exceptions (type and args) and state against eager; graphs, compiles, recompiles and the
guard Dynamo saw fail against Dynamo.  A program's status:
  ok        all three agree
  wrong     Standin's output, stdout, exception or state differs from eager's (never acceptable)
  fidelity  Standin agrees with eager but its graphs or (re)compiles differ from Dynamo's
  internal  Standin warned of an internal error
  dynamo    Dynamo itself differs from eager (or breaks under fullgraph): Standin is then compared
            with eager alone, and counts as wrong/internal if it differs
  crash     the child process died on it
Programs run in child processes, one per family and batch, so a segfault is caught and blamed on
the program that was running.  Failing programs are saved to --out as files `--replay` runs again.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

import differential as D  # noqa: E402 - after the sys.path lines above
import differential_breaks as DB  # noqa: E402
import torch  # noqa: E402
from fuzz_families import FAMILIES, FamilyProgram, generate  # noqa: E402
from fuzz_run import load, unload  # noqa: E402

import tracer  # noqa: E402

WRONG_MARKS = ("tracer raised", "tracer returned", "tracer wrong output", "tracer eager raised", "tracer printed",
               "tracer arguments after", "tracer program state", "tracer state()")


def _state_value(module, name: str):
    """A global's value, or what the program's function of that name (`probe()`) returns."""
    return getattr(module, name[:-2])() if name.endswith("()") else getattr(module, name)


def build_case(program: FamilyProgram, module) -> DB.BreakCase:
    """The program as a case of the break harness: its calls, mutations and state."""
    calls = []
    for mutation, args in module.CALLS:
        mutate = None
        if mutation is not None:
            mutate = D.mutate_with(lambda g, name=mutation: g[f"mutate_{name}"](), mutation)
        calls.append(D.call(*args, mutate=mutate))
    state = (lambda: tuple(_state_value(module, name) for name in program.state)) if program.state else None
    return DB.BreakCase(fn=module.fn, calls=calls, state=state, case_name=f"{program.family}_{program.seed}",
                        breaks=False if program.fullgraph else None, raises=True, dynamic=program.dynamic,
                        fullgraph=program.fullgraph, all_frames=program.all_frames)


def _problems(report: str) -> list[str]:
    return [line[4:] for line in report.splitlines() if line.startswith("  * ")]


def against_eager(c: DB.BreakCase) -> list[str]:
    """Where Dynamo is no reference: Standin's outputs, stdout and state against eager's alone
    (without fullgraph, which makes a graph break an error eager does not raise)."""
    c = dataclasses.replace(c, fullgraph=False)
    snap = D.snapshot(c)
    eager, standin = DB.run_eager(c, snap), DB.run_tracer(c, snap)
    problems = []
    for i, (t, e) in enumerate(zip(standin.calls, eager.calls)):
        if (p := D.output_problem(t, e, raises=True)) is not None:
            problems.append(f"call {i}: tracer {p}")
        if t.stdout != e.stdout:
            problems.append(f"call {i}: tracer printed {t.stdout!r}, eager printed {e.stdout!r}")
        problems.extend(D.state_problems(t, e, "tracer", i, c.state is not None))
    return problems


def check(program: FamilyProgram, directory: str) -> dict:
    module = load(program.source, directory, f"fuzz_{program.family}_{program.seed}")
    c = build_case(program, module)
    status, detail = "ok", ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            DB.check_break_case(c)
        except AssertionError as error:
            report = str(error)
            if "INVALID CASE" in report.splitlines()[0]:
                status, detail = "dynamo", "\n".join(_problems(report))
                if (mine := against_eager(c)):
                    status, detail = "wrong", "\n".join(mine) + "\n(Dynamo differs from eager too:)\n" + detail
            else:
                problems = _problems(report)
                wrong = any(m in p for p in problems for m in WRONG_MARKS)
                # under fullgraph a break of Standin's where Dynamo has none is an error eager lacks
                refused = program.fullgraph and any("tracer raised Unsupported" in p for p in problems)
                status = "wrong" if wrong and not refused else "fidelity"
                detail = report
        finally:
            torch._dynamo.reset()
            tracer.reset()
            unload(module)
    internal = [str(w.message) for w in caught if issubclass(w.category, tracer.InternalTracerWarning)]
    if internal and status in ("ok", "fidelity", "dynamo"):
        status, detail = "internal", "\n".join(internal) + "\n" + detail
    return {"family": program.family, "seed": program.seed, "status": status, "detail": detail[:6000]}


def save(program: FamilyProgram, result: dict, out: Path) -> str:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{result['status']}_{program.family}_{program.seed}.py"
    head = "\n".join("#   " + line for line in result["detail"].splitlines()[:60])
    path.write_text(f"# fuzz_families: {result['status']} (dynamic={program.dynamic!r}, "
                    f"fullgraph={program.fullgraph}, all_frames={program.all_frames}, state={program.state!r})\n{head}\n" + program.source)
    return str(path)


def child(family: str, seeds: list[int], out: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="standin-families-") as directory:
        for seed in seeds:
            print(json.dumps({"start": seed}), flush=True)
            program = generate(family, seed)
            try:
                result = check(program, directory)
            except Exception as error:  # the harness or the generator: report, go on
                result = {"family": family, "seed": seed, "status": "harness", "detail": f"{type(error).__name__}: {error}"}
            if result["status"] != "ok" and out is not None:
                result["repro"] = save(program, result, out)
            print(json.dumps(result), flush=True)


def run_family(family: str, seeds: list[int], out: Path | None, progress) -> list[dict]:
    """Every seed of `family` in child processes; a child that dies blames the seed it had started."""
    results, pending = [], list(seeds)
    while pending:
        command = [sys.executable, str(Path(__file__).resolve()), "--child", family, "--seeds",
                   ",".join(map(str, pending))] + (["--out", str(out)] if out else [])
        with tempfile.TemporaryFile(mode="w+") as stderr:
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True,
                                    env=dict(os.environ, PYTHONFAULTHANDLER="1"))
            started = None
            for line in proc.stdout:
                message = json.loads(line)
                if "start" in message:
                    started = message["start"]
                    continue
                results.append(message)
                progress(message)
                pending.remove(message["seed"])
                started = None
            code = proc.wait()
            stderr.seek(0)
            tail = stderr.read()[-1500:]
        if started is not None:
            result = {"family": family, "seed": started, "status": "crash", "detail": f"exit {code}\n{tail}"}
            if out is not None:
                result["repro"] = save(generate(family, started), result, out)
            results.append(result)
            progress(result)
            pending.remove(started)
        elif pending:  # died between programs: nothing to blame, do not loop forever
            break
    return results


def replay(path: str) -> int:
    """Check a saved program again (the header line says how it is compiled)."""
    text = Path(path).read_text()
    header = text.splitlines()[0]
    family = path.rsplit("/", 1)[-1].split("_", 1)[1].rsplit("_", 1)[0]
    for name in FAMILIES:
        if family.endswith(name):
            family = name
    program = FamilyProgram(family, 0, text, dynamic=eval(header.split("dynamic=")[1].split(",")[0]),
                            fullgraph="fullgraph=True" in header, all_frames="all_frames=True" in header,
                            state=eval(header.split("state=")[1].rsplit(")", 1)[0]))
    with tempfile.TemporaryDirectory() as directory:
        result = check(program, directory)
    print(result["status"], result["detail"], sep="\n")
    return 0 if result["status"] in ("ok", "dynamo") else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=100, help="per family")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES))
    parser.add_argument("--out", default="fuzz-families")
    parser.add_argument("--replay")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--seeds", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else None
    if args.replay:
        return replay(args.replay)
    if args.child:
        child(args.child, [int(s) for s in args.seeds.split(",")], out)
        return 0
    started, failing = time.perf_counter(), 0

    def progress(result):
        if result["status"] not in ("ok", "dynamo"):
            print(f"{result['family']} {result['seed']}: {result['status']}  {result.get('repro', '')}", flush=True)

    for family in args.family or list(FAMILIES):
        results = run_family(family, list(range(args.start, args.start + args.programs)), out, progress)
        counts = {k: sum(r["status"] == k for r in results)
                  for k in ("ok", "wrong", "fidelity", "internal", "dynamo", "crash", "harness")}
        failing += counts["wrong"] + counts["internal"] + counts["crash"] + counts["harness"]
        print(f"{family}: {len(results)} programs, {counts}, {time.perf_counter() - started:.0f} s", flush=True)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
