"""Run generated programs eagerly and under Standin, and compare what each one did.

    python tests/tracer/fuzz_run.py --programs 10000 [--start 0] [--out fuzz-failures]
    python tests/tracer/fuzz_run.py --replay fuzz-failures/wrong_123.py

Per call of a program's call plan: the return value, what it printed, the exception
it raised (type and message), and afterwards the program's globals, its objects and
classes, and the arguments.  A program fails when Standin differs from eager in any
of those ("wrong"), when Standin warns of an internal error ("internal"), or when the
process dies ("crash") or stops answering ("hang").

Programs run in child processes, a batch each, so a segfault is caught: the parent
sees the child die, blames the program it had started, and goes on with the next
one in a new child.  Each failing program is reduced (blocks, calls and returned
names dropped while it still fails the same way) and saved as a repro file that
`--replay` runs again.  The summary counts programs, wrong answers, crashes, hangs
and internal errors.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import io
import json
import math
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
import warnings
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

import numpy as np  # noqa: E402 - after the sys.path lines above
import torch  # noqa: E402
from fuzz_programs import Program, generate  # noqa: E402

import tracer  # noqa: E402

STATE_NAMES = ("SCALE", "COUNT", "LOG", "TABLE", "ITEMS", "OBJ", "NET", "HALVE", "PT", "DYN", "TAGS", "ADD2", "ARR",
               "TRK", "helper", "rec", "ORD", "PLAIN")
CLASS_NAMES = ("Base", "Child", "Net", "Dyn", "Point", "Tracked", "Plain")
THREADS = 4  # calling the compiled function at once, after the plan
PROGRAM_TIMEOUT_S = 600  # wall time: a loaded machine is slow, a hang is forever


@dataclass
class Failure:
    kind: str  # "wrong", "internal", "crash", "hang"
    detail: str


# ---- running one program -------------------------------------------------------------------
def load(source: str, directory: str, name: str) -> types.ModuleType:
    """The program as a module of its own, from a real file (real line numbers), in sys.modules as a
    script's `__main__` is (dataclasses' generated methods take their globals from there) until
    `unload`."""
    path = Path(directory) / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def unload(*modules: types.ModuleType) -> None:
    for module in modules:
        sys.modules.pop(module.__name__, None)


def freeze(value, depth: int = 0):
    """A comparable snapshot: tensors cloned, containers and objects copied, functions by name."""
    if depth > 6:
        return ("deep",)
    if isinstance(value, torch.Tensor):
        return ("tensor", value.detach().clone(), value.requires_grad)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [freeze(v, depth + 1) for v in value])
    if isinstance(value, dict):
        return ("dict", [(k, freeze(v, depth + 1)) for k, v in value.items()])
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, sorted(map(repr, value)))
    if isinstance(value, (types.FunctionType, types.MethodType, property, classmethod, staticmethod)):
        target = getattr(value, "__func__", getattr(value, "fget", value))
        return ("callable", type(value).__name__, getattr(target, "__qualname__", "?"))
    if isinstance(value, functools.partial):
        return ("partial", freeze(value.func, depth + 1), freeze(value.args, depth + 1),
                freeze(value.keywords, depth + 1))
    if isinstance(value, np.ndarray):
        return ("ndarray", str(value.dtype), value.shape, value.tolist())
    if isinstance(value, types.GeneratorType):
        return ("generator",)
    if hasattr(value, "__dict__") and type(value).__module__ not in ("builtins", "torch"):
        return ("object", type(value).__name__, freeze(dict(vars(value)), depth + 1))
    return value


def _classes_state(module) -> dict:
    return {cls.__name__: freeze({k: v for k, v in vars(cls).items() if not k.startswith("__")})
            for cls in (getattr(module, name, None) for name in CLASS_NAMES) if cls is not None}


def run_calls(module, call_fn) -> list[dict]:
    """Each call of the plan: its mutation first, then the call, observed.  Torch's global state
    (grad mode, default dtype), which a mutation may change, is put back afterwards."""
    records = []
    try:
        for mutation, shape, n, d, lst in module.CALLS:
            if mutation is not None:
                getattr(module, f"mutate_{mutation}")()
            records.append(observe(module, call_fn, shape, n, d, lst))
    finally:
        torch.set_grad_enabled(True)
        torch.set_default_dtype(torch.float32)
    return records


def observe(module, call_fn, shape, n, d, lst) -> dict:
    """One call: what it returned or raised, printed, and left in the arguments and the program's state."""
    count = math.prod(shape)
    x = (torch.arange(count, dtype=torch.float32).reshape(shape) * 0.5 - 1.0)
    args = (x, n, dict(d), list(lst))
    out = io.StringIO()
    record = {}
    with contextlib.redirect_stdout(out):
        try:
            record["output"] = freeze(call_fn(*args))
        except Exception as error:
            record["error"] = (type(error).__name__, str(error))
    record["stdout"] = out.getvalue()
    record["args"] = freeze(args)
    record["globals"] = {name: freeze(getattr(module, name)) for name in STATE_NAMES if hasattr(module, name)}
    record["classes"] = _classes_state(module)
    return record


