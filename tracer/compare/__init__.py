"""Compare with real Dynamo: the same script under torch.compile, beside Standin, frame by frame.

    from tracer.compare import compare_script, comparison_text
    comparison = compare_script("train.py", ["--epochs", "1"])   # both engines, in child processes
    print(comparison_text(comparison)); comparison.agree

Each engine runs the script in a child process of its own (runner.py) and
leaves a RunRecord (records.py): Standin through `tracer.debug.Session`
(standin_side.py), real Dynamo through torch's own `torch.compile` with a
recording backend (dynamo_side.py, the only module of tracer/ that imports
torch._dynamo, and only in its child).  diff.py lays the two records side by
side; text.py prints the table and writes the JSON.  Nothing here imports Qt.
"""
from .calls import CallLog
from .diff import Aspect, CallDiff, Comparison, FrameDiff, compare
from .records import BreakRecord, CallRecord, CompileRecord, FrameRecord, GuardRecord, RunRecord
from .runner import CompareRun, compare_script
from .standin_side import record_session
from .text import comparison_json, comparison_text

__all__ = ["CallLog", "record_session", "Aspect", "CallDiff", "Comparison", "FrameDiff", "compare", "BreakRecord", "CallRecord",
           "CompileRecord", "FrameRecord", "GuardRecord", "RunRecord", "CompareRun", "compare_script",
           "comparison_json", "comparison_text"]
