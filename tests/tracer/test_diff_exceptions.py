"""Differential cases: exceptions raised and caught inside the traced code.

Dynamo traces a try/except whose exception is raised and caught in the frame
(or in a helper it inlines) into one graph; so must we.  Exceptions that escape
the compiled function run the frame eagerly, so the user sees exactly what
eager Python raises: those are checked at the end of the file against eager
(type, args, cause) and, where Dynamo agrees, its graph count.
"""
import warnings

import pytest
import torch

import tracer
from differential import CountingBackend, T, call, case, parametrize

CASES: list = []

TABLE = {"a": 1}


class Obj:
    present = 2


OBJ = Obj()


class MyError(Exception):
    pass


class MyKeyError(KeyError):
    pass


def raise_value_error():
    raise ValueError("bad", 3)


def two_levels_down():
    raise_value_error()
    return 1


def helper_with_finally(log):
    try:
        raise_value_error()
    finally:
        log.append("finally")


def helper_catches_its_own(x):
    try:
        raise MyError("inner")
    except MyError:
        return x * 2


# ---- exceptions the tracker layer meets -------------------------------------------------------
@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def exc_missing_dict_key(x):
    try:
        v = TABLE["missing"]
    except KeyError:
        v = 7
    return x + v


@case(CASES, call(T(3), 0), call(T(3), 2), call(T(3), 0), compiles="CC.")
def exc_zero_division_on_int_arg(x, n):
    try:
        y = 1 / n
    except ZeroDivisionError:
        y = 0.5
    return x + y


@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def exc_missing_attribute(x):
    try:
        a = OBJ.missing
    except AttributeError:
        a = None
    return x + (1 if a is None else OBJ.present)


@case(CASES, call(T(3)), compiles="C")
def exc_index_error_and_args(x):
    items = [1, 2]
    try:
        v = items[5]
    except IndexError as e:
        v = len(e.args) + len(str(e))
    return x * v


@case(CASES, call(T(3)), compiles="C")
def exc_stop_iteration_from_next(x):
    it = iter([1])
    first = next(it)
    try:
        second = next(it)
    except StopIteration:
        second = 10
    return x + first + second


@case(CASES, call(T(3)), compiles="C")
def exc_dict_pop_and_int_parse(x):
    d = {"k": 1}
    try:
        d.pop("nope")
    except KeyError:
        x = x + 1
    try:
        n = int("seven")
    except ValueError:
        n = 7
    return x * n


@case(CASES, call(T(3)), compiles="C")
def exc_key_error_args_and_isinstance(x):
    try:
        TABLE["zz"]
    except LookupError as e:
        if isinstance(e, KeyError) and e.args == ("zz",):
            return x + 1
    return x - 1


# ---- raise statements ---------------------------------------------------------------------------
@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def exc_user_class_with_args(x):
    try:
        raise MyError(3, "a")
    except MyError as e:
        return x * e.args[0]


@case(CASES, call(T(3)), compiles="C")
def exc_raise_class_not_instance(x):
    try:
        raise MyError
    except MyError as e:
        return x + len(e.args)


@case(CASES, call(T(3)), compiles="C")
def exc_subclass_caught_by_base(x):
    try:
        raise MyKeyError("k")
    except KeyError as e:
        return x + isinstance(e, MyKeyError)


@case(CASES, call(T(3)), compiles="C")
def exc_tuple_of_classes(x):
    try:
        raise ValueError("v")
    except (TypeError, ValueError):
        x = x + 1
    return x


@case(CASES, call(T(3)), compiles="C")
def exc_bare_except(x):
    try:
        [1][3]
    except:  # noqa: E722 - the bare form has its own bytecode
        x = x + 1
    return x


@case(CASES, call(T(3)), compiles="C")
def exc_else_and_finally(x):
    try:
        y = x + 1
        raise KeyError("k")
    except (TypeError, KeyError):
        y = y * 2
    else:
        y = y - 1
    finally:
        y = y + 10
    return y


@case(CASES, call(T(3)), compiles="C")
def exc_no_exception_takes_else(x):
    try:
        y = x + 1
    except KeyError:
        y = x * 100
    else:
        y = y - 1
    finally:
        y = y * 3
    return y


@case(CASES, call(T(3)), compiles="C")
def exc_nested_try_inner_does_not_match(x):
    try:
        try:
            raise ValueError
        except KeyError:
            x = x - 100
    except ValueError:
        x = x + 1
    return x


@case(CASES, call(T(3)), compiles="C")
def exc_reraise_caught_outside(x):
    try:
        try:
            raise MyError("first")
        except MyError:
            x = x + 1
            raise
    except MyError as e:
        x = x * len(e.args[0])
    return x


