"""The three-way fuzzer's families (fuzz_families.py) on a few fixed seeds: each program agrees with eager
and with Dynamo (or, where Dynamo itself differs from eager, with eager).  `fuzz_families_run.py` runs
hundreds per family; this keeps each family's generator and the runner's checks working on every `make test`."""
import pytest
from fuzz_families import FAMILIES, generate
from fuzz_families_run import check

FIXED = {"torch_ops": (0,), "nested": (2,), "classes": (0, 70), "containers": (29,), "dynamic": (25,), "bad": (3,),
         "optim": (0,), "hf": (6,), "chains": (0,), "sizes": (7,), "globals": (0,),
         "modules": (0,), "wrappers": (0,), "exc": (0,), "comps": (0,), "scalars": (0,), "outputs": (0,),
         "frames": (0,), "dyn_shapes": (0,), "generators_ctx": (0,),
         # views 226, cells 209 and outside 204 were wrong answers (a folded stride, a cell read, __dict__ and
         # a reassigned owner), hierarchy 264 a guard named unlike Dynamo's; module_attrs 213 reads a buffer
         # registered in forward after a break
         "views": (226,), "hierarchy": (201, 264), "cells": (209,), "outside": (204,), "torch_state": (201,),
         "module_attrs": (213,)}


@pytest.mark.parametrize("family, seed", [(f, s) for f, seeds in FIXED.items() for s in seeds],
                         ids=lambda v: str(v))
def test_a_fixed_program_of_each_family_agrees(family, seed, tmp_path):
    result = check(generate(family, seed), str(tmp_path))
    assert result["status"] in ("ok", "dynamo"), result["detail"]


def test_every_family_has_a_fixed_seed():
    assert set(FIXED) == set(FAMILIES)


def test_a_generated_program_is_valid_python_with_its_call_plan():
    for family in FAMILIES:
        for seed in range(20):
            # a module name of its own: a dataclass made with none lands in `builtins` (its __module__), whose
            # dict dataclasses then runs code in, leaving builtins.__builtins__ behind for every later test
            namespace = {"__name__": f"generated_{family}_{seed}"}
            exec(compile(generate(family, seed).source, f"<{family} {seed}>", "exec"), namespace)
            assert callable(namespace["fn"]) and namespace["CALLS"]
