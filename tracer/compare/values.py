"""Outputs of compiled calls as plain summaries, and whether two summaries are the same value.

The two engines run in different processes, so a call's result crosses over
as a summary: a tensor as its shape, dtype, first values and sum; containers
item by item; other objects by type and repr.  Tensors compare with torch's
float32 tolerances (NaN equals NaN), so eager-equal answers agree.
"""
from __future__ import annotations

import math
import re

import torch

MAX_VALUES = 64  # tensor elements kept per summary
MAX_ITEMS = 32  # container items kept per summary
MAX_TEXT = 300
MAX_DEPTH = 6
RTOL, ATOL = 1.3e-6, 1e-5  # torch.testing's float32 defaults
SUM_RTOL = 1e-4  # a sum over many elements accumulates rounding differently in a graph
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def summarize(value, depth: int = 0) -> dict:
    """A JSON-able summary of a call's result."""
    if isinstance(value, torch.Tensor):
        return _tensor_summary(value)
    if value is None or isinstance(value, (bool, int, float)):
        return {"type": type(value).__name__, "value": value}
    if isinstance(value, str):
        return {"type": "str", "value": value[:MAX_TEXT]}
    if depth < MAX_DEPTH and isinstance(value, (list, tuple)):
        items = [summarize(v, depth + 1) for v in value[:MAX_ITEMS]]
        return {"type": type(value).__name__, "len": len(value), "items": items}
    if depth < MAX_DEPTH and isinstance(value, dict):
        items = [[_text(k), summarize(v, depth + 1)] for k, v in list(value.items())[:MAX_ITEMS]]
        return {"type": type(value).__name__, "len": len(value), "items": items}
    return {"type": type(value).__qualname__, "repr": ADDRESS.sub("", _text(value))}


def _text(value) -> str:
    try:
        return repr(value)[:MAX_TEXT]
    except Exception as error:  # noqa: BLE001 - a user __repr__ that raises
        return f"<repr failed: {type(error).__name__}>"


def _tensor_summary(tensor: torch.Tensor) -> dict:
    summary = {"type": "tensor", "shape": list(tensor.shape), "dtype": str(tensor.dtype),
               "requires_grad": bool(tensor.requires_grad)}
    try:
        flat = tensor.detach().cpu().reshape(-1)
        if flat.is_complex():
            flat = torch.view_as_real(flat).reshape(-1)
        numbers = flat.double() if flat.is_floating_point() or flat.dtype == torch.bool else flat.long()
        summary["values"] = numbers[:MAX_VALUES].tolist()
        summary["sum"] = float(numbers.double().nansum())
    except Exception as error:  # noqa: BLE001 - a meta or sparse tensor: shape and dtype only
        summary["values_error"] = f"{type(error).__name__}: {error}"
    return summary


def difference(a: dict | None, b: dict | None, where: str = "output") -> str | None:
    """None when the two summaries are the same value; else what differs first, in words."""
    if a is None or b is None:
        return None if a is b else f"{where}: one side has no value"
    if a.get("type") != b.get("type"):
        return f"{where}: {a.get('type')} vs {b.get('type')}"
    if a["type"] == "tensor":
        return _tensor_difference(a, b, where)
    if "items" in a:
        if a.get("len") != b.get("len"):
            return f"{where}: length {a.get('len')} vs {b.get('len')}"
        for index, (x, y) in enumerate(zip(a["items"], b["items"])):
            if isinstance(x, list):  # a dict item: [key, value]
                if x[0] != y[0]:
                    return f"{where}: key {x[0]} vs {y[0]}"
                found = difference(x[1], y[1], f"{where}[{x[0]}]")
            else:
                found = difference(x, y, f"{where}[{index}]")
            if found:
                return found
        return None
    if "value" in a:
        return None if _same_number(a["value"], b["value"]) else f"{where}: {a['value']!r} vs {b['value']!r}"
    return None if a.get("repr") == b.get("repr") else f"{where}: {a.get('repr')} vs {b.get('repr')}"


def _tensor_difference(a: dict, b: dict, where: str) -> str | None:
    for key in ("shape", "dtype", "requires_grad"):
        if a.get(key) != b.get(key):
            return f"{where}: {key} {a.get(key)} vs {b.get(key)}"
    for index, (x, y) in enumerate(zip(a.get("values", []), b.get("values", []))):
        if not _same_number(x, y):
            return f"{where}: element {index} is {x!r} vs {y!r}"
    sa, sb = a.get("sum"), b.get("sum")
    if sa is not None and sb is not None and not _close(sa, sb, SUM_RTOL, ATOL * max(1, len(a["values"]))):
        return f"{where}: sum {sa!r} vs {sb!r}"
    return None


def _same_number(x, y) -> bool:
    if isinstance(x, float) or isinstance(y, float):
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)) or isinstance(x, bool) != isinstance(y, bool):
            return False
        return _close(float(x), float(y), RTOL, ATOL)
    return x == y and type(x) is type(y)


def _close(x: float, y: float, rtol: float, atol: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= atol + rtol * abs(y)
