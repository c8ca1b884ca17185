"""Where the bundled files are: one definition for the window and the command line (no Qt here)."""
from __future__ import annotations

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "resources", "examples")
DEFAULT_SCRIPT = os.path.join(EXAMPLES, "tour.py")  # what `standin` with no script opens: the tour

__all__ = ["ROOT", "EXAMPLES", "DEFAULT_SCRIPT"]
