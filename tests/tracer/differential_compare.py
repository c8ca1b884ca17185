"""What the differential harnesses compare between our tracer and Dynamo, beyond outputs:
the op list of each graph (with arguments) and the guard a recompile names.

Both are compared exactly after normalising only what legitimately differs between two
engines that build the same graph and install the same guards:

* graph node names (``add_1`` vs ``add``): an argument that is another node is written as
  its position among the graph's ops (``%op2``); a graph input by the dtype and shape it holds
  (``%in:float32[3, 4]``), since input names differ (``L_x_``/``l_x_``, Dynamo's ``L_fn_``
  wrapper for our ``L_self_``, ``l_args_0_``/``l_input_``) and a tensor reaching a frame under
  two names is one input in Dynamo and two in ours;
* the module of a callable target (``_operator`` is ``operator``; NumPy-on-torch wrappers by
  the NumPy name they run);
* Dynamo prints a local variable bare (``n == 1``, ``tensor 'x'``), we print ``L['n']``;
  ``X.__class__`` is ``type(X)``, ``dict(C.__dict__)['a']`` is ``C.a``, and an ndarray argument
  read as a tensor is ``___from_numpy(a)`` there, ``___as_tensor(a)`` here;
* a tensor check's failure is in Dynamo's words on both sides (``tensor 'x' size mismatch at
  index 0. expected 3, actual 2``), but Dynamo spells a dtype as its scalar type (``Float``), we
  as the torch dtype;
* guards that state one premise in two ways: Dynamo checks a dict's keys through its length
  (``len(d) == 2``, ``not d`` when empty), ``KeyError on d['a']``, ``list(dict.keys(d))[0] ==
  'a'`` and ``not ___dict_contains('c', d)``, where our one DICT_KEYS_MATCH lists the keys; a
  Counter's value is ``dict.__getitem__(C, list(dict.keys(C))[0]) == 1`` there, ``C['k'] == 1`` here; an
  empty list is ``not LOG`` there, ``len(LOG) == 0`` here; ``not hasattr(o, 'a')`` is our
  ``not ___dict_contains('a', o.__dict__)`` or the same of a class dict on o's MRO (for 'a' or
  for '__getattr__'); a ParameterList's ``_size`` our key list of its
  ``_parameters``; a NaN float ``__math_isnan(s)``, our ``s == nan``; a slice's ``s.stop == 2``
  our ``s == slice(0, 2, None)``; a value object (an enum member, a NumPy dtype) Dynamo guards
  by identity (``___check_obj_id``), we may by equality; an identity or type-identity check is
  the same premise when it names the same object id from the same variable, whatever the path
  (``dict(C.__dict__)['f'].__func__.__code__`` there, ``C.f.__code__`` here: one code object).

A recompile reason is compared per cache entry (Dynamo's ``0/1: ...`` against our entry 1):
the guard Dynamo reports failing must be among the guards of ours that fail for that call
(Dynamo reports the first in its own guard order) -- its source, kind and expected value where
Dynamo states them, and for a tensor check the attribute that changed with the values Dynamo
gives. That our own reason text names the first of ours is checked in test_guard_engine.
"""

from __future__ import annotations

import re
from typing import Any

import torch

# ---- op lists --------------------------------------------------------------------------------------


def normalize_target(gm: torch.fx.GraphModule, node: torch.fx.Node) -> str:
    t = node.target
    if node.op == "call_method":
        return str(t)
    if node.op == "call_module":
        return type(gm.get_submodule(t)).__qualname__
    mod = getattr(t, "__module__", None)
    name = getattr(t, "__name__", None) or repr(t)
    if mod is None:
        objclass = getattr(t, "__objclass__", None)
        mod = objclass.__qualname__ if objclass is not None else "?"
    if mod == "_operator":
        mod = "operator"
    if mod in _NUMPY_INTEROP_MODULES:  # NumPy on torch: Dynamo's wrappers and Standin's, by the op they wrap
        mod = "numpy-on-torch"
    return f"{mod}.{name}"


# Where each side keeps the callables its graphs call for NumPy code (`wrapped_sin`, `numpy_attr_wrapper`):
# both name them after the NumPy function, method or operator they run through torch._numpy.
_NUMPY_INTEROP_MODULES = {"torch._dynamo.utils", "tracer.variables.numpy"}

