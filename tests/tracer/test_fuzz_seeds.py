"""The program generator's fixed seeds, and the runner's own behaviour.

`make fuzz` runs thousands of generated programs (see fuzz_run.py); here a fixed
set runs on every `make test`, in a child process as the long run does, so a
segfault fails the test with the seed instead of killing pytest.
"""
import fuzz_run
from fuzz_programs import generate


FIXED_SEEDS = range(0, 30)


def _report(results):
    return "\n\n".join(f"seed {r['seed']}: {r['status']} (repro: {r.get('repro')})\n{r.get('detail', '')}"
                       for r in results if r["status"] != "ok")


def test_fixed_seeds_behave_as_eager(tmp_path):
    results = fuzz_run.run(list(FIXED_SEEDS), tmp_path)
    assert fuzz_run.summary(results)["programs"] == len(FIXED_SEEDS)
    assert all(r["status"] == "ok" for r in results), _report(results)


def test_a_dying_child_is_a_crash_of_its_program_and_the_run_goes_on(tmp_path, monkeypatch):
    monkeypatch.setenv("STANDIN_FUZZ_CRASH_ON", "7")
    results = fuzz_run.run([6, 7, 8], tmp_path)
    assert [(r["seed"], r["status"]) for r in results] == [(6, "ok"), (7, "crash"), (8, "ok")]
    assert "exit status -11" in results[1]["detail"]
    assert (tmp_path / "crash_7.py").read_text().count("def prog(") == 1


def test_reduce_keeps_what_fails_and_drops_the_rest():
    def has_it(block):
        return any("setdefault" in line for line in block.lines)
    program = next(p for p in map(generate, range(1000))
                   if len(p.blocks) > 3 and len(p.calls) > 2 and sum(map(has_it, p.blocks)) == 1)
    culprit = next(i for i, b in enumerate(program.blocks) if has_it(b))

    def still_fails(candidate):
        return any(map(has_it, candidate.blocks))
    small = fuzz_run.reduce(program, still_fails)
    assert small.blocks == (program.blocks[culprit],)
    assert len(small.calls) == 1 and len(small.returns) == 1


def test_a_generated_program_is_valid_python_with_its_call_plan():
    for seed in range(50):
        source = generate(seed).source()
        # a module name of its own: with none, a dataclass's module is `builtins`, and dataclasses leaves
        # builtins.__builtins__ behind (a dict holding itself, which real Dynamo later recurses over without end)
        namespace = {"__name__": f"generated_seed_{seed}"}
        exec(compile(source, f"<seed {seed}>", "exec"), namespace)
        assert callable(namespace["prog"]) and namespace["CALLS"]
