"""The VariableTracker family, one module per family of Python values."""
from .base import VariableTracker
from .builtin import BuiltinVariable
from .constant import ConstantVariable
from .dicts import ConstDictVariable, DictViewVariable
from .functions import TorchFunctionVariable
from .lazy import LazyVariableTracker
from .lists import (ListIteratorVariable, ListVariable, RangeVariable, SliceVariable,
                    TupleVariable)
from .get_attr import GetAttrVariable
from .misc import NullVariable, PythonModuleVariable, UserDefinedClassVariable, UserDefinedObjectVariable
from .nn_module import NNModuleVariable
from .partial import FunctoolsPartialVariable
from .user_functions import (CellVariable, NestedUserFunctionVariable,
                             UserFunctionVariable, UserMethodVariable)
from .tensor import TensorVariable

__all__ = [
    "VariableTracker", "BuiltinVariable", "ConstantVariable", "ConstDictVariable",
    "DictViewVariable", "TorchFunctionVariable", "LazyVariableTracker", "ListIteratorVariable",
    "ListVariable", "RangeVariable", "SliceVariable", "TupleVariable", "GetAttrVariable",
    "NullVariable", "PythonModuleVariable", "UserDefinedClassVariable", "UserDefinedObjectVariable",
    "NNModuleVariable", "FunctoolsPartialVariable", "CellVariable", "NestedUserFunctionVariable",
    "UserFunctionVariable", "UserMethodVariable", "TensorVariable",
]
