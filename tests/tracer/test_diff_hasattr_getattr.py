"""Differential cases: hasattr() is False when the lookup raises AttributeError from the program's
own code (a __getattr__ or a property), and the answer stays guarded."""
from differential import T, call, case, parametrize, set_attr

CASES: list = []


class OnlyA:
    def __init__(self):
        self.a = 5

    def __getattr__(self, name):
        if name != "a":
            raise AttributeError(f"{name} missing")
        return self.__dict__["a"]


class Props:
    @property
    def gone(self):
        raise AttributeError("gone")

    @property
    def here(self):
        return 2


only_a = OnlyA()
props = Props()


@case(CASES, call(T(3)), call(T(3)), call(T(3), mutate=set_attr("only_a.b", 1)), compiles="C.C")
def hasattr_through_getattr_that_raises(x):
    if hasattr(only_a, "b"):
        return x.cos()
    return x.sin()


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def hasattr_of_a_property_that_raises(x):
    return x + 1, hasattr(props, "gone"), hasattr(props, "here")


test_hasattr_getattr = parametrize(CASES)
