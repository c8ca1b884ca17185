"""The side-effects record (`tracer/side_effects.py`) as a unit: what it answers about containers from
outside, without a trace. The differential files check what the rewritten code replays from it."""
import dataclasses

from tracer.side_effects import SideEffects
from tracer.source import GlobalSource
from tracer.variables.constant import ConstantVariable
from tracer.variables.lists import ListVariable


def test_a_container_from_outside_is_mutated_once_a_version_of_it_is_recorded():
    effects = SideEffects()
    outside = ListVariable([ConstantVariable(1)], source=GlobalSource("XS"))
    assert effects.is_mutated(outside) is False  # read only, so far
    appended = dataclasses.replace(outside, items=[ConstantVariable(1), ConstantVariable(2)])
    effects.record_container(appended)
    assert effects.is_mutated(outside) is True and effects.is_mutated(appended) is True  # one identity
    assert effects.is_mutated(ListVariable([], source=GlobalSource("YS"))) is False  # another list


def test_a_container_made_in_the_trace_or_a_value_without_identity_is_never_mutated_from_outside():
    effects = SideEffects()
    made_here = ListVariable([ConstantVariable(1)])  # no source: its mutations need no replay
    effects.record_container(made_here)
    assert effects.is_mutated(made_here) is False
    assert effects.is_mutated(ConstantVariable(3)) is False  # has no mutation id at all
