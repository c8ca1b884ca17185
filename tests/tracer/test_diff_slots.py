"""Objects of classes with __slots__: their members stored and read in the trace, as Dynamo.

An object made in the trace keeps what is stored into a slot as any attribute (replayed with
object.__setattr__ when it leaves the graph); a slot never stored reads as AttributeError;
an object from outside has its slots read and written back after the graph.
"""
import dataclasses

from differential import T, call, case, parametrize

CASES: list = []


class Point:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


class Lazy:
    __slots__ = ("value",)


@dataclasses.dataclass(slots=True)
class Pair:
    left: object
    right: float = 2.0


ORIGIN = Point(1.0, 2.0)


@case(CASES, call(T(3)))
def slotted_object_made_in_the_trace(x):
    p = Point(x, 3.0)
    p.y = p.y + 1
    return p.x * p.y


@case(CASES, call(T(3)))
def slotted_object_returned(x):
    p = Point(x * 2, 1.0)
    return p.x, type(p).__name__


@case(CASES, call(T(3)))
def slot_never_stored_reads_as_attribute_error(x):
    lazy = Lazy()
    if hasattr(lazy, "value"):
        return x
    lazy.value = x + 1
    return getattr(lazy, "value") * 2, getattr(Lazy(), "value", None)


@case(CASES, call(T(3)), call(T(3)), state=lambda: (ORIGIN.x, ORIGIN.y))
def slots_of_an_object_from_outside_written_back(x):
    ORIGIN.x = ORIGIN.x + 1
    return x * ORIGIN.x + ORIGIN.y


@case(CASES, call(T(3)))
def dataclass_with_slots(x):
    pair = Pair(x)
    pair.right = pair.right * 3
    return pair.left + pair.right, dataclasses.astuple(Pair(1, 2))


@case(CASES, call(T(3)))
def storing_a_name_the_slots_lack_raises(x):
    p = Point(x, 1.0)
    try:
        p.z = 3
    except AttributeError:
        return p.x - 1
    return p.x + 1


test_slots = parametrize(CASES)
