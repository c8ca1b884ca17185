"""Loggers, lru_cache'd methods and C methods of C objects read through an object, as Dynamo.

Reading such a method is not a graph break: a logger's `warning` (it takes a C lock) or a lock's
`acquire` breaks where it is called, so the code before it is one graph and the code after it
another, as in Dynamo; an lru_cache'd method's body is traced, as a cached function called
directly (transformers' `logger.warning_once` is one: it warns through the logger, so it breaks,
and runs for real, once, as eagerly).
"""
import functools
import logging
import threading

from differential import T, call, case, mutate_with, parametrize
from differential_breaks import break_case, parametrize_breaks

CASES: list = []
BREAKS: list = []

RECORDS: list = []


class Recorder(logging.Handler):
    def emit(self, record):
        RECORDS.append(record.getMessage())


LOGGER = logging.getLogger("standin.tests.logging_and_c_methods")
LOGGER.addHandler(Recorder())
LOGGER.propagate = False


class Model:
    def __init__(self):
        self.lock = threading.Lock()
        self.factor = 3

    @functools.lru_cache(None)
    def warn_once(self, message):
        LOGGER.warning(message)

    @functools.lru_cache(None)
    def scaled(self, n):
        return n * self.factor


MODEL = Model()


@functools.lru_cache(None)
def announce(message):
    print(message)
    return len(message)


FORGET_ANNOUNCED = mutate_with(lambda g: g["announce"].cache_clear(), "announce.cache_clear()")


@break_case(BREAKS, call(T(3)), call(T(3)), compiles="C.", state=lambda: list(RECORDS))
def logger_warning_breaks_where_it_is_called(x):
    y = x * 2
    LOGGER.warning("shape %s", tuple(x.shape))
    return y + 1


FORGET = mutate_with(lambda g: g["Model"].warn_once.cache_clear(), "Model.warn_once.cache_clear()")


@break_case(BREAKS, call(T(3), mutate=FORGET), call(T(3)), compiles="C.", state=lambda: list(RECORDS))
def lru_cached_method_that_warns_runs_once(x):
    y = x.sin()
    MODEL.warn_once("only once")
    return y * 2


@break_case(BREAKS, call(T(3), mutate=FORGET_ANNOUNCED), call(T(3)), call(T(3)), compiles="C..")
def lru_cached_function_that_prints_runs_once(x):
    y = x + 1
    n = announce("hello")  # the break calls the cache's wrapper, not the function under it
    return y * n


@case(CASES, call(T(3)))
def lru_cached_method_traced(x):
    return x * MODEL.scaled(2)


@break_case(BREAKS, call(T(3)), call(T(3)), compiles="C.")
def c_method_of_a_lock_breaks_where_it_is_called(x):
    y = x + 1
    acquire = MODEL.lock.acquire
    acquire()
    MODEL.lock.release()
    return y * 2


test_logging_and_c_methods = parametrize(CASES)
test_logging_and_c_method_breaks = parametrize_breaks(BREAKS)