# Calls Dynamo happens to put into graphs that compute nothing (constructing an
# nn.Module inside the trace logs its API usage): not compared.
_IGNORED_TARGETS = {"torch._C._log_api_usage_once"}

_OPS = ("call_function", "call_method", "call_module")


def op_list(gm: torch.fx.GraphModule, is_module: bool = False) -> list[tuple[str, str, str]]:
    """(op, target, arguments) of each call in the graph, node names normalised (module docstring)."""
    calls = [n for n in gm.graph.nodes if n.op in _OPS and normalize_target(gm, n) not in _IGNORED_TARGETS]
    position = {n: i for i, n in enumerate(calls)}

    def arg(a: Any) -> str:
        if isinstance(a, torch.fx.Node):
            if a in position:
                return f"%op{position[a]}"
            if a.op == "placeholder":
                return "%in:" + _input_kind(a)
            if a.op == "get_attr":
                return f"%attr:{a.target}"
            return f"%{a.op}"  # a call whose target is ignored
        if isinstance(a, (list, tuple)):
            inner = ", ".join(arg(x) for x in a)
            return f"[{inner}]" if isinstance(a, list) else f"({inner})"
        if isinstance(a, dict):
            return "{" + ", ".join(f"{k!r}: {arg(v)}" for k, v in a.items()) + "}"
        if isinstance(a, slice):
            return f"slice({arg(a.start)}, {arg(a.stop)}, {arg(a.step)})"
        return repr(a)

    def args_text(n: torch.fx.Node) -> str:
        parts = [arg(a) for a in n.args] + [f"{k}={arg(v)}" for k, v in sorted(n.kwargs.items())]
        return ", ".join(parts)

    return [(n.op, normalize_target(gm, n), args_text(n)) for n in calls]


def _input_kind(node: torch.fx.Node) -> str:
    """A graph input by what it holds: `f32[3, 4]` (names differ: `L_x_`/`l_x_`, `L_self_`/`L_fn_`,
    `l_args_0_`/`l_input_`, and a tensor reaching a frame under two names is one input in Dynamo)."""
    value = node.meta.get("example_value")
    if isinstance(value, torch.Tensor):
        return f"{str(value.dtype).removeprefix('torch.')}{list(value.shape)}"
    return type(value).__name__


def op_list_problems(where: str, tracer_gm, dynamo_gm, is_module: bool = False) -> list[str]:
    ours, theirs = op_list(tracer_gm, is_module), op_list(dynamo_gm, is_module)
    if ours == theirs:
        return []
    lines = [f"{where}: op list differs"]
    for k in range(max(len(ours), len(theirs))):
        a = ours[k] if k < len(ours) else None
        b = theirs[k] if k < len(theirs) else None
        mark = "  " if a == b else "!="
        lines.append(f"      {mark} %op{k}  tracer: {_op_text(a)}\n               dynamo: {_op_text(b)}")
    return ["\n".join(lines)]


def _op_text(op) -> str:
    return "-" if op is None else f"{op[0]} {op[1]}({op[2]})"


# ---- recompile reasons -------------------------------------------------------------------------------

_ENTRY = re.compile(r"(?:^|;\s+)(\d+)/(\d+):\s+")


def per_entry(text: str) -> dict[int, str]:
    """'0/1: a; 0/0: b' -> {1: 'a', 0: 'b'} (the failure of each cache entry, by its index)."""
    out: dict[int, str] = {}
    marks = list(_ENTRY.finditer(text))
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(text)
        out.setdefault(int(m.group(2)), text[m.end():end].strip())
    return out


