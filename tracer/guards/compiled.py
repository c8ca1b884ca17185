"""The compiled guard set of a cache entry: a tree by shared source prefix, as code.

Guards are grouped by the Source chain they read (`G['cfg']` -> `.scale`,
`.shift`), so every accessor runs once per check and each leaf is specialised
to its kind.  The tree is emitted as one generated Python function — the
fastest form plain Python offers — and that function is what runs on every
call when no native tree is attached.  With one (`attach_native`, guards/native.py:
torch's C guard manager over the same guards, which the frame hook's cache lookup
runs), `check` asks the native tree.  When it fails, `first_failure` walks the
guards in order to say which premise broke and what the value is now.
"""
from __future__ import annotations

import itertools
import math

import torch

from ..source import SOURCE_NAMESPACE
from .kinds import Guard, actual_text, check_one, kind_of, leaf_test, tensor_mismatch


class GuardSet:
    """All guards of one cache entry, compiled into one check function."""

    def __init__(self, guards: list[Guard]):
        self.guards: tuple[Guard, ...] = tuple(guards)
        self.python_check = _compile(self.guards)
        self.native = None  # NativeGuards, once attached

    def attach_native(self, code, f_locals: dict, f_globals: dict):
        """Build torch's native guard tree from the frame these guards were made on (its values at
        compile time); None, and the Python check stays, if torch cannot hold one of them."""
        from .native import NativeGuards  # cycle: .native -> .compiled
        try:
            self.native = NativeGuards(self.guards, code, f_locals, f_globals)
        except Exception:  # noqa: BLE001 - a guard torch's tree cannot take: the generated Python check answers
            self.native = None
        return self.native

    def check(self, f_locals: dict, f_globals: dict) -> bool:
        """Do all guards hold for a frame with these locals and globals?"""
        native = self.native
        if native is not None and f_globals is native.f_globals:
            return native.probe(f_locals)
        return self.python_check(f_locals, f_globals)

    def __len__(self) -> int:
        return len(self.guards)

    def __iter__(self):
        return iter(self.guards)

    def first_failure(self, f_locals: dict, f_globals: dict) -> str | None:
        """Text of the first guard that fails, with the actual value; None if all pass."""
        for guard in self.guards:
            failure = failure_text(guard, f_locals, f_globals)
            if failure is not None:
                unreadable = failure.startswith(f"{guard.source_name}: cannot be read")  # the path, not the check
                where = f"  # {guard.installed_at}" if guard.installed_at and not unreadable else ""
                return f"{failure}{where}"
        native = self.native
        parts = native.failing_parts(f_locals) if native is not None and f_globals is native.f_globals else []
        if parts:
            return f"{parts[0]}, failed in torch's native check (which also compares a tensor's dispatch " \
                   "keys and more global state)"
        return None


def failure_text(guard: Guard, f_locals: dict, f_globals: dict) -> str | None:
    """Why `guard` fails for this frame, with the value now (a tensor's in Dynamo's words:
    `tensor 'x' size mismatch at index 0. expected 3, actual 2`), or None if it holds."""
    if kind_of(guard).reads_frame:
        return shape_failure(guard, f_locals, f_globals)
    try:
        value = None if guard.source is None else guard.source.get_value(f_locals, f_globals)
    except Exception as error:  # noqa: BLE001 - the path itself is gone: that is the failure
        return f"{guard.source_name}: cannot be read ({type(error).__name__}: {error})"
    try:
        ok = check_one(guard, value)
    except Exception:  # noqa: BLE001 - a check that raises on the value fails the guard
        ok = False
    if ok:
        return None
    if guard.kind == "TENSOR_MATCH" and isinstance(value, torch.Tensor):
        return tensor_mismatch(guard.source_name, guard.expected, value)
    return f"{guard.expr}, {actual_text(guard, value)}"


def shape_failure(guard: Guard, f_locals: dict, f_globals: dict) -> str | None:
    """`2 <= L['x'].size()[0] <= 4, got L['x'].size()[0] = 6`, or None if it holds."""
    check = guard.expected
    try:
        if check.holds(f_locals, f_globals):
            return None
    except Exception as error:  # noqa: BLE001 - an expression that raises fails, and says why
        return f"{check.text}, cannot be evaluated ({type(error).__name__}: {error})"
    values = []
    for term in check.terms:
        try:
            values.append(f"{term} = {_fetch(term, f_locals, f_globals)}")
        except Exception:  # noqa: BLE001 - a term that cannot be read is named as such
            values.append(f"{term} cannot be read")
    return f"{check.text}, got {', '.join(values) or 'False'}"


def _fetch(expression: str, f_locals: dict, f_globals: dict):
    return eval(expression, {**SOURCE_NAMESPACE}, {"L": f_locals, "G": f_globals})


class _Node:
    """One Source in the tree: its guards and the sources read from it."""

    def __init__(self, source):
        self.source = source
        self.guards: list[Guard] = []
        self.children: dict[str, "_Node"] = {}


def build_tree(guards) -> tuple[list[Guard], dict[str, _Node]]:
    """(global-state guards, roots by name): guards grouped under their Source chain."""
    state, roots = [], {}
    for guard in guards:
        if guard.source is None:
            state.append(guard)
            continue
        chain = guard.source.chain()
        level, node = roots, None
        for source in chain:
            key = source.name()
            if key not in level:
                level[key] = _Node(source)
            node = level[key]
            level = node.children
        node.guards.append(guard)
    return state, roots


def _compile(guards: tuple[Guard, ...]):
    """Generate `check(L, G) -> bool`: each accessor once, leaves specialised, in tree order."""
    consts: dict[str, object] = {}
    lines: list[str] = []
    counter = itertools.count()

    def const(value) -> str:
        name = f"_c{next(counter)}"
        consts[name] = value
        return name

    shape_guards = [g for g in guards if kind_of(g).reads_frame]  # read several sources: after the tree
    state, roots = build_tree([g for g in guards if not kind_of(g).reads_frame])
    for guard in state:
        lines.append(f"if not ({leaf_test(guard, None, const)}): return False")

    variables = itertools.count()

    def emit(node: _Node, base_var: str | None) -> None:
        var = f"_v{next(variables)}"
        lines.append(f"{var} = {node.source.accessor(base_var)}")
        # cheap identity and type checks first, tensor metadata last
        for guard in sorted(node.guards, key=lambda g: g.kind == "TENSOR_MATCH"):
            lines.append(f"if not ({leaf_test(guard, var, const)}): return False")
        for child in node.children.values():
            emit(child, var)

    for root in roots.values():
        emit(root, None)
    for guard in shape_guards:
        lines.append(f"if not ({leaf_test(guard, None, const)}): return False")
    body = "\n        ".join(lines) or "pass"
    src = (
        "def check(L, G):\n"
        "    try:\n"
        f"        {body}\n"
        "    except Exception:\n"
        "        return False\n"
        "    return True\n"
    )
    namespace = dict(consts)
    namespace.update(SOURCE_NAMESPACE)
    namespace.update(math=math, torch=torch)  # the ShapeEnv's guards may call math.isnan, torch.sym_*
    exec(compile(src, "<guards>", "exec"), namespace)
    check = namespace["check"]
    check.source_code = src
    return check