@case(CASES, call(T(3)), compiles="C")
def exc_raise_from_and_context(x):
    try:
        try:
            raise KeyError("inner")
        except KeyError as inner:
            raise ValueError("outer") from inner
    except ValueError as e:
        if isinstance(e.__cause__, KeyError):
            x = x + 1
    try:
        try:
            raise KeyError("a")
        except KeyError:
            raise ValueError("b")
    except ValueError as e:
        if isinstance(e.__context__, KeyError) and e.__cause__ is None:
            x = x + 2
    return x


@case(CASES, call(T(3)), compiles="C")
def exc_handled_twice_in_a_loop(x):
    for i in range(3):
        try:
            if i % 2:
                raise MyError(i)
            x = x + i
        except MyError as e:
            x = x * e.args[0]
    return x


# ---- across inlined frames ----------------------------------------------------------------------
@case(CASES, call(T(3)), call(T(3)), compiles="C.")
def exc_raised_in_helper(x):
    try:
        raise_value_error()
    except ValueError as e:
        return x + len(str(e)) + len(e.args)
    return x


@case(CASES, call(T(3)), compiles="C")
def exc_raised_two_frames_down(x):
    try:
        x = x + two_levels_down()
    except ValueError as e:
        x = x * e.args[1]
    return x


@case(CASES, call(T(3)), compiles="C", state=lambda: None)
def exc_helper_finally_runs_while_unwinding(x):
    log = []
    try:
        helper_with_finally(log)
    except ValueError:
        x = x + len(log)
    return x, log


@case(CASES, call(T(3)), compiles="C")
def exc_helper_handles_its_own(x):
    y = helper_catches_its_own(x)
    return y + 1


@case(CASES, call(T(3)), compiles="C")
def exc_inside_no_grad_restores_grad_mode(x):
    try:
        with torch.no_grad():
            y = x * 2
            raise MyError("out")
    except MyError:
        y = y + 1
    return y, torch.is_grad_enabled()


test_exceptions = parametrize(CASES)


# ---- where Dynamo 2.13 itself gets the exception's args wrong: compared with eager only ----------
def args_of_dict_pop_key_error(x):
    d = {"k": 1}
    try:
        d.pop("nope")
    except KeyError as e:
        x = x + len(e.args)
    return x


def str_of_key_error_subclass(x):
    try:
        raise MyKeyError("k")
    except KeyError as e:
        return x + len(e.args) + len(str(e))


@pytest.mark.parametrize("fn", [args_of_dict_pop_key_error, str_of_key_error_subclass],
                         ids=lambda f: f.__name__)
def test_exception_args_match_eager(fn):
    tracer.reset()
    backend = CountingBackend()
    opt = tracer.compile(fn, backend=backend)
    x = T(3)
    torch.testing.assert_close(opt(x.clone()), fn(x.clone()))
    assert len(backend.graphs) == 1


# ---- exceptions that escape the compiled function ---------------------------------------------
def escape_reraise(x):
    try:
        raise MyError("boom", 2)
    except MyError:
        x = x + 1
        raise


def escape_no_matching_handler(x):
    try:
        v = TABLE["nope"]
    except ValueError:
        v = 0
    return x + v


def escape_raise_from(x):
    try:
        TABLE["nope"]
    except KeyError as e:
        raise ValueError("wrapped") from e


def escape_from_helper(x):
    x = x + 1
    try:
        raise_value_error()
    except KeyError:
        pass
    return x


def escape_uncaught_lookup(x):
    x = x + 1
    return TABLE["nope"]


def _raised(fn, *args):
    try:
        fn(*args)
    except Exception as error:  # the very exception under test
        return error
    raise AssertionError(f"{fn.__name__} did not raise")


def _graphs(compile_fn, fn):
    backend = CountingBackend()
    opt = compile_fn(fn, backend)
    return _raised(opt, T(3)), len(backend.graphs)


def _ours(fn, backend):
    return tracer.compile(fn, backend=backend)


def _dynamo(fn, backend):
    torch._dynamo.reset()
    return torch.compile(fn, backend=backend, dynamic=False)


@pytest.mark.parametrize("fn", [escape_reraise, escape_no_matching_handler, escape_raise_from,
                                escape_from_helper, escape_uncaught_lookup], ids=lambda f: f.__name__)
def test_escaping_exception_matches_eager(fn):
    tracer.reset()
    expected = _raised(fn, T(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, _ = _graphs(_ours, fn)
        again = _raised(tracer.compile(fn), T(3))  # a cached entry raises the same way
    for actual in (ours, again):
        assert type(actual) is type(expected)
        assert actual.args == expected.args
        assert type(actual.__cause__) is type(expected.__cause__)


@pytest.mark.parametrize("fn", [escape_reraise, escape_no_matching_handler, escape_raise_from,
                                escape_from_helper, escape_uncaught_lookup], ids=lambda f: f.__name__)
def test_escaping_exception_graph_count_matches_dynamo(fn):
    """Dynamo gives up on a frame an exception escapes from: no graph; so do we."""
    tracer.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, ours = _graphs(_ours, fn)
        _, theirs = _graphs(_dynamo, fn)
    assert ours == theirs
