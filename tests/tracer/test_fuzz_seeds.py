"""The fuzz runner's own behaviour: crashes caught per program, failures reduced.

`make fuzz` runs thousands of generated programs (see fuzz_run.py).
"""
import fuzz_run
from fuzz_programs import generate


def test_a_dying_child_is_a_crash_of_its_program_and_the_run_goes_on(tmp_path, monkeypatch):
    monkeypatch.setenv("STANDIN_FUZZ_CRASH_ON", "7")
    results = fuzz_run.run([6, 7, 8], tmp_path)
    assert [(r["seed"], r["status"]) for r in results] == [(6, "ok"), (7, "crash"), (8, "ok")]
    assert "exit status -11" in results[1]["detail"]
    assert (tmp_path / "crash_7.py").read_text().count("def prog(") == 1


def test_reduce_keeps_what_fails_and_drops_the_rest():
    program = generate(5)
    culprit = next(i for i, b in enumerate(program.blocks) if any("setdefault" in line for line in b.lines))

    def still_fails(candidate):
        return any("setdefault" in line for b in candidate.blocks for line in b.lines)
    small = fuzz_run.reduce(program, still_fails)
    assert small.blocks == (program.blocks[culprit],)
    assert len(small.calls) == 1 and len(small.returns) == 1


def test_a_generated_program_is_valid_python_with_its_call_plan():
    for seed in range(50):
        source = generate(seed).source()
        namespace = {}
        exec(compile(source, f"<seed {seed}>", "exec"), namespace)
        assert callable(namespace["prog"]) and namespace["CALLS"]
