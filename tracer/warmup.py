"""Hide the one slow import a first compile pays: torch's FakeTensorMode imports torch._dynamo.

The first `FakeTensorMode()` in a process imports `torch._dynamo.config`, which imports the
whole of `torch._dynamo` (about a second here).  The app and the command line start that
import in a background thread as they start, while they parse arguments, open the window
or run the user's script up to its first compile; the first compile then finds it done
(or waits only for what is left).  Python runs one thread at a time, so this hides the cost
behind work that waits (I/O, torch's C kernels, Qt), it does not remove it.  torch's sympy-based
shape code (symbolic_shapes, a second or two) comes with it: the engine imports that inside the
functions that use it (`# lazy: sympy`), so `import tracer` does not wait for it.
"""
from __future__ import annotations

import threading

_started: threading.Thread | None = None


def _import_fake_tensor_dependencies() -> None:
    import torch._dynamo.config  # noqa: F401  what FakeTensorMode() imports on first use


def start_background_imports() -> threading.Thread:
    """Start (once) the import FakeTensorMode needs, in a daemon thread; returns that thread."""
    global _started
    if _started is None:
        _started = threading.Thread(target=_import_fake_tensor_dependencies, name="standin-warmup", daemon=True)
        _started.start()
    return _started


def finish_background_imports() -> None:
    """Wait for that import before tracing: two threads importing torch._dynamo and the sympy
    shape code at once can each find the other's module half-initialized (an ImportError)."""
    if _started is not None and _started is not threading.current_thread():
        _started.join()
