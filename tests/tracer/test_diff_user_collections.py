"""Subclasses of collections.UserDict and UserList, compared with Dynamo.

They are plain Python classes over a `data` dict or list, so Dynamo inlines their methods; Standin
refused to build them, taking them for C classes of the collections module ("constructing UD objects
(a subclass of the builtin UserDict)").
"""
import collections

from differential import T, call, case, parametrize

CASES: list = []


class Doubling(collections.UserDict):
    def __setitem__(self, key, value):
        super().__setitem__(key, value * 2)


class Defaulting(collections.UserDict):
    def __missing__(self, key):
        return len(key)


class Scores(collections.UserList):
    def total(self):
        return sum(self)


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def user_dict_subclass_made_and_changed(x):
    u = Doubling(a=1)
    u["b"] = 2
    u.update(c=3)
    popped = u.pop("a")
    return (x + u["b"] + len(u), list(u), "b" in u, "a" in u, dict(u), u.get("c"), u.get("z", 0), popped,
            sorted(u.items()), list(u.keys()), list(u.values()), u == {"b": 4, "c": 6}, type(u) is Doubling)


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def user_dict_missing_and_tensor_values(x):
    u = Defaulting({"t": x})
    u["s"] = x * 2
    return u["t"] + u["s"] + u["abcd"], len(u), u.data is not None


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def user_list_subclass_made_and_changed(x):
    u = Scores([3, 1, 2])
    u.append(4)
    u.extend([5])
    u.sort()
    u.insert(0, 9)
    u.remove(9)
    u += [6]
    last = u.pop()
    both = u + [7]
    return (x * u.total(), list(u), len(u), u[0], u[-1], 3 in u, last, list(both), type(both) is Scores,
            u == [1, 2, 3, 4, 5], u.index(4), u.count(2), list(reversed(u)), list(u * 2))


@case(CASES, call(T(3)), call(T(3)), compiles="C.", fullgraph=True)
def user_list_slices_are_the_subclass(x):
    u = Scores([x, x + 1, x + 2])
    part = u[1:]
    return part.total() + u[0], type(part) is Scores, len(part)


@case(CASES, call(T(3), Doubling(a=1)), call(T(3), Doubling(a=1)), call(T(3), Doubling(a=2)),
      compiles="C.C", fullgraph=True)
def user_dict_argument_read_and_written(x, u):
    u["k"] = 5
    return x * u["a"], len(u), sorted(u)


@case(CASES, call(T(3), Scores([1, 2])), call(T(3), Scores([1, 2])), call(T(3), Scores([1, 2, 3])),
      compiles="C.C", fullgraph=True)
def user_list_argument_read_and_written(x, u):
    u.append(7)
    return x * u.total(), len(u), u[0]


test_user_collections = parametrize(CASES)