def same(a, b) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        return a.dtype == b.dtype and a.shape == b.shape and torch.allclose(a, b, rtol=1e-5, atol=1e-6,
                                                                              equal_nan=True)
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _differences(eager: list[dict], standin: list[dict]) -> list[str]:
    problems = []
    for i, (e, s) in enumerate(zip(eager, standin)):
        for key in ("error", "output", "stdout", "args", "globals", "classes"):
            if not same(e.get(key), s.get(key)):
                problems.append(f"call {i}: {key}: eager {_short(e.get(key))}, Standin {_short(s.get(key))}")
    return problems


def _short(value, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def check(program: Program, directory: str) -> Failure | None:
    """Run the program eagerly and under Standin (each in a fresh module) and compare."""
    source = program.source()
    eager_module = load(source, directory, f"fuzz_eager_{program.seed}")
    eager = run_calls(eager_module, eager_module.prog)
    standin_module = load(source, directory, f"fuzz_standin_{program.seed}")
    tracer.reset()
    compiled = tracer.compile(standin_module.prog)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        standin = run_calls(standin_module, compiled)
        problems = _differences(eager, standin)
        if not problems:
            problems = in_threads(eager_module, standin_module, compiled)
    tracer.reset()
    unload(eager_module, standin_module)
    internal = [str(w.message) for w in caught if issubclass(w.category, tracer.InternalTracerWarning)]
    if problems:
        return Failure("wrong", "\n".join(problems))
    if internal:
        return Failure("internal", "\n".join(internal))
    return None


def in_threads(eager_module, standin_module, compiled) -> list[str]:
    """The plan's last call again, from THREADS threads at once: each must get eager's answer and
    leave eager's state.  Only for a call that eager repeats with the same record twice (it changes
    no state, so the threads' order cannot matter)."""
    *_, (_, shape, n, d, lst) = eager_module.CALLS
    first, again = (observe(eager_module, eager_module.prog, shape, n, d, lst) for _ in range(2))
    if _differences([first], [again]):
        return []
    answers, barrier = {}, threading.Barrier(THREADS)

    def worker(i):
        x = torch.arange(math.prod(shape), dtype=torch.float32).reshape(shape) * 0.5 - 1.0
        barrier.wait()
        try:
            answers[i] = {"output": freeze(compiled(x, n, dict(d), list(lst)))}
        except Exception as error:
            answers[i] = {"error": (type(error).__name__, str(error))}
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    with contextlib.redirect_stdout(io.StringIO()):  # one redirection: threads must not nest their own
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    problems = []
    for i in range(THREADS):
        for key in ("error", "output"):
            if not same(first.get(key), answers.get(i, {}).get(key)):
                problems.append(f"thread {i}: {key}: eager {_short(first.get(key))}, "
                                f"Standin {_short(answers.get(i, {}).get(key))}")
    state = {"globals": {name: freeze(getattr(standin_module, name)) for name in STATE_NAMES
                         if hasattr(standin_module, name)}, "classes": _classes_state(standin_module)}
    for key in ("globals", "classes"):
        if not same(first[key], state[key]):
            problems.append(f"threads: {key}: eager {_short(first[key])}, Standin {_short(state[key])}")
    return problems


# ---- reducing a failure --------------------------------------------------------------------------
def reduce(program: Program, still_fails, budget: int = 150, seconds: float = 90.0) -> Program:
    """Drop calls, blocks and returned names while `still_fails(candidate)`: a smaller repro
    (within `budget` tries and about `seconds`)."""
    tries, stop = 0, time.monotonic() + seconds
    changed = True
    while changed and tries < budget and time.monotonic() < stop:
        changed = False
        candidates = [program.without_call(i) for i in reversed(range(len(program.calls)))
                      if len(program.calls) > 1]
        candidates += [program.without_block(i) for i in reversed(range(len(program.blocks)))]
        candidates += [program.with_returns(program.returns[:i] + program.returns[i + 1:])
                       for i in range(len(program.returns)) if len(program.returns) > 1]
        candidates += [program.without_mutation(i) for i, c in enumerate(program.calls) if c.mutation]
        for candidate in candidates:
            tries += 1
            if tries > budget or time.monotonic() > stop:
                break
            if still_fails(candidate):
                program, changed = candidate, True
                break
    return program


def save_repro(program: Program, failure: Failure, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{failure.kind}_{program.seed}.py"
    detail = "\n".join("#   " + line for line in failure.detail.splitlines()[:40])
    path.write_text(f"# fuzz failure: {failure.kind}\n{detail}\n"
                    f"# replay: python tests/tracer/fuzz_run.py --replay {path}\n" + program.source())
    return path


def check_and_reduce(program: Program, directory: str, out_dir: Path | None, heartbeat=lambda: None) -> dict:
    started = time.perf_counter()
    failure = check(program, directory)
    result = {"seed": program.seed, "status": "ok" if failure is None else failure.kind}
    if failure is not None:
        result["detail"] = failure.detail[:2000]
        if out_dir is not None:
            def still_fails(candidate):
                heartbeat()  # reducing takes a while: the parent must not take it for a hang
                found = check(candidate, directory)
                return found is not None and found.kind == failure.kind
            small = reduce(program, still_fails)
            result["repro"] = str(save_repro(small, check(small, directory) or failure, out_dir))
    result["seconds"] = round(time.perf_counter() - started, 3)
    return result


# ---- the child: a batch of seeds, one JSON line per program -------------------------------------
def child(seeds: list[int], out_dir: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="standin-fuzz-") as directory:
        crash_on = {int(s) for s in os.environ.get("STANDIN_FUZZ_CRASH_ON", "").split(",") if s}
        for seed in seeds:
            print(json.dumps({"start": seed}), flush=True)
            if seed in crash_on:  # the runner's own test: a child that dies as a segfault would
                os.kill(os.getpid(), signal.SIGSEGV)
            try:
                result = check_and_reduce(generate(seed), directory, out_dir,
                                          lambda seed=seed: print(json.dumps({"reducing": seed}), flush=True))
            except Exception as error:  # the harness or the generator itself: report, do not stop
                result = {"seed": seed, "status": "harness", "detail": f"{type(error).__name__}: {error}"}
            print(json.dumps(result), flush=True)


# ---- the parent: batches in child processes ----------------------------------------------------------
def run(seeds: list[int], out_dir: Path | None, batch: int = 250, progress=None) -> list[dict]:
    """Every seed, in child processes of `batch` seeds; a child that dies blames its current seed."""
    results: list[dict] = []
    pending = list(seeds)
    while pending:
        chunk, pending = pending[:batch], pending[batch:]
        done = _run_child(chunk, out_dir, results, progress)
        pending = chunk[done:] + pending
    return results


def _run_child(chunk: list[int], out_dir: Path | None, results: list, progress) -> int:
    """Run one child over `chunk`; returns how many seeds of it were settled (the one it died or hung
    on included)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", "--seeds", ",".join(map(str, chunk))]
    if out_dir is not None:
        command += ["--out", str(out_dir)]
    env = dict(os.environ, PYTHONFAULTHANDLER="1")
    # stderr into a file, not a pipe: a chatty child must never block on a pipe nobody reads
    with tempfile.TemporaryFile(mode="w+") as stderr:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env)
        settled, hung = _follow(proc, results, progress)
        code = proc.wait()
        stderr.seek(0)
        tail = stderr.read()[-1500:]
    if settled == len(chunk):
        return settled
    seed = chunk[settled]  # what the child was running when it died or stopped answering
    if hung:
        result = {"seed": seed, "status": "hang", "detail": f"no answer in {PROGRAM_TIMEOUT_S} s"}
    else:
        result = {"seed": seed, "status": "crash", "detail": f"exit status {code}; stderr tail:\n{tail}"}
    _save_unreduced(seed, result["status"], out_dir, result)
    results.append(result)
    if progress is not None:
        progress(result)
    return settled + 1


def _follow(proc, results: list, progress) -> tuple[int, bool]:
    """Read a child's JSON lines until it ends: (programs settled, whether it stopped answering)."""
    settled = 0
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    while True:
        if not selector.select(timeout=PROGRAM_TIMEOUT_S):  # every line (start, reducing, result) is a sign of life
            proc.kill()
            return settled, True
        line = proc.stdout.readline()
        if not line:
            return settled, False
        message = json.loads(line)
        if "start" in message or "reducing" in message:
            continue
        results.append(message)
        settled += 1
        if progress is not None:
            progress(message)


def _save_unreduced(seed, kind: str, out_dir: Path | None, result: dict) -> None:
    if out_dir is not None and seed is not None:
        result["repro"] = str(save_repro(generate(seed), Failure(kind, result["detail"]), out_dir))


def summary(results: list[dict]) -> dict:
    counts = {"programs": len(results)}
    for kind in ("wrong", "crash", "hang", "internal", "harness"):
        counts[kind] = sum(1 for r in results if r["status"] == kind)
    return counts


def replay(path: str) -> int:
    """Run a saved repro (or any program file with CALLS) again; print what differs."""
    source = Path(path).read_text()
    with tempfile.TemporaryDirectory(prefix="standin-fuzz-") as directory:
        eager_module = load(source, directory, "replay_eager")
        eager = run_calls(eager_module, eager_module.prog)
        standin_module = load(source, directory, "replay_standin")
        compiled = tracer.compile(standin_module.prog)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            standin = run_calls(standin_module, compiled)
    problems = _differences(eager, standin)
    problems += [f"internal: {w.message}" for w in caught if issubclass(w.category, tracer.InternalTracerWarning)]
    print("\n".join(problems) if problems else "eager and Standin agree")
    return 1 if problems else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=1000)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--batch", type=int, default=250)
    parser.add_argument("--out", default="fuzz-failures", help="where reduced repro files go")
    parser.add_argument("--replay")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seeds", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.replay:
        return replay(args.replay)
    out_dir = Path(args.out) if args.out else None
    if args.child:
        child([int(s) for s in args.seeds.split(",")], out_dir)
        return 0
    started = time.perf_counter()

    done = []

    def progress(result):
        done.append(result["status"] != "ok")
        if result["status"] != "ok":
            print(f"seed {result['seed']}: {result['status']}  {result.get('repro', '')}", flush=True)
        if len(done) % 500 == 0:
            print(f"... {len(done)} programs, {sum(done)} failing, {time.perf_counter() - started:.0f} s", flush=True)
    results = run(list(range(args.start, args.start + args.programs)), out_dir, args.batch, progress)
    counts = summary(results)
    elapsed = time.perf_counter() - started
    print(f"{counts['programs']} programs in {elapsed:.0f} s: {counts['wrong']} wrong answers, "
          f"{counts['crash']} crashes, {counts['hang']} hangs, {counts['internal']} internal errors, "
          f"{counts['harness']} harness errors")
    return 0 if counts["programs"] == sum(1 for r in results if r["status"] == "ok") else 1


if __name__ == "__main__":
    sys.exit(main())
