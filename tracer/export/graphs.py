"""Compiled graphs as files: runnable FX Python, Graphviz DOT, and a plain description.

`describe(gm)` turns a torch.fx.GraphModule into plain data (nodes, their
inputs, shapes, the user's line) that the DOT and SVG writers, the JSON
report and the HTML report all share, so the four views never disagree.

`graph_python(gm)` writes a module that imports and runs on its own:
`class Graph(torch.nn.Module)` whose `forward` is FX's own generated code
(verbose mode puts the user's source lines in as `# File: ...` comments, as
Dynamo's `print_readable` does). The names that code refers to (`torch`,
`operator.getitem`, `inf`, ...) come from FX's globals table and are turned
into import statements; anything that cannot be imported gets a stub that
raises, naming what was there, rather than a module that fails to import.
"""
from __future__ import annotations

import importlib
import math
import re
import types

import torch
import importlib.util

GRAPH_CLASS = "Graph"

# ---- description -----------------------------------------------------------------------------


def target_name(node: torch.fx.Node) -> str:
    """`operator.mul`, `torch.relu`, `Tensor.sin`: the op a node runs, as a reader would write it."""
    if node.op == "call_method":
        return f"Tensor.{node.target}"
    if node.op in ("placeholder", "output", "get_attr", "call_module"):
        return str(node.target)
    target = node.target
    module = getattr(target, "__module__", None) or ""
    module = "operator" if module == "_operator" else module
    name = getattr(target, "__name__", None) or str(target)
    if module.startswith("torch._C"):
        module = "torch"
    return f"{module}.{name}" if module else name


def _format_arg(arg) -> str:
    if isinstance(arg, torch.fx.Node):
        return f"%{arg.name}"
    if isinstance(arg, (list, tuple)):
        inner = ", ".join(_format_arg(a) for a in arg)
        return f"[{inner}]" if isinstance(arg, list) else f"({inner}{',' if len(arg) == 1 else ''})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k!r}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    text = repr(arg)
    return text if len(text) <= 60 else text[:57] + "..."


def _shape_dtype(node: torch.fx.Node) -> tuple[list | None, str | None]:
    value = node.meta.get("example_value", node.meta.get("val"))
    if isinstance(value, torch.Tensor):
        try:
            shape = [int(s) if isinstance(s, int) else str(s) for s in value.shape]
        except Exception:  # noqa: BLE001 - symbolic sizes that refuse int(): keep the text
            shape = [str(s) for s in value.shape]
        return shape, str(value.dtype).replace("torch.", "")
    return None, None


_FRAME_RE = re.compile(r'File "(?P<file>[^"]*)", line (?P<line>\d+), in (?P<fn>[^\n]*)\n(?P<code>[^\n]*)')


def user_location(node: torch.fx.Node) -> dict | None:
    """The innermost user frame in node.meta["stack_trace"]: file, line, function, code."""
    trace = node.meta.get("stack_trace")
    if not trace:
        return None
    matches = list(_FRAME_RE.finditer(trace))
    if not matches:
        return None
    m = matches[-1]
    return {"file": m["file"], "line": int(m["line"]), "function": m["fn"].strip(), "code": m["code"].strip()}


def describe(gm: torch.fx.GraphModule) -> dict:
    """Plain data for one graph: {"nodes": [...], "ops": [...]} (JSON-ready)."""
    nodes = []
    for node in gm.graph.nodes:
        shape, dtype = _shape_dtype(node)
        args = ", ".join([_format_arg(a) for a in node.args] +
                         [f"{k}={_format_arg(v)}" for k, v in node.kwargs.items()])
        nodes.append({
            "name": node.name,
            "op": node.op,
            "target": target_name(node),
            "args": args,
            "inputs": [n.name for n in node.all_input_nodes],
            "shape": shape,
            "dtype": dtype,
            "location": user_location(node),
        })
    ops = [n["target"] for n in nodes if n["op"] in ("call_function", "call_method", "call_module")]
    return {"nodes": nodes, "ops": ops}


def node_label(node: dict) -> tuple[str, str]:
    """(title, detail) lines shown for a node in DOT and SVG."""
    if node["op"] == "placeholder":
        title = f"input {node['name']}"
    elif node["op"] == "output":
        title = "output"
    else:
        title = f"{node['name']} = {node['target']}"
    detail = ""
    if node["shape"] is not None:
        detail = f"{node['dtype']}[{', '.join(str(s) for s in node['shape'])}]"
    elif node["op"] == "output":
        detail = node["args"]
    return title, detail


# ---- DOT --------------------------------------------------------------------------------------