def failing_guards(opt, args: tuple, kwargs: dict) -> dict[int, list[str]]:
    """Every guard of each of our cache entries that fails for this call, in the words our recompile
    reason uses: Dynamo reports the first failure in its own guard order, so its guard must be among ours.
    A guard listed fails in the generated check as well (alone): the slow path that words a failure must
    not name one that holds."""
    from tracer.guards.compiled import GuardSet, failure_text
    args, kwargs = opt.partial_args + tuple(args), {**opt.partial_keywords, **kwargs}  # a compiled partial
    f_locals = opt.bind(args, kwargs)
    if f_locals is None:
        return {}
    f_globals = opt.fn.__globals__
    out: dict[int, list[str]] = {}
    for k, entry in enumerate(opt.cache_entries):
        texts = [(guard, failure_text(guard, f_locals, f_globals)) for guard in entry.guards]
        out[k] = [text for guard, text in texts
                  if text is not None and not GuardSet([guard]).python_check(f_locals, f_globals)]
    return out


def _normalise(text: str) -> str:
    """Spellings of one source that differ between the two engines (module docstring)."""
    text = re.sub(r"\bL\['([A-Za-z_]\w*)'\]", r"\1", text)  # ours names locals L['x']; Dynamo bare
    text = re.sub(r"\bdict\((.+?)\.__dict__\)\['(\w+)'\]", r"\1.\2", text)  # a class attribute read
    text = re.sub(r"\.__dict__\['(\w+)'\]", r".\1", text)  # ... as we spell it: X.__mro__[1].__dict__['f']
    text = text.replace("___from_numpy(", "___as_tensor(")  # an ndarray argument seen as a tensor
    text = re.sub(r"\bG\['__builtins_dict___\d+'\]", "G['__builtins_dict___0']", text)  # Dynamo counts per process
    text = re.sub(r"\.? Guard failed on a parameter, consider .*$", "", text)  # Dynamo's hint after a parameter's
    while True:  # X.__class__ is type(X)
        new = re.sub(r"((?:[GL]\['[^']+'\]|\b[A-Za-z_]\w*)(?:\.\w+|\[[^\]]*\])*)\.__class__", r"type(\1)", text)
        if new == text:
            return text
        text = new


def _module_fn_is_self(text: str) -> str:
    """Dynamo compiles a module through a wrapper whose local `fn` is the module: our `self`."""
    return re.sub(r"(?<![\w.'\"\[])fn(?=[.\[' ]|$)", "self", text)


_TENSOR = re.compile(r"tensor '(?P<name>.+?)' (?P<attr>size|stride|dtype|rank|requires_grad|device index|"
                     r"dispatch key set) mismatch(?: at index (?P<index>\d+))?\.\s*(?:expected|Expected)"
                     r"\s*(?P<expected>[^,]*?)(?:,\s*actual\s*(?P<actual>.*))?$")
_NOT_A_TENSOR = re.compile(r"expected type of '(?P<name>.+?)' to be a tensor type, ' but found (?P<found>.*)$")
_OURS_TENSOR = re.compile(r"^check_tensor\((?P<name>.+?), \w+, .*?\), got (?P<got>.*)$")  # not a tensor now
_OURS_MISMATCH = re.compile(r"^tensor '(?P<name>.+?)' (?P<attr>type|size|stride|dtype|rank|requires_grad|device|"
                            r"dispatch key set) mismatch(?: at index (?P<index>\d+))?\.\s*expected\s*"
                            r"(?P<expected>[^,]*?)(?:,\s*actual\s*(?P<actual>.*))?$")
_SCALAR_TYPE = {"Float": torch.float32, "Double": torch.float64, "Half": torch.float16,
                "BFloat16": torch.bfloat16, "Long": torch.int64, "Int": torch.int32, "Short": torch.int16,
                "Char": torch.int8, "Byte": torch.uint8, "Bool": torch.bool, "ComplexFloat": torch.complex64,
                "ComplexDouble": torch.complex128}


def _name_set(names: str) -> set[str]:
    """'"a", "xs[1]"' or 'a, xs[1]' -> {'a', 'xs[1]'}."""
    return {name.strip().strip('"') for name in names.split(",")}


def _our_keys(ours: str, source: str) -> list | None:
    """The keys our DICT_KEYS_MATCH on `source` expected, if `ours` is that guard failing."""
    m = re.match(rf"list\({re.escape(source)}\.keys\(\)\) == (\[.*?\]), got keys", ours)
    return _literal(m[1]) if m else None


def _literal(text: str):
    import ast
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None


