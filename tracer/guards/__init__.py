"""Guards: kinds, the compiled set of an entry, reports and what-if checks."""
from .compiled import GuardSet
from .kinds import Guard, InstalledAt, ShapeCheck, TensorMeta, actual_text, check_one, global_state
from .report import report_json, report_text, source_tree
from .whatif import Prediction, StateEditor, predict

__all__ = ["Guard", "GuardSet", "InstalledAt", "ShapeCheck", "TensorMeta", "actual_text", "check_one", "global_state",
           "report_json", "report_text", "source_tree", "Prediction", "StateEditor", "predict"]
