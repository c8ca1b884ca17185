"""Every internal error of the engine is a bug: a test fails on one it does not expect.

pyproject.toml turns InternalTracerWarning into an error where it is raised.  This net
also catches the internal errors a test's own `warnings.simplefilter("ignore")` or a
worker thread would hide: each one the engine records while a test runs fails it,
unless the test is marked `expects_internal_error` (it provokes one on purpose).
A test that leaves `builtins.__builtins__` behind fails too: that dict holding itself makes real
Dynamo recurse without end in whichever later test compiles a frame that reaches it.
"""
import builtins

import pytest

from tracer import convert_frame


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    recorded = []
    report = convert_frame.internal_error

    def recording(owner, compile_id, error):
        recorded.append(f"{owner.code.co_name} [{compile_id}]: {type(error).__name__}: {error}")
        return report(owner, compile_id, error)

    convert_frame.internal_error = recording
    try:
        result = yield
    finally:
        convert_frame.internal_error = report
    if "__builtins__" in vars(builtins):  # exec'd code whose dataclass had no module of its own
        del builtins.__builtins__
        pytest.fail("the test left builtins.__builtins__ behind (exec the code under a __name__ of its own)",
                    pytrace=False)
    if recorded and item.get_closest_marker("expects_internal_error") is None:
        pytest.fail("internal tracer error(s) the test does not expect:\n  " + "\n  ".join(recorded), pytrace=False)
    return result