def _root(source: str) -> str:
    """The variable a source starts from: `G['cfg']` of `type(G['cfg']).__mro__[1].f`, `x` of `x.a`."""
    m = re.search(r"[GL]\['[^']+'\]|\b[A-Za-z_]\w*", re.sub(r"^(?:type\()+", "", source))
    return m[0] if m else source


def states(dynamo: str, ours: str) -> bool:
    """Whether our failing guard `ours` is the premise Dynamo's failure text `dynamo` states."""
    dynamo, ours = _normalise(dynamo), _normalise(ours)
    if m := _TENSOR.match(dynamo):
        return _tensor_problem(m, ours) is None
    if m := _NOT_A_TENSOR.match(dynamo):
        o = _OURS_TENSOR.match(ours)
        return bool(o and o["name"] == m["name"] and o["got"] is not None)
    if dynamo.startswith("GLOBAL_STATE changed:"):
        from tracer.guards.kinds import GLOBAL_STATE_READERS
        covered = {name for name, _ in GLOBAL_STATE_READERS}
        switches = [s for s in dynamo.split(":", 1)[1].split() if s in covered]
        return ours.startswith("___check_global_state()") and all(re.search(rf"\b{s}=", ours) for s in switches)
    claim = dynamo.split("  #")[0].strip()
    if m := re.fullmatch(r"Duplicate tensors found: \[(?P<names>.*)\]", claim):  # NO_TENSOR_ALIASING
        o = re.search(r"Duplicate tensors found: \[(?P<names>.*)\]$", ours)
        return bool(o) and _name_set(o["names"]) == _name_set(m["names"])
    if m := re.fullmatch(r"not (?P<s>.+)", claim):  # an empty list or dict
        if ours.startswith(f"len({m['s']}) == 0,") or _our_keys(ours, m["s"]) == []:
            return True
    if m := re.fullmatch(r"len\((?P<s>.+)\) (?:==|!=) (?P<n>\d+)", claim):  # Dynamo checks a dict's length first
        keys = _our_keys(ours, m["s"])
        if (keys is not None and len(keys) == int(m["n"])) or ours.startswith(f"len({m['s']}) == {m['n']},"):
            return True  # a dict keyed by tensors: its length guarded, its keys one by one
    if m := re.fullmatch(r"KeyError on (?P<s>.+)\[(?P<k>'[^']*'|\d+)\]", claim):
        keys = _our_keys(ours, m["s"])
        if (keys is not None and _literal(m["k"]) in keys) or ours.startswith(f"{m['s']}[{m['k']}]: cannot be read"):
            return True
    if m := re.fullmatch(r"list\(dict\.keys\((?P<s>.+)\)\)\[(?P<i>\d+)\] == (?P<k>.+)", claim):
        keys = _our_keys(ours, m["s"])
        if keys is not None and int(m["i"]) < len(keys) and keys[int(m["i"])] == _literal(m["k"]):
            return True
    if m := re.fullmatch(r"dict\.__getitem__\((?P<s>.+), list\(dict\.keys\((?P=s)\)\)\[\d+\]\) == (?P<v>.+)", claim):
        # a Counter's value, reached by its key's position there (as any dict subclass's), by its key here
        if re.match(rf"{re.escape(m['s'])}\[(?:'[^']*'|\d+)\] == {re.escape(m['v'])},", ours):
            return True
    if m := re.fullmatch(r"set\.__contains__\((?P<s>.+), (?P<k>.+)\)", claim):  # an item of a set subclass
        if ours.startswith(f"___dict_contains({m['k']}, {m['s']})"):
            return True
    if m := re.fullmatch(r"not ___dict_contains\((?P<k>.+?), (?P<s>.+)\)", claim):
        keys = _our_keys(ours, m["s"])
        if keys is not None and _literal(m["k"]) not in keys:
            return True
    if m := re.fullmatch(r"not hasattr\((?P<s>.+), (?P<k>'\w+')\)", claim):  # we read the instance's __dict__
        if ours.startswith(f"not ___dict_contains({m['k']}, {m['s']}.__dict__)"):
            return True
        # ... and the class dicts along its MRO, for the name and for a __getattr__ that would answer it
        mro = rf"(?:type\({re.escape(m['s'])}\)|{re.escape(m['s'])})\.__mro__\[\d+\]\.__dict__"
        if re.match(rf"not ___dict_contains\((?:{re.escape(m['k'])}|'__getattr__'), {mro}\)", ours):
            return True
    if m := re.fullmatch(r"(?P<s>.+)\._size == (?P<n>\d+)", claim):  # a ParameterList / ModuleList's length
        for part in ("_parameters", "_modules"):
            keys = _our_keys(ours, f"{m['s']}.{part}")
            if keys is not None and len(keys) == int(m["n"]):
                return True
    if m := re.fullmatch(r"\(type\((?P<s>.+)\) is float and __math_isnan\((?P=s)\)\)", claim):
        return ours.startswith(f"{m['s']} == nan,")
    if m := re.fullmatch(r"(?P<s>.+)\.(?P<a>start|stop|step) == (?P<v>.+)", claim):  # we guard the whole slice
        o = re.match(rf"{re.escape(m['s'])} == slice\((.*?)\), got", ours)
        if o and str(_literal(f"({o[1]})")[("start", "stop", "step").index(m["a"])]) == m["v"]:
            return True
    if m := re.match(r"(___check_obj_id|___check_type_id)\((?P<s>.+?), (?P<id>\d+)\)", claim):
        o = re.match(r"(___check_obj_id|___check_type_id)\((?P<s>.+?), (?P<id>\d+)\)", ours)
        if o and (o[1], o["id"], _root(o["s"])) == (m[1], m["id"], _root(m["s"])):
            return True  # the same object (one process: one id), reached from the same variable
        # a value object (an enum member, a NumPy dtype, finfo) Dynamo guards by identity, we by equality
        return m[1] == "___check_obj_id" and ours.startswith(f"{m['s']} == ")
    return claim in ours


