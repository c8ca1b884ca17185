"""The app's step latency and the recorder's memory per step.

Step latency: the time from a step command until the event loop has
repainted every widget the step changed, on a trace of more than 2,000
instructions, offscreen (software rendering).  Memory: what a recorded
trace costs per snapshot, measured with tracemalloc.
"""
from __future__ import annotations

import os
import statistics
import tempfile
import time
import tracemalloc

SCRIPT = '''
import torch

class Cfg:
    def __init__(self):
        self.scale = 2

cfg = Cfg()

@torch.compile
def long(x):
    acc = x
    for i in range(250):
        acc = acc * cfg.scale + i
    return acc

long(torch.ones(4))
'''


def step_latency(steps: int = 200) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication([])
    from app.main_window import MainWindow
    from app.settings import Settings
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "long_trace.py")
        with open(path, "w") as f:
            f.write(SCRIPT)
        window = MainWindow(settings=Settings.in_file(os.path.join(folder, "settings.ini")))
        window.resize(1400, 900)
        window.show()
        window.open_script(path, wait=True)
        app.processEvents()
        controller = window.controller
        length = len(controller.timeline)
        samples = []
        for _ in range(min(steps, length - 1)):
            start = time.perf_counter_ns()
            controller.step_into()
            app.processEvents()  # delivers the update requests: every changed widget repaints
            samples.append((time.perf_counter_ns() - start) / 1e6)
        window.close()
    return {"trace_steps": length, "median_ms": statistics.median(samples),
            "p90_ms": statistics.quantiles(samples, n=10)[-1]}


def memory_per_step() -> dict:
    """Bytes per step while recording (tracemalloc peak over the trace), and once every snapshot is read.

    Also the time to read them all (snapshots are made from the recorded steps on first read).
    """
    import torch

    import tracer
    from tracer.debug import record

    def long(x):
        acc = x
        for i in range(1000):
            acc = acc * 2 + i
        return acc

    tracer.compile(long)(torch.ones(4))  # first trace in the process: imports, caches
    opt = tracer.compile(long)
    recorder = record(opt)
    tracemalloc.start()
    opt(torch.ones(4))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    for timeline in recorder.timelines:
        list(timeline.snapshots)
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    steps = sum(len(t) for t in recorder.timelines)

    tracer.reset()
    opt = tracer.compile(long)
    recorder = record(opt)
    opt(torch.ones(4))
    start = time.perf_counter_ns()
    for timeline in recorder.timelines:
        list(timeline.snapshots)
    read_ns = time.perf_counter_ns() - start
    return {"steps": steps, "bytes_per_step": peak / max(steps, 1), "bytes_per_step_read": current / max(steps, 1),
            "read_us_per_step": read_ns / 1e3 / max(steps, 1)}
