"""`make mutate`'s driver (`mutation/`): each target names files that exist and tests that exist (a
renamed test file would silently shrink the selection), and the score counts what mutmut reports
the way the README says: killed / (mutants checked - listed equivalents)."""
from pathlib import Path

import pytest

from mutation.__main__ import EQUIVALENT, TARGETS, merged, narrowed, rechecked, scratch, score, table

ROOT = Path(__file__).resolve().parents[1]


def test_every_target_mutates_existing_files_against_existing_tests():
    assert {t.name for t in TARGETS} == {"guards.compiled", "guards.kinds", "guards.whatif", "guards.report",
                                         "guards.native", "side_effects", "codegen", "resume", "debug"}
    mutated = {f for t in TARGETS for p in t.paths for f in ROOT.glob(p)}
    engine = {*ROOT.glob("tracer/guards/*.py"), ROOT / "tracer/side_effects.py", ROOT / "tracer/codegen.py",
              ROOT / "tracer/resume.py", *ROOT.glob("tracer/debug/*.py")}
    assert engine - {ROOT / "tracer/guards/__init__.py", ROOT / "tracer/debug/__init__.py"} <= mutated
    for target in TARGETS:
        for pattern in target.paths:
            assert list(ROOT.glob(pattern)), f"{target.name}: {pattern} matches no file"
        missing = [t for t in target.tests if not (ROOT / t).is_file()]
        assert not missing, f"{target.name}: no such test file {missing}"


def test_every_listed_equivalent_says_why_and_names_a_target_module():
    prefixes = {p.split("/")[1].removesuffix(".py").removesuffix("*") for t in TARGETS for p in t.paths}
    for name, why in EQUIVALENT.items():
        assert len(why.split()) >= 5, f"{name}: say why it is equivalent"
        assert name.split(".")[1] in prefixes, name
        assert "__mutmut_" in name, f"{name}: a mutant's name (or a glob over one function's mutants)"


def test_score_counts_killed_over_mutants_less_equivalents():
    target = next(t for t in TARGETS if t.name == "side_effects")
    statuses = ["killed", "survived", "timeout", "no tests", "survived", "not checked"]
    listed = "\n".join(f"    tracer.side_effects.x_f__mutmut_{i}: {s}" for i, s in enumerate(statuses, 1))
    equivalent = "tracer.side_effects.x_f__mutmut_[5]"
    EQUIVALENT[equivalent] = "a made-up equivalent for this test only"
    try:
        result = score(target, listed)
    finally:
        del EQUIVALENT[equivalent]
    assert result["mutants"] == 6 and result["unchecked"] == 1
    assert result["killed"] == 2 and result["equivalent"] == 1
    assert result["survived"] == ["tracer.side_effects.x_f__mutmut_2", "tracer.side_effects.x_f__mutmut_4"]
    assert result["score"] == 50.0  # 2 killed of the 4 checked that count
    assert result["statuses"] == {"killed": 1, "survived": 2, "timeout": 1, "no tests": 1, "not checked": 1}
    assert table([result]).splitlines()[-1] == "| side_effects | 6 | 1 | 2 | 1 | 2 | 50.0% |"


def test_a_module_can_be_run_in_parts_scored_apart():
    debug = next(t for t in TARGETS if t.name == "debug")
    part = narrowed(debug, ["tracer/debug/session.py"])
    assert part.name == "debug:session" and part.paths == ("tracer/debug/session.py",)
    assert part.tests == debug.tests
    with pytest.raises(SystemExit, match="not files of debug: tracer/codegen.py"):
        narrowed(debug, ["tracer/codegen.py"])


def test_a_recheck_keeps_the_verdicts_it_did_not_run_again():
    before = "    m_1: killed\n    m_2: survived\n    m_3: survived\n    m_4: not checked\n"
    now = "    m_1: not checked\n    m_2: killed\n    m_3: survived\n    m_4: not checked\n    m_5: not checked\n"
    assert merged(before, now) == "    m_1: killed\n    m_2: killed\n    m_3: survived\n    m_4: not checked\n" \
                                  "    m_5: not checked\n"
    assert merged("", now) == now


def test_a_recheck_runs_the_survivors_and_the_timeouts_again():
    debug = next(t for t in TARGETS if t.name == "debug")
    listed = ("    tracer.debug.views.x_f__mutmut_1: killed\n    tracer.debug.views.x_f__mutmut_2: timeout\n"
              "    tracer.debug.views.x_f__mutmut_3: survived\n    tracer.debug.views.x_f__mutmut_4: no tests\n"
              "    tracer.debug.views.x_f__mutmut_5: not checked\n")
    assert rechecked(debug, listed) == ["tracer.debug.views.x_f__mutmut_2", "tracer.debug.views.x_f__mutmut_3",
                                        "tracer.debug.views.x_f__mutmut_4"]
    assert rechecked(debug, listed, ("*_mutmut_[15]",)) == [f"tracer.debug.views.x_f__mutmut_{i}" for i in range(1, 6)]


def test_a_target_leaves_its_slow_tests_out_of_the_selection(tmp_path, monkeypatch):
    import mutation.__main__ as driver
    monkeypatch.setattr(driver, "WORK", tmp_path)
    debug = next(t for t in TARGETS if t.name == "debug")
    assert debug.slow and all(t.split("::")[0] in debug.tests for t in debug.slow)
    config = (scratch(narrowed(debug, ["tracer/debug/views.py"])) / "pyproject.toml").read_text()
    assert f'"--deselect", "{debug.slow[0]}"' in config and "timeout_constant = 5.0" in config


def test_only_runs_the_mutants_matching_its_globs_and_keeps_the_other_verdicts(tmp_path, monkeypatch):
    import subprocess
    import mutation.__main__ as driver
    monkeypatch.setattr(driver, "WORK", tmp_path)
    kinds = next(t for t in TARGETS if t.name == "guards.kinds")
    (tmp_path / "guards.kinds").mkdir()
    (tmp_path / "guards.kinds" / "verdicts.txt").write_text("    k.x_a__mutmut_1: killed\n    k.x_b_native__mutmut_1: not checked\n")
    ran = []

    def fake(args, **kw):
        ran.append(args)
        out = "    k.x_a__mutmut_1: not checked\n    k.x_b_native__mutmut_1: survived\n"
        return subprocess.CompletedProcess(args, 0, stdout=out if "results" in args else "")
    monkeypatch.setattr(driver.subprocess, "run", fake)
    result = driver.run(kinds, 1, "mutate", only=("*_native__*",))
    runs = [a for a in ran if "run" in a]
    assert len(runs) == 1 and runs[0][-1] == "*_native__*" and runs[0][-3:-1] == ["--max-children", "1"]
    assert result["killed"] == 1 and result["survived"] == ["k.x_b_native__mutmut_1"]