def dot_quote(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, newlines as \\n."""
    text = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text.replace("\r", "").replace("\n", "\\n") + '"'


_DOT_STYLE = {
    "placeholder": 'shape=box, style="rounded,filled", fillcolor="#dbeafe"',
    "output": 'shape=box, style="rounded,filled", fillcolor="#dcfce7"',
    "call_function": 'shape=box, style="filled", fillcolor="#f8fafc"',
    "call_method": 'shape=box, style="filled", fillcolor="#fef9c3"',
    "call_module": 'shape=box, style="filled", fillcolor="#fae8ff"',
    "get_attr": 'shape=box, style="filled", fillcolor="#e5e7eb"',
}


def graph_dot(description: dict, name: str = "graph") -> str:
    """Graphviz DOT for a described graph: one box per node, an edge per data dependency."""
    lines = [f"digraph {dot_quote(name)} {{",
             "  rankdir=TB;",
             '  node [fontname="Helvetica", fontsize=10];',
             '  edge [color="#64748b"];']
    for node in description["nodes"]:
        title, detail = node_label(node)
        label = title + (f"\n{detail}" if detail else "")
        tooltip = node["location"]["code"] if node["location"] else node["args"]
        style = _DOT_STYLE.get(node["op"], "shape=box")
        lines.append(f"  {dot_quote(node['name'])} [label={dot_quote(label)}, "
                     f"tooltip={dot_quote(tooltip)}, {style}];")
    for node in description["nodes"]:
        for source in dict.fromkeys(node["inputs"]):
            lines.append(f"  {dot_quote(source)} -> {dot_quote(node['name'])};")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---- runnable Python -------------------------------------------------------------------------


def _resolve(module_name: str, qualname: str):
    try:
        obj = importlib.import_module(module_name)
    except Exception:  # noqa: BLE001 - a module that fails to import: the export leaves the name as text
        return None
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _import_line(name: str, obj) -> str:
    """A statement that binds `name` to `obj` in a fresh module, or a stub that says why not."""
    if isinstance(obj, types.ModuleType):
        module = obj.__name__
        if module == name:
            return f"import {module}"
        return f"import {module} as {name}"
    if isinstance(obj, float) and (math.isinf(obj) or math.isnan(obj)):
        return f"{name} = float({str(obj)!r})"
    if obj is type(None):
        return f"{name} = type(None)"
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return f"{name} = {obj!r}"
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if module == "_operator":
        module = "operator"
    if module and qualname and "<" not in qualname:
        if _resolve(module, qualname) is obj:
            if "." not in qualname:
                return (f"from {module} import {qualname}" if qualname == name
                        else f"from {module} import {qualname} as {name}")
            return f"import {module} as _m_{name}; {name} = _m_{name}.{qualname}"
    text = repr(obj).replace("\n", " ")[:120]
    return (f"def {name}(*args, **kwargs):  # standin could not import {text}\n"
            f"    raise NotImplementedError({('the graph calls ' + text + ', which this file cannot import')!r})")


def _comment(text: str) -> str:
    return " ".join(str(text).splitlines())


def graph_python(gm: torch.fx.GraphModule, *, title: str = "") -> str:
    """A module defining `class Graph(torch.nn.Module)`; `Graph()(*inputs)` computes what gm does."""
    code = gm.graph.python_code(root_module="self", verbose=True)
    used = {name: obj for name, obj in code.globals.items()
            if name != "__builtins__" and re.search(rf"\b{re.escape(name)}\b", code.src)}
    used.setdefault("torch", torch)
    imports = [_import_line(name, obj) for name, obj in sorted(used.items(), key=lambda kv: kv[0] != "torch")]
    body = code.src.strip("\n")
    body = "\n".join(("    " + line) if line.strip() else "" for line in body.splitlines())
    header = ['"""' + _comment(title or "A graph compiled by Standin.").replace('"""', "'''") + "\n",
              "Generated by `standin export`: FX's code for the graph, with the user's source",
              "lines as comments. Placeholders are the inputs: Graph()(*inputs) runs the graph.",
              '"""']
    return "\n".join(header + imports + ["", "", f"class {GRAPH_CLASS}(torch.nn.Module):", body, ""])


def load_graph_module(path: str) -> torch.nn.Module:
    """Import a file written by graph_python and return an instance of its Graph."""
    spec = importlib.util.spec_from_file_location(f"standin_graph_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, GRAPH_CLASS)()


def _hint(value):
    if isinstance(value, (torch.SymInt, torch.SymBool)):
        from torch.fx.experimental.symbolic_shapes import guarding_hint_or_throw  # lazy: sympy (warmup.py)
        return guarding_hint_or_throw(value)
    return value


def example_inputs(gm: torch.fx.GraphModule, seed: int = 0) -> list:
    """Real inputs shaped like the placeholders' example values (random tensors, the ints as recorded)."""
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for node in gm.graph.nodes:
        if node.op != "placeholder":
            continue
        value = node.meta.get("example_value", node.meta.get("val"))
        if isinstance(value, (torch.SymInt, torch.SymBool)):
            inputs.append(_hint(value))  # the value the symbol had when traced, without guarding it
            continue
        if isinstance(value, torch.Tensor):
            shape = [_hint(s) for s in value.shape]
            if value.dtype.is_floating_point or value.dtype.is_complex:
                tensor = torch.randn(shape, generator=generator).to(value.dtype)
            elif value.dtype == torch.bool:
                tensor = torch.randint(0, 2, shape, generator=generator).bool()
            else:
                tensor = torch.randint(0, 10, shape, generator=generator).to(value.dtype)
            inputs.append(tensor.requires_grad_(bool(value.requires_grad)) if tensor.is_floating_point()
                          else tensor)
        else:
            inputs.append(value)
    return inputs
