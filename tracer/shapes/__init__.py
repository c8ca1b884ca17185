"""Dynamic shapes through torch's ShapeEnv: which sizes are symbolic, the symbols, the shape guards
and the cause of each (see policy.py, env.py, provenance.py)."""
from .policy import DYNAMIC, AutomaticDynamic, BecameDynamic, DimChoice, check_dynamic, code_identity
from .provenance import ShapeCause

__all__ = ["DYNAMIC", "AutomaticDynamic", "BecameDynamic", "DimChoice", "ShapeCause", "check_dynamic", "code_identity"]