def _tensor_problem(m: re.Match, ours: str) -> str | None:
    """None if our tensor mismatch (in Dynamo's words, our dtype spelled torch.float32) is Dynamo's."""
    o = _OURS_MISMATCH.match(ours)
    if o is None:
        return f"not a tensor metadata failure of {m['name']}"
    if o["name"] != m["name"]:
        return f"names tensor {o['name']}, Dynamo {m['name']}"
    attr = {"device index": "device"}.get(m["attr"], m["attr"])
    if o["attr"] != attr:
        return f"says {o['attr']} mismatch, Dynamo {m['attr']} mismatch"
    want = (m["index"], m["expected"].strip(), (m["actual"] or "").strip())
    got = (o["index"], o["expected"].strip(), (o["actual"] or "").strip())
    if attr == "dtype":
        want = (None, *(str(_SCALAR_TYPE.get(t)) for t in want[1:]))
    if attr in ("device", "dispatch key set"):  # spelled differently: the attribute is the premise
        return None
    return None if got == want else f"{attr} index/expected/actual {got}, Dynamo {want}"


def reason_problems(where: str, dynamo_reasons: list[str], failing: dict[int, list[str]],
                    tracer_reasons: list[str], is_module: bool = False) -> list[str]:
    """For each cache entry whose guard failure Dynamo reports, that guard must be among the guards
    of ours that fail for the same entry (`failing`, see failing_guards), and our recompile reason
    must state the first of ours, with the value now."""
    theirs: dict[int, str] = {}
    for r in dynamo_reasons:
        for k, text in per_entry(r).items():
            theirs.setdefault(k, text)
    said: dict[int, str] = {}
    for r in tracer_reasons:  # "recompile: 0/1: ...; 0/0: ..."
        for k, text in per_entry(r.split(": ", 1)[1] if ": " in r else r).items():
            said.setdefault(k, text.split("  # ")[0])
    out = []
    for k, text in sorted(theirs.items()):
        claim = _module_fn_is_self(text) if is_module else text
        ours = failing.get(k, [])
        if not any(states(claim, t) for t in ours):
            out.append(f"{where}: entry {k}: Dynamo's failing guard {text!r} is not among ours that fail: {ours}")
        elif said.get(k) != ours[0]:
            out.append(f"{where}: entry {k}: our recompile reason says {said.get(k)!r}, "
                       f"the first of our guards that fail is {ours[0]!r}")
    return out
