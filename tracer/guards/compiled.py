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


from ..source import SOURCE_NAMESPACE
from .kinds import Guard, actual_text, check_one, leaf_test


class GuardSet:
    """All guards of one cache entry, compiled into one check function."""

    def __init__(self, guards: list[Guard]):
        self.guards: tuple[Guard, ...] = tuple(guards)
        self.python_check = _compile(self.guards)
        self.native = None  # NativeGuards, once attached

    def attach_native(self, code, f_locals: dict, f_globals: dict):
        """Build torch's native guard tree from the frame these guards were made on (its values at
        compile time); None, and the Python check stays, if torch cannot hold one of them."""
        from .native import NativeGuards
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
            try:
                value = None if guard.source is None else guard.source.get_value(f_locals, f_globals)
            except Exception as error:  # noqa: BLE001 - the path itself is gone: that is the failure
                return f"{guard.source_name}: cannot be read ({type(error).__name__}: {error})"
            try:
                ok = check_one(guard, value)
            except Exception:  # noqa: BLE001 - a check that raises on the value fails the guard
                ok = False
            if not ok:
                where = f"  # {guard.installed_at}" if guard.installed_at else ""
                return f"{guard.expr}, {actual_text(guard, value)}{where}"
        native = self.native
        parts = native.failing_parts(f_locals) if native is not None and f_globals is native.f_globals else []
        if parts:
            return f"{parts[0]}, failed in torch's native check (which also compares a tensor's dispatch " \
                   "keys and more global state)"
        return None


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

    state, roots = build_tree(guards)
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
    exec(compile(src, "<guards>", "exec"), namespace)
    check = namespace["check"]
    check.source_code = src
    return check
