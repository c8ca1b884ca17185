"""Guards: kinds, the compiled set of an entry, reports and what-if checks."""
from .compiled import GuardSet
from .kinds import Guard, InstalledAt, TensorMeta, actual_text, check_one, global_state

__all__ = ["Guard", "GuardSet", "InstalledAt", "TensorMeta", "actual_text", "check_one", "global_state"]
