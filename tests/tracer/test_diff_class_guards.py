"""Guards a value read through a class, a dict's key set or a function's defaults needs.

Each case changes, between calls, something the trace read only indirectly: a
class attribute reached through an object made in the trace, a property or a
staticmethod swapped on the class, a key added to a global dict tested with
`in` or `==`, an attribute getattr() found missing, the compiled function's
own __defaults__.  Dynamo recompiles on each; so must we, or the old graph
returns a stale answer.  Every call sets the value it needs, so the runs do
not depend on what an earlier run left behind.
"""
from differential import T, call, case, mutate_with, parametrize, set_attr

CASES: list = []


class Scaled:
    k = 2.0

    @staticmethod
    def bump(t):
        return t + 1

    @property
    def twice(self):
        return 2.0


def set_class_attr(name, value):
    return mutate_with(lambda g: setattr(g["Scaled"], name, value), f"Scaled.{name} = {value!r}")


def plus_hundred(t):
    return t + 100


def three(self):
    return 3.0


SCALED = Scaled()
TABLE = {"a": 1.0, "b": 2.0}


@case(CASES, call(T(3), mutate=set_class_attr("k", 2.0)), call(T(3)), call(T(3), mutate=set_class_attr("k", 3.0)),
      compiles="C.C")
def class_attribute_through_a_new_object(x):
    o = Scaled()
    return x * o.k


@case(CASES, call(T(3), mutate=set_class_attr("bump", staticmethod(lambda t: t + 1))), call(T(3)),
      call(T(3), mutate=set_class_attr("bump", staticmethod(plus_hundred))), compiles="C.C")
def staticmethod_through_the_class(x):
    return Scaled.bump(x)


@case(CASES, call(T(3), mutate=set_class_attr("bump", staticmethod(lambda t: t + 1))), call(T(3)),
      call(T(3), mutate=set_class_attr("bump", staticmethod(plus_hundred))), compiles="C.C")
def staticmethod_through_an_instance(x):
    return SCALED.bump(x)


@case(CASES, call(T(3), mutate=set_class_attr("twice", property(lambda self: 2.0))), call(T(3)),
      call(T(3), mutate=set_class_attr("twice", property(three))), compiles="C.C")
def property_swapped_on_the_class(x):
    return x * SCALED.twice


@case(CASES, call(T(3), mutate=mutate_with(lambda g: g["TABLE"].pop("c", None), "TABLE.pop('c')")), call(T(3)),
      call(T(3), mutate=mutate_with(lambda g: g["TABLE"].__setitem__("c", 0.0), "TABLE['c'] = 0.0")),
      compiles="C.C")
def key_tested_with_in_then_added(x):
    if "c" in TABLE:
        return x * 10
    return x * TABLE["a"]


@case(CASES, call(T(3), mutate=mutate_with(lambda g: g["TABLE"].pop("c", None), "TABLE.pop('c')")), call(T(3)),
      call(T(3), mutate=mutate_with(lambda g: g["TABLE"].__setitem__("c", 0.0), "TABLE['c'] = 0.0")),
      compiles="C.C")
def dict_compared_whole_then_a_key_added(x):
    return x + (TABLE == {"a": 1.0, "b": 2.0})


class Options:
    pass


OPTIONS = Options()


@case(CASES, call(T(3), mutate=mutate_with(lambda g: g["OPTIONS"].__dict__.clear(), "OPTIONS attributes cleared")),
      call(T(3)), call(T(3), mutate=set_attr("OPTIONS.extra", 1.0)), compiles="C.C")
def getattr_default_then_the_attribute_appears(x):
    return x + getattr(OPTIONS, "extra", 5.0)


@case(CASES, call(T(3), float("nan")), call(T(3), float("nan")), call(T(3), 1.0), compiles="C.C")
def a_nan_argument_hits_the_cache(x, s):
    return x + (s != s)


@case(CASES, call(T(2), float("nan")), call(T(3), float("nan")), compiles="CC")
def a_nan_argument_kept_while_the_tensor_changes(x, s):
    """The reason names the tensor: the NaN guard holds (its slow check once could not name `float`)."""
    return x * (s != s)


def _set_defaults(value):
    return mutate_with(lambda g: setattr(g["own_defaults_changed"], "__defaults__", (value,)),
                       f"own_defaults_changed.__defaults__ = ({value},)")


@case(CASES, call(T(3), mutate=_set_defaults(2.0)), call(T(3)), call(T(3), mutate=_set_defaults(3.0)),
      compiles="C.C")
def own_defaults_changed(x, s=2.0):
    return x * s


test_class_guards = parametrize(CASES)
