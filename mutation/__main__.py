"""Mutation testing of the engine's promises with mutmut 3: `make mutate` (or `python -m mutation`).

    python -m mutation                       every module below, one after another
    python -m mutation guards side_effects   only these
    python -m mutation --max-children 1      mutmut's workers (default 1: the machine is shared)
    python -m mutation guards --files tracer/guards/compiled.py   part of a module, scored apart
    python -m mutation side_effects --recheck   only the last survivors (and timeouts), against today's tests
    python -m mutation debug --recheck --also '*x_f__*'   ... and these mutants too (a function edited since)
    python -m mutation guards.kinds --only '*_native*'   only these mutants (a stopped run's rest)
    python -m mutation --report              the last scores again, nothing run

Each module is mutated on its own, in its own scratch folder (`.mutate/<name>/`, which mutmut fills
with its `mutants/` copy), against the fast selection of tests that cover it: mutmut runs, for each
mutant, only the tests of that selection that call the mutated function. The score of each module
is written to `.mutate/scores.json` and printed as a table; a mutant listed in `EQUIVALENT` (with why
it cannot change behaviour) is counted apart, so the score is killed / (checked - equivalent).

Not part of `make test`: a full run takes hours on a loaded two-core machine.
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".mutate"


@dataclass(frozen=True)
class Target:
    name: str
    paths: tuple[str, ...]  # the files mutated (globs under the repository)
    tests: tuple[str, ...]  # the tests that cover them, fast enough to run per mutant
    slow: tuple[str, ...] = ()  # tests of those files left out: too slow per mutant, pinned by faster ones


# Each target's tests are the fast ones that pin its promises: mutmut runs, per mutant, every test
# of the selection that calls the mutated function, so one slow test that covers everything costs
# every mutant (the differential files run three engines per case: a few files, not all of them).
TARGETS = (
    Target("guards.compiled", ("tracer/guards/compiled.py",),
           ("tests/tracer/test_source_guards.py", "tests/tracer/test_guard_engine.py",
            "tests/tracer/test_diff_global_state.py")),
    Target("guards.kinds", ("tracer/guards/kinds.py",),
           ("tests/tracer/test_guard_kinds.py", "tests/tracer/test_source_guards.py", "tests/tracer/test_guard_engine.py",
            "tests/tracer/test_diff_global_state.py")),
    Target("guards.whatif", ("tracer/guards/whatif.py",),
           ("tests/tracer/test_whatif.py", "tests/tracer/test_api.py")),
    Target("guards.report", ("tracer/guards/report.py",),
           ("tests/tracer/test_guard_report.py",)),
    Target("guards.native", ("tracer/guards/native.py", "tracer/guards/tag_safety.py"),
           ("tests/tracer/test_guard_engine.py", "tests/tracer/test_tag_safety.py",
            "tests/tracer/test_native_guards.py", "tests/tracer/test_diff_module_tag_safe.py"),
           # 9 s of what-if predictions (guards.whatif's promise): every mutant of the tree would pay it
           ("tests/tracer/test_guard_engine.py::test_what_if_predicts_the_next_call",)),
    Target("side_effects", ("tracer/side_effects.py",),
           ("tests/tracer/test_side_effects_record.py", "tests/tracer/test_diff_side_effects.py",
            "tests/tracer/test_diff_module_mutations.py",
            "tests/tracer/test_diff_set_order.py", "tests/tracer/test_diff_inlining.py",
            "tests/tracer/test_diff_objects_more.py", "tests/tracer/test_diff_object_protocol.py",
            "tests/tracer/test_diff_optimizer.py")),
    Target("codegen", ("tracer/codegen.py",),
           ("tests/tracer/test_codegen_primitives.py", "tests/tracer/test_codegen_staging.py",
            "tests/tracer/test_reconstruct.py",
            "tests/tracer/test_rewritten_code.py", "tests/tracer/test_code_check.py",
            "tests/tracer/test_break_code.py")),
    Target("resume", ("tracer/resume.py",),
           ("tests/tracer/test_resume_code.py", "tests/tracer/test_rewritten_code.py", "tests/tracer/test_break_code.py",
            "tests/tracer/test_code_check.py", "tests/tracer/test_with_block_breaks.py")),
    Target("debug", ("tracer/debug/*.py",),
           ("tests/tracer/test_debugger.py", "tests/tracer/test_debugger_breakpoints.py",
            "tests/tracer/test_debugger_navigation.py", "tests/tracer/test_debugger_session.py",
            "tests/tracer/test_debugger_views.py", "tests/tracer/test_recorded_views.py",
            "tests/tracer/test_session_bad_input.py"),
           # 34 s alone (a memory bound over 100k steps): every recorder mutant would pay it
           ("tests/tracer/test_debugger.py::test_a_trace_of_100k_instructions_fits_in_memory",)),
)

# Surviving mutants that cannot change what the module does, by mutmut's name (a glob), with why.
EQUIVALENT: dict[str, str] = {
    "tracer.side_effects.xǁSideEffectsǁoutside_effects__mutmut_1[01]":
        "the kind 'global' is renamed: its only reader (codegen's stage_side_effects and "
        "apply_side_effects) tests for 'setattr' and 'container' and takes any other kind as a global",
    "tracer.guards.whatif.x_reshaped__mutmut_13": "follow_wrapped=None instead of False: inspect.signature "
        "only tests it for truth, and None is as false",
    "tracer.guards.whatif.x_reshaped__mutmut_19": "None instead of the _MISSING marker for a name the call does not "
        "bind: the next line asks isinstance(old, Tensor), false for both, and raises the same error",
    "tracer.guards.whatif.x_reshaped__mutmut_21": "the same as _19 (get's default None spelled by omission)",
    "tracer.guards.whatif.x_reshaped__mutmut_25": "a new float tensor of zeros instead of random values: the contents "
        "are unspecified (the promise is shape, dtype, device and requires_grad; guards read no values)",
    "tracer.guards.whatif.x_reshaped__mutmut_43": "requires_grad_ called on an integer tensor too: with the old "
        "tensor's flag, always False for an integer tensor, which torch accepts and which changes nothing",
    "tracer.resume.x_original_from__mutmut_1[89]": "COPY_FREE_VARS kept in the copied code: it sits before "
        "the jump's target, so it never runs (the prologue copies the closure; a second copy would be the same)",
    "tracer.resume.x_live_locals__mutmut_1[12]": "LOAD_FAST_CHECK misspelt: CPython 3.11, the only version "
        "the engine runs on, has no such opcode (3.12 adds it), so no instruction carries that name",
    "tracer.resume.x_live_locals__mutmut_30": "changed = None before each pass: the loop tests it for truth "
        "and sets True on a change, so None acts as False",
    "tracer.resume.x_live_locals__mutmut_41": "the backward pass goes on to index -1, the last instruction "
        "again: it recomputes the value the pass began with",
    "tracer.resume.x_successors__mutmut_17": "an index one past the last instruction kept: CPython's code "
        "ends in a terminator and jumps inside itself, so no successor is ever that index",
    "tracer.resume.x_make_resume_code__mutmut_3[34]": "the original's COPY_FREE_VARS kept in the copy: it "
        "opens the code, before every jump target, so the prologue's jump passes it and it never runs",
    "tracer.resume.x_make_resume_code__mutmut_68": "RESUME 1 for RESUME 0: CPython 3.11 reads the operand only "
        "to check its eval breaker when it is below 2 (a start or a yield), where 0 and 1 behave alike",
    "tracer.resume.x_make_resume_code__mutmut_120": "compute_exception_stack_depths=None for False: the "
        "bytecode package only tests it for truth",
    "tracer.resume.x_with_blocks_around__mutmut_26": "return for break where a with-block's handler has no "
        "cleanup row: CPython 3.11 always covers that handler with one (it restores the exception state), "
        "so the branch never runs and the loop ends at its while test",
    # ---- guards.kinds (mutate4) ----
    "tracer.guards.kinds.x__tensor_actual__mutmut_1": "None for '' as the source name: tensor_mismatch only tests "
        "it for truth (an unnamed tensor either way)",
    "tracer.guards.kinds.x__global_state_actual__mutmut_13": "getattr(e, 'native') with no default: reached only "
        "when no listed switch changed, which for a state without torch's snapshot (made by hand) means its "
        "check held, and the failure text is asked only of a check that failed",
    "tracer.guards.kinds.x__dict_keys_native__mutmut_[678]": "the words of the TypeError that refuses a native "
        "key check: NativeGuards catches it and installs the Python check instead, nothing reads the words",
    "tracer.guards.kinds.x__dict_contains_native__mutmut_[345]": "the same, for the native key-presence check",
    "tracer.guards.kinds.x__length_native__mutmut_2[89]": "the same, for the native length check",
    "tracer.guards.kinds.x__length_native__mutmut_30": "the same, for the native length check",
    # ---- end guards.kinds ----
    # ---- codegen (mutate4) ----
    "tracer.codegen.xǁPyCodegenǁ_staged__mutmut_5": "the staged cell value's temp prefix upper-cased: still "
        "`___`-named (apart from user locals), and its count makes it unique among the temps",
    "tracer.codegen.xǁPyCodegenǁ_nested_function__mutmut_4": "FunctionType(code, globals, None, ...): a None "
        "name is taken from code.co_name, the very name the original passes",
    "tracer.codegen.xǁPyCodegenǁ_built_once__mutmut_8": "a rebuilt object's temp prefix upper-cased: still "
        "`___`-named, and its count makes it unique among the temps",
    "tracer.codegen.xǁPyCodegenǁ_new_object__mutmut_7": "the same as _built_once__mutmut_8, for a new object's temp",
    "tracer.codegen.xǁPyCodegenǁ_cell__mutmut_21": "the emitter of an empty cell's arguments returns 0 instead of "
        "None: it pushes nothing either way, and call() ignores what an emitter returns",
    "tracer.codegen.x__replace_list__mutmut_1": "a list refilled by clear() and extend() instead of [:] =: the "
        "same object with the same items afterwards (a subclass already takes that path)",
    "tracer.codegen.xǁPyCodegenǁstage_cells__mutmut_8": "by analysis: every frame cell the trace did not write "
        "staged too. Such a cell still holds what the trace read from it, so staging stores the same object back; "
        "an argument's unread cell is skipped by the rule after it, and one never read has no content to stage "
        "(no test tells them apart: an unread free variable gains no guard either, checked by hand)",
    "tracer.codegen.xǁPyCodegenǁstage_side_effects__mutmut_[45]": "an attribute set on an object made in the "
        "trace replayed too: the object is rebuilt with its attributes already (_new_object, through __new__, "
        "no __init__), so the replay stores the same value on it again",
    "tracer.codegen.xǁPyCodegenǁstage_side_effects__mutmut_19": "the replayed effect's temp prefix upper-cased: "
        "still `___`-named, and its count makes it unique",
    "tracer.codegen.xǁPyCodegenǁ_cell__mutmut_30": "a rebuilt cell's temp prefix upper-cased: still `___`-named, "
        "and its count makes it unique",
    "tracer.codegen.xǁPyCodegenǁreturned__mutmut_4": "keep_lazy_constants = None instead of False after the "
        "return value is emitted: its only reader (reconstruct) tests it for truth",
    "tracer.codegen.xǁPyCodegenǁstage_cells__mutmut_9": "by analysis: at a return that no rebuilt closure "
        "reaches (frame_cellvars False), the frame's unwritten cell variables wanted too. An argument's is "
        "skipped by the rule after it while unread; one the trace read is already guarded and staging stores "
        "the value it holds back into it as the frame ends (no closure of the trace that holds it leaves the "
        "frame, or frame_cellvars would be True); any other unwritten cell has no content and is not staged",
    # ---- end codegen ----
    "tracer.guards.compiled.xǁGuardSetǁcheck__mutmut_1":
        "check asks the generated Python check instead of the native tree: both hold the same guards "
        "and give the same answer (test_source_guards and test_guard_engine check each against hand "
        "labels); the frame hook's lookup runs the native tree itself, never GuardSet.check",
    "tracer.guards.compiled.xǁGuardSetǁfirst_failure__mutmut_15":
        "ok = None instead of False where a check raised: the next line tests `not ok`, and None is as false",
    "tracer.guards.compiled.x__compile__mutmut_2[567]":
        "the sort of one source's leaves (tensor checks last) undone: the order only changes how soon "
        "a failing check returns; every leaf must hold, and one that raises returns False as a failing one",
    "tracer.guards.compiled.x__compile__mutmut_7[67]":
        "the generated check's file name: nothing reads it (the check catches every exception, so it "
        "names no traceback a user sees)",
    "tracer.guards.compiled.x__compile__mutmut_83":
        "check.source_code = None: no code in tracer/ or app/ reads that attribute",
    # ---- tracer/debug/ (mutate5) ----
    "tracer.debug.breakpoints.xǁGuardInstalledBreakpointǁmatches__mutmut_[36]":
        "at step 0 the range of new guards starts at the last step's count or at 1 instead of 0: both "
        "are empty, as the original is, since no guard is installed before a trace's first instruction "
        "(the recorder records that step before it runs, and guards come from instructions)",
    "tracer.debug.breakpoints.x__opcode__mutmut_10": "'_' replaced by 'XXXX' before isalnum: the rest "
        "is alphanumeric either way, and a text of underscores only has no cased letter, so isupper "
        "refuses it in both",
    "tracer.debug.navigation.xǁNavigatorǁ_scan__mutmut_13": "step >= 0 for step > 0 at the end of a scan: "
        "every move scans with a step of 1 or -1, never 0",
    "tracer.debug.navigation.xǁNavigatorǁ_hits_breakpoint__mutmut_1": "stop = None for False: its only "
        "reader, _scan, tests the answer for truth, and None is as false",
    # ---- tracer/debug/ session, recorder, timeline, view_cache, views (mutate7) ----
    "tracer.debug.session.xǁSessionǁcall_again__mutmut_2[35]": "None (or nothing) as the default start of "
        "a frame's new compile events: a slice from None starts at 0, as the original's 0 does",
    "tracer.debug.session.xǁSessionǁrun__mutmut_4": "finished = None for False after Ctrl+C: the next line "
        "tests `not finished`, and None is as false",
    "tracer.debug.view_cache.xǁViewCacheǁ_sourceless_constant__mutmut_[35]": "an int constant keyed by (type, "
        "repr) as every other constant: as unique as its value (the value is only the faster key)",
    "tracer.debug.view_cache.xǁViewCacheǁ_sourceless_constant__mutmut_7": "(NoneType, repr) for (type, repr) as "
        "a non-int constant's key: constants of different types never share a repr (a str's has quotes, a "
        "float's a point or 'inf'/'nan', bool's, None's, a dtype's and a device's are their own words)",
    "tracer.debug.view_cache.xǁViewCacheǁ_sourceless_constant__mutmut_9": "no earlier view of an equal constant "
        "looked up: the view is made from its type's view with the two fields that depend on the value, the "
        "fields the copy of the earlier one holds (only slower)",
    "tracer.debug.view_cache.xǁViewCacheǁ_sourceless_constant__mutmut_10": "the same as _9: the key None is "
        "never stored (None's own key is (NoneType, 'None'))",
    "tracer.debug.view_cache.xǁViewCacheǁ_sourceless_constant__mutmut_2[23]": "no view of the type looked up: "
        "the view is made whole by _make, with the fields the shortcut copies (only slower)",
    "tracer.debug.view_cache.xǁViewCacheǁ_sourceless_constant__mutmut_29": "the step a constant's first view is "
        "made at: None for 0, read only for lazy shells, which a ConstantVariable's tree never holds",
    "tracer.debug.view_cache.xǁViewCacheǁ_sourceless_constant__mutmut_32": "the same as _29 (step 1)",
    "tracer.debug.view_cache.xǁViewCacheǁ_sourceless_constant__mutmut_41": "the same as _9: no earlier view "
        "of an equal constant is kept, so each is made from its type's view",
    "tracer.debug.view_cache.xǁViewCacheǁ_make__mutmut_1": "depth's default 1 for 0, on the source as run: "
        "children were made by view() at depth 0 whatever it was (the parameter is gone since: session 6)",
    "tracer.debug.view_cache.xǁViewCacheǁ_make__mutmut_43": "depth <= 4 for < 4, on the source as run: depth "
        "was always 0 there (the test is gone since: session 6)",
    "tracer.debug.view_cache.xǁViewCacheǁmiss__mutmut_2": "no sourceless constant takes the shortcut: each "
        "is made whole by _make, with the same fields (only slower)",
    "tracer.debug.view_cache.xǁViewCacheǁmiss__mutmut_11": "the step a settled view is made at: read only for "
        "lazy shells, and a settled tree has none",
    "tracer.debug.timeline.xǁSnapshotsǁwalk__mutmut_7": "direction >= 0 for > 0: every walk goes forwards (1) "
        "or backwards (-1), never 0 (the navigator's moves and the app's scans)",
    # ---- tracer/guards/native.py (mutate5) ----
    "tracer.guards.native.xǁNativeGuardsǁ_frame_leaf__mutmut_6": "a shape guard that raises passes instead "
        "of failing: it raises only when an input it sizes is no tensor, and then that input's own "
        "TENSOR_MATCH in the same tree fails, so the tree's answer is the same",
    "tracer.guards.native.x__python_accessor__mutmut_1[12]": "the file name of the accessor's compiled "
        "lambda: nothing reads it (torch catches the accessor's exceptions, no traceback shows it)",
    "tracer.guards.native.x__python_accessor__mutmut_19": "__builtins__ misspelt in the accessor's "
        "namespace, so eval adds the real builtins: the accessor's expression names only "
        "SOURCE_NAMESPACE's helpers, never a builtin",
    "tracer.guards.native.x__python_accessor__mutmut_20": "the same as _19 (__BUILTINS__)",
    "tracer.guards.native.x__python_leaf__mutmut_5": "the value handed to a kind that does not read its "
        "source: the only such kind, GLOBAL_STATE, tests process state and never reads its argument",
    # ---- tracer/guards/native.py (mutate9) ----
    "tracer.guards.native.xǁNativeGuardsǁfailing_parts__mutmut_3": "the parts of a passing check listed too: "
        "torch's check_verbose hands back an empty list of parts when every guard passes",
    "tracer.guards.native.xǁNativeGuardsǁ_twin__mutmut_15": "a twin's leaves built with no example value: a twin "
        "is a tag-safe module's, whose leaves are all SAFE_LEAVES; of those, the native forms that read the "
        "example (a tensor's, a dict's or a sequence's length, a dict's keys) refuse a module anyway",
    "tracer.guards.native.xǁNativeGuardsǁ_accessor__mutmut_[57]2": "no manager kind for a builtin's or a module's "
        "manager (measured on the source as run, before _new_accessor split off): torch reads the kind only to "
        "make a dict's manager, and a builtin or an entry of sys.modules is never a dict",
    "tracer.guards.native.xǁNativeGuardsǁ_node__mutmut_13": "None as the base handed to _python_subtree, "
        "on the source as run: it never read that parameter (gone since, session 7)",
    "tracer.guards.native.xǁNativeGuardsǁ_node__mutmut_27": "the same as _13, the other call",
}

# What each of mutmut's exit statuses means for the score.
# "suspicious" is an exit mutmut has no name for: torch aborting (SIGABRT, as attach_native's
# NativeGuards(guards, None, ...) does in code_framelocals_names); the tests did not pass.
KILLED = {"killed", "timeout", "segfault", "suspicious"}


def narrowed(target: Target, files: list[str]) -> Target:
    """The target over some of its files only, scored apart (a long module can be run in parts)."""
    stray = [f for f in files if not any(fnmatch.fnmatchcase(f, p) for p in target.paths)]
    if stray:
        raise SystemExit(f"not files of {target.name}: {', '.join(stray)}")
    label = ",".join(Path(f).name.removesuffix(".py") for f in files)
    return Target(f"{target.name}:{label}", tuple(files), target.tests, target.slow)


def scratch(target: Target) -> Path:
    """`.mutate/<name>/` with the project linked in and a pyproject.toml telling mutmut what to do."""
    here = WORK / target.name.replace(":", "-")
    here.mkdir(parents=True, exist_ok=True)
    for name in ("tracer", "tests", "app", "resources", "bench", "mutation"):
        link = here / name
        if not link.exists():
            link.symlink_to(ROOT / name, target_is_directory=True)
    only = ", ".join(json.dumps(p) for p in target.paths)
    tests = ", ".join([*(json.dumps(t) for t in target.tests if (ROOT / t).exists()),
                       *(f'"--deselect", {json.dumps(t)}' for t in target.slow)])
    (here / "pyproject.toml").write_text(
        "[tool.mutmut]\n"
        'source_paths = ["tracer"]\n'
        f"only_mutate = [{only}]\n"
        'also_copy = ["app", "resources", "bench", "mutation"]\n'
        f"pytest_add_cli_args_test_selection = [{tests}]\n"
        # mutation.warm compiles once in the fork server: each mutant's first compile starts warm
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:logging", "-p", "mutation.warm", "-q", "-x"]\n'
        'process_isolation = "forkserver"\n'
        # the wall-clock limit is (tests' time + this) x 15: 15 s was too short for a child niced on a
        # loaded machine (fast tests of breakpoints.py timed out), 75 s is not
        "timeout_constant = 5.0\n"
        "\n[tool.pytest.ini_options]\n"
        'testpaths = ["tests"]\n')
    return here


def run(target: Target, max_children: int, mode: str = "mutate", also: tuple[str, ...] = (),
        only: tuple[str, ...] = ()) -> dict:
    """Run mutmut over the target and score it. mode "report": only read its last results;
    "recheck": run again only the last survivors (against the tests as they are now: mutmut copies
    the tests anew and collects the coverage of new ones).

    A recheck with changed test files makes mutmut forget every other verdict ("not checked"): those
    are kept from the run before (tests were added since, so a mutant killed then is killed now), and
    the merged verdicts are what `verdicts.txt` in the scratch folder holds and --report reads.
    `only`: in mode "mutate", the globs of the mutants to run (the others keep their verdicts)."""
    here = scratch(target)
    kept = here / "verdicts.txt"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "OMP_NUM_THREADS": "1"}
    env.pop("PYTHONPATH", None)  # the mutants must be what the tests import
    mutmut = [sys.executable, "-m", "mutmut"]

    def listed() -> str:
        return subprocess.run([*mutmut, "results", "--all", "true"], cwd=here, env=env, text=True,
                              capture_output=True, check=False).stdout

    if mode == "report":
        return score(target, kept.read_text() if kept.exists() else listed())
    before = (kept.read_text() if kept.exists() else listed()) if mode == "recheck" else ""
    names = rechecked(target, before, also) if mode == "recheck" else list(only)
    if only and mode == "mutate":
        before = kept.read_text() if kept.exists() else listed()
    if mode == "mutate" or names:
        subprocess.run(["nice", "-n", "10", *mutmut, "run", "--max-children", str(max_children), *names],
                       cwd=here, env=env, check=False)
    now = merged(before, listed())
    kept.write_text(now)
    return score(target, now)


def rechecked(target: Target, listed: str, also: tuple[str, ...] = ()) -> list[str]:
    """What a recheck runs again: the survivors, and the timeouts, which a loaded machine can cause
    (mutmut's limit is wall-clock: a niced child starved of CPU times out on a test that would pass),
    and the mutants matching `also` (globs: a function edited since, whose verdicts are stale or new)."""
    statuses = statuses_of(listed)
    timeouts = [name for name, status in statuses.items() if status == "timeout"]
    chosen = [name for name in statuses if any(fnmatch.fnmatchcase(name, glob) for glob in also)]
    return sorted({*score(target, listed)["survived"], *timeouts, *chosen})


def statuses_of(listed: str) -> dict[str, str]:
    """`mutmut results --all true` lines ("    name: status") as {name: status}."""
    found = {}
    for line in listed.splitlines():
        m = re.match(r"\s*(\S+): (.+)$", line)
        if m:
            found[m[1]] = m[2].strip()
    return found


def merged(before: str, now: str) -> str:
    """The verdicts of `now`, with those it has not checked taken from `before`."""
    old = statuses_of(before)
    statuses = {name: old.get(name, status) if status == "not checked" else status
                for name, status in statuses_of(now).items()}
    return "".join(f"    {name}: {status}\n" for name, status in statuses.items())


def is_equivalent(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in EQUIVALENT)


def score(target: Target, listed: str) -> dict:
    """Counts from `mutmut results --all true` lines ("    name: status"). A mutant not checked yet
    (a run stopped early) is counted apart, never as killed or survived."""
    statuses = statuses_of(listed)
    checked = {n: s for n, s in statuses.items() if s != "not checked"}
    killed = [n for n, s in checked.items() if s in KILLED]
    equivalent = [n for n, s in checked.items() if s not in KILLED and is_equivalent(n)]
    survived = [n for n, s in checked.items() if s not in KILLED and not is_equivalent(n)]
    counted = len(checked) - len(equivalent)
    return {"module": target.name, "mutants": len(statuses), "unchecked": len(statuses) - len(checked),
            "killed": len(killed), "equivalent": len(equivalent), "survived": sorted(survived),
            "score": round(100 * len(killed) / counted, 1) if counted else None,
            "statuses": {s: sum(1 for v in statuses.values() if v == s) for s in set(statuses.values())}}


def table(scores: list[dict]) -> str:
    lines = ["| module | mutants | not checked | killed | equivalent | survived | score |",
             "|---|--:|--:|--:|--:|--:|--:|"]
    for s in scores:
        lines.append(f"| {s['module']} | {s['mutants']} | {s.get('unchecked', 0)} | {s['killed']} | "
                     f"{s['equivalent']} | {len(s['survived'])} | {s['score']}% |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mutation", description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", help=f"of {', '.join(t.name for t in TARGETS)} (default: all)")
    parser.add_argument("--max-children", type=int, default=1)
    parser.add_argument("--fresh", action="store_true", help="forget earlier results of these modules")
    parser.add_argument("--report", action="store_true", help="score the last results again, run nothing")
    parser.add_argument("--recheck", action="store_true",
                        help="run the last survivors again, against the tests as they are now")
    parser.add_argument("--also", nargs="+", metavar="GLOB", default=(),
                        help="with --recheck: run these mutants too (e.g. a function edited since)")
    parser.add_argument("--only", nargs="+", metavar="GLOB", default=(),
                        help="run only the mutants matching these globs (e.g. the functions a stopped run left)")
    parser.add_argument("--files", nargs="+", metavar="GLOB",
                        help="mutate only these files of the one module chosen (scored as module:file)")
    args = parser.parse_args(argv)
    unknown = set(args.modules) - {t.name for t in TARGETS}
    if unknown:
        parser.error(f"unknown module(s): {', '.join(sorted(unknown))}")
    chosen = [t for t in TARGETS if not args.modules or t.name in args.modules]
    if args.files:
        if len(chosen) != 1:
            parser.error("--files narrows one module: name it")
        chosen = [narrowed(chosen[0], args.files)]
    scores_path = WORK / "scores.json"
    for target in chosen:
        if args.fresh:
            shutil.rmtree(WORK / target.name.replace(":", "-") / "mutants", ignore_errors=True)
        mode = "report" if args.report else "recheck" if args.recheck else "mutate"
        result = run(target, args.max_children, mode, tuple(args.also), tuple(args.only))
        scores = json.loads(scores_path.read_text()) if scores_path.exists() else {}  # another run may have written
        scores[target.name] = result
        scores_path.write_text(json.dumps(scores, indent=1))
    scores = json.loads(scores_path.read_text()) if scores_path.exists() else {}
    print(table([s for name, s in sorted(scores.items())]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
